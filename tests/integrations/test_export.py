"""``agentgym export ID --to prime|openenv|ors|nemo-gym DIR``: the packages carry the
agentgym-envs wheel, so each installs from its own folder into a fresh venv with no index and
no network (its other dependencies from a local wheelhouse) and plays an episode there with its
hub's own client: ``prime env install`` and ``vf-eval`` as the ecosystems guide's block runs
them, OpenEnv's client and ``openenv validate``, the ``openreward`` SDK (NeMo Gym's ``gym env
start`` / ``gym eval run`` / ``gym env test`` on its folder: ``test_nemo_gym.py``)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
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


GUIDE = Path(__file__).parents[2] / "docs" / "guides" / "ecosystems.md"


def _guide_prime_block() -> str:
    """The ecosystems guide's shell block that exports, installs and evaluates with vf-eval."""
    text = GUIDE.read_text("utf-8").split("From the shell, install the exported package", 1)[1]
    return text.split("```bash\n", 1)[1].split("```", 1)[0]


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_prime_guide_commands_install_offline_and_vf_eval_scores_the_expert(tmp_path):
    """The guide's block as written (its folder and port aside): ``agentgym export``,
    ``prime env install`` into a fresh venv with no index, the expert server, and ``vf-eval``
    with the flags that keep it local and quiet, to a score of 1.0 on both rollouts."""
    block = _guide_prime_block()
    assert "prime env install agentgym-maze-v0 -p /tmp/agentgym-prime" in block
    folder, port = tmp_path / "agentgym-prime", _free_port()
    script = block.replace("/tmp/agentgym-prime", str(folder)).replace("18000", str(port))
    venv = tmp_path / "venv"
    python = offline_venv("verifiers", [], venv)  # empty: `prime env install` fills it
    prime = _prime_cli(tmp_path)
    # `agentgym export` is this checkout's (the user's install); what the guide runs after
    # `prime env install` is the venv's: its vf-eval, and its agentgym from the package's wheel
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / "agentgym"
    shim.write_text(
        f'#!/bin/sh\nPYTHONPATH="{Path.cwd()}" exec "{sys.executable}" -m agentgym_envs.cli "$@"\n'
    )
    shim.chmod(0o755)
    env = offline_env("verifiers")
    path = [python.parent, prime.parent, shims, env["PATH"]]
    env.update(VIRTUAL_ENV=str(venv), PATH=os.pathsep.join(map(str, path)))
    work = tmp_path / "work"
    work.mkdir()
    # output to files: the block's backgrounded expert server would hold pipes open
    stdout, stderr = tmp_path / "guide.out", tmp_path / "guide.err"
    with stdout.open("w") as out_file, stderr.open("w") as err_file:
        proc = subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", script], cwd=work, env=env,
            start_new_session=True, stdout=out_file, stderr=err_file,
        )  # fmt: skip
        try:
            proc.wait(timeout=2400)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)  # the block's backgrounded expert server
    out, err = stdout.read_text(), stderr.read_text()
    # prime 0.18 exits 0 when an install fails: its output says so
    assert proc.returncode == 0 and "Installation failed" not in out + err, (out + err)[-4000:]
    assert "Successfully installed agentgym-maze-v0" in " ".join(out.split())
    # no misleading notice: the endpoint and its key variable are named, nothing is pushed
    assert "WARNING" not in err and "No local endpoint registry" not in out + err, err[-3000:]
    assert len(re.findall(r"rollout done: .* reward=1\.000", err)) == 2, err[-3000:]
    (traces,) = work.glob("outputs/**/traces.jsonl")
    rows = [json.loads(x) for x in traces.read_text().splitlines() if x.strip()]
    assert sorted(r["task"]["data"]["task_id"] for r in rows) == [0, 1]
    for row in rows:
        (trace,) = row["traces"]
        assert row["ok"] and trace["info"]["agentgym"]["outcome"] == "success"
        assert sum(r["score"] * r.get("weight", 1.0) for r in trace["rewards"].values()) == 1.0
    # agentgym-envs came from the package's wheel into the fresh venv
    origin = subprocess.run(
        [str(python), "-c", "import agentgym_envs; print(agentgym_envs.__file__)"],
        capture_output=True, text=True, env={"PATH": env["PATH"]}, check=True, cwd=tmp_path,
    ).stdout.strip()  # fmt: skip
    assert origin.startswith(str(venv.resolve())), origin
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
