"""``agentgym export ID --to prime|openenv|ors DIR``: the packages, checked by each hub's own
tools in that hub's venv (``pip wheel`` + ``vf-eval``; ``uv lock`` + ``openenv validate``;
the ``openreward`` SDK's client on the package's server)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agentgym_envs import __version__
from agentgym_envs.integrations.venvs import source_root
from tests.integrations.ecosystems import ecosystem, reference, run_driver

ENV_ID = "AgentGym/Maze-v0"
NAME = "agentgym-maze-v0"


def _export(tmp_path: Path, hub: str, *extra: str) -> subprocess.CompletedProcess:
    cmd = ["agentgym", "export", ENV_ID, "--to", hub, str(tmp_path), *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    for hub in ("prime", "openenv", "ors"):
        done = _export(root / hub, hub)
        assert done.returncode == 0, done.stderr
    return {hub: root / hub / NAME for hub in ("prime", "openenv", "ors")}


def test_each_package_pins_us_and_carries_the_env_table_row(packages):
    expected = {
        "prime": ({"pyproject.toml", "agentgym_maze_v0.py", "README.md"}, "verifiers"),
        "openenv": (
            {"openenv.yaml", "pyproject.toml", "__init__.py", "server/app.py", "server/Dockerfile"},
            "openenv",
        ),
        "ors": ({"server.py", "requirements.txt", "Dockerfile", "README.md"}, "openreward"),
    }
    for hub, (files, extra) in expected.items():
        root = packages[hub]
        present = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
        assert files <= present, (hub, present)
        pin = f"agentgym-envs[maze,{extra}]=={__version__}"
        manifest = "requirements.txt" if hub == "ors" else "pyproject.toml"
        assert pin in (root / manifest).read_text()
        readme = (root / "README.md").read_text()
        assert f"| `{ENV_ID}` | 25 / 25 | 15 | binary |" in readme


def test_bad_hub_and_existing_folder_are_one_line_errors(packages, tmp_path):
    bad = _export(tmp_path, "hf")
    assert bad.returncode != 0
    assert bad.stderr.strip() == "error: unknown hub 'hf': known: openenv, ors, prime"
    again = _export(packages["ors"].parent, "ors")
    assert again.returncode != 0 and "pass --force" in again.stderr
    assert _export(packages["ors"].parent, "ors", "--force").returncode == 0


def test_prime_package_builds_and_runs_under_vf_eval(packages):
    job = dict(reference(ENV_ID, 0), hub="prime", package=str(packages["prime"]))
    out = run_driver(ecosystem("verifiers"), "export_check", job)
    assert out["wheel"]["returncode"] == 0, out["wheel"]["stderr"]
    assert out["wheel"]["files"] == [f"agentgym_maze_v0-{__version__}-py3-none-any.whl"]
    run = out["vf_eval"]
    assert run["returncode"] == 0, run["stderr"]
    assert [row["reward"] for row in run["rows"]] == [1.0]


def test_openenv_package_passes_openenv_validate(packages):
    job = {"hub": "openenv", "package": str(packages["openenv"]), "source": str(source_root())}
    out = run_driver(ecosystem("openenv"), "export_check", job)
    assert out["lock"]["returncode"] == 0, out["lock"]["stderr"]
    report = out["validate"]["report"]
    assert out["validate"]["returncode"] == 0 and report["passed"], report


def test_ors_package_serves_an_episode(packages):
    job = dict(reference(ENV_ID, 0), hub="ors", package=str(packages["ors"]))
    out = run_driver(ecosystem("openreward"), "export_check", job)
    assert out["task"]["env_id"] == ENV_ID
    assert out["steps"][-1]["metadata"]["outcome"] == "success"
