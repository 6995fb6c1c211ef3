"""Many harness episodes at once, through the benchmark runner's resumable store.

A harness is a benchmark policy that plays whole episodes elsewhere (``harness:<name>``, like
``agent-server:<url>``): :func:`harness_spec` makes it one, and the runner
(:func:`~agentgym_envs.benchmarks.runner.run_benchmark`) plays ``concurrency`` episodes at a
time, each written once to ``results.jsonl`` and skipped when the run is resumed::

    agentgym harness cline --env Wordle-v0 --tasks 0-24 -j 4 --model expert --out runs/cline
    agentgym bench --policy harness:cline --envs Wordle-v0 -j 4 --model-source expert

The episodes of one env share one recording gateway
(:class:`~agentgym_envs.integrations.harnesses.runner.HarnessGateway`), each as a session of its
own: its own model route (``/s/<session>/v1``), MCP episode (``?session=<session>``), ``HOME``
folder and process group. The gateway writes the harness's own records (``agenttraj.jsonl``,
``chat.jsonl``, ``sft.jsonl``, ``sessions/``, ``harness/``) into the run folder next to
``results.jsonl``, whose records name their ``session``; when a run is resumed, the records of
episodes that did not finish (no line in ``results.jsonl``, or one with an ``error``, which is
played again) are dropped first, so each episode's records are there once. (A folder of
single episodes, ``agentgym harness --task N``, is not a run folder: a run refuses it.)
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from agentgym_envs.integrations.harnesses.base import Harness, HarnessError
from agentgym_envs.integrations.harnesses.runner import GRACE, HarnessGateway, first_model

logger = logging.getLogger(__name__)

#: How ``agentgym bench --policy`` names a harness: ``harness:<name>``.
POLICY_PREFIX = "harness:"
#: The gateway's record files, each record naming its ``session``.
RECORD_FILES = ("agenttraj.jsonl", "chat.jsonl", "sft.jsonl")
#: The file that marks a folder as a run of harness episodes (its records are the run's).
MARKER = "harness-run.json"
_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


def parse_tasks(text: str) -> list[int]:
    """Task ids from ``"0-99"``, ``"3"`` or ``"0,4,10-12"`` (ranges inclusive), in order,
    each once; a one-line :class:`ValueError` for anything else."""
    tasks: list[int] = []
    for part in text.split(","):
        found = _RANGE.match(part.strip())
        if found is None:
            raise ValueError(f"--tasks {text!r}: give task ids and ranges, e.g. 0-99 or 0,4,10-12")
        first = int(found.group(1))
        last = int(found.group(2)) if found.group(2) is not None else first
        if last < first:
            raise ValueError(f"--tasks {text!r}: the range {part.strip()} runs backwards")
        tasks += range(first, last + 1)
    return list(dict.fromkeys(tasks))


class HarnessPolicy:
    """A harness as a benchmark policy: :attr:`spec` for the runner; one gateway per env id,
    started at the first episode of that env and stopped when the run is over.

    Args:
        harness: the harness, or its name.
        model_url: the model endpoint's ``/v1`` root.
        model: the model name (default: the endpoint's first).
        api_key: sent upstream by the gateway.
        timeout: each episode's deadline in seconds (then ``time_limit``).
        grace: seconds a harness may go on after the env ended its episode.
        token_ids: ask the upstream for token ids and logprobs and record them.
        keep_home: keep each episode's ``HOME`` folder.
        sandbox: run each episode in the sandbox (see
            :func:`~agentgym_envs.integrations.harnesses.runner.run_harness`; False is unsafe
            with an untrusted model).
        max_calls: the most model calls of each episode (then ``turn_limit``; default no cap).
    """

    def __init__(
        self,
        harness: str | Harness,
        model_url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        timeout: float = 600.0,
        grace: float = GRACE,
        token_ids: bool = False,
        keep_home: bool = False,
        sandbox: bool = True,
        max_calls: int | None = None,
    ) -> None:
        from agentgym_envs.integrations.harnesses import get_harness

        self.harness = get_harness(harness) if isinstance(harness, str) else harness
        self.model_url, self.model, self.api_key = model_url, model, api_key
        self.timeout, self.grace = timeout, grace
        self.token_ids, self.keep_home, self.sandbox = token_ids, keep_home, sandbox
        self.max_calls = max_calls
        self.executable: str | None = None
        self.out: Path | None = None
        self._scratch: Path | None = None  # the records of a run kept in memory only
        self._gateways: dict[str, HarnessGateway] = {}
        self._lock = threading.Lock()
        self.spec = self._spec()

    def _spec(self) -> Any:
        from agentgym_envs.benchmarks.policies import PolicySpec

        config = {
            "harness": self.harness.name,
            "package": self.harness.package,
            "base_url": self.model_url,  # an endpoint's address is not a setting (resume)
            "model": self.model,
            "timeout": self.timeout,
            "sandbox": self.sandbox,
        }
        if self.max_calls:  # only when set: runs made before the cap existed still resume
            config["max_calls"] = self.max_calls
        spec = PolicySpec(
            f"{POLICY_PREFIX}{self.harness.name}",
            "tools",
            _no_step,
            config=config,
            check=self.check,
            prepare=self.prepare,
            finish=self.finish,
        )
        spec.episode = self.episode  # type: ignore[attr-defined]
        return spec

    def check(self) -> None:
        """The harness is installed and the endpoint lists a model (before any episode)."""
        self.executable = self.harness.require()
        if self.sandbox:
            from agentgym_envs.integrations.sandbox import bwrap

            bwrap()  # a machine that cannot sandbox: one line with the mend
        if self.model is None:
            self.model = first_model(self.model_url, self.api_key)
        self.spec.config["model"] = self.model

    def prepare(self, out: Path | None, done: dict[Any, dict[str, Any]]) -> None:
        """Record into the run folder ``out`` (a temporary one for a run in memory), dropping
        the records of sessions that are not among the episodes ``done`` there."""
        if out is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="agentgym-harness-run-"))
            out = self._scratch
        self.out = Path(out)
        marker = self.out / MARKER
        if not marker.is_file():
            held = [name for name in RECORD_FILES if (self.out / name).is_file()]
            if held:
                raise HarnessError(
                    f"{self.out} holds harness records of another kind of run ({held[0]}): "
                    "use a new --out folder for a run of many episodes"
                )
            marker.write_text(json.dumps({"harness": self.harness.name}) + "\n", encoding="utf-8")
        kept = {r.get("session") for r in done.values() if r.get("session")}
        dropped = prune_records(self.out, kept)
        if dropped:
            logger.info("resuming: dropped the records of %d unfinished sessions", dropped)

    def episode(
        self, env_id: str, task_id: int, split: str, seed: int, max_rounds: int | None
    ) -> dict[str, Any]:
        """One episode on the env's gateway, as the runner's answer of a remote episode (the
        harness's own limits stand in for ``max_rounds``; ``seed`` is not used)."""
        if self.executable is None or self.model is None:
            self.check()
        result = self._gateway(env_id).play(
            self.harness,
            str(self.executable),
            task_id,
            str(self.model),
            split=split,
            timeout=self.timeout,
            grace=self.grace,
            keep_home=self.keep_home,
            sandbox=self.sandbox,
            max_calls=self.max_calls,
        )
        return {
            "outcome": result.outcome,
            "reward": result.score if result.reward_valid else 0.0,
            "reward_valid": result.reward_valid,
            "success": result.success,
            "turns": result.env_steps,
            "wall_time": result.wall_time,
            "tokens": result.tokens,
            "conversations": result.record.get("conversations") or [],
            # an error marks an episode to play again on resume: only one whose reward is void
            "error": None if result.reward_valid else result.error,
            "session": result.session,
        }

    def _gateway(self, env_id: str) -> HarnessGateway:
        from agentgym_envs.spec import resolve_id

        env_id = resolve_id(env_id)
        with self._lock:
            gateway = self._gateways.get(env_id)
            if gateway is None:
                if self.out is None:
                    raise HarnessError("a harness policy plays inside a benchmark run")
                gateway = HarnessGateway(
                    env_id,
                    self.model_url,
                    self.out,
                    api_key=self.api_key,
                    token_ids=self.token_ids,
                    timeout=self.timeout,
                ).__enter__()
                self._gateways[env_id] = gateway
            return gateway

    def finish(self) -> None:
        """Stop the gateways (each writes any session still open) and drop a scratch folder."""
        with self._lock:
            gateways, self._gateways = list(self._gateways.values()), {}
        for gateway in gateways:
            try:
                gateway.__exit__(None, None, None)
            except Exception:
                logger.exception("stopping the gateway of %s failed", gateway.env_id)
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


def harness_spec(name: str | Harness, model_url: str, **kwargs: Any) -> Any:
    """Harness ``name`` as a benchmark :class:`~agentgym_envs.benchmarks.PolicySpec`
    (``kwargs``: as for :class:`HarnessPolicy`)."""
    return HarnessPolicy(name, model_url, **kwargs).spec


def prune_records(out: Path, sessions: set[str]) -> int:
    """Drop from ``out``'s record files every record whose session is not in ``sessions``;
    the number of sessions dropped. Each file is replaced whole (a crash leaves the old one)."""
    dropped: set[str] = set()
    for name in RECORD_FILES:
        path = out / name
        if not path.is_file():
            continue
        kept_lines, changed = [], False
        for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
            try:
                session = json.loads(line).get("session")
            except (ValueError, AttributeError):
                changed = True  # a torn line: its episode is played again
                continue
            if session not in sessions:
                dropped.add(str(session))
                changed = True
                continue
            kept_lines.append(line if line.endswith("\n") else line + "\n")
        if changed:
            partial = path.with_name(f".{name}.{os.getpid()}.partial")
            partial.write_text("".join(kept_lines), encoding="utf-8")
            os.replace(partial, path)
    return len(dropped)


def _no_step(env: Any, seed: int) -> Any:
    raise HarnessError("a harness policy plays whole episodes through its gateway")


def run_harness_tasks(
    name: str | Harness,
    env_id: str,
    tasks: list[int],
    model_url: str,
    *,
    out: str | os.PathLike[str] | None = "harness-runs",
    concurrency: int = 1,
    split: str = "test",
    progress: bool = False,
    **kwargs: Any,
) -> Any:
    """Play ``tasks`` of ``env_id`` with harness ``name``, ``concurrency`` at a time, into the
    run folder ``out`` (resumed when it holds this run); the runner's
    :class:`~agentgym_envs.benchmarks.runner.RunResult`. ``kwargs``: as for
    :class:`HarnessPolicy`."""
    from agentgym_envs.benchmarks.agenteval import BenchItem
    from agentgym_envs.benchmarks.runner import run_benchmark
    from agentgym_envs.datasets.items import default_resolver
    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    ids = default_resolver().split_item_ids(env_id, split, None)
    missing = [t for t in tasks if not 0 <= t < len(ids)]
    if missing:
        raise HarnessError(
            f"{env_id} has tasks 0-{len(ids) - 1} in its {split} split, not {missing[0]}"
        )
    items = {env_id: [BenchItem(env_id, split, t, ids[t]) for t in tasks]}
    spec = harness_spec(name, model_url, **kwargs)
    return run_benchmark(
        [env_id],
        spec,
        out=out,
        split=split,
        items=items,
        concurrency=concurrency,
        progress=progress,
    )


__all__ = [
    "POLICY_PREFIX",
    "HarnessPolicy",
    "harness_spec",
    "parse_tasks",
    "prune_records",
    "run_harness_tasks",
]
