"""Event sinks -- a JSONL file, NATS (core or JetStream) and a webhook -- behind a disk outbox.

A sink that is down neither loses events nor stops the run: :class:`Outbox` writes each event
to its folder first (one file per event, named by time so the order holds), and one thread per
sink delivers the files oldest first, deleting each once the sink has confirmed it (NATS: the
server's reply to a flush, or JetStream's publish ack; webhook: a 2xx). A failed delivery is
retried with a growing pause (capped by ``retry_max_seconds``). Events still on disk when a
run ends are delivered by the next run that uses the same outbox folder. A buffered file that
can never be delivered (unreadable, not an event, refused for its content) is moved to the
outbox's ``quarantine/`` folder, so it never holds up the events after it. Delivery is
at-least-once: consumers deduplicate on ``event_id`` (JetStream does it itself through the
``Nats-Msg-Id`` header).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from agentgym_envs.bounds import json_dumps_utf8
from agentgym_envs.errors import require

logger = logging.getLogger(__name__)


class Sink(Protocol):
    """Where events go. ``deliver`` returns once the event is safely there, else raises."""

    name: str

    def deliver(self, event: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


# -- sinks -------------------------------------------------------------------------------------
class JsonlSink:
    """Appends each event as one line to a file (flushed and synced)."""

    def __init__(self, path: str | os.PathLike[str], name: str = "jsonl") -> None:
        self.path = Path(path).expanduser()
        self.name = name
        self._lock = threading.Lock()

    def deliver(self, event: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json_dumps_utf8(event) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def close(self) -> None:
        pass


class WebhookSink:
    """POSTs each event as JSON; any 2xx reply counts as delivered.

    Headers ``X-AgentGym-Event`` and ``X-AgentGym-Event-Id`` carry the type and id.
    """

    def __init__(
        self,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        timeout: float = 10.0,
        name: str = "webhook",
    ) -> None:
        httpx = require("httpx", "field")
        self.url = url
        self.name = name
        self._client = httpx.Client(timeout=timeout, headers=dict(headers or {}))

    def deliver(self, event: dict[str, Any]) -> None:
        response = self._client.post(
            self.url,
            json=event,
            headers={"X-AgentGym-Event": event["event"], "X-AgentGym-Event-Id": event["event_id"]},
        )
        if not 200 <= response.status_code < 300:
            raise ConnectionError(f"{self.url} answered HTTP {response.status_code}")

    def close(self) -> None:
        self._client.close()


class NatsSink:
    """Publishes each event on ``<subject_prefix>.<event type>`` with nats-py.

    Core NATS: an event is delivered once the server has answered the flush after the
    publish. ``jetstream=True``: published to JetStream (the stream ``stream`` is made for
    ``<prefix>.agentgym.>`` if missing) and delivered on the publish ack; the ``Nats-Msg-Id``
    header lets the stream drop a redelivered copy. The client runs on its own event loop
    thread; a lost connection is reopened at the next delivery attempt.
    """

    def __init__(
        self,
        servers: list[str],
        *,
        subject_prefix: str = "",
        jetstream: bool = False,
        stream: str = "AGENTGYM",
        connect_timeout: float = 2.0,
        request_timeout: float = 10.0,
        name: str = "nats",
    ) -> None:
        self._nats = require("nats", "field")
        self.servers = list(servers)
        self.subject_prefix = subject_prefix
        self.jetstream = jetstream
        self.stream = stream
        self.connect_timeout = connect_timeout
        self.request_timeout = request_timeout
        self.name = name
        self._nc: Any = None
        self._js: Any = None
        self._warned_core = False
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name=f"agentgym-{name}", daemon=True
        )
        self._thread.start()

    def subject(self, kind: str) -> str:
        return f"{self.subject_prefix}.{kind}" if self.subject_prefix else kind

    async def _quiet_error(self, exc: Exception) -> None:
        logger.debug("nats %s: %s", self.servers, exc)

    async def _connect(self) -> None:
        if self._nc is not None and self._nc.is_connected:
            return
        if self._nc is not None:
            if not self.jetstream and not self._warned_core:
                self._warned_core = True
                logger.warning(
                    "NATS sink %s reconnects: core NATS keeps nothing for a subscriber that is "
                    "not connected, so one still reconnecting misses the events sent meanwhile "
                    "(set jetstream: true for a stream that keeps every event)",
                    self.name,
                )
            try:
                await self._nc.close()
            except Exception:
                logger.debug("closing a dead NATS connection failed", exc_info=True)
        self._nc, self._js = None, None
        await self._reachable()
        # nats-py's connect can hang on a server that refuses the connection even without
        # reconnects (nats.py issue 645): probe first, and bound the connect itself.
        nc = await asyncio.wait_for(
            self._nats.connect(
                servers=self.servers,
                allow_reconnect=False,
                connect_timeout=self.connect_timeout,
                max_reconnect_attempts=0,
                error_cb=self._quiet_error,
                name="agentgym-field-runner",
            ),
            timeout=self.connect_timeout + self.request_timeout,
        )
        if self.jetstream:
            js = nc.jetstream(timeout=self.request_timeout)
            try:
                await js.stream_info(self.stream)
            except self._nats.js.errors.NotFoundError:
                await js.add_stream(name=self.stream, subjects=[self.subject("agentgym.>")])
            self._js = js
        self._nc = nc

    async def _reachable(self) -> None:
        """Raise :class:`ConnectionError` unless some server accepts a TCP connection."""
        for server in self.servers:
            url = urlsplit(server if "://" in server else f"nats://{server}")
            try:
                _, writer = await asyncio.wait_for(
                    asyncio.open_connection(url.hostname or "127.0.0.1", url.port or 4222),
                    timeout=self.connect_timeout,
                )
            except (OSError, asyncio.TimeoutError):
                continue
            writer.close()
            return
        raise ConnectionError(f"no NATS server answers at {', '.join(self.servers)}")

    async def _publish(self, event: dict[str, Any]) -> None:
        await self._connect()
        data = json_dumps_utf8(event).encode()
        headers = {"Nats-Msg-Id": event["event_id"]}
        subject = self.subject(event["event"])
        if self._js is not None:
            await self._js.publish(subject, data, headers=headers, timeout=self.request_timeout)
        else:
            await self._nc.publish(subject, data, headers=headers)
            await self._nc.flush(timeout=self.request_timeout)

    def deliver(self, event: dict[str, Any]) -> None:
        future = asyncio.run_coroutine_threadsafe(self._publish(event), self._loop)
        try:
            future.result(timeout=self.connect_timeout + 2 * self.request_timeout + 5)
        except Exception:
            future.cancel()
            raise

    def check(self) -> None:
        """Connect (or raise): the pre-flight's reachability test."""
        asyncio.run_coroutine_threadsafe(self._connect(), self._loop).result(
            timeout=self.connect_timeout + self.request_timeout + 5
        )

    def close(self) -> None:
        async def shutdown() -> None:
            if self._nc is not None and not self._nc.is_closed:
                await self._nc.close()

        if self._loop.is_running():
            try:
                asyncio.run_coroutine_threadsafe(shutdown(), self._loop).result(timeout=10)
            except Exception:
                logger.debug("closing the NATS connection failed", exc_info=True)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        if not self._loop.is_running():
            self._loop.close()


# -- the outbox --------------------------------------------------------------------------------
#: Sub-folder of an outbox for events that can never be delivered.
QUARANTINE = "quarantine"
#: Errors that say an event is malformed (missing keys, wrong types), not that a sink is down.
_BAD_EVENT = (KeyError, TypeError, ValueError, AttributeError, UnicodeError)
#: nats-py's errors for an event the server will never take (too big, a bad subject).
_BAD_EVENT_NAMES = {"MaxPayloadError", "BadSubjectError"}


class Outbox:
    """A sink's disk buffer and its delivery thread (see the module docstring).

    :meth:`put` never raises and never waits for the sink. :meth:`close` keeps delivering for
    up to ``timeout`` seconds, then stops; what is left stays in ``directory``.
    """

    def __init__(
        self,
        sink: Sink,
        directory: str | os.PathLike[str],
        *,
        retry_initial: float = 0.25,
        retry_max: float = 15.0,
    ) -> None:
        self.sink = sink
        self.directory = Path(directory).expanduser()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.retry_initial = retry_initial
        self.retry_max = retry_max
        self.delivered = 0
        self.failures = 0
        self.last_error: str | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._closing = threading.Event()
        self._idle = threading.Condition()
        self._thread = threading.Thread(
            target=self._run, name=f"agentgym-outbox-{sink.name}", daemon=True
        )
        self._thread.start()

    def pending(self) -> list[Path]:
        """The events not yet delivered, oldest first."""
        return sorted(self.directory.glob("*.json"))

    def put(self, event: dict[str, Any]) -> None:
        name = f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.json"
        tmp = self.directory / f".{name}.tmp"
        try:
            tmp.write_text(json_dumps_utf8(event), encoding="utf-8")
            os.replace(tmp, self.directory / name)
        except OSError:
            logger.exception("cannot buffer an event for %s in %s", self.sink.name, self.directory)
            return
        self._wake.set()

    def _run(self) -> None:
        delay = self.retry_initial
        while not self._stop.is_set():
            files = self.pending()
            if not files:
                with self._idle:
                    self._idle.notify_all()
                self._wake.wait(0.5)
                self._wake.clear()
                continue
            path = files[0]
            try:
                event = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError, RecursionError) as exc:
                self._quarantine(path, f"unreadable ({type(exc).__name__})")
                continue
            if not isinstance(event, dict):
                self._quarantine(path, f"a JSON {type(event).__name__}, not an event")
                continue
            try:
                self.sink.deliver(event)
            except _BAD_EVENT as exc:  # this event can never be delivered: not the sink's fault
                self._quarantine(path, f"undeliverable ({type(exc).__name__}: {exc})")
                continue
            except Exception as exc:
                if type(exc).__name__ in _BAD_EVENT_NAMES:
                    self._quarantine(path, f"undeliverable ({type(exc).__name__}: {exc})")
                    continue
                self.failures += 1
                message = f"{type(exc).__name__}: {exc}"
                if message != self.last_error:
                    logger.warning(
                        "event sink %s is down (%s): %d event(s) buffered in %s, retrying",
                        self.sink.name,
                        message,
                        len(files),
                        self.directory,
                    )
                self.last_error = message
                pause = min(delay, 0.5) if self._closing.is_set() else delay
                self._stop.wait(pause)
                delay = min(self.retry_max, delay * 2)
                continue
            if self.last_error is not None:
                logger.info("event sink %s is back: delivering the buffer", self.sink.name)
                self.last_error = None
            delay = self.retry_initial
            path.unlink(missing_ok=True)
            self.delivered += 1

    def _quarantine(self, path: Path, why: str) -> None:
        """Move a buffered event that can never be delivered to ``quarantine/`` (kept for a
        look, out of the queue), so the events after it go on."""
        target = self.directory / QUARANTINE / path.name
        logger.warning("buffered event %s is %s: moved to %s", path.name, why, target.parent)
        try:
            target.parent.mkdir(exist_ok=True)
            os.replace(path, target)
        except OSError:
            logger.exception("cannot quarantine %s: deleting it", path)
            try:
                path.unlink(missing_ok=True)
            except OSError:
                import shutil

                shutil.rmtree(path, ignore_errors=True)

    def flush(self, timeout: float) -> bool:
        """Wait until nothing is pending, for as long as the sink keeps taking events and at
        most ``timeout`` seconds without one delivered; ``True`` if all were delivered.

        A sink that is up drains any backlog (a rerun delivers everything an earlier run left
        on disk); one that is down costs ``timeout`` seconds."""
        self._wake.set()
        progress = self.delivered
        deadline = time.monotonic() + timeout
        while self.pending():
            if self.delivered != progress:  # the sink is taking events: keep going
                progress = self.delivered
                deadline = time.monotonic() + timeout
            left = deadline - time.monotonic()
            if left <= 0 or not self._thread.is_alive():
                return False
            with self._idle:
                self._idle.wait(min(left, 0.2))
        return True

    def begin_closing(self) -> None:
        """Retry a down sink often from now on: :meth:`close` is coming (a bus closing several
        outboxes calls this on all of them first, so none waits out a long backoff)."""
        self._closing.set()

    def close(self, timeout: float = 10.0) -> int:
        """Deliver for up to ``timeout`` seconds, stop, close the sink; the count left on disk."""
        self.begin_closing()
        self.flush(timeout)
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=60)
        try:
            self.sink.close()
        except Exception:
            logger.debug("closing sink %s failed", self.sink.name, exc_info=True)
        return len(self.pending())


class EventBus:
    """Every configured sink, each behind its outbox; :meth:`emit` sends one event to all."""

    def __init__(self, outboxes: list[Outbox] | None = None) -> None:
        self.outboxes = list(outboxes or [])
        self.emitted: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def emit(self, event: dict[str, Any]) -> None:
        with self._lock:
            self.emitted.append(event)
        for box in self.outboxes:
            box.put(event)

    def close(self, timeout: float = 10.0) -> dict[str, int]:
        """Flush every sink (each for as long as it keeps taking events, at most ``timeout``
        seconds without one delivered, the down ones together); per sink, events left on
        disk."""
        for box in self.outboxes:
            box.begin_closing()
        threads = [
            threading.Thread(target=box.flush, args=(timeout,), daemon=True)
            for box in self.outboxes
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return {box.sink.name: box.close(0.0) for box in self.outboxes}


def build_bus(sinks: list[Any], output: Path, *, node_outbox: Path | None = None) -> EventBus:
    """An :class:`EventBus` for the profile's sink configs; outboxes under ``<output>/outbox``."""
    boxes: list[Outbox] = []
    used: set[str] = set()
    for i, cfg in enumerate(sinks):
        name = cfg.name or (cfg.type if cfg.type not in used else f"{cfg.type}{i}")
        used.add(name)
        sink: Sink
        if cfg.type == "jsonl":
            path = Path(cfg.path).expanduser()
            sink = JsonlSink(path if path.is_absolute() else output / path, name=name)
        elif cfg.type == "nats":
            sink = NatsSink(
                cfg.servers,
                subject_prefix=cfg.subject_prefix,
                jetstream=cfg.jetstream,
                stream=cfg.stream,
                connect_timeout=cfg.connect_timeout,
                name=name,
            )
        else:
            sink = WebhookSink(cfg.url, headers=cfg.headers, timeout=cfg.timeout, name=name)
        root = node_outbox or output / "outbox"
        boxes.append(Outbox(sink, root / name, retry_max=cfg.retry_max_seconds))
    return EventBus(boxes)


__all__ = [
    "EventBus",
    "JsonlSink",
    "NatsSink",
    "Outbox",
    "Sink",
    "WebhookSink",
    "build_bus",
]
