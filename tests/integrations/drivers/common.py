"""What every driver shares: read the job from argv, serve an ASGI app on 127.0.0.1, print JSON."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from typing import Any


def job() -> dict[str, Any]:
    """The job: ``{"env_id", "task_id", "split", "actions": [...], ...}`` from ``argv[1]``."""
    return json.loads(sys.argv[1])


def done(result: dict[str, Any]) -> None:
    """Print the result as the last line of stdout (the test reads that line)."""
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """An ASGI app under uvicorn on a thread of this process, on a free port."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 120
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
