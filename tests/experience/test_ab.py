"""A/B tests: deterministic assignment, the exact tests, stopping rules, expert vs random."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from agentgym_envs.benchmarks.policies import expert_spec, random_spec
from agentgym_envs.errors import AgentGymError
from agentgym_envs.experience.ab import (
    ab_records,
    assign_arm,
    fisher_test,
    format_p,
    list_ab_tests,
    run_ab_test,
    sign_test,
)
from agentgym_envs.experience.models import Episode

ENVS = "Maze-v0,Wordle-v0"


def test_assignment_is_deterministic_and_follows_the_weights():
    arms, weights = ["a@1", "b@1"], [80, 20]
    picks = [assign_arm(f"maze_{i}", arms, weights, salt="t") for i in range(4000)]
    assert picks == [assign_arm(f"maze_{i}", arms, weights, salt="t") for i in range(4000)]
    share = picks.count("a@1") / len(picks)
    assert 0.76 < share < 0.84
    other_salt = [assign_arm(f"maze_{i}", arms, weights, salt="u") for i in range(4000)]
    assert other_salt != picks
    assert {assign_arm(f"x_{i}", arms, [1, 0]) for i in range(200)} == {"a@1"}
    with pytest.raises(AgentGymError):
        assign_arm("x_1", arms, [1])


def test_exact_tests_give_their_textbook_values():
    assert sign_test([0] * 10, [1] * 10)["p_value"] == pytest.approx(2 * 0.5**10)
    tied = sign_test([1, 0, 1], [1, 0, 1])
    assert (tied["b_better"], tied["a_better"], tied["p_value"]) == (0, 0, 1.0)
    # all 10 of A succeed, none of B: p = 2 / C(20, 10)
    assert fisher_test([True] * 10, [False] * 10)["p_value"] == pytest.approx(2 / 184756)
    assert fisher_test([True, False] * 5, [True, False] * 5)["p_value"] == pytest.approx(1.0)


def test_p_values_read_as_people_read_them():
    assert [format_p(p) for p in (0.0, 0.0009, 0.001, 0.0123, 0.5, 1.0)] == [
        "< 0.001",
        "< 0.001",
        "0.001",
        "0.012",
        "0.5",
        "1",
    ]
    assert format_p(None) == "–"


def test_the_ab_table_never_prints_a_p_of_zero(store, capsys):
    from agentgym_envs.experience.cli import _print_ab

    r = run_ab_test(
        store,
        "p-format",
        {"expert@1": expert_spec(), "random@1": random_spec()},
        envs="Maze-v0",
        limit=12,
        n_boot=500,
    )
    assert r.comparisons["random@1"]["score"]["p_value"] < 0.001  # the bootstrap saw none
    _print_ab(r.as_dict())
    out = capsys.readouterr().out
    assert "< 0.001" in out and " 0 " not in out.replace("│", " ")


def test_expert_against_random_is_significant_and_stops_early(store):
    r = run_ab_test(
        store,
        "expert-vs-random",
        {"expert@1": expert_spec(), "random@1": random_spec()},
        envs=ENVS,
        limit=10,
        looks=2,
        min_tasks=10,
        n_boot=2000,
    )
    c = r.comparisons["random@1"]
    assert c["success"]["significant"] and c["success"]["diff"] < 0
    assert c["success"]["test"].startswith("exact sign test")
    assert c["score"]["high"] < 0 and c["score"]["test"].startswith("paired bootstrap")
    assert r.stopped_early and r.looks_done == 1
    assert r.episodes == {"expert@1": 10, "random@1": 10}
    assert "random@1 worse than expert@1" in r.decision
    assert c["alpha"] == pytest.approx(0.025)  # 0.05 over 2 looks
    (stored,) = list_ab_tests(store)
    assert stored["status"] == "stopped early" and stored["result"]["decision"] == r.decision


def test_two_identical_versions_show_no_difference(sqlite_store):
    r = run_ab_test(
        sqlite_store,
        "same",
        {"random@1": random_spec(), "random@2": random_spec()},
        envs=ENVS,
        limit=10,
        looks=2,
        n_boot=2000,
    )
    c = r.comparisons["random@2"]
    assert not c["success"]["significant"] and not c["score"]["significant"]
    assert c["success"]["p_value"] == 1.0
    assert not r.stopped_early and r.looks_done == 2
    assert r.decision.startswith("no significant difference")
    # rerunning the same test resumes it: nothing is played or stored twice
    with sqlite_store.session() as s:
        before = s.scalar(select(func.count(Episode.id)))
    again = run_ab_test(
        sqlite_store,
        "same",
        {"random@1": random_spec(), "random@2": random_spec()},
        envs=ENVS,
        limit=10,
        looks=2,
        n_boot=2000,
    )
    with sqlite_store.session() as s:
        assert s.scalar(select(func.count(Episode.id))) == before == 40
    assert again.decision == r.decision
    with pytest.raises(AgentGymError, match="other settings"):
        run_ab_test(
            sqlite_store,
            "same",
            {"random@1": random_spec(), "random@2": random_spec()},
            envs=ENVS,
            limit=5,
        )


def test_split_mode_sends_each_task_to_one_arm(sqlite_store):
    r = run_ab_test(
        sqlite_store,
        "split",
        {"expert@1": expert_spec(), "random@1": random_spec()},
        envs=ENVS,
        limit=20,
        mode="split",
        weights={"expert@1": 50, "random@1": 50},
        n_boot=2000,
    )
    recs = ab_records(sqlite_store, r.test_id)
    a = {(x["env_id"], x["item_id"]) for x in recs["expert@1"]}
    b = {(x["env_id"], x["item_id"]) for x in recs["random@1"]}
    assert not a & b and len(a | b) == 40
    expected = {
        it
        for it in a | b
        if assign_arm(it[1], ["expert@1", "random@1"], [50, 50], salt="split") == "expert@1"
    }
    assert a == expected
    c = r.comparisons["random@1"]
    assert c["success"]["test"] == "Fisher's exact test" and c["success"]["significant"]
    assert c["score"]["test"] == "unpaired bootstrap"


def test_bad_settings_are_refused(sqlite_store):
    with pytest.raises(AgentGymError, match="two or more arms"):
        run_ab_test(sqlite_store, "x", {"a@1": expert_spec()}, envs=ENVS)
    with pytest.raises(AgentGymError, match="name@version"):
        run_ab_test(sqlite_store, "x", {"a": expert_spec(), "b@1": random_spec()}, envs=ENVS)
    with pytest.raises(AgentGymError, match="mode"):
        run_ab_test(
            sqlite_store, "x", {"a@1": expert_spec(), "b@1": random_spec()}, envs=ENVS, mode="both"
        )
