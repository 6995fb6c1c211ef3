"""Every family, driven over a real server with the requests AgentGym's client class sends.

Each entry of ``CLIENTS`` writes down, from ``agentenv/agentenv/envs/<family>.py`` (AgentGym
3ef9235), what that client posts to ``/create`` and ``/reset``, which key names the session, how
it turns a model reply into the action it sends, how it builds its first observation and which
reply key it reports as the step's reward. The test plays a test task with the family's expert
on a local twin and checks what the client would see: the twin's first observation, the twin's
step observations, and at the end ``done`` with AgentGym's reward (the client's score).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import httpx
import pytest

from agentgym_envs.spec import FAMILIES, expert_policy
from tests.server.conftest import running


def _between_actions(reply: str) -> str:  # Maze/Wordle clients: after the first "Action:"
    parts = reply.split("Action:")
    return (parts[1] if len(parts) > 1 else parts[0]).strip()


def _single_action(reply: str) -> str:  # BabyAI/TextCraft clients
    found = re.findall(r"Action:\s*(.*?)(?=\n|$)", reply, re.DOTALL)
    action = re.sub(r"[^A-Za-z0-9, ]+", "", found[-1] if found else "")
    return " ".join(action.split()).strip()


def _last_action(reply: str) -> str:  # ReAct adapters (ALFWorld, SciWorld, WebShop)
    return reply.rsplit("Action:", 1)[-1].strip()


def _raw(reply: str) -> str:  # tool clients send the whole reply
    return reply


def _sql(reply: str) -> str:  # SqlGymEnvClient
    return reply.split("```sql")[-1].split("```")[0].strip()


@dataclass(frozen=True)
class Client:
    env_id: str
    reset: Callable[[int], dict[str, Any]]
    key: str = "id"
    create: dict[str, Any] | None = None
    prefix: str = ""
    parse: Callable[[str], str] = _raw
    state: str = "observation"
    reward: str = "reward"
    extras: tuple[str, ...] = field(default=())


TOOL = {"key": "env_idx", "create": {"id": 0}, "reset": lambda i: {"id": i}}
CLIENTS = {
    "wordle": Client("Wordle-v0", lambda i: {"seed": i}, prefix="/wordle", parse=_between_actions),
    "maze": Client("Maze-v0", lambda i: {"game": i}, prefix="/maze", parse=_between_actions),
    "babyai": Client("BabyAI-v0", lambda i: {"data_idx": i}, parse=_single_action, reward="score"),
    "textcraft": Client(
        "TextCraft-v0",
        lambda i: {"data_idx": i},
        create={"minecraft_dir": "agentenv_textcraft/", "commands": None, "goal": None},
        parse=_single_action,
    ),
    "alfworld": Client(
        "ALFWorld-v0",
        lambda i: {"game": i, "world_type": "Text"},
        parse=_last_action,
        extras=("available_actions",),
    ),
    "sciworld": Client(
        "SciWorld-v0", lambda i: {"data_idx": i}, parse=_last_action, reward="score"
    ),
    "webshop": Client(
        "WebShop-v0", lambda i: {"session_id": i}, key="env_idx", parse=_last_action, state="state"
    ),
    "sql": Client("BIRD-v0", lambda i: {"item_id": i}, key="env_idx", parse=_sql, state="state"),
    "weather": Client("Weather-v0", **TOOL),
    "movie": Client("Movie-v0", **TOOL),
    "academia": Client("Academia-v0", **TOOL),
    "todo": Client("TODOList-v0", **TOOL),
    "sheet": Client("Sheet-v0", **TOOL),
    "searchqa": Client("SearchQA-v0", **TOOL),  # SearchQAEnvClient talks as the tool clients
}


def test_every_served_family_has_a_client_here():
    served = {name for name, f in FAMILIES.items() if f.wire and f.installed}
    assert set(CLIENTS) | {"webarena"} == served | {"webarena"}


def _reply(parser: str, action: str) -> str:
    """A model reply carrying the expert's ``action`` in the family's format."""
    if parser in ("single_action", "between_actions"):
        return f"Thought: I will do this.\n\nAction: {action}"
    if parser == "last_action":
        return f"Thought:\nI will do this.\n\nAction:\n{action}"
    return action  # the SQL and tool experts already answer in full replies


def _first_observation(http: httpx.Client, c: Client, sid: int, reset: Any) -> str:
    """The first observation as the family's client builds it."""
    if c.key == "env_idx":  # WebShop, SQLGym and the tool clients read /observation
        return http.get("/observation", params={"env_idx": sid}).json()
    if "task_description" in reset:  # SciworldEnvClient.reset
        return reset["task_description"] + "\n" + reset["observation"]
    if c.extras:  # AlfWorldEnvClient.observe
        return f"{reset['observation']}\nAVAILABLE ACTIONS: {','.join(reset['available_actions'])}"
    return reset["observation"]


@pytest.mark.parametrize("family", sorted(CLIENTS))
def test_agentgym_client_finishes_with_agentgym_reward(family):
    record = FAMILIES[family]
    if not record.installed:
        pytest.skip(f"extra {record.extra!r} not installed")
    c = CLIENTS[family]
    twin = gym.make(f"AgentGym/{c.env_id}")
    obs, info = twin.reset(options={"split": "test", "task_id": 1})
    index = twin.unwrapped.tasks.agentgym_index("test", 1)
    expert = expert_policy(twin)
    with running(c.env_id) as url, httpx.Client(base_url=url + c.prefix, timeout=120) as http:
        created = http.post("/create", json=c.create).json()
        sid = created if c.key == "env_idx" else created["id"]
        assert isinstance(sid, int)
        reset = http.post("/reset", json={c.key: sid, **c.reset(index)}).json()
        assert "error" not in reset
        first = _first_observation(http, c, sid, reset)
        if c.extras:  # the env's first observation may carry the line the client adds
            assert obs in (first, first.split("\nAVAILABLE ACTIONS: ")[0])
        elif family != "wordle":  # Wordle's client shows its own rules text instead
            assert first == obs
        rewards, previous_score, done = [], 0.0, False
        for _ in range(200):
            reply = _reply(record.reply_parser, expert(obs, info))
            action = c.parse(reply)
            obs, _reward, terminated, truncated, info = twin.step(
                reply if c.parse is _sql else action
            )
            step = http.post("/step", json={c.key: sid, "action": action}).json()
            assert set(step) >= {c.state, "reward", "done", *c.extras}
            sent = obs
            if c.extras:
                sent = obs.removesuffix(
                    "\nAVAILABLE ACTIONS: " + ",".join(step["available_actions"])
                )
            assert step[c.state] == sent
            rewards.append(step[c.reward])
            if family == "sciworld":  # "reward" is ScienceWorld's change in score
                assert step["reward"] == step["score"] - previous_score
                previous_score = step["score"]
            done = step["done"]
            assert done == (terminated or truncated)
            if done:
                break
        assert done and info["success"]
        # AgentGym scores the episode by the last reward its client saw.
        expected = {"babyai": info["score"], "sciworld": 100.0}.get(family, 1.0)
        assert rewards[-1] == pytest.approx(expected)
        if family == "babyai":
            assert 0.0 < rewards[-1] < 1.0  # MiniGrid's time-discounted reward
        if family == "sheet":  # the running cell-match share, never the Gymnasium increment
            assert rewards == sorted(rewards) and rewards[0] > 0.0
        http.post("/close", json={c.key: sid})
    twin.close()


def test_webarena_client_finishes_with_agentgym_reward():
    """WebarenaEnvClient's calls: bare /create, /reset {seed, idx}, /observation, whole replies."""
    from agentgym_envs.browser import chromium_path

    if not FAMILIES["webarena"].installed or chromium_path() is None:
        pytest.skip("WebArena needs its extra and chromium")
    twin = gym.make("AgentGym/WebArena-v0")
    obs, info = twin.reset(options={"split": "test", "task_id": 0})
    index = twin.unwrapped.tasks.agentgym_index("test", 0)
    expert = expert_policy(twin)
    with running("WebArena-v0") as url, httpx.Client(base_url=url, timeout=120) as http:
        sid = http.post("/create").json()["env_idx"]
        reset = http.post("/reset", json={"env_idx": sid, "seed": 0, "idx": index}).json()
        assert reset["observation"] not in ("", "TimeoutError") and reset["observation"] in obs
        assert http.get("/observation", params={"env_idx": sid}).json() == obs
        for _ in range(40):
            reply = expert(obs, info)
            obs, _reward, terminated, _truncated, info = twin.step(reply)
            step = http.post("/step", json={"env_idx": sid, "action": reply}).json()
            assert set(step) >= {"observation", "reward", "terminated", "truncated"}
            assert step["terminated"] == terminated
            if step["terminated"]:
                break
        assert step["terminated"] and info["success"] and step["reward"] == 1.0
        assert http.post("/close", json={"env_idx": sid}).json() == "closed"
    twin.close()
