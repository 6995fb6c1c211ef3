"""The multi-turn agent: a policy model and a user model take turns; the env scores the end.

Models are real OpenAI-compatible servers on 127.0.0.1: the family's expert
(:class:`ExpertChatServer`) as the policy, and as the opponent in tic-tac-toe; the scripted
user where the user does not need a model; the local SmolLM2 model as an LLM user."""

from __future__ import annotations

import pytest
from conftest import AgentServerProcess, FailingModel

from agentgym_envs.agents import ChatUser, ExpertChatServer, MultiTurnAgent, ScriptedUser
from agentgym_envs.agents.personas import HIDDEN, STOP_TOKEN
from agentgym_envs.benchmarks import ChatClient

TTT = "AgentGym/TicTacToe-v0"
FAMILIES = ["AgentGym/Movie-v0", "AgentGym/Weather-v0", "AgentGym/WebShop-v0", "AgentGym/BIRD-v0"]


@pytest.fixture(scope="module")
def policy():
    with ExpertChatServer([TTT, *FAMILIES]) as server:
        yield server


@pytest.fixture(scope="module")
def opponent():
    with ExpertChatServer([TTT]) as server:
        yield server


@pytest.mark.parametrize("task_id", [0, 1, 2, 3])
def test_tictactoe_between_two_models(policy, opponent, task_id):
    user = ChatUser(ChatClient(opponent.base_url))
    agent = MultiTurnAgent(ChatClient(policy.base_url), user)
    record = agent.run(TTT, task_id=task_id)
    # two perfect players draw, whoever opens; the draw is the policy's success
    assert record["reward"] == 0.5 and record["outcome"] == "success" and record["reward_valid"]
    assert record["user_tokens"]["completion_tokens"] > 0 and record["tokens"]["prompt_tokens"] > 0
    roles = [m["role"] for m in record["messages"][1:]]
    # one move per turn: the user speaks, the policy moves (a call and its result), ...
    assert roles[:4] == ["user", "assistant", "tool", "user"]
    assert record["turns"] == record["user_turns"] == 5 - task_id % 2  # X opens: 5 moves
    assert record["messages"][-1]["content"].endswith(STOP_TOKEN)
    user_moves = [
        m["content"] for m in record["messages"] if m["content"] and "I played" in m["content"]
    ]
    assert len(user_moves) >= 3


def test_tictactoe_scripted_user_is_the_built_in_opponent(policy):
    agent = MultiTurnAgent(ChatClient(policy.base_url))  # no user model: the scripted user
    records = [agent.run(TTT, task_id=t) for t in range(4)]
    assert all(r["success"] and r["reward"] >= 0.5 for r in records)
    assert any(r["reward"] == 1.0 for r in records)  # the scripted opponent can be beaten
    assert all(r["user_tokens"] == {"prompt_tokens": 0, "completion_tokens": 0} for r in records)


@pytest.mark.parametrize("env_id", FAMILIES)
def test_families_with_a_scripted_user_reveal_the_task_in_parts(policy, env_id):
    agent = MultiTurnAgent(ChatClient(policy.base_url), max_steps_per_turn=2, tag_requests=True)
    record = agent.run(env_id, task_id=1)
    assert record["reward"] == 1.0 and record["success"] and record["outcome"] == "success"
    said = [m["content"] for m in record["messages"] if m["role"] == "user"]
    # BIRD's expert submits at once: the clarification is never needed
    assert said[-1].endswith(STOP_TOKEN) and record["user_turns"] >= (1 if "BIRD" in env_id else 2)
    system = record["messages"][0]["content"]
    assert HIDDEN in system  # the policy saw the env without the goal


@pytest.mark.parametrize("env_id", FAMILIES)
def test_personas_split_the_goal_per_family(env_id):
    import agentgym_envs
    from agentgym_envs.agents import persona_for

    env = agentgym_envs.make(env_id)
    obs, info = env.reset(seed=0, options={"task_id": 1, "split": "test"})
    persona = persona_for(env, obs, info)
    env.close()
    assert len(persona.parts) == 2 and persona.parts[0] != persona.goal
    assert STOP_TOKEN in persona.system and STOP_TOKEN in persona.closing
    assert persona.goal not in persona.policy_view and HIDDEN in persona.policy_view
    if "BIRD" in env_id:
        assert persona.parts[1].startswith("To clarify:")
    if "WebShop" in env_id:
        assert persona.goal not in persona.parts[0] and persona.goal in persona.parts[1]


def test_the_goal_comes_from_the_user_not_the_env(policy):
    import agentgym_envs

    env = agentgym_envs.make("AgentGym/WebShop-v0")
    env.reset(seed=0, options={"task_id": 1, "split": "test"})
    goal = env.unwrapped.task.goal.instruction_text
    env.close()
    agent = MultiTurnAgent(ChatClient(policy.base_url), max_steps_per_turn=2, tag_requests=True)
    record = agent.run("AgentGym/WebShop-v0", task_id=1)
    messages = record["messages"]
    first_reveal = next(
        i for i, m in enumerate(messages) if m["role"] == "user" and goal in m["content"]
    )
    assert first_reveal > 1  # asked for first; the instruction came in a later user turn
    assert all(goal not in str(m["content"]) for m in messages[:first_reveal])


def test_turn_limit_and_stop_token_options(policy):
    agent = MultiTurnAgent(
        ChatClient(policy.base_url), max_turns=1, max_steps_per_turn=1, tag_requests=True
    )
    record = agent.run("AgentGym/Movie-v0", task_id=2)
    assert record["outcome"] == "turn_limit" and record["reward"] == 0.0
    assert record["reward_valid"] and record["turns"] == 1 and record["user_turns"] == 1
    user = ScriptedUser(stop_token="<done>")
    agent = MultiTurnAgent(
        ChatClient(policy.base_url), user, stop_token="<done>", tag_requests=True
    )
    record = agent.run("AgentGym/Movie-v0", task_id=2)
    assert record["success"] and record["messages"][-1]["content"].endswith("<done>")


def test_a_policy_model_failing_mid_conversation_is_env_error(policy):
    failing = FailingModel(policy.base_url, good=2)
    try:
        agent = MultiTurnAgent(ChatClient(failing.base_url, max_retries=0), tag_requests=True)
        record = agent.run("AgentGym/Movie-v0", task_id=2)
    finally:
        failing.close()
    assert record["outcome"] == "env_error" and record["reward_valid"] is False
    assert "crashed" in record["error"] and record["turns"] == 2


def test_tictactoe_two_models_through_the_agent_server(policy, opponent):
    server = AgentServerProcess(
        "multiturn-user",
        "--model-url",
        policy.base_url,
        "--allow-model-url",
        f"opponent={opponent.base_url}",
    )
    try:
        import httpx

        row = {
            "env_id": "TicTacToe-v0",
            "task_id": 0,
            "user_model": {"base_url": opponent.base_url},
        }
        answer = httpx.post(server.url + "/run", json=row, timeout=300).json()
        scripted = httpx.post(
            server.url + "/run", json={"env_id": "TicTacToe-v0", "task_id": 0}, timeout=300
        ).json()
    finally:
        server.stop()
    assert answer["agent"] == "multiturn-user" and answer["reward"] == 0.5
    assert answer["user_tokens"]["completion_tokens"] > 0
    assert scripted["reward"] == 1.0 and scripted["outcome"] == "success"


def test_an_llm_user_on_the_local_model(local_llm, policy):
    client = ChatClient(local_llm.base_url, timeout=120)
    client.sampling.max_tokens = 48
    agent = MultiTurnAgent(
        ChatClient(policy.base_url), ChatUser(client), max_turns=3, tag_requests=True
    )
    record = agent.run("AgentGym/Movie-v0", task_id=2)
    assert record["user_tokens"]["completion_tokens"] > 0
    assert record["messages"][1]["role"] == "user" and record["messages"][1]["content"]
    assert record["outcome"] in ("success", "failure", "turn_limit") and record["reward_valid"]


def test_bench_plays_the_multi_turn_agent(tmp_path):
    from typer.testing import CliRunner

    from agentgym_envs.cli import app

    out = tmp_path / "run"
    argv = ["bench", "--no-progress", "--policy", "agent:multiturn-user", "--model-source"]
    argv += ["expert", "--envs", "Movie-v0,TicTacToe-v0", "--limit", "2", "--out", str(out)]
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    summary = (out / "summary.md").read_text()
    assert "| AgentGym/Movie-v0 | 2 | 1.000 | 100.0% |" in summary
    assert "| AgentGym/TicTacToe-v0 | 2 |" in summary and "100.0%" in summary
