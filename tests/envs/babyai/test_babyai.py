"""BabyAI's rules as AgentGym's server plays them: the level mapping and minigrid 2.3's levels,
the text view, macro actions, refusals, doors and keys, rewards, score and episode end, quiet
level generation, and the planner expert. (Byte-for-byte parity with AgentGym's server is
``test_agentgym_golden.py``.)"""

from __future__ import annotations

import re
import sys

import pytest

pytest.importorskip("minigrid")

from agentgym_envs.envs.babyai.env import COMPLETED, NOT_RECOGNIZED, BabyAIEnv, agentgym_goal
from agentgym_envs.envs.babyai.expert import BabyAIExpert
from agentgym_envs.envs.babyai.levels import LEVELS, level_and_seed, make_level, reset_level
from agentgym_envs.envs.babyai.tasks import BabyAITasks
from agentgym_envs.errors import BadTaskError, MissingExtraError
from agentgym_envs.rollout import run_episode


@pytest.fixture
def env():
    e = BabyAIEnv()
    yield e
    e.close()


def _test(env, task_id):
    return env.reset(seed=0, options={"split": "test", "task_id": task_id})


# -- task index -------------------------------------------------------------------------------
def test_agentgym_level_list_and_index_mapping():
    assert len(LEVELS) == len(set(LEVELS)) == 40
    assert LEVELS[0] == "BabyAI-GoToRedBallGrey-v0" and LEVELS[-1] == "BabyAI-BossLevelNoUnlock-v0"
    assert level_and_seed(0) == ("BabyAI-GoToRedBallGrey-v0", 0)
    assert level_and_seed(45) == (LEVELS[5], 1)
    assert level_and_seed(40 * 7 + 39) == ("BabyAI-BossLevelNoUnlock-v0", 7)


def test_test_split_is_items_0_to_89_and_covers_every_level():
    tasks = BabyAITasks()
    assert tasks.size("test") == 90
    test = [tasks.get("test", t) for t in range(90)]
    assert [t.index for t in test] == list(range(90))
    assert {t.level for t in test} == set(LEVELS)
    train0 = tasks.get("train", 0)
    assert (train0.index, train0.level, train0.seed) == (90, LEVELS[10], 2)
    assert tasks.locate(89) == ("test", 89) and tasks.locate(90) == ("train", 0)
    assert tasks.agentgym_index("train", 5) == 95
    # AgentGym's server seeds a level from any index: the train split is open-ended
    assert tasks.locate(10_000) == ("train", 9_910)
    with pytest.raises(BadTaskError, match="negative"):
        tasks.locate(-1)


def test_every_level_builds_in_this_minigrid():
    for level in LEVELS:
        mg = make_level(level)
        mg.reset(seed=0)
        assert isinstance(mg.mission, str) and mg.mission


def test_level_generation_keeps_stdout_clean(env, capfd):
    # task 6 (GoToImpUnlock, seed 0) makes minigrid reject samples, which it reports with print()
    _, info = _test(env, 6)
    assert info["level"] == "BabyAI-GoToImpUnlock-v0"
    out, _ = capfd.readouterr()
    assert out == ""


def test_missing_minigrid_raises_the_one_line_mend(monkeypatch):
    monkeypatch.setitem(sys.modules, "minigrid", None)
    with pytest.raises(MissingExtraError, match=r'pip install "agentgym-envs\[babyai\]"') as err:
        BabyAIEnv()
    assert "\n" not in str(err.value)


# -- levels as minigrid 2.3 built them --------------------------------------------------------
def test_goto_obj_s6_has_minigrid_23s_room_size():
    # minigrid 3 renamed the level -v1 and made its room 6 wide (PR #391); AgentGym plays 2.3's
    mg = make_level("BabyAI-GoToObjS6-v0")
    mg.reset(seed=0)
    assert (mg.width, mg.height) == (4, 4)


def test_levelgen_keeps_its_locked_room_across_missions_as_minigrid_23_did():
    # SynthLoc, seed 3 (item 155): AgentGym's server shows "go to the red box"; a level that
    # forgets its locked room between missions (newer minigrid) draws another mission
    level = LEVELS[155 % 40]
    fresh = make_level(level)
    fresh.reset(seed=155 // 40)
    mg = make_level(level)
    reset_level(mg, 155 // 40)
    assert mg.mission == "go to the red box" != fresh.mission


# -- observations -----------------------------------------------------------------------------
def test_first_observation_in_agentgym_words(env):
    obs, info = _test(env, 0)
    assert obs.startswith(
        "Your goal: go to the red ball\nIn front of you in this room, you can see several objects: "
        "There is a grey key 1 1 steps in front of you and 1 steps to your left.  "
        "There is a grey ball 1 1 steps in front of you and 1 steps to your right.  "
    )
    assert (
        "to your right.  The room has walls around you. You are facing a wall 6 steps away. You are not carrying anything.\n"
        in obs
    )
    line = obs.rsplit("\n", 1)[1]
    assert line.startswith(
        'Available actions: ["turn left", "turn right", "move forward", "pickup grey key 1", '
    )
    assert line.endswith('"go to red ball 1", "check available actions"]')
    assert line == "Available actions: " + str(info["available_actions"]).replace("'", '"')
    assert (
        info["item_id"] == "babyai_0"
        and info["seed"] == 0
        and info["mission"] == "go to the red ball"
    )


def test_only_walls_in_view_is_worded_as_agentgym_words_it(env):
    obs, info = _test(env, 25)  # KeyInBox: the box is behind the agent
    assert obs.split("\n")[1] == (
        "In front of you in this room, you can see several objects: The room has walls around you. "
        "You are facing a wall 4 steps away. You are not carrying anything."
    )
    assert info["available_actions"] == [
        "turn left",
        "turn right",
        "move forward",
        "check available actions",
    ]


def test_goal_text_is_agentgyms_rewrite_of_the_mission():
    assert agentgym_goal("open a door, then go to the key") == "open a door, and go to the key"
    assert agentgym_goal("go to a box after you pick up a ball") == "go to a box and pick up a ball"


def test_show_actions_false_drops_the_list():
    env = BabyAIEnv(show_actions=False)
    obs, info = _test(env, 0)
    assert "Available actions" not in obs and info["available_actions"]


def test_objects_are_numbered_per_view_nearest_first(env):
    obs, _ = _test(env, 0)
    pattern = (
        r"There is a (\w+ \w+) (\d+) "
        r"(?:right in front of you (\d+) steps away|(\d+) steps in front of you and (\d+) steps to your)"
    )
    objects = re.findall(pattern, obs)
    counts: dict[str, int] = {}
    dists = []
    for name, n, ahead, front, side in objects:  # numbers restart at 1 per name, nearest first
        counts[name] = counts.get(name, 0) + 1
        assert int(n) == counts[name]
        dists.append(int(ahead) if ahead else int(front) + int(side))
    assert dists == sorted(dists) and len(objects) == 8 and counts["grey key"] == 4


def test_episode_numbering_is_gone():
    with pytest.raises(ValueError, match="object_ids='view'"):
        BabyAIEnv(object_ids="episode")


# -- actions, rewards, episode end -------------------------------------------------------------
def test_go_to_macro_completes_mission_with_discounted_reward(env):
    _test(env, 0)
    obs, reward, terminated, _, info = env.step("go to red ball 1")
    mg = env.mg
    assert terminated and info["success"]
    assert reward == pytest.approx(1 - 0.9 * mg.step_count / mg.max_steps)
    assert 0.5 < reward < 1 and info["score"] == reward
    assert (
        COMPLETED + "\nAvailable actions: [" in obs and info["low_level_steps"] == mg.step_count > 1
    )


def test_a_success_scoring_half_or_less_does_not_end_and_its_reward_repeats(env):
    _test(env, 0)
    env.mg.max_steps = 10  # the macro takes 8 steps: reward 1 - 0.9 * 8 / 10 = 0.28
    obs, reward, terminated, _, info = env.step("go to red ball 1")
    assert reward == pytest.approx(0.28) and not terminated and not info["success"]
    assert COMPLETED in obs  # AgentGym writes it, then un-ends the episode
    obs, reward2, terminated, _, info = env.step("dance")  # a refusal repeats the last reward
    assert obs.startswith(NOT_RECOGNIZED) and reward2 == reward and not terminated
    assert info["score"] == pytest.approx(2 * reward)


def test_refusals_are_agentgyms_texts_and_change_nothing(env):
    _test(env, 0)
    steps = env.mg.step_count
    obs, reward, terminated, _, info = env.step("dance")
    assert obs.startswith(NOT_RECOGNIZED + "\nAvailable actions: [") and info["error"]
    assert reward == 0 and not terminated
    obs, *_, info = env.step("go to purple ball 3")
    assert obs.startswith(NOT_RECOGNIZED) and info["error"]
    obs, *_, info = env.step("drop")
    assert (
        obs.startswith("You cannot drop the object, as you are not carrying anything.\n")
        and info["error"]
    )
    obs, *_, info = env.step("   ")
    assert obs.startswith("No change in state.\n") and info["error"]
    obs, *_ = env.step("  GO TO Red Ball 1 ")  # lower-cased and stripped, as AgentGym does
    assert env.mg.step_count > steps


def test_go_to_what_is_already_faced_is_no_change(env):
    _test(env, 0)
    env.step("go to grey key 1")
    steps = env.mg.step_count
    assert env.available_actions()[2] == "move forward"  # a key ahead is no barrier
    obs, *_ = env.step("go to grey key 1")
    assert obs.startswith("No change in state.") and env.mg.step_count == steps


def test_move_forward_into_an_object_stops_at_once(env):
    _test(env, 0)
    env.step("go to grey key 1")
    before = env.mg.step_count
    obs, *_ = env.step("move forward")
    assert (
        env.mg.step_count == before + 1 and "grey key 1 right in front of you 1 steps away" in obs
    )


def test_check_available_actions_lists_them(env):
    _, info = _test(env, 0)
    for text in ("check available actions", "Checkmate"):
        obs, *_ = env.step(text)
        assert obs.startswith(
            "You can take the following actions: " + ", ".join(info["available_actions"]) + "\n"
        )


def test_pickup_then_drop_and_no_second_pickup(env):
    _test(env, 0)
    env.step("pickup grey ball 1")
    assert env.mg.carrying is not None and env.mg.carrying.type == "ball"
    assert not any(a.startswith("pickup") for a in env.available_actions())
    obs, *_, info = env.step("pickup grey key 1")
    assert obs.startswith(NOT_RECOGNIZED) and info["error"]
    env.step("turn left")
    if "drop" not in env.available_actions():
        env.step("turn left")
    obs, *_ = env.step("drop")
    assert env.mg.carrying is None and "You are not carrying anything." in obs


def _face_locked_door(env):
    """Unlock level, item 23: stand at (15, 20) facing the purple locked door at (14, 20)."""
    _test(env, 23)
    mg = env.mg
    assert mg.grid.get(14, 20).is_locked and mg.grid.get(15, 20) is None
    mg.agent_pos, mg.agent_dir = (15, 20), 1
    env.step("turn right")  # now facing west, at the door; the view is refreshed
    return mg


def _hold(env, x, y):
    mg = env.mg
    obj = mg.grid.get(x, y)
    mg.grid.set(x, y, None)
    obj.cur_pos = (-1, -1)
    mg.carrying = obj
    env.step("turn left")
    env.step("turn right")  # refresh the view


def test_a_locked_door_needs_the_key_of_its_color(env):
    mg = _face_locked_door(env)
    assert "go to purple locked door 1" in env.available_actions()
    assert "toggle" not in env.available_actions()
    obs, _, terminated, _, info = env.step("toggle and go through purple locked door 1")
    assert obs.startswith(
        "You cannot toggle and go through purple locked door 1, as you are not carrying a key."
    )
    assert not terminated and info["error"]
    _hold(env, 17, 3)  # the yellow key
    obs, *_, info = env.step("toggle and go through purple locked door 1")
    assert "as the color of the key you are carrying does not match the color of door." in obs
    mg.carrying = None
    _hold(env, 12, 9)  # the purple key
    assert "toggle" in env.available_actions()
    obs, reward, terminated, _, info = env.step("toggle")
    assert terminated and info["success"] and reward > 0.5 and COMPLETED in obs
    assert mg.grid.get(14, 20).is_open


def test_a_macro_runs_on_after_the_mission_completes_as_agentgyms_does(env):
    mg = _face_locked_door(env)
    _hold(env, 12, 9)
    # "open the purple door" succeeds on the toggle, but the macro's last step (into the
    # doorway) is what counts: reward 0, the episode goes on, as on AgentGym's server
    obs, reward, terminated, _, _ = env.step("toggle and go through purple locked door 1")
    assert reward == 0 and not terminated and COMPLETED not in obs
    assert tuple(int(v) for v in mg.agent_pos) == (14, 20) and mg.grid.get(14, 20).is_open


def test_toggle_opens_a_box_unless_agentgym_strict(env):
    for toggle_any, opened in ((True, True), (False, False)):
        env = BabyAIEnv(toggle_any=toggle_any)
        _test(env, 25)  # KeyInBox: the key of the locked door is in the box
        mg = env.mg
        box = next(o for o in mg.grid.grid if o is not None and o.type == "box")
        x, y = box.cur_pos
        mg.agent_pos, mg.agent_dir = (x + 1, y), 1
        env.step("turn right")  # facing west: the box
        assert "toggle" not in env.available_actions()  # never offered, as in AgentGym
        obs, *_, info = env.step("toggle")
        assert (mg.grid.get(x, y).type == "key") is opened
        assert obs.startswith(NOT_RECOGNIZED) is not opened and ("error" in info) is not opened


def test_step_budget_ends_nothing(env):
    _test(env, 0)
    env.mg.max_steps = env.mg.step_count + 2
    for _ in range(4):
        _, reward, terminated, truncated, _ = env.step("turn left")
        assert not terminated and not truncated and reward == 0


def test_same_seed_and_task_same_transcript():
    def play():
        env = BabyAIEnv()
        expert = BabyAIExpert(env)
        return run_episode(env, expert, task_id=38, split="test", seed=1, max_turns=200).transcript

    assert play() == play()


def test_tool_calls_map_to_actions(env):
    _test(env, 0)
    names = {t["function"]["name"] for t in env.tool_schemas()}
    assert {"go_to", "pickup", "toggle_and_go_through", "drop", "turn_left"} <= names
    assert env.action_from_tool_call("go_to", {"object": "red ball 1"}) == "go to red ball 1"
    assert env.action_from_tool_call("turn_left", {}) == "turn left"
    with pytest.raises(ValueError, match="unknown tool"):
        env.action_from_tool_call("fly", {})
    assert "toggle and go through <door> <id>" in env.instructions()


# -- expert -----------------------------------------------------------------------------------
def test_expert_solves_one_train_task_of_every_level():
    env = BabyAIEnv(toggle_any=True)  # some train missions need toggling a box under AgentGym
    expert = BabyAIExpert(env)
    for task_id in range(40):  # items 90..129: every level once, seeds 2 and 3
        ep = run_episode(env, expert, task_id=task_id, split="train", seed=0, max_turns=1000)
        assert ep.success, (task_id, env.task.level, env.mg.mission)
        assert ep.score > 0.5


def test_unsolvable_tasks_are_exactly_those_agentgyms_actions_cannot_solve():
    from agentgym_envs.testing.contract import check_expert_and_random

    strict = BabyAIEnv()
    assert strict.toggle_any is False and strict.unsolvable_test_tasks == (25, 36, 38, 39, 65)
    lenient = BabyAIEnv(toggle_any=True)
    assert lenient.unsolvable_test_tasks == ()
    report = check_expert_and_random(lenient, random_tasks=0)
    assert len(report.expert_successes) == 90 and all(report.expert_successes)
