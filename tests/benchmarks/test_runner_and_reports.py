"""AgentEval splits, the runner (concurrency, resume), reports and the A/B comparison."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from agentgym_envs.benchmarks.agenteval import (
    AGENTEVAL_SIZES,
    agenteval_env_ids,
    agenteval_items,
    load_agenteval,
    write_agenteval,
)
from agentgym_envs.benchmarks.policies import expert_spec, random_spec
from agentgym_envs.benchmarks.report import compare_runs, read_results, summarize
from agentgym_envs.benchmarks.runner import resolve_envs, run_benchmark
from agentgym_envs.datasets.items import ItemResolver, StandInItemError, canonical_prefix
from agentgym_envs.errors import AgentGymError, BadDataError
from agentgym_envs.spec import ENV_INFO

FIXTURES = Path(__file__).parents[1] / "datasets" / "fixtures"


# -- AgentEval ----------------------------------------------------------------------------
def test_registered_agenteval_families_have_agenteval_sizes():
    ids = agenteval_env_ids(installed_only=False)
    assert "AgentGym/Maze-v0" in ids and "AgentGym/Wordle-v0" in ids
    for env_id in ids:
        prefix = canonical_prefix(ENV_INFO[env_id].item_prefix)
        assert ENV_INFO[env_id].splits["test"] == AGENTEVAL_SIZES[prefix], env_id


def test_agenteval_items_are_addressed_by_item_ids():
    items = agenteval_items("Maze-v0")
    assert len(items) == 25 and items[3].item_id == "maze_3" and items[3].task_id == 3
    wordle = agenteval_items("Wordle-v0", limit=2)
    assert [i.item_id for i in wordle] == ["wordle_3499", "wordle_3500"]


def test_load_agentgym_agenteval_files():
    # the folder holds webshop_test.json: AgentGym's WebShop ids on the embedded stand-in catalog
    if ENV_INFO["AgentGym/WebShop-v0"].installed:
        with pytest.raises(StandInItemError, match="webshop_.*data_path=.*allow-stand-in"):
            load_agenteval(FIXTURES / "agenteval")
        items = load_agenteval(FIXTURES / "agenteval", resolver=ItemResolver(allow_stand_in=True))
        webshop = items["AgentGym/WebShop-v0"]
        assert webshop and all(i.item_id.startswith("webshop_") for i in webshop)
    else:
        items = load_agenteval(FIXTURES / "agenteval")
    assert [i.task_id for i in items["AgentGym/Maze-v0"]] == [0, 1, 2, 3, 4]
    assert items["AgentGym/Maze-v0"][0].item_id == "lmrlgym_maze_0"
    assert [(i.split, i.task_id) for i in items["AgentGym/Wordle-v0"]] == [
        ("test", 0),
        ("test", 1),
        ("test", 2),
    ]
    only = load_agenteval(FIXTURES / "agenteval", envs=["Maze-v0"])  # WebShop's file is not read
    assert list(only) == ["AgentGym/Maze-v0"]
    with pytest.raises(BadDataError):
        load_agenteval(FIXTURES / "nope")


def test_write_agenteval_round_trip(tmp_path):
    items = agenteval_items("Maze-v0", limit=4) + agenteval_items("Wordle-v0", limit=2)
    paths = write_agenteval(items, tmp_path)
    assert sorted(p.name for p in paths) == ["lmrlgym_maze_test.json", "lmrlgym_wordle_test.json"]
    assert json.loads(paths[0].read_text())[0] == {"conversations": None, "item_id": "maze_0"}
    back = load_agenteval(tmp_path)
    assert [i.task_id for i in back["AgentGym/Maze-v0"]] == [0, 1, 2, 3]


def test_resolve_envs():
    assert resolve_envs("Maze-v0, Wordle-v0") == ["AgentGym/Maze-v0", "AgentGym/Wordle-v0"]
    assert "AgentGym/MazeRandom-v0" in resolve_envs("all")
    assert "AgentGym/MazeRandom-v0" not in resolve_envs("agenteval")
    with pytest.raises(AgentGymError, match="did you mean"):
        resolve_envs("Maze-v9")


# -- runner -----------------------------------------------------------------------------------
def test_expert_solves_and_records(tmp_path):
    res = run_benchmark("Maze-v0", expert_spec(), out=tmp_path, limit=4)
    env = res.summary.envs[0]
    assert env.episodes == 4 and env.score == 1.0 and env.success_rate == 1.0
    recs = read_results(tmp_path)
    assert len(recs) == 4
    rec = recs[0]
    for key in (
        "env_id",
        "item_id",
        "reward",
        "success",
        "turns",
        "wall_time",
        "conversations",
        "seed",
    ):
        assert key in rec
    conv = rec["conversations"]
    assert conv[1] == {"from": "gpt", "loss": False, "value": "Ok."}
    assert conv[-1]["from"] == "human" and conv[-1]["value"] == "Success\n"  # AgentGym's text
    assert rec["prompt_set"] == "ours" and rec["reply_parser"] == "plain"
    assert all(r["outcome"] == "success" and r["reward_valid"] is True for r in recs)
    summary = json.loads((tmp_path / "summary.json").read_text())
    fam = summary["config"]["families"]["AgentGym/Maze-v0"]
    assert (
        fam["items"] == "AgentEval's items"
        and fam["data"] == "embedded"
        and fam["stand_in"] is None
    )
    names = sorted(p.name for p in tmp_path.iterdir() if p.name != ".lock")  # the run lock
    assert names[:4] == ["results.jsonl", "run.json", "summary.json", "summary.md"]
    if importlib.util.find_spec("matplotlib"):  # the chart needs the bench extra
        assert (tmp_path / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (tmp_path / "summary.md").read_text()
    assert "| AgentGym/Maze-v0 | 4 | 1.000 | 100.0% |" in md


def test_max_rounds_truncates(tmp_path):
    res = run_benchmark("Maze-v0", random_spec(), out=None, limit=3, max_rounds=2)
    for rec in res.records:
        assert rec["turns"] <= 2
        if not rec["success"]:
            assert rec["truncated"] and rec["truncation_reason"] == "max_rounds"
            assert rec["outcome"] == "turn_limit" and rec["reward_valid"] is True
        else:
            assert rec["outcome"] == "success"


def test_concurrency_gives_the_same_episodes():
    one = run_benchmark("Maze-v0,Wordle-v0", random_spec(), limit=5, n_samples=2, concurrency=1)
    four = run_benchmark("Maze-v0,Wordle-v0", random_spec(), limit=5, n_samples=2, concurrency=4)
    strip = lambda recs: sorted(
        (r["item_id"], r["sample"], r["reward"], r["turns"], json.dumps(r["conversations"]))
        for r in recs
    )
    assert strip(one.records) == strip(four.records)
    assert len(one.records) == 20


def test_interrupted_run_resumes_without_redoing_or_losing(tmp_path):
    full = run_benchmark(
        "Maze-v0,Wordle-v0", random_spec(), out=tmp_path / "full", limit=4, n_samples=2
    )
    out = tmp_path / "cut"
    run_benchmark("Maze-v0,Wordle-v0", random_spec(), out=out, limit=4, n_samples=2)
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    # the process "died" after 5 episodes, in the middle of writing the 6th
    (out / "results.jsonl").write_text("".join(lines[:5]) + lines[5][: len(lines[5]) // 2])
    again = run_benchmark("Maze-v0,Wordle-v0", random_spec(), out=out, limit=4, n_samples=2)
    assert again.skipped == 5 and again.ran == 11
    recs = read_results(out)
    assert len(recs) == 16 and len({(r["item_id"], r["sample"]) for r in recs}) == 16
    assert again.summary.as_dict()["envs"] == full.summary.as_dict()["envs"] or [
        (e["score"], e["success_rate"]) for e in again.summary.as_dict()["envs"]
    ] == [(e["score"], e["success_rate"]) for e in full.summary.as_dict()["envs"]]
    # nothing left: a third run does no episode
    assert run_benchmark("Maze-v0,Wordle-v0", random_spec(), out=out, limit=4, n_samples=2).ran == 0


def test_resume_with_other_settings_is_refused(tmp_path):
    run_benchmark("Maze-v0", random_spec(), out=tmp_path, limit=2)
    with pytest.raises(BadDataError, match="different settings"):
        run_benchmark("Maze-v0", expert_spec(), out=tmp_path, limit=2)
    with pytest.raises(BadDataError, match="resume=True"):
        run_benchmark("Maze-v0", random_spec(), out=tmp_path, limit=2, resume=False)


def test_broken_episode_is_recorded_and_rerun(tmp_path):
    calls = {"n": 0}
    base = random_spec()

    def factory(env, seed):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("policy crashed")
        return base.factory(env, seed)

    flaky = type(base)("flaky", "plain", factory)
    res = run_benchmark("Maze-v0", flaky, out=tmp_path, limit=3)
    errors = [r for r in res.records if r.get("error")]
    assert (
        len(errors) == 1
        and "policy crashed" in errors[0]["error"]
        and res.summary.envs[0].errors == 1
    )
    # the crash is no judgement of the agent: a trainer reading the records must mask it
    assert (errors[0]["outcome"], errors[0]["reward_valid"]) == ("env_error", False)
    fine = [r for r in res.records if not r.get("error")]
    assert all(
        r["reward_valid"] and r["outcome"] in ("success", "failure", "turn_limit") for r in fine
    )
    again = run_benchmark("Maze-v0", flaky, out=tmp_path, limit=3)
    assert again.ran == 1 and not any(r.get("error") for r in again.records)


# -- reports ----------------------------------------------------------------------------------
def _rec(env, item, sample, reward, success):
    return {
        "env_id": env,
        "item_id": item,
        "sample": sample,
        "reward": reward,
        "success": success,
        "turns": 3,
    }


def test_avg_and_pass_at_k():
    recs = [
        _rec("E", "e_0", 0, 1.0, True),
        _rec("E", "e_0", 1, 0.0, False),
        _rec("E", "e_1", 0, 0.0, False),
        _rec("E", "e_1", 1, 0.0, False),
        _rec("F", "f_0", 0, 0.5, False),
        _rec("F", "f_0", 1, 1.0, True),
    ]
    s = summarize(recs)
    e, f = s.envs
    assert (e.episodes, e.tasks, e.samples) == (4, 2, 2)
    assert e.score == e.avg_at_k == 0.25 and e.success_rate == 0.25 and e.pass_at_k == 0.5
    assert f.score == 0.75 and f.pass_at_k == 1.0
    assert s.overall_score == 0.5 and s.k == 2
    assert "Avg@2" in s.to_markdown() and "Pass@2" in s.to_markdown()


def test_compare_expert_against_random(tmp_path):
    run_benchmark("Maze-v0", random_spec(), out=tmp_path / "a", max_rounds=15)
    run_benchmark("Maze-v0", expert_spec(), out=tmp_path / "b")
    cmp = compare_runs(tmp_path / "a", tmp_path / "b", n_boot=2000)
    env = cmp.envs[0]
    assert env.paired_items == 25
    assert env.success.diff > 0.5 and env.success.low > 0 and env.success.verdict == "B better"
    assert cmp.overall_success.verdict == "B better"
    back = compare_runs(tmp_path / "b", tmp_path / "a", n_boot=2000)
    assert back.envs[0].success.verdict == "A better"
    same = compare_runs(tmp_path / "b", tmp_path / "b", n_boot=2000)
    assert (
        same.envs[0].success.verdict == "no significant difference"
        and same.envs[0].success.diff == 0
    )
    md = cmp.to_markdown()
    assert "B better" in md and json.dumps(cmp.as_dict())
    assert re.search(r"\| \+0\.\d{3} \[\+0\.\d{3}, \+\d\.\d{3}\] \| B better \|", md), md


def test_compare_counts_unpaired_items():
    a = [_rec("E", f"e_{i}", 0, 1.0, True) for i in range(6)]
    b = [_rec("E", f"e_{i}", 0, 0.0, False) for i in range(3, 9)]
    cmp = compare_runs(a, b, n_boot=500)
    assert cmp.envs[0].paired_items == 3 and cmp.only_in_a == 3 and cmp.only_in_b == 3


def test_overall_puts_sciworld_scores_on_the_same_scale():
    sci = next((i for i, info in ENV_INFO.items() if info.item_prefix == "sciworld"), None)
    if sci is None:
        pytest.skip("SciWorld is not registered")
    recs = [
        _rec(sci, "sciworld_1", 0, 50.0, False),
        _rec("AgentGym/Maze-v0", "maze_1", 0, 1.0, True),
    ]
    s = summarize(recs)
    assert s.envs[0].score == 50.0  # per env: AgentGym's own scale
    assert s.overall_score == 0.75 and s.as_dict()["overall"]["avg_at_k"] == 0.75
    zero = [dict(r, reward=0.0, success=False) for r in recs]
    assert compare_runs(zero, recs, n_boot=200).overall_score.diff == 0.75


def test_read_results_reports_bad_lines(tmp_path, caplog):
    run_benchmark("Maze-v0", random_spec(), out=tmp_path, limit=2, max_rounds=1)
    path = tmp_path / "results.jsonl"
    good = path.read_text().splitlines()
    path.write_text(good[0] + '\n{"item_id": "maze_0"}\n' + good[1] + "\n" + good[1][:20])
    with caplog.at_level("WARNING"):
        recs = read_results(tmp_path)
    assert len(recs) == 2
    lines = [r.getMessage() for r in caplog.records]
    assert any("results.jsonl:2: not an episode record" in m for m in lines)
    assert any("results.jsonl:4" in m for m in lines)  # the torn last line, skipped
    path.write_text(good[0] + "\n{not json\n" + good[1] + "\n")
    with pytest.raises(BadDataError, match="results.jsonl:2"):
        read_results(tmp_path)


def test_agentgym_prompts_and_parser_are_recorded_per_family(tmp_path):
    traj = tmp_path / "prompts.jsonl"
    traj.write_text(
        json.dumps(
            {
                "item_id": "lmrlgym_maze_1",
                "conversations": [
                    {"from": "human", "loss": None, "value": "A made-up maze instruction."},
                    {"from": "gpt", "loss": False, "value": "Understood."},
                    {
                        "from": "human",
                        "loss": None,
                        "value": "Made-up rules.\nThe goal is at position 8, 6.",
                    },
                ],
            }
        )
        + "\n"
    )

    from agentgym_envs.benchmarks.policies import PolicySpec

    def factory(env, seed):
        return lambda obs, info: "Thought: t\nAction: move up"

    spec = PolicySpec("scripted", "react", factory)
    res = run_benchmark(
        "Maze-v0",
        spec,
        out=tmp_path / "run",
        limit=1,
        max_rounds=2,
        prompts="agentgym",
        prompts_source=traj,
    )
    rec = res.records[0]
    assert rec["prompt_set"] == "agentgym" and rec["reply_parser"] == "agentgym:between_actions"
    conv = rec["conversations"]
    assert conv[0]["value"] == "A made-up maze instruction." and conv[1]["value"] == "Understood."
    assert conv[2]["value"].startswith("Made-up rules.\nThe goal is at position 8, 6.")
    fam = res.summary.config["families"]["AgentGym/Maze-v0"]
    assert (fam["prompt_set"], fam["parser"]) == ("agentgym", "agentgym:between_actions")
    with pytest.raises(BadDataError, match="different settings"):
        run_benchmark("Maze-v0", spec, out=tmp_path / "run", limit=1, max_rounds=2)
    # a scripted expert's episodes are recorded with the same conversation start
    expert = run_benchmark(
        "Maze-v0", expert_spec(), limit=1, prompts="agentgym", prompts_source=traj
    )
    conv = expert.records[0]["conversations"]
    assert (conv[0]["value"], conv[1]["value"]) == ("A made-up maze instruction.", "Understood.")
    assert conv[2]["value"].startswith("Made-up rules.\nThe goal is at position 8, 6.")
    assert expert.records[0]["prompt_set"] == "agentgym" and expert.records[0]["success"]
    # bad settings are refused before any episode
    with pytest.raises(BadDataError, match="no Wordle record"):
        run_benchmark("Wordle-v0", spec, limit=1, prompts="agentgym", prompts_source=traj)
    with pytest.raises(AgentGymError, match="--prompts-source"):
        run_benchmark("Maze-v0", spec, limit=1, prompts="agentgym")
    with pytest.raises(AgentGymError, match="'loose'"):
        run_benchmark("Maze-v0", spec, limit=1, parser="loose")


def test_stand_in_family_says_so_in_the_summary():
    if not ENV_INFO["AgentGym/BIRD-v0"].installed:
        pytest.skip("needs the sql extra")
    res = run_benchmark("BIRD-v0", expert_spec(), limit=1)
    fam = res.summary.config["families"]["AgentGym/BIRD-v0"]
    assert fam["items"] == "embedded stand-in" and "data_path=" in fam["stand_in"]
    assert fam["data"] == "embedded"
    assert res.summary.envs[0].episodes == 1  # our own split still runs


# -- episodes whose reward is not valid ---------------------------------------------------------
def _dies_mid_episode(base):
    """``base`` whose second episode's policy raises after one step (the episode is lost)."""
    calls = {"n": 0}

    def factory(env, seed):
        calls["n"] += 1
        policy, steps = base.factory(env, seed), {"n": 0}
        if calls["n"] != 2:
            return policy

        def dying(obs, info):
            steps["n"] += 1
            if steps["n"] == 2:
                raise ConnectionError("simulator process died")
            return policy(obs, info)

        return dying

    return type(base)(base.name, base.format, factory)


def test_env_failures_are_counted_apart_from_score_and_success(tmp_path):
    res = run_benchmark("Maze-v0", _dies_mid_episode(expert_spec()), out=tmp_path, limit=3)
    (env,) = res.summary.envs
    assert [r["reward_valid"] for r in res.records].count(False) == 1
    # the expert solved the two episodes that ran: the lost one is no failure of the agent
    assert (env.episodes, env.invalid, env.scored, env.errors) == (3, 1, 2, 1)
    assert env.score == env.success_rate == env.pass_at_k == res.summary.overall_score == 1.0
    d = json.loads((tmp_path / "summary.json").read_text())
    assert d["overall"]["invalid"] == 1 and d["include_invalid"] is False
    md = (tmp_path / "summary.md").read_text()
    assert "| env | episodes | invalid | score |" in md and "| 3 | 1 | 1.000 | 100.0% |" in md
    assert "1 episode ended on an environment failure (reward not valid): counted apart" in md
    # asked to, the summary counts the lost episode as its recorded reward (0)
    both = summarize(res.records, include_invalid=True)
    assert (both.envs[0].scored, both.envs[0].invalid) == (3, 1)
    assert both.envs[0].success_rate == pytest.approx(2 / 3)
    assert "counted in score and success" in both.to_markdown()


def test_bench_report_prints_the_invalid_count(tmp_path):
    typer = pytest.importorskip("typer")
    from typer.testing import CliRunner

    from agentgym_envs.benchmarks.cli import register_cli

    run_benchmark("Maze-v0", _dies_mid_episode(expert_spec()), out=tmp_path, limit=3)
    app = typer.Typer()
    app.command("list")(lambda: None)
    register_cli(app)
    r = CliRunner().invoke(app, ["bench", "report", str(tmp_path)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "invalid" in r.output and "1 episode ended on an environment failure" in r.output
    row = next(line for line in r.output.splitlines() if "Maze-v0" in line)
    assert re.search(r"\b3\b.*1\.000.*100\.0%.*\b1\b", row), row
    assert "Maze-v0  success 2, env_error 1" in r.output  # the failed episode says why


def test_records_without_reward_valid_are_summarized_as_before():
    old = [_rec("E", "e_0", 0, 1.0, True), {**_rec("E", "e_1", 0, 0.0, False), "error": "boom"}]
    s = summarize(old)
    assert (s.envs[0].invalid, s.envs[0].scored, s.envs[0].errors) == (0, 2, 1)
    assert s.overall_score == s.overall_success == 0.5
    assert "invalid" not in s.to_markdown() and "environment failure" not in s.to_markdown()


def test_env_reported_failures_leave_the_means_and_the_pairing():
    bad = {**_rec("E", "e_1", 0, 0.0, False), "outcome": "env_error", "reward_valid": False}
    recs = [_rec("E", "e_0", 0, 1.0, True), bad, _rec("F", "f_0", 0, 0.0, False)]
    s = summarize(recs)
    assert (s.envs[0].score, s.envs[0].invalid, s.overall_score) == (1.0, 1, 0.5)
    # an env whose every episode was lost has no score: shown as "-", out of the overall row
    lost = summarize([{**bad, "env_id": "G"}, _rec("E", "e_0", 0, 1.0, True)])
    assert lost.envs[0].scored == 0 and lost.overall_score == 1.0
    assert "| G | 1 | 1 | - | - | - |" in lost.to_markdown()
    # a lost sample is not compared: e_1 is paired only when asked to include it
    other = [_rec("E", "e_0", 0, 1.0, True), _rec("E", "e_1", 0, 1.0, True)]
    assert compare_runs(recs[:2], other, n_boot=200).envs[0].paired_items == 1
    cmp = compare_runs(recs[:2], other, n_boot=200, include_invalid=True)
    assert cmp.envs[0].paired_items == 2


# -- per-turn latency ---------------------------------------------------------------------------
def test_records_carry_per_turn_latency_and_the_summary_its_mean_and_p95(tmp_path):
    res = run_benchmark("Maze-v0,Wordle-v0", expert_spec(), out=tmp_path, limit=3)
    for rec in res.records:
        lat = rec["latency"]
        assert len(lat["policy_s"]) == len(lat["env_s"]) == rec["turns"]
        assert all(t >= 0 and t == round(t, 3) for t in [*lat["policy_s"], *lat["env_s"]])
        assert lat["reset_s"] >= 0
    envs = json.loads((tmp_path / "summary.json").read_text())["envs"]
    for env in envs:
        turns = [
            t for r in res.records if r["env_id"] == env["env_id"] for t in r["latency"]["policy_s"]
        ]
        assert env["policy_latency_mean"] == pytest.approx(sum(turns) / len(turns), abs=1e-4)
        assert min(turns) <= env["policy_latency_p95"] <= max(turns)
        assert env["env_latency_mean"] is not None and env["env_latency_p95"] is not None
    assert "| policy ms/turn | p95 ms |" in (tmp_path / "summary.md").read_text()


def test_latency_summary_pools_every_turn_of_an_env():
    recs = [
        {
            **_rec("E", "e_0", 0, 1.0, True),
            "latency": {"policy_s": [0.1, 0.2], "env_s": [0.0, 0.0]},
        },
        {**_rec("E", "e_1", 0, 0.0, False), "latency": {"policy_s": [1.0, 2.0, 3.0], "env_s": []}},
        _rec("E", "e_2", 0, 0.0, False),  # an older record: no latency, left out
        _rec("F", "f_0", 0, 1.0, True),
    ]
    s = summarize(recs)
    e, f = s.envs
    assert e.policy_latency_mean == pytest.approx(6.3 / 5)
    assert e.policy_latency_p95 == pytest.approx(2.8)  # linear between 2.0 and 3.0
    assert (e.env_latency_mean, e.env_latency_p95) == (0.0, 0.0)
    assert f.policy_latency_mean is None and f.policy_latency_p95 is None
    md = s.to_markdown()
    assert "| E | 3 | 0.333 | 33.3% | 3.0 | 1260 | 2800 |" in md
    assert "| F | 1 | 1.000 | 100.0% | 3.0 | - | - |" in md
    # runs without latency (older runs) keep their table as it was
    assert "policy ms" not in summarize([_rec("F", "f_0", 0, 1.0, True)]).to_markdown()
