"""Model endpoints that misbehave on purpose, as real HTTP servers on 127.0.0.1.

* ``trickle``: ``GET /models`` answers at once; a chat completion gets its headers and then one
  byte every ``interval`` seconds, forever;
* ``endless``: a chat completion's body never ends (64 KB blocks, no length);
* ``slow-headers``: every request gets one byte of its status line every ``interval`` seconds.

Each counts the requests it is serving (:attr:`HostileModel.open`)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODELS = json.dumps({"object": "list", "data": [{"id": "hostile", "object": "model"}]}).encode()


class HostileModel:
    def __init__(self, kind: str, interval: float = 2.0) -> None:
        assert kind in ("trickle", "endless", "slow-headers")
        self.kind, self.interval = kind, interval
        self.open = 0
        self.served = 0
        self._stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _count(self, delta: int) -> None:
                with lock:
                    outer.open += delta
                    outer.served += delta > 0

            def _drip(self, data: bytes) -> None:
                for byte in data:
                    if outer._stop.wait(outer.interval):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()

            def _serve(self, is_post: bool) -> None:
                self._count(+1)
                try:
                    if outer.kind == "slow-headers":
                        self._drip(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}" * 1000)
                    elif not is_post:
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(MODELS)))
                        self.end_headers()
                        self.wfile.write(MODELS)
                    elif outer.kind == "trickle":
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", "100000")
                        self.end_headers()
                        self.wfile.flush()
                        self._drip(b" " * 100000)
                    else:  # endless
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Connection", "close")
                        self.end_headers()
                        block = b"[" + b" " * 65535
                        while not outer._stop.is_set():
                            self.wfile.write(block)
                except OSError:
                    pass  # the client hung up: what a deadline or a cap should do
                finally:
                    self.close_connection = True
                    self._count(-1)

            def do_GET(self):
                self._serve(False)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                self._serve(True)

        lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait_open(self, n: int, seconds: float = 120.0) -> bool:
        """Whether at least ``n`` requests are being served within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.open >= n:
                return True
            time.sleep(0.05)
        return False

    def wait_idle(self, seconds: float = 120.0) -> bool:
        """Whether every request it was serving ended (its client hung up) within ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.open == 0:
                return True
            time.sleep(0.05)
        return False

    def close(self) -> None:
        self._stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> HostileModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
