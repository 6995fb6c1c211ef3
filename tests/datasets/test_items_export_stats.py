"""Item ids -> env tasks, converters, filters, statistics and the overlap check."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgym_envs.benchmarks.agenteval import agenteval_items
from agentgym_envs.datasets import (
    ItemResolver,
    UnlinkedItemError,
    canonical_item_id,
    dataset_stats,
    filter_trajectories,
    load_agenttraj,
    loss_mask,
    overlap,
    parse_item_id,
    to_chat_messages,
    to_dpo_pairs,
    to_sft,
    to_sft_text,
)
from agentgym_envs.datasets.items import AGENTGYM_PREFIXES, FAMILY_NAMES, registered_prefixes
from agentgym_envs.errors import BadDataError, BadTaskError

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def trajs():
    return load_agenttraj(FIXTURES / "agenttraj_small.json")


# -- item ids -------------------------------------------------------------------------------
def test_parse_item_ids():
    assert parse_item_id("webshop_5238") == ("webshop", 5238)
    assert parse_item_id("lmrlgym_maze_3") == ("lmrlgym_maze", 3)
    assert parse_item_id("maze_random_12") == ("maze_random", 12)
    for bad in ("webshop", "webshop_", "_3", "webshop_x1", 12):
        with pytest.raises(BadDataError):
            parse_item_id(bad)  # type: ignore[arg-type]
    assert canonical_item_id("lmrlgym_wordle_7") == "wordle_7"
    assert canonical_item_id("tool_weather_2") == "weather_2"


def test_every_agentgym_prefix_is_known():
    assert set(AGENTGYM_PREFIXES.values()) == set(FAMILY_NAMES)
    for prefix in (
        "webshop",
        "alfworld",
        "textcraft",
        "sciworld",
        "babyai",
        "maze",
        "wordle",
        "sqlgym",
        "weather",
        "movie",
        "todo",
        "academia",
        "sheet",
        "webarena",
    ):
        assert prefix in FAMILY_NAMES


def test_resolve_through_task_sources():
    r = ItemResolver()
    ref = r.resolve("lmrlgym_maze_3")
    assert (ref.env_id, ref.split, ref.task_id, ref.prefix, ref.index) == (
        "AgentGym/Maze-v0",
        "test",
        3,
        "maze",
        3,
    )
    ref = r.resolve("wordle_3500")  # embedded Wordle: train first, then the 25 test words
    assert (ref.env_id, ref.split, ref.task_id) == ("AgentGym/Wordle-v0", "test", 1)
    assert r.resolve("wordle_7").split == "train"
    assert r.resolve("maze_random_3").env_id == "AgentGym/MazeRandom-v0"
    # item ids the task sources write resolve back to the same task
    for env_id in ("AgentGym/Maze-v0", "AgentGym/Wordle-v0", "AgentGym/MazeRandom-v0"):
        for task_id in (0, 7, 24):
            ref = r.resolve(r.item_id(env_id, "test", task_id))
            assert (ref.env_id, ref.split, ref.task_id) == (env_id, "test", task_id)


def test_out_of_range_index_is_one_line_error():
    with pytest.raises(BadTaskError) as err:
        ItemResolver().resolve("maze_99")
    assert "maze_99" in str(err.value) and "\n" not in str(err.value)


def test_unregistered_agentgym_family_says_so():
    missing = sorted(set(FAMILY_NAMES) - set(registered_prefixes()))
    if not missing:
        pytest.skip("every AgentGym family is registered")
    fam = missing[0]
    with pytest.raises(UnlinkedItemError) as err:
        ItemResolver().resolve(f"{fam}_1")
    assert FAMILY_NAMES[fam] in str(err.value) and "not registered" in str(err.value)


def test_unknown_prefix_and_override():
    with pytest.raises(UnlinkedItemError, match="unknown item prefix 'nethack'"):
        ItemResolver().resolve("nethack_1")
    r = ItemResolver(env_ids={"maze": "MazeRandom-v0"})
    assert r.resolve("maze_50").env_id == "AgentGym/MazeRandom-v0"


# -- converters -----------------------------------------------------------------------------
def test_chat_messages(trajs):
    t = trajs[0]
    msgs = to_chat_messages(t)
    assert [m["role"] for m in msgs[:4]] == ["user", "assistant", "user", "assistant"]
    assert msgs[1]["content"] == "Ok."
    sys_msgs = to_chat_messages(t, first_turn_as_system=True)
    assert sys_msgs[0] == {"role": "system", "content": t.conversations[0].value}
    assert sys_msgs[1] == {"role": "user", "content": t.conversations[2].value}
    assert len(sys_msgs) == len(msgs) - 1


def test_sft_mask_honours_loss(trajs):
    t = trajs[0]
    rec = to_sft(t)
    assert len(rec["loss_mask"]) == len(rec["messages"])
    assert rec["loss_mask"][1] is False  # AgentGym's "Ok." has loss false
    for turn, train in zip(t.conversations, rec["loss_mask"]):
        assert train == (turn.role == "gpt" and turn.loss is True)
    assert sum(loss_mask(t, train_on="all_gpt")) == sum(rec["loss_mask"]) + 1
    with_system = to_sft(t, system="be brief")
    assert (
        with_system["loss_mask"][0] is False
        and len(with_system["loss_mask"]) == len(rec["loss_mask"]) + 1
    )


@pytest.mark.parametrize("template", ["chatml", "llama2"])
def test_sft_text_spans(trajs, template):
    t = trajs[3]
    out = to_sft_text(t, template=template)
    assert "".join(s["text"] for s in out["segments"]) == out["text"]
    trained = "".join(s["text"] for s in out["segments"] if s["loss"])
    for turn in t.conversations:
        if turn.role == "gpt" and turn.loss:
            assert turn.value in trained
        else:
            assert turn.value not in trained or turn.value == ""


def test_dpo_pairs(trajs):
    pairs = to_dpo_pairs(trajs)
    assert len(pairs) == 1
    pair = pairs[0]
    assert pair["item_id"] == "lmrlgym_maze_3" and pair["rejected_reward"] == 0.0
    assert pair["prompt"][-1]["role"] == "user" and pair["chosen"][0]["role"] == "assistant"
    assert pair["chosen"] != pair["rejected"]
    # unlabeled trajectories can be excluded
    assert to_dpo_pairs(trajs, unlabeled="skip") == []


def test_filters(trajs):
    assert {t.family for t in filter_trajectories(trajs, families=["lmrlgym_maze"])} == {"maze"}
    assert [t.reward for t in filter_trajectories(trajs, min_reward=0.5)] == [1.0, 1.0]
    assert all(t.outcome() is False for t in filter_trajectories(trajs, success=False))
    short = filter_trajectories(trajs, max_turns=5)
    assert short and all(t.turns <= 5 for t in short)
    assert all(t.chars <= 3000 for t in filter_trajectories(trajs, max_chars=3000))
    assert [t.item_id for t in filter_trajectories(trajs, item_ids=["webshop_6"])] == ["webshop_6"]


# -- stats and overlap ------------------------------------------------------------------------
def test_stats_per_family(trajs):
    stats = dataset_stats(trajs)
    assert list(stats) == ["maze", "webshop", "wordle"]
    maze = stats["maze"]
    assert maze.records == 3 and maze.unique_items == 2 and maze.name == "Maze"
    assert maze.turns_max == 15 and maze.with_reward == 2 and maze.reward_mean == 0.5
    assert stats["webshop"].trained_turns == 2 and stats["webshop"].reward_mean is None
    assert stats["wordle"].success_rate == 1.0


def test_overlap_with_embedded_split(trajs):
    bench = [i.item_id for i in agenteval_items("Maze-v0")] + [
        i.item_id for i in agenteval_items("Wordle-v0")
    ]
    report = overlap(trajs, bench)
    assert report.shared == {"maze": ["maze_3", "maze_5"], "wordle": ["wordle_3499", "wordle_3500"]}
    assert report.total_shared == 4 and not report.clean
    assert overlap(trajs, ["maze_20"]).clean
    assert overlap(["lmrlgym_maze_20"], ["maze_20"]).shared == {"maze": ["maze_20"]}


def test_agentgym_ids_on_stand_in_sources_are_refused_unless_asked():
    from agentgym_envs.core import TaskSource
    from agentgym_envs.datasets.items import StandInItemError
    from agentgym_envs.spec import ENV_INFO

    env_id = "AgentGym/BIRD-v0"
    if not ENV_INFO[env_id].installed:
        pytest.skip("needs the sql extra")
    with pytest.raises(StandInItemError) as err:
        ItemResolver().resolve("sqlgym_5")
    message = str(err.value)
    assert "sqlgym_5" in message and "data_path=" in message and "\n" not in message
    assert "allow_stand_in=True" in message and "--allow-stand-in" in message
    ref = ItemResolver(allow_stand_in=True).resolve("sqlgym_5")
    assert ref.env_id == env_id
    assert ItemResolver().plays_stand_in(env_id) and not ItemResolver().plays_stand_in("Maze-v0")

    class UsersOwn(TaskSource):  # a loader of the user's own data is never a stand-in
        user_data = True

        def size(self, split):
            return 1

        def _load(self, split, task_id):
            raise NotImplementedError

    ItemResolver().check_stand_in("sqlgym_5", env_id, UsersOwn())
    # families that play AgentGym's own items resolve as before
    assert ItemResolver().resolve("lmrlgym_maze_3").task_id == 3
