"""``ToolEnv``: AgentGym's tool protocol, grading, and the LLM wrappers on top of it."""

import json

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs.tools import FORMAT_ERROR
from agentgym_envs.wrappers import FunctionCalling, ReAct

TOOL_IDS = [
    "AgentGym/Weather-v0",
    "AgentGym/Movie-v0",
    "AgentGym/Academia-v0",
    "AgentGym/Sheet-v0",
    "AgentGym/TODOList-v0",
]


def _reset(env_id, task_id=0):
    env = gym.make(env_id).unwrapped
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
    return env, obs, info


@pytest.mark.parametrize("env_id", TOOL_IDS)
def test_first_observation_is_agentgyms(env_id):
    _, obs, info = _reset(env_id)
    assert (
        obs
        == f"Now new trial starts.\nYou should perform actions to accomplish the goal: {info['goal']}\nGive me one action."
    )
    assert info["progress"] == 0.0 and info["score"] == 0.0


@pytest.mark.parametrize("env_id", TOOL_IDS)
def test_protocol_errors_are_feedback(env_id):
    env, _, _ = _reset(env_id)
    obs, reward, term, _, info = env.step("I think the answer is 4")
    assert obs == FORMAT_ERROR and info["error"] and not term and reward == 0
    obs, _, _, _, info = env.step("Action: fly_to_moon with Action Input: {}")
    # AgentGym's texts: only Sheet's server lists the tools, and it has no check_valid_actions
    names = list(env.toolkit)
    if env_id.endswith("Sheet-v0"):
        assert obs == (
            "Observation: ERROR | Invalid action: fly_to_moon. Please choose another valid action "
            f"from {names}\nGive me one action."
        )
    else:
        assert obs == "Observation: ERROR | Invalid action: fly_to_moon.\nGive me one action."
    assert "unknown tool" in info["error"]
    obs, _, _, _, info = env.step("Action: check_valid_actions with Action Input: {}")
    if env_id.endswith("Sheet-v0"):
        assert obs.startswith("Observation: ERROR | Invalid action: check_valid_actions.")
    else:
        assert (
            obs == f"Observation: You can use following valid actions: {names}\nGive me one action."
        )
        assert "error" not in info


@pytest.mark.parametrize("env_id", TOOL_IDS)
def test_instructions_list_every_tool_in_agentgym_format(env_id):
    env, _, _ = _reset(env_id)
    text = env.instructions()
    assert text.startswith("You are an autonomous intelligent agent.")
    for name in env.toolkit:
        assert f"Name: {name}(" in text
    assert "Action: [your action] with Action Input: [your action input]" in text
    assert len(env.tool_schemas()) == len(env.toolkit)


@pytest.mark.parametrize("env_id", TOOL_IDS)
def test_rewards_sum_to_the_score(env_id):
    env = gym.make(env_id).unwrapped
    expert = agentgym_envs.expert_policy(env)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 1})
    total, term = 0.0, False
    while not term:
        obs, reward, term, _, info = env.step(expert(obs, info))
        total += reward
    assert total == pytest.approx(info["score"]) and info["success"]
    obs, reward, term, _, info = env.step("Action: finish with Action Input: {}")
    assert "episode has ended" in info["error"] and reward == 0


def test_action_from_tool_call_validates_and_writes_agentgym_grammar():
    env, _, _ = _reset("AgentGym/Weather-v0")
    action = env.action_from_tool_call("get_latitude_longitude", {"name": "Denver"})
    assert action == 'Action: get_latitude_longitude with Action Input: {"name": "Denver"}'
    with pytest.raises(ValueError, match="missing argument 'name'"):
        env.action_from_tool_call("get_latitude_longitude", {})
    with pytest.raises(ValueError, match="did you mean 'get_elevation'"):
        env.action_from_tool_call("get_elevations", {})


def test_react_wrapper_passes_the_action_line():
    # parser="lenient" reads a multi-line input; AgentGym's servers (the default) do not
    env = ReAct(gym.make("AgentGym/Weather-v0", parser="lenient"))
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    obs, *_ = env.step(
        "Thought: I need the city.\nAction: get_user_current_location with Action Input: {}"
    )
    assert obs.startswith("Observation: ") and "ERROR" not in obs
    multi_line = 'Thought: coords.\nAction: get_latitude_longitude with Action Input: {\n  "name": "Denver"\n}'
    obs, *_ = env.step(multi_line)
    assert "'latitude': 39.73915" in obs
    strict = ReAct(gym.make("AgentGym/Weather-v0"))
    strict.reset(seed=0, options={"split": "test", "task_id": 0})
    assert strict.step(multi_line)[0].startswith("Format error, please response in the format of")


def test_function_calling_wrapper_drives_a_tool_env_to_success():
    env = FunctionCalling(gym.make("AgentGym/TODOList-v0"))
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 0})
    names = {t["function"]["name"] for t in env.unwrapped.tool_schemas()}
    assert {"get_projects", "get_tasks", "finish"} <= names
    task = env.unwrapped.task
    for step in task.plan:
        call = {"name": step.tool, "arguments": json.dumps(step.arguments)}
        obs, _, term, _, info = env.step(call)
        assert "ERROR" not in obs, obs
    assert term and info["success"]


def test_tool_use_example_runs_and_wins():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, str(root / "examples" / "tool_use.py"), "--task", "10"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Invalid tool call" in result.stdout and "success=True score=1.0" in result.stdout


def test_tasks_are_identical_across_processes():
    import os
    import subprocess
    import sys

    script = (
        "import hashlib, gymnasium as gym, agentgym_envs\n"
        "h = hashlib.sha256()\n"
        f"for env_id in {TOOL_IDS!r}:\n"
        "    env = gym.make(env_id).unwrapped\n"
        "    for split, n in (('test', 20), ('train', 30)):\n"
        "        for i in range(n):\n"
        "            t = env.tasks.get(split, i)\n"
        "            h.update(repr((t.goal, t.answer, [s.action() for s in t.plan])).encode())\n"
        "print(h.hexdigest())\n"
    )
    digests = set()
    for seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        digests.add(out.stdout.strip())
    assert len(digests) == 1


@pytest.mark.parametrize("tool", ["get_user_current_date", "get_user_current_location"])
def test_weather_and_todo_share_the_user_context_tools(tool):
    from agentgym_envs.envs.todo.tools import TODO_TOOLS
    from agentgym_envs.envs.weather.tools import WEATHER_TOOLS

    assert WEATHER_TOOLS[tool].openai_schema() == TODO_TOOLS[tool].openai_schema()
    assert WEATHER_TOOLS[tool].function is TODO_TOOLS[tool].function
    for env_id in ("AgentGym/Weather-v0", "AgentGym/TODOList-v0"):
        env = gym.make(env_id).unwrapped
        env.reset(seed=0, options={"split": "test", "task_id": 0})
        obs, *_ = env.step(f"Action: {tool} with Action Input: {{}}")
        field = "current_date" if tool.endswith("date") else "current_location"
        assert obs == f"Observation: {getattr(env.backend, field)}\nGive me one action."
