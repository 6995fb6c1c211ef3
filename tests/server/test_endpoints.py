"""The family endpoints of AgentGym's servers (``wire.get_endpoints``) and reward edge cases,
requested as AgentGym's servers are asked (``GET /<name>?id=`` or ``?env_idx=``)."""

from __future__ import annotations

import gymnasium as gym
import httpx
import pytest

from agentgym_envs.spec import FAMILIES
from tests.server.conftest import running


def _twin(env_id: str, task_id: int):
    env = gym.make(f"AgentGym/{env_id}")
    obs, _ = env.reset(options={"split": "test", "task_id": task_id})
    return env, obs, env.unwrapped.tasks.agentgym_index("test", task_id)


def test_sciworld_reset_and_endpoints():
    pytest.importorskip("scienceworld")
    twin, obs, index = _twin("SciWorld-v0", 2)
    description, look = obs.split("\n", 1)
    with running("SciWorld-v0") as url, httpx.Client(base_url=url, timeout=120) as http:
        sid = http.post("/create").json()["id"]
        reset = http.post("/reset", json={"id": sid, "data_idx": index}).json()
        # SciworldEnvClient.reset shows task_description + "\n" + observation.
        assert reset["task_description"] == description and reset["observation"] == look
        assert reset["score"] == 0.0 and reset["done"] is False
        q = {"id": sid}
        assert http.get("/task_description", params=q).json() == {"task_description": description}
        hint = http.get("/action_hint", params=q).json()
        assert set(hint) == {"possible_actions", "possible_objects"}
        assert "look around" in hint["possible_actions"] and "agent" in hint["possible_objects"]
        goals = http.get("/goals", params=q).json()["goals"]
        assert isinstance(goals, str) and "Subgoals" in goals
        tree = http.get("/object_tree", params=q).json()["object_tree"]
        assert isinstance(tree, dict) and tree
        state = http.get("/state", params=q).json()
        assert state["task_description"] == description and state["current_moves"] == 0
        assert len(state["possible_actions"]) <= 10 and state["goal_progress"] == goals
        # A step moves the state on: the inventory endpoint view follows the simulator.
        http.post("/step", json={"id": sid, "action": "inventory"})
        assert "In your inventory" in http.get("/state", params=q).json()["inventory"]
        assert "error" in http.get("/goals", params={"id": 999}).json()
    twin.close()


def test_textcraft_commands_and_goal():
    pytest.importorskip("minecraft_data")
    twin, obs, index = _twin("TextCraft-v0", 3)
    with running("TextCraft-v0") as url, httpx.Client(base_url=url) as http:
        sid = http.post("/create", json={"commands": None, "goal": None}).json()["id"]
        http.post("/reset", json={"id": sid, "data_idx": index})
        commands = http.get("/commands", params={"id": sid}).json()
        goal = http.get("/goal", params={"id": sid}).json()
    assert commands and all(line in obs for line in commands.split("\n"))
    assert goal == twin.unwrapped.goal and goal.startswith("minecraft:")
    twin.close()


def test_webshop_instruction_text_and_state():
    pytest.importorskip("bm25s")
    twin, obs, index = _twin("WebShop-v0", 4)
    instruction = twin.unwrapped.goal.instruction_text
    with running("WebShop-v0") as url, httpx.Client(base_url=url) as http:
        sid = http.post("/create").json()
        http.post("/reset", json={"env_idx": sid, "session_id": index})
        text = http.get("/instruction_text", params={"env_idx": sid}).json()
        state = http.get("/state", params={"env_idx": sid}).json()
        http.post("/step", json={"env_idx": sid, "action": f"search[{instruction[:40]}]"})
        after = http.get("/state", params={"env_idx": sid}).json()
    assert text == "Instruction: " + instruction and instruction in obs
    assert set(state) == {"url", "html", "instruction_text"}
    assert state["instruction_text"] == text and "<html" in state["html"].lower()
    assert "search_input" in state["html"] and after["html"] != state["html"]
    twin.close()


def test_wordle_filtered_vocab_narrows_after_a_guess(wordle_url):
    with httpx.Client(base_url=wordle_url + "/wordle") as http:
        sid = http.post("/create").json()["id"]
        before = http.get("/filtered_vocab", params={"id": sid}).json()
        http.post("/reset", json={"id": sid, "seed": 3499})
        http.post("/step", json={"id": sid, "action": " ".join(before[0])})
        after = http.get("/filtered_vocab", params={"id": sid}).json()
        # family endpoints also answer a POST naming the session in the body
        assert http.post("/filtered_vocab", json={"id": sid}).json() == after
        http.post("/close", json={"id": sid})
    vocabulary = gym.make("AgentGym/Wordle-v0").unwrapped.vocabulary
    assert before == list(vocabulary) and set(after) < set(before)


def test_maze_sends_minus_one_at_the_step_cap():
    # LMRL-Gym's maze answers "Failure" with reward -1 once its step cap is used up; the env
    # keeps 0 (rewards sum to the score) and the server sends AgentGym's -1.
    with running("Maze-v0", env_kwargs={"max_steps": 3}) as url, httpx.Client(base_url=url) as h:
        sid = h.post("/create").json()["id"]
        h.post("/reset", json={"id": sid, "game": 0})
        replies = [h.post("/step", json={"id": sid, "action": "move up"}).json() for _ in range(4)]
    assert [r["done"] for r in replies] == [False, False, False, True]
    assert [r["reward"] for r in replies] == [0.0, 0.0, 0.0, -1.0]
    assert replies[-1]["observation"] == "Failure\n"


def test_family_endpoints_only_where_the_record_lists_them(maze_url, wordle_url):
    assert not FAMILIES["maze"].wire.get_endpoints
    with httpx.Client(base_url=maze_url) as http:
        sid = http.post("/create").json()["id"]
        assert http.get("/filtered_vocab", params={"id": sid}).status_code == 404
        assert http.get("/goals", params={"id": sid}).status_code == 404
    with httpx.Client(base_url=wordle_url) as http:
        r = http.get("/filtered_vocab")
        assert r.status_code == 200 and "error" in r.json()  # no session id
