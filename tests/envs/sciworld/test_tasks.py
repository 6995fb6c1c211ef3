"""SciWorld's task indexing (AgentGym's data_idx) and the clean splits; no JVM needed."""

from __future__ import annotations

import pytest

from agentgym_envs.envs.sciworld.tasks import (
    AGENTGYM_FIXED_EXCLUDED,
    MAX_VARIATIONS,
    SciWorldTasks,
    agentgym_items,
    agentgym_task_names,
    clean_test_items,
    clean_train_items,
    gold_data,
    variation_sets,
)
from agentgym_envs.errors import BadTaskError


def test_agentgym_enumeration_has_4639_items_in_tasks_json_order():
    items = agentgym_items()
    assert len(items) == 4639
    first = {}
    for i, (name, _var) in enumerate(items):
        first.setdefault(name, i)
    # first data_idx per task, as AgentGym's server enumerates them with scienceworld 1.2.3
    assert first["boil"] == 0 and first["melt"] == 30 and first["use-thermometer"] == 120
    assert first["measure-melting-point-known-substance"] == 660
    assert first["measure-melting-point-unknown-substance"] == 1096
    assert first["power-component"] == 1396 and first["test-conductivity"] == 1436
    assert first["find-living-thing"] == 2936 and first["find-animal"] == 3836
    assert first["chemistry-mix"] == 4136 and first["lifespan-longest-lived"] == 4240
    assert first["identify-life-stages-2"] == 4629 and items[-1] == ("identify-life-stages-2", 9)
    assert not {"grow-plant", "grow-fruit", "mendelian-genetics-known-plant"} & set(first)
    assert len(agentgym_task_names()) == 23


def test_issue_49_enumeration_drops_task_2_3():
    fixed = agentgym_items(AGENTGYM_FIXED_EXCLUDED)
    assert len(fixed) == 4339
    assert fixed[1096] == agentgym_items()[1396] == ("power-component", 0)


@pytest.mark.parametrize(
    "n, sizes, starts",
    [
        (30, (14, 7, 9), (0, 14, 21)),
        (540, (270, 135, 135), (0, 270, 405)),
        (126, (62, 31, 33), (0, 62, 93)),
    ],
)
def test_variation_sets_follow_scienceworld_get_sets(n, sizes, starts):
    sets = variation_sets(n)
    assert tuple(map(len, sets)) == sizes
    assert tuple(s[0] for s in sets) == starts
    assert sorted(sets[0] + sets[1] + sets[2]) == list(range(n))


def test_small_variation_counts_use_scienceworld_special_cases():
    assert variation_sets(1) == ((0,), (), (0,))
    assert variation_sets(2) == ((0,), (), (1,))
    assert variation_sets(4) == ((0, 1), (2,), (3,))


def test_clean_splits_are_disjoint_and_drawn_from_scienceworld_sets():
    train, test = clean_train_items(), clean_test_items()
    assert len(test) == 200 and len(set(test)) == 200
    assert len(train) == 2312
    assert not set(train) & set(test)
    for name, var in test:
        assert var in variation_sets(MAX_VARIATIONS[name])[2], (name, var)
    for name, var in train:
        assert var in variation_sets(MAX_VARIATIONS[name])[0], (name, var)
    assert {name for name, _ in test} == set(agentgym_task_names())


def test_every_test_task_has_a_cached_gold_path():
    gold = gold_data()["gold"]
    for name, var in clean_test_items():
        actions = gold[f"{name}/{var}"]
        assert actions and all(isinstance(a, str) and a for a in actions)


def test_item_ids_map_both_ways():
    clean = SciWorldTasks()
    for split in ("train", "test"):
        for task_id in (0, 7, clean.size(split) - 1):
            index = clean.agentgym_index(split, task_id)
            assert clean.locate(index) == (split, task_id)
            task = clean.get(split, task_id)
            assert agentgym_items()[index] == (task.task_name, task.variation)
    agentgym = SciWorldTasks("agentgym")
    assert agentgym.size("train") == 4639
    task = agentgym.get("train", 1396)
    assert (task.task_name, task.variation) == ("power-component", 0)
    assert (
        agentgym.locate(1396) == ("train", 1396) and agentgym.agentgym_index("train", 1396) == 1396
    )


def test_negative_items_wrap_as_agentgym_does():
    # AgentGym's server indexes its Python list of items: -1 is the last, -4639 the first
    agentgym = SciWorldTasks("agentgym")
    assert agentgym.locate(-1) == agentgym.locate(4638) == ("train", 4638)
    assert agentgym.locate(-4639) == agentgym.locate(0)
    clean = SciWorldTasks()
    assert clean.locate(-1) == clean.locate(4638)
    assert clean.locate(4470 - 4639) == clean.locate(4470)
    fixed = SciWorldTasks("agentgym_fixed")
    assert fixed.locate(-1) == ("train", 4338)
    for source, n in ((agentgym, 4639), (fixed, 4339)):
        with pytest.raises(BadTaskError, match=f"-{n}..-1"):
            source.locate(-n - 1)  # AgentGym: IndexError


def test_dev_variation_is_outside_clean_splits_with_a_mend():
    clean = SciWorldTasks()
    with pytest.raises(BadTaskError, match="index='agentgym'") as err:
        clean.locate(14)  # boil variation 14: a ScienceWorld dev variation
    assert "\n" not in str(err.value)
    with pytest.raises(BadTaskError, match="outside 0..4638"):
        clean.locate(4639)
    with pytest.raises(BadTaskError, match="unknown SciWorld index"):
        SciWorldTasks("agentgymm")
