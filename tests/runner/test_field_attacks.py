"""The field runner attacked (#31.6): a YAML alias bomb, an output path that cannot be
written, two runs on one output folder, and a malformed file at the head of the NATS outbox
(real nats-server)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from typer.testing import CliRunner

from agentgym_envs.cli import app
from agentgym_envs.runner import EXIT_INTERRUPTED, EXIT_PREFLIGHT, EXIT_USAGE
from agentgym_envs.runner.sinks import QUARANTINE, NatsSink, Outbox

from .conftest import Subscriber

cli = CliRunner()

BOMB = """\
model: {policy: expert}
envs:
  - id: Maze
    kwargs:
      a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
      b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
      c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
      d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
      e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
      f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
      g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
      h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
      i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_a_yaml_alias_bomb_is_refused_even_in_a_dry_run(tmp_path):
    profile = tmp_path / "bomb.yaml"
    profile.write_text(BOMB)
    for extra in (["--dry-run"], []):
        result = cli.invoke(app, ["run", "--config", str(profile), *extra])
        assert result.exit_code == EXIT_USAGE, result.output
        assert "alias bomb" in result.output


def test_dry_run_checks_the_output_can_be_written(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    for out in (blocker, blocker / "below", "/proc/agentgym-out"):
        result = cli.invoke(app, ["run", "Maze", "--dry-run", "--out", str(out)])
        assert result.exit_code == EXIT_PREFLIGHT, result.output
        assert "not writable" in result.output or "is a file" in result.output
    ok = cli.invoke(app, ["run", "Maze", "--dry-run", "--out", str(tmp_path / "new" / "out")])
    assert ok.exit_code == 0, ok.output
    assert not (tmp_path / "new").exists()


def test_two_runs_on_one_output_folder_cannot_both_write(tmp_path):
    out = tmp_path / "shared"
    command = [sys.executable, "-m", "agentgym_envs.cli", "run", "lightweight", "--policy"]
    command += ["random", "--episodes", "90", "--repeat", "20", "--out", str(out)]
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    results = out / "results.jsonl"
    while time.monotonic() < deadline and not (results.is_file() and results.stat().st_size):
        time.sleep(0.1)
    assert first.poll() is None, first.communicate()
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    first.send_signal(signal.SIGINT)
    _, first_err = first.communicate(timeout=240)
    assert second.returncode == EXIT_USAGE, second.stderr
    assert "being written by another run" in second.stderr
    assert first.returncode == EXIT_INTERRUPTED, first_err
    keys = [_key(line) for line in results.read_text().splitlines()]
    kept = sum(s["episodes"] for s in json.loads((out / "summary.json").read_text())["envs"])
    assert len(keys) == len(set(keys)) == kept  # one writer: no episode twice


def _key(line: str) -> tuple:
    record = json.loads(line)
    return record["env_id"], record["item_id"], record["repeat"]


def test_a_malformed_outbox_file_does_not_block_later_events(tmp_path, nats_server):
    box_dir = tmp_path / "outbox" / "nats"
    box_dir.mkdir(parents=True)
    # at the head of the queue: not an event, an event without its keys, a directory
    (box_dir / "00000000000000000001-aaaa.json").write_text("[1, 2, 3]")
    (box_dir / "00000000000000000002-bbbb.json").write_text('{"no": "event keys"}')
    (box_dir / "00000000000000000003-cccc.json").mkdir()
    (box_dir / "00000000000000000004-dddd.json").write_bytes(b"\xff\xfe{")
    sub = Subscriber(nats_server.url, "t.>")
    sink = NatsSink([nats_server.url], subject_prefix="t")
    box = Outbox(sink, box_dir, retry_initial=0.05, retry_max=0.5)
    try:
        for n in range(3):
            box.put({"event": "agentgym.test", "event_id": f"e{n}", "n": n})
        sub.wait_for(3)
        assert box.flush(60)
    finally:
        box.close(10)
        sink.close()
        sub.close()
    assert [e["n"] for _, e in sub.messages] == [0, 1, 2]
    assert sorted(p.name for p in (box_dir / QUARANTINE).iterdir()) == [
        "00000000000000000001-aaaa.json",
        "00000000000000000002-bbbb.json",
        "00000000000000000003-cccc.json",
        "00000000000000000004-dddd.json",
    ]
