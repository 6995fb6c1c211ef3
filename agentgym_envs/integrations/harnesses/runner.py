"""One episode of an env played by a pre-built harness, recorded and scored.

:func:`run_harness` starts the recording gateway (:mod:`~agentgym_envs.integrations.gateway`)
in front of the model endpoint -- its OpenAI-compatible ``/s/<session>/v1`` and our MCP server
at ``/mcp?session=<session>&reset=off`` -- and starts the episode there, so the task's
instructions and first observation are the harness's prompt. It writes the harness's own
configuration into a fresh folder that stands for ``HOME`` (never the user's), runs the harness
headless with a deadline, and writes the session as AgentTraj, chat and SFT records (the
harness's own system prompt, tools and turns, as the gateway recorded them), scored by the env.

How an episode ends:

* the env ended it: the env's ``outcome`` and ``reward_valid``; a harness still running is
  stopped after a short grace period;
* the deadline passed first: ``time_limit``, ``reward_valid`` false;
* the harness made ``max_calls`` model calls and the env had not ended the episode ``grace``
  seconds later: it is stopped, ``turn_limit``, ``reward_valid`` true -- the model did not
  finish in the turns it was given (AgentGym's max rounds);
* the harness exited non-zero right after the model's reply ran out of tokens (its last
  answered call ended with ``finish_reason: length``; Cline then stops with "Model reached the
  maximum output token limit"): ``token_limit``, ``reward_valid`` true -- the model's doing;
* the harness exited non-zero otherwise (crashed), or no model call ever succeeded:
  ``env_error``, ``reward_valid`` false, with the tail of its log as the ``error``;
* the harness stopped by itself before the env ended: ``failure`` (the agent gave up);
* whatever the above, the sandbox refused something the harness tried (a write outside the
  episode's folders, a decoy secret read and sent to the model, a connection elsewhere):
  ``sandbox_violation``, ``reward_valid`` false, what was refused in ``sandbox_violations``.

The harness runs in a sandbox (:mod:`~agentgym_envs.integrations.sandbox`) by default: its own
unprivileged user, only the episode's home writable, its install prefix and the system
read-only, only the gateway reachable, resource limits, killed whole at the deadline.
``sandbox=False`` runs it as the calling user, with everything the user can reach (unsafe with
a model that is not trusted).

Records carry ``harness``, ``outcome``, ``reward_valid``, ``wall_time``, ``tokens``,
``returncode`` and ``log`` (the harness's own output, kept under ``<out>/harness/``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from agentgym_envs.errors import AgentGymError
from agentgym_envs.integrations.harnesses.base import MCP_NAME, Episode, Harness, HarnessError
from agentgym_envs.integrations.sandbox import Limits, Sandbox, bwrap

logger = logging.getLogger(__name__)

#: Seconds a harness may keep going after the env ended the episode.
GRACE = 20.0

PROMPT = """\
You are playing a text environment through the MCP server "{server}". The episode has already \
started: its instructions and first observation are below. Play it only by calling that \
server's tools: `act` sends one action in the environment's text grammar, and the \
environment's own tools ({tools}) do what their descriptions say. Each call returns the next \
observation. Keep playing until a tool result says the episode has ended, then stop.

{observation}"""


@dataclass
class HarnessResult:
    """How a harness episode went (the AgentTraj record written for it is ``record``)."""

    harness: str
    env_id: str
    task_id: int
    session: str
    outcome: str
    reward: float | None
    reward_valid: bool
    success: bool
    score: float
    wall_time: float
    tokens: dict[str, int]
    model_calls: int
    env_steps: int
    returncode: int | None
    error: str | None
    out: str
    log: str
    record: dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def from_record(
        cls,
        record: dict[str, Any],
        env_id: str,
        task_id: int,
        session: str,
        returncode: int | None,
        out: Path,
    ) -> HarnessResult:
        """The result of the episode whose AgentTraj record is ``record``."""
        return cls(
            harness=record["harness"],
            env_id=env_id,
            task_id=task_id,
            session=session,
            outcome=record["outcome"],
            reward=record["reward"],
            reward_valid=record["reward_valid"],
            success=bool(record.get("success")),
            score=float(record.get("score", 0.0) or 0.0),
            wall_time=record["wall_time"],
            tokens=record["tokens"],
            model_calls=record["model_calls"],
            env_steps=record["env_steps"],
            returncode=returncode,
            error=record.get("error"),
            out=str(out),
            log=record["log"],
            record=record,
        )

    def summary(self) -> dict[str, Any]:
        """Everything but the record, for a one-line report."""
        data = asdict(self)
        data.pop("record")
        return data


class ServedApp:
    """An ASGI app served by uvicorn on ``127.0.0.1`` in a thread; a context manager."""

    def __init__(self, app: Any, host: str = "127.0.0.1") -> None:
        import uvicorn

        from agentgym_envs.benchmarks.local_llm import free_port

        self.host, self.port = host, free_port(host)
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="harness-gateway", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> ServedApp:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise HarnessError(f"the recording gateway did not start on port {self.port}")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def first_model(model_url: str, api_key: str | None = None) -> str:
    """The first model the endpoint lists (a one-line error if it does not answer)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        r = httpx.get(f"{model_url.rstrip('/')}/models", headers=headers, timeout=30)
        r.raise_for_status()
        return str(r.json()["data"][0]["id"])
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise AgentGymError(
            f"the model endpoint {model_url} does not list a model ({exc}): check the URL "
            "(its /v1 root) or pass the model name"
        ) from None


def run_harness(
    name: str | Harness,
    env_id: str,
    task_id: int,
    model_url: str,
    *,
    out: str | os.PathLike[str] = "harness-runs",
    model: str | None = None,
    api_key: str | None = None,
    split: str = "test",
    timeout: float = 600.0,
    grace: float = GRACE,
    token_ids: bool = False,
    keep_home: bool = False,
    sandbox: bool = True,
    limits: Limits | None = None,
    max_calls: int | None = None,
) -> HarnessResult:
    """Play task ``task_id`` of ``env_id`` with harness ``name`` (see the module docstring).

    Args:
        name: a harness name (:func:`~agentgym_envs.integrations.harnesses.names`) or one.
        env_id: the env (``Maze-v0`` or ``AgentGym/Maze-v0``).
        task_id: the task of ``split``.
        model_url: the model endpoint's OpenAI-compatible ``/v1`` root.
        out: the recordings folder (``agenttraj.jsonl``, ``chat.jsonl``, ``sft.jsonl``,
            ``sessions/``, ``harness/<session>.log``).
        model: the model name (default: the endpoint's first).
        api_key: sent upstream by the gateway.
        timeout: the episode's deadline in seconds (then ``time_limit``).
        grace: seconds the harness may go on after the env ended the episode.
        token_ids: ask the upstream for token ids and logprobs (vLLM) and record them.
        keep_home: keep the harness's temporary home folder (its config, its own logs).
        sandbox: run the harness in the sandbox (a one-line
            :class:`~agentgym_envs.integrations.sandbox.SandboxUnavailableError` where this
            machine cannot); False runs it as you, unsafe with an untrusted model.
        limits: the sandbox's resource limits (default
            :class:`~agentgym_envs.integrations.sandbox.Limits`).
        max_calls: the most model calls the episode may make (its side calls included);
            then ``turn_limit`` (default: no cap, only ``timeout``).
    """
    from agentgym_envs.integrations.harnesses import get_harness

    harness = get_harness(name) if isinstance(name, str) else name
    executable = harness.require()
    if sandbox:
        bwrap()  # before anything starts: a one-line error with the mend
    model = model or first_model(model_url, api_key)
    with HarnessGateway(
        env_id, model_url, out, api_key=api_key, token_ids=token_ids, timeout=timeout
    ) as gateway:
        return gateway.play(
            harness,
            executable,
            task_id,
            model,
            split=split,
            timeout=timeout,
            grace=grace,
            keep_home=keep_home,
            sandbox=sandbox,
            limits=limits,
            max_calls=max_calls,
        )


class HarnessGateway:
    """The recording gateway for harness episodes of one env, served on a free loopback port;
    each episode it plays (:meth:`play`) is a session of its own -- its own model route, MCP
    episode, ``HOME`` and process group -- so episodes may run side by side on one gateway.
    A context manager.

    Args:
        env_id: the env the episodes play.
        model_url: the model endpoint's ``/v1`` root.
        out: the recordings folder (see :func:`run_harness`).
        api_key: sent upstream by the gateway.
        token_ids: ask the upstream for token ids and logprobs (vLLM) and record them.
        timeout: the longest one model call may take (at least the gateway's default).
    """

    def __init__(
        self,
        env_id: str,
        model_url: str,
        out: str | os.PathLike[str],
        *,
        api_key: str | None = None,
        token_ids: bool = False,
        timeout: float = 300.0,
    ) -> None:
        from agentgym_envs.integrations.gateway import Gateway, create_app
        from agentgym_envs.spec import resolve_id

        self.env_id = resolve_id(env_id)
        self.out = Path(out)
        # A harness sends no session token of its own: ownership checks would only refuse it.
        self.gateway = Gateway(
            self.env_id,
            model_url,
            self.out,
            api_key=api_key,
            token_ids=token_ids,
            session_auth=False,
            timeout=max(timeout, 300.0),
        )
        self.served = ServedApp(create_app(self.gateway))

    def __enter__(self) -> HarnessGateway:
        self.served.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.served.__exit__(*exc)

    def play(
        self,
        harness: Harness,
        executable: str,
        task_id: int,
        model: str,
        *,
        split: str = "test",
        timeout: float = 600.0,
        grace: float = GRACE,
        keep_home: bool = False,
        sandbox: bool = True,
        limits: Limits | None = None,
        max_calls: int | None = None,
    ) -> HarnessResult:
        """Play task ``task_id`` with ``harness`` (found at ``executable``) as a new session;
        its records are written before this returns (``sandbox``, ``limits``, ``max_calls``:
        see :func:`run_harness`)."""
        session = f"{harness.name}-{uuid.uuid4().hex[:10]}"
        home = Path(tempfile.mkdtemp(prefix=f"agentgym-{harness.name}-"))
        log_path = self.out / "harness" / f"{session}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        gateway = self.gateway
        try:
            episode = _start_episode(
                self.served.url, session, self.env_id, task_id, split, model, home
            )
            episode.timeout = timeout
            episode.max_calls = max_calls
            box = None
            if sandbox:
                readable = harness.sandbox_paths(episode, executable)
                box = Sandbox([home], readable, ports=[self.served.port], limits=limits)
            with box or contextlib.nullcontext():
                ran = _play(harness, executable, episode, gateway, session, log_path, grace, box)
            record = _record(gateway, session, harness, episode, ran, log_path)
        finally:
            if not keep_home:
                shutil.rmtree(home, ignore_errors=True)
        return HarnessResult.from_record(
            record, self.env_id, task_id, session, ran.returncode, self.out
        )


@dataclass
class _Ran:
    """How the harness process went: its exit code, why the runner stopped it (if it did),
    its wall time."""

    returncode: int | None
    stopped: str | None
    wall: float
    violations: list[str] | None = None


def _play(
    harness: Harness,
    executable: str,
    episode: Episode,
    gateway: Any,
    session: str,
    log_path: Path,
    grace: float,
    box: Sandbox | None = None,
) -> _Ran:
    """Write the harness's configuration for ``episode`` and run it headless to its end (in
    ``box`` when given: then with what the sandbox refused)."""
    harness.configure(episode, executable)
    command = harness.command(episode, executable)
    environ = harness.environment(episode)
    logger.info("running %s: %s", harness.name, " ".join(command[:4]))
    if box is not None:
        command, environ = box.command(command, cwd=episode.workdir), box.environment(environ)
    started = time.monotonic()
    returncode, stopped = _run(command, environ, episode, gateway, session, log_path, grace)
    wall = time.monotonic() - started
    if box is None:
        return _Ran(returncode, stopped, wall)
    log = gateway.session(session, create=False)
    return _Ran(returncode, stopped, wall, box.violations(log.calls if log is not None else []))


def _record(
    gateway: Any, session: str, harness: Harness, episode: Episode, ran: _Ran, log_path: Path
) -> dict[str, Any]:
    """Score the session and write its records (with how it ended and the harness's own
    facts); the AgentTraj record."""
    extra = _ending(gateway, session, ran.returncode, ran.stopped, log_path)
    extra["sandbox"] = ran.violations is not None
    if ran.violations:
        extra.update(
            outcome="sandbox_violation",
            reward_valid=False,
            error=f"the sandbox refused what the harness tried: {'; '.join(ran.violations)}"[:1000],
            sandbox_violations=ran.violations,
        )
    played = gateway.store.episodes.get(session)
    extra.update(
        score=float(played.info.get("score", 0.0)) if played is not None else 0.0,
        harness=harness.name,
        model=episode.model,
        wall_time=round(ran.wall, 3),
        returncode=ran.returncode,
        log=str(log_path),
    )
    extra.update(harness.result(episode, log_path))
    return gateway.finish(session, extra)


def _start_episode(
    base: str, session: str, env_id: str, task_id: int, split: str, model: str, home: Path
) -> Episode:
    """Reset the session's episode on the gateway; the harness's view of it."""
    from agentgym_envs.integrations.mcp import env_tools

    r = httpx.post(
        f"{base}/s/{session}/env/reset", json={"task_id": task_id, "split": split}, timeout=300
    )
    if r.status_code != 200:
        raise HarnessError(f"could not start task {task_id} of {env_id}: {r.text[:300]}")
    tools = [t["name"] for t in env_tools(env_id) if t["name"] not in ("reset", "act")]
    prompt = PROMPT.format(
        server=MCP_NAME,
        tools=", ".join(f"`{t}`" for t in tools) or "none besides `act`",
        observation=r.json()["observation"],
    )
    workdir = home / "work"
    workdir.mkdir(parents=True, exist_ok=True)
    return Episode(
        env_id=env_id,
        task_id=task_id,
        prompt=prompt,
        model_url=f"{base}/s/{session}/v1",
        model=model,
        mcp_url=f"{base}/mcp?session={session}&reset=off",
        env_url=f"{base}/s/{session}/env",
        home=home,
        workdir=workdir,
        timeout=0.0,
        tool_names=["act", *tools],
    )


def _run(
    command: list[str],
    environ: dict[str, str],
    episode: Episode,
    gateway: Any,
    session: str,
    log_path: Path,
    grace: float,
) -> tuple[int | None, str | None]:
    """Run the harness until it exits, the deadline passes (``"deadline"``) or the env ended
    the episode ``grace`` seconds ago (``"episode_done"``). Returns ``(returncode, stopped)``."""
    with log_path.open("wb") as log:
        try:
            process = subprocess.Popen(
                command,
                cwd=episode.workdir,
                env=environ,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            raise HarnessError(f"could not start {command[0]}: {exc}") from exc
        deadline = time.monotonic() + episode.timeout
        done_at: float | None = None
        capped_at: float | None = None  # when the harness made its last allowed model call
        stopped = None
        while process.poll() is None:
            now = time.monotonic()
            current = gateway.store.episodes.get(session)
            if done_at is None and current is not None and current.done:
                done_at = now
            if (
                capped_at is None
                and episode.max_calls
                and _calls(gateway, session) >= episode.max_calls
            ):
                capped_at = now
            if done_at is not None and now - done_at > grace:
                stopped = "episode_done"
            elif done_at is None and capped_at is not None and now - capped_at > grace:
                stopped = "turn_limit"
            elif now > deadline:
                stopped = "deadline"
            if stopped:
                _stop(process)
                break
            time.sleep(0.25)
        return process.returncode, stopped


def _calls(gateway: Any, session: str) -> int:
    """How many model calls the session has made."""
    log = gateway.session(session, create=False)
    return len(log.calls) if log is not None else 0


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the harness and everything it started (its own process group)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _ending(
    gateway: Any, session: str, returncode: int | None, stopped: str | None, log_path: Path
) -> dict[str, Any]:
    """``outcome``, ``reward_valid`` and ``error`` for the record (see the module docstring)."""
    episode = gateway.store.episodes.get(session)
    log = gateway.session(session, create=False)
    calls = log.calls if log is not None else []
    if episode is not None and episode.done:
        return {
            "outcome": episode.info.get("outcome") or "failure",
            "reward_valid": bool(episode.info.get("reward_valid", True)),
        }
    if stopped == "turn_limit":
        return {
            "outcome": "turn_limit",
            "reward_valid": True,
            "error": f"the episode reached its cap of model calls ({len(calls)} made) unended",
        }
    if stopped == "deadline":
        return {
            "outcome": "time_limit",
            "reward_valid": False,
            "error": "the harness did not finish the episode before its deadline",
        }
    answered = [c for c in calls if c.get("response") is not None and not c.get("error")]
    if returncode != 0 and answered and answered[-1].get("finish_reason") == "length":
        return {  # the model's own doing: its reply ran out of tokens and the harness gave up
            "outcome": "token_limit",
            "reward_valid": True,
            "error": f"the model's last reply reached its token limit: {_tail(log_path)}",
        }
    if returncode != 0:
        return {
            "outcome": "env_error",
            "reward_valid": False,
            "error": f"the harness exited with code {returncode}: {_tail(log_path)}",
        }
    if not any(c.get("response") is not None and not c.get("error") for c in calls):
        errors = [c.get("error") for c in calls if c.get("error")]
        reason = errors[-1] if errors else "it made no model call"
        return {
            "outcome": "env_error",
            "reward_valid": False,
            "error": f"no model call of the harness succeeded: {reason}",
        }
    return {"outcome": "failure", "reward_valid": True}


def _tail(path: Path, lines: int = 5) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text[-lines:])[-600:]


__all__ = [
    "GRACE",
    "PROMPT",
    "HarnessGateway",
    "HarnessResult",
    "ServedApp",
    "first_model",
    "run_harness",
]
