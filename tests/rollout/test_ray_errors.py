"""Bad input to the Ray backend: one line, before any episode, without starting Ray."""

from __future__ import annotations

import subprocess
import sys

import pytest

ray = pytest.importorskip("ray")

from agentgym_envs.rollout.ray.cluster import ClusterError, _init_error, connect
from agentgym_envs.rollout.ray.local_cluster import free_port


def test_an_unreachable_address_is_one_line_before_ray_starts():
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(
        ClusterError, match=r"^no Ray cluster answers at 127\.0\.0\.1:\d+ .*ray start --head"
    ) as err:
        connect(address)
    assert "\n" not in str(err.value)
    assert not ray.is_initialized()


@pytest.mark.parametrize("address", ["ray://", "localhost:notaport"])
def test_a_malformed_address_is_one_line(address):
    with pytest.raises((ClusterError, ValueError)) as err:
        connect(address)
    assert "\n" not in str(err.value)
    assert not ray.is_initialized()


def test_bench_ray_unreachable_is_one_line_and_writes_nothing(tmp_path):
    pytest.importorskip("typer")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "agentgym_envs.cli", "bench", "--envs", "Maze-v0", "--no-progress"]
    cmd += ["--out", str(out), "--ray", f"127.0.0.1:{free_port()}"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stdout + run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith("error: no Ray cluster answers at 127.0.0.1:")
    assert not out.exists()


def test_a_ray_version_mismatch_is_one_line():
    """Ray's own version check, on metadata of a cluster started with another Ray."""
    from ray._private.utils import check_version_info

    metadata = {"ray_version": "2.9.0", "python_version": "3.10.1"}
    with pytest.raises(Exception) as raised:
        check_version_info(metadata, "127.0.0.1:6379")
    line = _init_error("10.0.0.5:6379", raised.value)
    assert "\n" not in line
    assert line.startswith("the Ray cluster at 10.0.0.5:6379 runs another Ray or Python version")
    assert f"ray {ray.__version__}" in line and "2.9.0" in line
