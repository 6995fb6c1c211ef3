"""The sandbox on its own: a real Python process tree run in it by bubblewrap cannot write
outside its folders (the write is contained and reported), cannot read a secret of the user's
(it reads a decoy whose canary is detected), reaches only the loopback ports it is given, is
killed whole by its parent, and is held to its memory, process and CPU limits. A machine that
cannot sandbox is a one-line error with the mend."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agentgym_envs.integrations.sandbox import (
    Limits,
    Sandbox,
    SandboxUnavailableError,
    bwrap,
)
from agentgym_envs.integrations.sandbox.audit import refusals

PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


@pytest.fixture(autouse=True)
def _needs_bwrap():
    try:
        bwrap()
    except SandboxUnavailableError as exc:
        pytest.skip(str(exc))


@pytest.fixture
def home(tmp_path):
    folder = tmp_path / "episode"
    folder.mkdir()
    return folder


def _readable():
    """What the sandboxed Python needs besides the system (this one, when it is not /usr's)."""
    return [] if PYTHON.startswith("/usr/") else [Path(sys.base_prefix)]


def run(box: Sandbox, code: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    command = box.command([PYTHON, "-c", code], cwd=cwd)
    return subprocess.run(
        command,
        env=box.environment(dict(os.environ)),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")

    def log_message(self, *args):
        pass


def test_writes_outside_are_contained_and_reported(home, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me")
    var = Path(f"/var/tmp/agentgym-pwned-{os.getpid()}-{time.monotonic_ns()}")
    code = f"""
import os, shutil
shutil.rmtree({str(outside)!r}, ignore_errors=True)
os.makedirs({str(outside)!r}, exist_ok=True)
open({str(outside / "pwned.txt")!r}, "w").write("pwned")
os.makedirs({str(var)!r})
open({str(var / "pwned.txt")!r}, "w").write("pwned")
open("/etc/cron-pwned", "w").write("pwned")
try:
    open("/usr/pwned", "w")
except OSError as exc:
    print("usr:", exc.strerror)
open("mine.txt", "w").write("fine")
"""
    with Sandbox([home], _readable()) as box:
        done = run(box, code, home)
        violations = box.violations()
    assert done.returncode == 0, done.stderr
    assert "usr: Read-only file system" in done.stdout
    assert (outside / "keep.txt").read_text() == "keep me"
    assert not (outside / "pwned.txt").exists() and not Path("/etc/cron-pwned").exists()
    assert not var.exists()
    assert (home / "mine.txt").read_text() == "fine"  # its own folder is its to write
    # reported: writes outside its folders; /tmp is its own (contained, thrown away, not listed)
    assert any(str(var / "pwned.txt") in v for v in violations)
    assert any("/etc/cron-pwned" in v for v in violations)
    assert not any("mine.txt" in v or str(outside) in v for v in violations)


def test_secrets_are_not_there_and_decoys_trip(home, tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "REAL-SECRET-ENV")
    monkeypatch.setenv("GITHUB_TOKEN", "REAL-SECRET-TOKEN")
    user = tmp_path / "user"
    (user / ".ssh").mkdir(parents=True)
    (user / ".ssh" / "id_rsa").write_text("REAL-SECRET-KEY")
    (user / "notes.txt").write_text("REAL-SECRET-NOTES")
    monkeypatch.setenv("HOME", str(user))
    code = f"""
import os
for path in ({str(user / ".ssh" / "id_rsa")!r}, {str(user / "notes.txt")!r}, "/etc/shadow",
             "/root/.bash_history"):
    try:
        print(path, open(path).read().strip())
    except OSError as exc:
        print(path, exc.strerror)
print(sorted(os.listdir("/etc")))
print("uid", os.getuid(), os.getgid())
print(sorted(os.environ.items()))
"""
    with Sandbox([home], _readable()) as box:
        done = run(box, code, home)
        canary = box.canary
        tool_result = {"request": {"messages": [{"role": "tool", "content": done.stdout}]}}
        violations = box.violations([tool_result])
    assert done.returncode == 0, done.stderr
    assert "REAL-SECRET" not in done.stdout
    assert f"{user / '.ssh' / 'id_rsa'} {canary}" in done.stdout  # a decoy
    assert f"{user / 'notes.txt'} No such file or directory" in done.stdout
    assert f"/etc/shadow {canary}" in done.stdout
    assert "uid 65534 65534" in done.stdout
    assert any("decoy secret" in v for v in violations)


def test_only_the_given_loopback_ports_are_reached(home):
    allowed = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=allowed.serve_forever, daemon=True).start()
    other = socket.socket()
    other.bind(("127.0.0.1", 0))
    other.listen()
    code = f"""
import socket, urllib.request
print("allowed", urllib.request.urlopen("http://127.0.0.1:{allowed.server_port}/", timeout=60).read())
for host, port in (("127.0.0.1", {other.getsockname()[1]}), ("10.0.0.1", 80)):
    try:
        socket.create_connection((host, port), timeout=10)
        print(host, "REACHED")
    except OSError as exc:
        print(host, exc.strerror)
"""
    try:
        with Sandbox([home], _readable(), ports=[allowed.server_port]) as box:
            done = run(box, code, home)
            calls = [{"request": {"messages": [{"role": "tool", "content": done.stdout}]}}]
            assert any("connection outside" in v for v in refusals(calls, box.canary))
    finally:
        allowed.shutdown()
        other.close()
    assert "allowed b'hello'" in done.stdout, done.stderr
    assert "127.0.0.1 Connection refused" in done.stdout
    assert "10.0.0.1 Network is unreachable" in done.stdout
    assert "REACHED" not in done.stdout


def _alive(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def test_the_whole_tree_dies_with_its_parent(home):
    token = f"agentgym-sleeper-{os.getpid()}-{time.monotonic_ns()}"
    code = f"""
import subprocess, sys, time
sleeper = "import time; time.sleep(3600)  # {token}"
subprocess.Popen([sys.executable, "-c", sleeper], start_new_session=True)
subprocess.Popen([sys.executable, "-c", sleeper])
open("started", "w").write("yes")
time.sleep(3600)
"""
    with Sandbox([home], _readable()) as box:
        process = subprocess.Popen(
            box.command([PYTHON, "-c", code], cwd=home),
            env=box.environment(dict(os.environ)),
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while len(_alive(token)) < 3 and time.monotonic() < deadline:  # the script + 2
            assert process.poll() is None
            time.sleep(0.1)
        assert len(_alive(token)) == 3 and (home / "started").exists()
        os.killpg(process.pid, signal.SIGKILL)  # what the harness runner does at the deadline
        process.wait(timeout=60)
        deadline = time.monotonic() + 60
        while _alive(token) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _alive(token) == []


def test_memory_processes_and_cpu_are_limited(home):
    limits = Limits(memory=512 << 20, processes=16, cpu=2)
    code = """
import resource, subprocess, sys
try:
    block = bytearray(1 << 30)
    print("memory: allocated")
except MemoryError:
    print("memory: refused")
children = []
try:
    for _ in range(64):
        children.append(subprocess.Popen(["sleep", "60"]))
    print("processes: all 64")
except OSError as exc:
    print("processes: refused after", len(children))
for child in children:
    child.kill()
    child.wait()
print("cpu", resource.getrlimit(resource.RLIMIT_CPU))
burn = subprocess.run([sys.executable, "-c", "while True: pass"])
print("burner", burn.returncode)
"""
    with Sandbox([home], _readable(), limits=limits) as box:
        done = run(box, code, home)
    assert "memory: refused" in done.stdout, done.stdout + done.stderr
    assert "processes: refused after" in done.stdout
    assert "cpu (2, 2)" in done.stdout
    assert f"burner -{signal.SIGXCPU}" in done.stdout or "burner -9" in done.stdout


def test_no_bwrap_is_one_line_with_the_mend(monkeypatch, tmp_path):
    from agentgym_envs import doctor

    assert doctor.sandbox_check().ok
    monkeypatch.setenv("PATH", str(tmp_path))
    bwrap.cache_clear()
    try:
        with pytest.raises(SandboxUnavailableError) as caught:
            bwrap()
        check = doctor.sandbox_check()
    finally:
        monkeypatch.undo()
        bwrap.cache_clear()
    message = str(caught.value)
    assert "\n" not in message
    assert "apt-get install bubblewrap" in message and "--no-sandbox" in message
    assert not check.ok and "apt-get install bubblewrap" in check.detail


def test_one_sandbox_runs_several_commands_each_on_a_fresh_root(home):
    with Sandbox([home], _readable()) as box:
        first = run(box, "open('/first', 'w').write('x'); print('one')", home)
        second = run(box, "import os; print('two', os.path.exists('/first'))", home)
        violations = box.violations()
    assert (first.returncode, first.stdout) == (0, "one\n"), first.stderr
    assert (second.returncode, second.stdout) == (0, "two False\n"), second.stderr
    assert any("/first" in v for v in violations)
