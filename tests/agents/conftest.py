from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@pytest.fixture(scope="session")
def local_llm():
    """SmolLM2 on llama.cpp, started once for the session (skipped without the extra)."""
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, local_llm_available

    reason = local_llm_available()
    if reason:
        pytest.skip(reason)
    with LocalLLMServer(n_ctx=4096) as server:
        yield server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FailingModel:
    """A real OpenAI-compatible HTTP server in front of another one that answers the first
    ``good`` chat completions through it, then fails every call (HTTP 400): a model that
    breaks mid-episode."""

    def __init__(self, upstream: str, good: int) -> None:
        self.upstream, self.good, self.calls = upstream.rstrip("/"), good, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                with urllib.request.urlopen(outer.upstream + "/models") as r:
                    self._send(200, json.load(r))

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.calls += 1
                if outer.calls > outer.good:
                    self._send(400, {"error": {"message": "the model process crashed"}})
                    return
                req = urllib.request.Request(
                    outer.upstream + "/chat/completions",
                    data=body,
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(req) as r:
                    self._send(200, json.load(r))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class AgentServerProcess:
    """``agentgym agent-server`` as a real process on 127.0.0.1 (stopped by :meth:`stop`)."""

    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "agentgym_envs.cli", "agent-server", *args]
        self.proc = subprocess.Popen([*cmd, "--port", str(self.port)])
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=5):
                    return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the agent server did not start") from None
                time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
