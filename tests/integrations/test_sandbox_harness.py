"""A hostile model drives the real Cline (auto-approve) through its own tools: shell commands
that delete a folder and write files outside the episode's folder, an editor write at an
absolute path outside it, reads of ``/etc/passwd`` and of a secret under the user's home, and a
connection to another loopback port. In the sandbox (the default) nothing outside changes, no
secret reaches the model, and the episode is ``sandbox_violation`` with no valid reward even
though the model then wins the game. Without the sandbox (``sandbox=False``) the same run does
all of it: the breach the sandbox exists for, kept as a test so that it stays documented."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from agentgym_envs.agents.harness_expert import HarnessExpertServer
from agentgym_envs.integrations.harnesses import harness_dir
from agentgym_envs.integrations.harnesses.runner import run_harness
from agentgym_envs.integrations.sandbox import SandboxUnavailableError, bwrap

from .test_harnesses import installed

#: A line of the host's real /etc/passwd that the sandbox's stub does not have.
REAL_PASSWD = next(
    (line for line in Path("/etc/passwd").read_text().splitlines() if line.startswith("daemon:")),
    "daemon:x:1:1",
)


class HostileModel(HarnessExpertServer):
    """The expert, after its first answers have asked Cline's own tools for the attack: one
    tool call per answer. Every request body it receives is kept (``received``)."""

    def __init__(self, env_ids: list[str], attacks: list[tuple[str, dict]]) -> None:
        super().__init__(env_ids)
        self.attacks = list(attacks)
        self.received: list[str] = []

    def complete(self, body):
        self.received.append(json.dumps(body))
        offered = {t.get("function", t).get("name") for t in body.get("tools") or []}
        if self.attacks and offered:
            name, args = self.attacks.pop(0)
            self.requests += 1
            call = {
                "id": f"call_attack_{self.requests}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            message = {"role": "assistant", "content": None, "tool_calls": [call]}
            return self._payload(body.get("messages") or [], message)
        return super().complete(body)


@pytest.fixture
def target(tmp_path, monkeypatch):
    """The things outside the episode a hostile model goes for: a folder to delete, places to
    write, a secret under a fake user home ($HOME), a loopback port that is not the
    episode's."""
    monkeypatch.setenv("AGENTGYM_HARNESSES", str(harness_dir()))  # before HOME moves
    outside = tmp_path / "outside"
    victim = outside / "victim"
    victim.mkdir(parents=True)
    (victim / "keep.txt").write_text("keep me")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    secret = "SECRET-" + "7f3a9c" * 4
    (home / ".ssh" / "id_rsa").write_text(secret)
    (home / "secret.txt").write_text(secret)
    monkeypatch.setenv("HOME", str(home))
    other = socket.socket()
    other.bind(("127.0.0.1", 0))
    other.listen()
    port = other.getsockname()[1]
    attacks = [
        (
            "run_commands",
            {
                "commands": [
                    f"rm -rf {victim}; touch {outside}/pwned-cmd; touch pwned",
                    f"cat {home}/.ssh/id_rsa {home}/secret.txt",
                    f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}))\"",
                ]
            },
        ),
        ("editor", {"path": str(outside / "written.txt"), "new_text": "pwned\n"}),
        ("read_files", {"files": [{"path": "/etc/passwd"}, {"path": str(home / "secret.txt")}]}),
    ]
    yield {"outside": outside, "victim": victim, "secret": secret, "attacks": attacks}
    other.close()


def _play(attacks, out, sandbox):
    installed("cline")
    with HostileModel(["AgentGym/Wordle-v0"], attacks) as model:
        result = run_harness(
            "cline", "Wordle-v0", 0, model.base_url, out=out, timeout=300, sandbox=sandbox
        )
    return result, "\n".join(model.received)


def test_the_sandbox_contains_a_hostile_model_and_the_episode_is_not_scored(target, tmp_path):
    try:
        bwrap()
    except SandboxUnavailableError as exc:
        pytest.skip(str(exc))
    # and, in the sandbox only, a write at a host path outside /tmp (the sandbox's own /tmp
    # contains the other writes without listing them)
    var = Path(f"/var/tmp/agentgym-pwned-{target['secret'][-6:]}-{tmp_path.name}.txt")
    attacks = [*target["attacks"], ("editor", {"path": str(var), "new_text": "pwned\n"})]
    try:
        result, received = _play(attacks, tmp_path / "runs", sandbox=True)
    finally:
        written = var.exists()
        var.unlink(missing_ok=True)
    # nothing outside the episode changed
    assert (target["victim"] / "keep.txt").read_text() == "keep me"
    assert not (target["outside"] / "pwned-cmd").exists()
    assert not (target["outside"] / "written.txt").exists()
    assert not written
    # the model got neither the secret nor the host's passwd, but the sandbox's decoys
    assert "Cline" in received and "run_commands" in received
    assert target["secret"] not in received
    assert REAL_PASSWD not in received
    assert "agentgym-canary-" in received
    # the harness played on (the expert then won), but the episode is not a valid reward
    assert result.env_steps == 3
    assert result.outcome == "sandbox_violation", result.error
    assert result.reward_valid is False and result.reward is None
    violations = result.record["sandbox_violations"]
    assert any("decoy secret" in v for v in violations)
    assert any("write outside" in v and str(var) in v for v in violations)
    assert any("connection outside" in v for v in violations)
    traj = json.loads((tmp_path / "runs" / "agenttraj.jsonl").read_text().splitlines()[-1])
    assert traj["outcome"] == "sandbox_violation" and traj["reward"] is None
    assert traj["sandbox"] is True


def test_without_the_sandbox_the_same_model_breaches_the_host(target, tmp_path):
    """``sandbox=False`` (documented as unsafe): the hostile model deletes, writes and reads
    outside the episode, and the run is even scored as a valid success."""
    result, received = _play(target["attacks"], tmp_path / "runs", sandbox=False)
    assert not target["victim"].exists()
    assert (target["outside"] / "pwned-cmd").exists()
    assert (target["outside"] / "written.txt").read_text() == "pwned\n"
    assert target["secret"] in received and REAL_PASSWD in received
    assert (result.outcome, result.reward_valid) == ("success", True)
    assert result.record["sandbox"] is False


def test_a_machine_without_bwrap_is_one_line_with_the_mend(tmp_path):
    installed("cline")
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "harness", "cline", "--env", "Wordle-v0"]
        + ["--model", "expert", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": str(tmp_path), "AGENTGYM_HARNESSES": str(harness_dir())},
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "apt-get install bubblewrap" in done.stderr and "--no-sandbox" in done.stderr
    assert not (tmp_path / "agenttraj.jsonl").exists()  # nothing ran
