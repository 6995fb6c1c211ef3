"""AgentGym's conversation starts, read from a user's AgentTraj file or AgentGym checkout.

The prompt files here are written by the tests, with made-up prose in AgentGym's formats.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

import agentgym_envs  # noqa: F401  (registers the ids)
from agentgym_envs import make_llm_env
from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import family_record
from agentgym_envs.wrappers import ChatHistory, ReAct, RecordTrajectory
from agentgym_envs.wrappers.prompts import agentgym_start
from agentgym_envs.wrappers.react import PROMPTS_SOURCE_ENV
from tests.wrappers.fakes import CounterEnv

ACK = "Sure, ready when you are."
MAZE_RULES = "Rules of the made-up maze.\nMove well."


def _record(item_id: str, instruction: str, first: str) -> dict:
    return {
        "item_id": item_id,
        "conversations": [
            {"from": "human", "loss": None, "value": instruction},
            {"from": "gpt", "loss": False, "value": ACK},
            {"from": "human", "loss": None, "value": first},
            {"from": "gpt", "loss": True, "value": "Thought: x\nAction: move up"},
        ],
    }


@pytest.fixture
def agenttraj(tmp_path: Path) -> Path:
    path = tmp_path / "traj.jsonl"
    records = [
        _record("lmrlgym_maze_3", "Invented maze instruction.", MAZE_RULES + "\nThe goal is ..."),
        _record("babyai_7", "Invented BabyAI instruction.", "Your goal: ..."),
        _record(
            "lmrlgym_wordle_1", "Invented wordle instruction.", "Guess! Words:\n{{vocab}}\nGo."
        ),
    ]
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


CLIENT_MODULE = '''
from agentenv.controller import BaseEnvClient


class MazeEnvClient(BaseEnvClient):
    conversation_start = (
        ConversationMessage({"from": "human", "loss": None, "value": "Checkout maze start."}),
        ConversationMessage({"from": "gpt", "loss": False, "value": "Fine."}),
    )
    _fully_first_observation = """
Checkout rules line one.
Line two.
""".strip()


class WordleEnvClient(BaseEnvClient):
    conversation_start = (
        ConversationMessage({"from": "human", "loss": None, "value": "Checkout " + "wordle."}),
        ConversationMessage({"from": "gpt", "loss": False, "value": "Fine."}),
    )
    first_observation = """Vocabulary:
{{vocab}}
Good luck.""".strip()
'''

ADAPTER_MODULE = """
class AlfWorldAdapter(BaseAdapter):
    conversation_start_dict = {
        ActionFormat.REACT: (
            ConversationMessage({"from": "human", "loss": None, "value": "Checkout household."}),
            ConversationMessage({"from": "gpt", "loss": False, "value": "Fine."}),
        ),
        ActionFormat.FUNCTION_CALLING: (
            ConversationMessage({"from": "human", "loss": None, "value": f"{unknown()}"}),
            ConversationMessage({"from": "gpt", "loss": False, "value": "Ok."}),
        ),
    }


class AlfWorldEnvClient(BaseEnvClient):
    adapter_cls = AlfWorldAdapter
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    envs = tmp_path / "AgentGym" / "agentenv" / "agentenv" / "envs"
    envs.mkdir(parents=True)
    (envs / "__init__.py").write_text("", encoding="utf-8")
    (envs / "lmrlgym.py").write_text(CLIENT_MODULE, encoding="utf-8")
    (envs / "alfworld.py").write_text(textwrap.dedent(ADAPTER_MODULE), encoding="utf-8")
    (envs / "babyai.py").write_text("import this_module_must_not_be_imported\n", encoding="utf-8")
    return tmp_path / "AgentGym"


def test_agenttraj_start_and_maze_first_turn(agenttraj: Path) -> None:
    env = ChatHistory(
        ReAct(gym.make("AgentGym/Maze-v0"), prompts="agentgym", prompts_source=agenttraj),
        instructions_role="user",
    )
    obs, info = env.reset(options={"split": "test", "task_id": 0})
    assert info["prompt_set"] == "agentgym" and info["ack"] == ACK
    assert info["instructions"] == "Invented maze instruction."
    assert info["first_turn"] == f"{MAZE_RULES}\n{info['env_observation']}"
    assert obs == f"Invented maze instruction.\n\n{info['first_turn']}"
    assert [m["content"] for m in info["messages"]] == [
        "Invented maze instruction.",
        ACK,
        info["first_turn"],
    ]


def test_checkout_read_with_ast_never_imported(checkout: Path) -> None:
    start = agentgym_start(family_record("maze"), checkout)
    assert (start.instruction, start.ack) == ("Checkout maze start.", "Fine.")
    assert start.first_observation == "Checkout rules line one.\nLine two."
    wordle = agentgym_start(family_record("wordle"), checkout / "agentenv")
    assert wordle.instruction == "Checkout wordle."
    alf = agentgym_start(family_record("alfworld"), checkout)
    assert alf.instruction == "Checkout household." and alf.prompt_set == "agentgym"


def test_wordle_first_turn_inlines_the_served_vocabulary(checkout: Path) -> None:
    env = make_llm_env("Wordle-v0", prompts="agentgym", prompts_source=checkout)
    _, info = env.reset(options={"split": "test", "task_id": 0})
    vocab = env.unwrapped.filtered_vocab
    assert info["first_turn"] == "Vocabulary:\n" + "\n".join(vocab) + "\nGood luck."


def test_missing_family_and_bad_sources_are_one_line_errors(
    agenttraj: Path, checkout: Path, tmp_path: Path
) -> None:
    with pytest.raises(BadDataError, match="no TextCraft record"):
        agentgym_start(family_record("textcraft"), agenttraj)
    with pytest.raises(BadDataError, match="not found"):
        agentgym_start(family_record("babyai"), tmp_path / "nowhere.json")
    with pytest.raises(BadDataError, match="textcraft.py not found"):
        agentgym_start(family_record("textcraft"), checkout)
    with pytest.raises(ValueError, match="prompts_source"):
        ReAct(gym.make("AgentGym/Maze-v0"), prompts="agentgym")
    with pytest.raises(ValueError, match="'theirs'"):
        ReAct(gym.make("AgentGym/Maze-v0"), prompts="theirs")
    with pytest.raises(ValueError, match="format='react'"):
        make_llm_env("Maze-v0", format="tools", prompts="agentgym", prompts_source=agenttraj)
    with pytest.raises(ValueError, match="no AgentGym family"):
        ReAct(CounterEnv(), prompts="agentgym", prompts_source=agenttraj)


def test_source_from_environment_variable(agenttraj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROMPTS_SOURCE_ENV, str(agenttraj))
    _, info = ReAct(gym.make("AgentGym/Maze-v0"), prompts="agentgym").reset(
        options={"split": "test", "task_id": 0}
    )
    assert info["instructions"] == "Invented maze instruction."


def test_our_prompts_say_they_are_ours_and_records_carry_the_set(
    agenttraj: Path, tmp_path: Path
) -> None:
    _, info = ReAct(gym.make("AgentGym/Maze-v0")).reset(options={"split": "test", "task_id": 0})
    assert info["prompt_set"] == "ours" and info["ack"] == "Ok."
    assert info["first_turn"] == info["env_observation"]
    path = tmp_path / "rec.jsonl"
    env = RecordTrajectory(
        ReAct(gym.make("AgentGym/Maze-v0"), prompts="agentgym", prompts_source=agenttraj), path
    )
    env.reset(options={"split": "test", "task_id": 0})
    env.step("Action: move up")
    while env.last_record is None:
        env.step("Action: move left")
    record = env.last_record
    assert record["prompt_set"] == "agentgym"
    assert record["conversations"][1] == {"from": "gpt", "loss": False, "value": ACK}
    assert record["conversations"][2]["value"].startswith(MAZE_RULES)
