"""``agentgym export ID --to prime|openenv|ors|nemo-gym DIR``: the packages carry the
agentgym-envs wheel, so each installs from its own folder into a fresh venv with no index and
no network (its other dependencies from a local wheelhouse) and plays an episode there with its
hub's own client: ``vf-eval``, OpenEnv's client and ``openenv validate``, the ``openreward``
SDK."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from agentgym_envs import __version__
from tests.integrations.ecosystems import (
    offline_env,
    offline_venv,
    reference,
    run_offline_driver,
)

ENV_ID = "AgentGym/Maze-v0"
NAME = "agentgym-maze-v0"
MODULE = "agentgym_maze_v0"


def _export(tmp_path: Path, hub: str, *extra: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "export", ENV_ID, "--to", hub, str(tmp_path)]
    cmd += extra
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    root = tmp_path_factory.mktemp("export")
    for hub in ("prime", "openenv", "ors", "nemo-gym"):
        done = _export(root / hub, hub)
        assert done.returncode == 0, done.stderr
    paths = {hub: root / hub / NAME for hub in ("openenv", "ors")}
    return dict(paths, **{hub: root / hub / MODULE for hub in ("prime", "nemo-gym")})


WHEEL = f"wheels/agentgym_envs-{__version__}-py3-none-any.whl"


def test_each_package_pins_us_ships_our_wheel_and_carries_the_env_table_row(packages):
    expected = {
        "prime": ({"pyproject.toml", f"{MODULE}/__init__.py"}, "verifiers", "pyproject.toml"),
        "openenv": (
            {
                "openenv.yaml",
                "pyproject.toml",
                "uv.lock",
                "__init__.py",
                "server/app.py",
                "server/Dockerfile",
            },
            "openenv",
            "pyproject.toml",
        ),
        "ors": ({"server.py", "Dockerfile"}, "openreward", "requirements.txt"),
        "nemo-gym": (
            {"app.py", "configs/agentgym_maze_v0.yaml", "data/example.jsonl", "tests/test_app.py"},
            "nemo-gym",
            "requirements.txt",
        ),
    }
    for hub, (files, extra, manifest) in expected.items():
        root = packages[hub]
        present = {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}
        assert files | {"README.md", manifest, WHEEL} <= present, (hub, present)
        text = (root / manifest).read_text()
        assert f"agentgym-envs[maze,{extra}]=={__version__}" in text
        # the manifest names the shipped wheel: a uv path source or a find-links line
        assert f'path = "{WHEEL}"' in text or text.startswith("--find-links wheels\n"), hub
        readme = (root / "README.md").read_text()
        assert f"| `{ENV_ID}` | 25 / 25 | 15 | binary |" in readme
        with zipfile.ZipFile(root / WHEEL) as wheel:  # the family's code and data are in it
            assert "agentgym_envs/envs/maze/__init__.py" in wheel.namelist()
    dockerfile = (packages["openenv"] / "server/Dockerfile").read_text()
    assert "openenv-base" in dockerfile and "uv sync --frozen" in dockerfile
    assert "COPY wheels/ /app/wheels/" in (packages["ors"] / "Dockerfile").read_text()
    lock = (packages["openenv"] / "uv.lock").read_text()
    assert f'source = {{ path = "{WHEEL}" }}' in lock


def test_bad_hub_and_existing_folder_are_one_line_errors(packages, tmp_path):
    bad = _export(tmp_path, "hf")
    assert bad.returncode != 0
    assert bad.stderr.strip() == "error: unknown hub 'hf': known: nemo-gym, openenv, ors, prime"
    again = _export(packages["ors"].parent, "ors")
    assert again.returncode != 0 and "pass --force" in again.stderr
    assert _export(packages["ors"].parent, "ors", "--force").returncode == 0


def _played_from_the_wheel(out: dict, venv: Path) -> None:
    assert out["agentgym_envs"].startswith(str(venv.resolve())), out["agentgym_envs"]


def _prime_cli(tmp_path: Path) -> Path:
    """Prime's CLI (``prime``, PyPI) in a venv of its own, installed offline too."""
    python = offline_venv("verifiers", ["prime==0.18.0"], tmp_path / "prime-cli")
    return python.parent / "prime"


def test_prime_package_installs_offline_with_prime_env_install_and_vf_eval_scores_it(
    packages, tmp_path
):
    package = packages["prime"]
    pyproject = (package / "pyproject.toml").read_text()
    # a verifiers 0.4 taskset package: the Hub reads the v1 API off the verifiers floor
    assert '"verifiers>=0.4.0"' in pyproject and f'packages = ["{MODULE}"]' in pyproject
    assert (
        '"AgentGymEnv", "AgentGymMazeV0Taskset"' in (package / MODULE / "__init__.py").read_text()
    )
    venv = tmp_path / "venv"
    python = offline_venv("verifiers", [], venv)  # empty: `prime env install` fills it
    offline = offline_env("verifiers")
    prime = _prime_cli(tmp_path)
    cmd = [str(prime), "env", "install", NAME, "-p", str(package.parent)]
    env = dict(offline, VIRTUAL_ENV=str(venv))
    installed = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    # prime 0.18 exits 0 when an install fails: its output says so
    output = installed.stdout + installed.stderr
    assert installed.returncode == 0 and "Installation failed" not in output, output[-3000:]
    # vf-eval, and the chat harness's own uv script, run with no index either
    job = dict(reference(ENV_ID, 0), hub="prime", package=str(package), vf_env=NAME)
    out = run_offline_driver(python, "export_play", job, env=offline)
    _played_from_the_wheel(out, venv)
    run = out["vf_eval"]
    assert run["returncode"] == 0, run["stderr"]
    (row,) = run["rows"]
    assert row["reward"] == 1.0 and row["ok"] and row["agentgym"]["outcome"] == "success"
    # Prime's own CLI evaluates only on its platform: `prime eval run` says so and where to go
    local = subprocess.run(
        [str(prime), "eval", "run", NAME], capture_output=True, text=True, timeout=600, env=env
    )
    assert local.returncode != 0
    assert "no longer runs evaluations locally" in " ".join((local.stdout + local.stderr).split())


def test_openenv_package_installs_offline_validates_and_plays(packages, tmp_path):
    package = packages["openenv"]
    python = offline_venv("openenv", [str(package)], tmp_path / "venv")
    ref = reference(ENV_ID, 0)
    out = run_offline_driver(python, "export_play", dict(ref, hub="openenv", package=str(package)))
    _played_from_the_wheel(out, tmp_path / "venv")
    for check in ("validate_folder", "validate_url"):
        assert out[check]["returncode"] == 0, out[check]
    assert out["validate_url"]["report"]["passed"] is True
    episode = out["episode"]
    assert episode["first"] == ref["first"]
    assert [s["obs"] for s in episode["steps"]] == [s["obs"] for s in ref["steps"]]
    assert episode["steps"][-1]["outcome"] == "success"


def test_ors_package_installs_offline_and_the_sdk_plays_it(packages, tmp_path):
    package = packages["ors"]
    install = ["-r", str(package / "requirements.txt")]
    python = offline_venv("openreward", install, tmp_path / "venv", cwd=package)
    job = dict(reference(ENV_ID, 0), hub="ors", package=str(package))
    out = run_offline_driver(python, "export_play", job)
    _played_from_the_wheel(out, tmp_path / "venv")
    assert out["task"]["env_id"] == ENV_ID
    assert out["steps"][-1]["metadata"]["outcome"] == "success"


def test_release_flag_checks_pypi_first(tmp_path, monkeypatch):
    from agentgym_envs.errors import AgentGymError
    from agentgym_envs.integrations import export

    def not_there(version, timeout=20):
        raise AgentGymError(f"agentgym-envs {version} is not on PyPI: export without --release")

    monkeypatch.setattr(export, "release_on_pypi", not_there)
    with pytest.raises(AgentGymError, match="not on PyPI"):
        export.export_package(ENV_ID, "ors", tmp_path, release=True)
    monkeypatch.setattr(export, "release_on_pypi", lambda version, timeout=20: None)
    root = export.export_package(ENV_ID, "ors", tmp_path, release=True)
    assert not (root / "wheels").exists()
    assert (
        root / "requirements.txt"
    ).read_text() == f"agentgym-envs[maze,openreward]=={__version__}\n"


def _docker_unavailable() -> str | None:
    """Why the OpenEnv image cannot be built here, or ``None``."""
    import shutil

    from agentgym_envs.integrations.export import OPENENV_BASE_IMAGE

    if shutil.which("docker") is None:
        return "no docker CLI on PATH"
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60)
    if info.returncode != 0:
        lines = (info.stderr or info.stdout).strip().splitlines() or ["docker info failed"]
        return f"Docker daemon not reachable: {lines[-1]}"
    pull = subprocess.run(
        ["docker", "pull", OPENENV_BASE_IMAGE], capture_output=True, text=True, timeout=900
    )
    if pull.returncode != 0:
        return (
            f"cannot pull OpenEnv's base image {OPENENV_BASE_IMAGE}: {pull.stderr.strip()[-200:]}"
        )
    return None


def test_openenv_image_builds_on_openenvs_base_image(packages):
    reason = _docker_unavailable()
    if reason:
        pytest.skip(reason)
    tag = f"{NAME}:agentgym-test"
    build = subprocess.run(
        ["docker", "build", "-q", "-f", "server/Dockerfile", "-t", tag, "."],
        cwd=packages["openenv"], capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]


def test_an_install_without_sources_says_to_use_release(tmp_path, monkeypatch):
    from agentgym_envs.errors import AgentGymError
    from agentgym_envs.integrations import export, venvs

    monkeypatch.setattr(venvs, "source_root", lambda: tmp_path)
    with pytest.raises(AgentGymError, match="export with --release"):
        export.export_package(ENV_ID, "ors", tmp_path / "out")
