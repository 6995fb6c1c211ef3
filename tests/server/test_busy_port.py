"""A server command asked for a port something else listens on, or an address this machine does
not have, says so in one line and exits 2 -- before it loads anything."""

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
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert f"port {busy_port} on 127.0.0.1 is in use" in done.stderr
    assert "--port" in done.stderr


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
