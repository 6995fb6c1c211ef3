"""Bodies no client library sends: a raw socket that streams a request body until the server
answers or hangs up (100-MB bodies, endless chunked ones)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterable, Iterator


def endless_chunks(size: int = 65536) -> Iterator[bytes]:
    """A chunked request body that never ends."""
    block = b"x" * size
    while True:
        yield b"%x\r\n" % size + block + b"\r\n"


def send_raw(
    port: int, head: bytes, body_chunks: Iterable[bytes], seconds: float = 60.0
) -> tuple[bytes, int]:
    """Send ``head`` then body chunks until the server answers or closes (a reader thread
    watches); the reply's head and the body bytes sent."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
    reply = bytearray()
    answered = threading.Event()

    def read() -> None:
        try:
            while b"\r\n\r\n" not in reply:
                more = sock.recv(65536)
                if not more:
                    break
                reply.extend(more)
        except OSError:
            pass
        answered.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    sent = 0
    deadline = time.monotonic() + seconds
    try:
        sock.sendall(head)
        for chunk in body_chunks:
            if answered.is_set() or time.monotonic() > deadline:
                break
            sock.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    answered.wait(seconds)
    sock.close()
    return bytes(reply), sent
