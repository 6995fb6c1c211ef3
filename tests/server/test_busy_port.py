"""A server command asked for a port something else listens on, or an address this machine does
not have, says so in one line and exits 2 -- before it loads anything: every ``agentgym`` server
command, and the server modules run as ``python -m`` (the local model server, and the OpenEnv
and OpenReward servers in their ecosystems' own venvs)."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from agentgym_envs.serving import AddressInUseError, check_bindable

pytest.importorskip("uvicorn")


@pytest.fixture
def busy_port():
    """A port with a real listener on 127.0.0.1 for the test's duration."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


COMMANDS = [
    ["serve", "Maze-v0"],
    ["dashboard", "--db", "{tmp}/store.db"],
    ["agent-server", "multistep"],
    ["serve-shop"],
    ["mcp", "Maze-v0", "--transport", "http"],
    ["gateway", "--env", "Maze-v0", "--upstream", "http://127.0.0.1:9/v1", "--out", "{tmp}/gw"],
    ["llm", "serve"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_busy_port_is_one_line_with_the_mend(command, busy_port, tmp_path):
    args = [a.format(tmp=tmp_path) for a in command]
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", *args, "--port", str(busy_port)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    _one_line(done, busy_port)


def _one_line(done, port):
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"port {port} on 127.0.0.1 is in use" in done.stderr
    assert "--port" in done.stderr


def test_the_model_server_module_is_one_line_before_it_loads_a_model(busy_port, tmp_path):
    """``python -m agentgym_envs.benchmarks.hf_server``: the file need not even exist."""
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.benchmarks.hf_server", "--port", str(busy_port)]
        + ["--model", str(tmp_path / "absent.gguf")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    _one_line(done, busy_port)


@pytest.mark.parametrize("name", ["openenv", "openreward"])
def test_the_ecosystem_servers_are_one_line(name, busy_port):
    """The OpenEnv and OpenReward servers, run in their ecosystems' venvs."""
    from agentgym_envs.integrations.venvs import ecosystem_env
    from tests.integrations.ecosystems import ecosystem

    module = f"agentgym_envs.integrations.{name}"
    done = subprocess.run(
        [str(ecosystem(name)), "-m", module, "Maze-v0", "--port", str(busy_port)],
        capture_output=True,
        text=True,
        timeout=600,
        env=ecosystem_env(),
    )
    _one_line(done, busy_port)


def test_an_address_not_of_this_machine_is_one_line(busy_port):
    with pytest.raises(AddressInUseError, match="--host 127.0.0.1") as caught:
        check_bindable("192.0.2.1", 8123)  # TEST-NET-1: never a local address
    assert "\n" not in str(caught.value)


def test_a_free_port_and_port_zero_pass(busy_port):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free = sock.getsockname()[1]
    check_bindable("127.0.0.1", free)
    check_bindable("127.0.0.1", 0)
    with pytest.raises(AddressInUseError):
        check_bindable("127.0.0.1", busy_port)
