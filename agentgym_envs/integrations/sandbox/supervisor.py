"""The sandbox's first process: loopback ports relayed to the host's, then the command.

Run inside the sandbox by its Python (``python -I -S supervisor.py <config.json>``), so it
imports only the standard library. The sandbox has a network namespace of its own with only
loopback, so the episode's endpoints (the recording gateway, the MCP server: ``127.0.0.1:<port>``
on the host) are reached through it: for each ``[port, socket]`` in ``forward`` it listens on
``127.0.0.1:<port>`` inside and relays each connection to the unix socket the host bound in,
which the host relays to its own ``127.0.0.1:<port>``. Every other port and address is
unreachable. Then it sets the resource limits (``rlimits``: ``{"RLIMIT_AS": n, ...}``, soft
and hard; ``RLIMIT_NPROC`` is counted in the sandbox's own user namespace), runs ``argv`` (same
environment and folder), passes on
SIGTERM / SIGINT / SIGHUP, and exits with the command's code (``128 + signal`` when killed).
"""

import json
import resource
import signal
import socket
import subprocess
import sys
import threading


def pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy ``source`` to ``sink`` until ``source`` ends, then end ``sink``'s writing side
    (the host-side relay uses it too)."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        try:
            sink.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def _relay(conn: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        conn.close()
        upstream.close()
        return
    other = threading.Thread(target=pump, args=(conn, upstream), daemon=True)
    other.start()
    pump(upstream, conn)
    other.join()
    conn.close()
    upstream.close()


def _listen(port: int, path: str) -> None:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)

    def accept() -> None:
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=_relay, args=(conn, path), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()


def main(config_path: str) -> int:
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    for port, path in config["forward"]:
        _listen(int(port), path)
    for name, value in config.get("rlimits", {}).items():
        which = getattr(resource, name)
        hard = resource.getrlimit(which)[1]
        value = int(value) if hard == resource.RLIM_INFINITY else min(int(value), hard)
        resource.setrlimit(which, (value, value))
    try:
        child = subprocess.Popen(config["argv"])
    except OSError as exc:
        sys.stderr.write(f"sandbox: could not start {config['argv'][0]}: {exc}\n")
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _frame: child.send_signal(s))
    code = child.wait()
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
