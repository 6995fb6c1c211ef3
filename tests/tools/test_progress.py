"""AgentBoard's progress rate over subgoals, and AgentGym's reading of a reply."""

import pytest

from agentgym_envs.tools import ProgressTracker, Record, Subgoal
from agentgym_envs.tools.agentgym import agentgym_parseable
from agentgym_envs.tools.progress import contains


def test_contains_finds_values_at_any_depth():
    result = {
        "results": [
            {"name": "Denver", "latitude": 39.73915, "longitude": -104.9847, "country_code": "US"}
        ]
    }
    assert contains(result, {"latitude": 39.739, "longitude": -104.985})
    assert not contains(result, {"latitude": 40.7, "longitude": -104.985})
    assert contains({"daily": {"time": ["2023-01-01"]}}, {"time": ["2023-01-01"]})
    assert contains([{"id": 5, "title": "X"}], {"id": 5})


def test_rate_is_a_running_max_with_one_to_one_matching():
    goals = (Subgoal("2023-06-15", "get_date"), Subgoal("2023-06-15", "get_date"), Subgoal(18.5))
    t = ProgressTracker(goals)
    assert t.add(Record("get_date", {}, "2023-06-15")) == 1 / 3  # one record meets one subgoal only
    assert t.add(Record("get_date", {}, "2023-06-15")) == 2 / 3
    assert t.met == (True, True, False)
    assert t.add(Record("finish", {"answer": 18.5}, 18.5)) == 1.0


def test_tool_subgoals_need_that_tool_and_a_successful_call():
    t = ProgressTracker((Subgoal("x", "a"),))
    assert t.add(Record("b", {}, "x")) == 0.0
    assert t.add(Record("a", {}, "x", ok=False)) == 0.0
    assert t.add(Record("a", {}, "x")) == 1.0


def test_answer_subgoal_is_met_by_any_equal_result_as_in_agentgym():
    t = ProgressTracker((Subgoal("fair"),))
    assert t.add(Record("get_air_quality_level", {"air_quality_index": 30}, "fair")) == 1.0


def test_answer_subgoal_needs_the_whole_value():
    t = ProgressTracker((Subgoal("Tucson, Arizona, USA"),))
    assert (
        t.add(Record("get_person_details", {}, {"place_of_birth": "Tucson, Arizona, USA"})) == 0.0
    )


def test_agentgym_matching_rates():
    strict = ProgressTracker((Subgoal(18.5),), answer_match="agentgym")
    lenient = ProgressTracker((Subgoal(18.5),))
    for t in (strict, lenient):
        t.add(Record("finish", {"answer": "18.5 C"}, "18.5 C"))
    assert (strict.rate, lenient.rate) == (0.0, 1.0)
    # a tool result equal to the answer counts, as in AgentGym; a failed call does not
    t = ProgressTracker((Subgoal("fair"),), answer_match="agentgym")
    assert t.add(Record("get_air_quality_level", {}, "fair", ok=False)) == 0.0
    assert t.add(Record("get_air_quality_level", {}, "fair")) == 1.0


@pytest.mark.parametrize(
    ("text", "readable"),
    [
        ("Thought: x\n\nAction: get_user_current_date with Action Input: {}", True),
        ("Action: finish with Action Input: {'answer': 3}\n", True),  # one trailing newline
        ('Action: get_latitude_longitude with Action Input: {\n  "name": "Denver"\n}', False),
        ("Action: finish with Action Input: {}\nObservation: 3", False),  # text after the action
        ("Thought: I will look it up.", False),
        (
            "get_user_current_date with Action Input: {}",
            True,
        ),  # read; the tool name is checked later
    ],
)
def test_agentgym_parseable_is_the_servers_regex(text, readable):
    assert agentgym_parseable(text) is readable


TOOL_IDS = ["Weather-v0", "Movie-v0", "Academia-v0", "TODOList-v0", "Sheet-v0"]
FORMAT_ERROR = (
    'Format error, please response in the format of  "Action: [your action] with Action Input: '
    "[your action input]"
)


@pytest.mark.parametrize("env_id", TOOL_IDS)
def test_families_give_agentgyms_format_error_and_wire_reward(env_id):
    import gymnasium as gym

    import agentgym_envs

    env = gym.make(f"AgentGym/{env_id}")
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 1})
    assert info["agentgym_reward"] == 0.0
    plan = env.unwrapped.task.plan
    multi_line = plan[0].action().replace(" with Action Input: {", " with Action Input: {\n", 1)
    for reply in (
        "Thought: I am not sure yet.",
        multi_line,
        plan[0].action() + "\nObservation: made up",
    ):
        obs, reward, terminated, _, info = env.step(reply)
        assert obs == FORMAT_ERROR and info["error"] and not terminated and reward == 0.0
        assert info["agentgym_reward"] == 0.0
    lenient = gym.make(f"AgentGym/{env_id}", parser="lenient")
    lenient.reset(seed=0, options={"split": "test", "task_id": 1})
    assert lenient.step(multi_line)[0] != FORMAT_ERROR
    # the expert's episode: the wire reward is there at every step and ends at 1
    expert = agentgym_envs.expert_policy(env)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 1})
    total, terminated = 0.0, False
    while not terminated:
        obs, reward, terminated, _, info = env.step(expert(obs, info))
        total += reward
        assert 0.0 <= info["agentgym_reward"] <= 1.0
    assert (
        info["success"] and info["agentgym_reward"] == 1.0 and total == pytest.approx(info["score"])
    )
    with pytest.raises(ValueError, match="parser"):
        gym.make(f"AgentGym/{env_id}", parser="loose")


# -- golden transcripts from AgentGym's own tool servers (scripts/golden/record_tools.py) ---------
def _golden():
    import json
    from pathlib import Path

    path = Path(__file__).parents[1] / "fixtures" / "agentgym" / "tools.json"
    return json.loads(path.read_text(encoding="utf-8"))


GOLDEN = _golden()
NAMES = {"weather": "Weather-v0", "movie": "Movie-v0", "academia": "Academia-v0"}


@pytest.mark.parametrize("family", sorted(GOLDEN["families"]))
def test_refusals_read_as_agentgyms_servers_read_them(family):
    import gymnasium as gym

    env = gym.make(f"AgentGym/{NAMES[family]}")
    (protocol,) = [e for e in GOLDEN["families"][family] if e["kind"] == "protocol"]
    assert protocol["first_observation"].startswith("Now new trial starts.\n")
    for step in protocol["steps"]:
        env.reset(seed=0, options={"split": "test", "task_id": 0})
        obs, reward, terminated, _, info = env.step(step["action"])
        assert (obs, terminated, info["agentgym_reward"]) == (
            step["observation"],
            step["done"],
            step["reward"],
        ), step["action"]
        assert reward == 0.0


@pytest.mark.parametrize("family", sorted(GOLDEN["families"]))
def test_finish_answers_compare_as_agentgyms_servers_compare_them(family):
    import gymnasium as gym

    from agentgym_envs.tools import canonical
    from agentgym_envs.tools.answers import agentgym_equal

    env = gym.make(f"AgentGym/{NAMES[family]}")
    finishes = [e for e in GOLDEN["families"][family] if e["kind"] == "finish"]
    assert {e["steps"][0]["reward"] for e in finishes} == {0.0, 1.0}
    for episode in finishes:
        (step,) = episode["steps"]
        (gold,) = episode["subgoals"]
        # AgentGym's reward is its == between the sorted finish answer and the subgoal
        assert agentgym_equal(canonical(episode["answer"]), gold) is (step["reward"] == 1.0)
        # our env shows the answer as AgentGym's server does, and ends the episode
        env.reset(seed=0, options={"split": "test", "task_id": 0})
        obs, _, terminated, _, _ = env.step(step["action"])
        assert (obs, terminated) == (step["observation"], step["done"])


def test_inputs_agentgym_cannot_eval_are_refused_and_tool_calls_avoid_them():
    import gymnasium as gym

    from agentgym_envs.tools.agentgym import agentgym_evaluable

    assert agentgym_evaluable("{'a': True, 'b': None, 'c': [1.5, -2]}")
    assert agentgym_evaluable("{'x': 25.00 + 5}")  # eval computes it
    assert not agentgym_evaluable('{"a": true}') and not agentgym_evaluable("")
    assert not agentgym_evaluable("{'a': 1") and not agentgym_evaluable("{'a': undefined_name}")
    env = gym.make("AgentGym/TODOList-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    text = env.action_from_tool_call("update_project", {"project_id": "1", "is_favorite": True})
    assert (
        text == "Action: update_project with Action Input: {'project_id': '1', 'is_favorite': True}"
    )
    obs = env.step(text)[0]
    assert "Parameters in action input are not valid" not in obs
    lenient = gym.make("AgentGym/TODOList-v0", parser="lenient").unwrapped
    assert "true" in lenient.action_from_tool_call(
        "update_project", {"project_id": "1", "is_favorite": True}
    )
