"""What the dashboard checks before any route runs: the ``Host`` it is asked for, and where a
write comes from.

The dashboard has no login and is meant for 127.0.0.1, so the browser of its user is the only
client to fear: a page on another site can make that browser send requests to it. Two checks
stop that:

* **Host** (DNS rebinding: a hostile name that resolves to 127.0.0.1): a request whose ``Host``
  is not one the dashboard serves -- ``127.0.0.1``, ``localhost``, ``[::1]``, the address it is
  bound to, and any given with ``allowed_hosts`` -- is refused with 400.
* **Writes** (``POST`` and the like): a request whose ``Origin`` (or, without one, ``Referer``)
  is another site, or that the browser marks ``Sec-Fetch-Site: cross-site``/``same-site``, is
  refused with 403; the JSON API's writes must also be ``application/json`` or untyped (415
  otherwise): no cross-site form or ``text/plain`` fetch can send JSON without the
  dashboard's consent, and a browser sends ``Origin`` with any cross-site write.
  Clients that are not browsers (``curl``, scripts) send none of these headers and are served.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

#: Hosts the dashboard always answers to.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
_WRITES = {"POST", "PUT", "PATCH", "DELETE"}


def _host_name(value: str) -> str:
    """``value`` (a ``Host`` header or URL netloc) without its port, lower-case."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class DashboardGuard:
    """ASGI middleware doing the checks of the module docstring.

    Args:
        app: the dashboard app.
        allowed_hosts: host names answered besides :data:`LOCAL_HOSTS`.
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = {*LOCAL_HOSTS, *(_host_name(h) for h in allowed_hosts)}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        problem = None
        if _host_name(host) not in self.hosts:
            problem = (
                400,
                f"host {host[:80]!r} is not served here (start the dashboard with "
                "--host for another name)",
            )
        elif scope["method"] in _WRITES:
            problem = _write_problem(scope["path"], headers, host)
        if problem is None:
            await self.app(scope, receive, send)
            return
        status, message = problem
        body = json.dumps({"error": message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _write_problem(path: str, headers: dict[str, str], host: str) -> tuple[int, str] | None:
    origin = headers.get("origin") or headers.get("referer")
    if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != host.lower()):
        return 403, f"a write from another site ({origin[:80]!r}) is refused"
    if headers.get("sec-fetch-site") in ("cross-site", "same-site"):
        return 403, "a write from another site is refused"
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if path.startswith("/api/") and kind not in ("", "application/json"):
        return 415, "send the API's writes as application/json"
    return None


__all__ = ["LOCAL_HOSTS", "DashboardGuard"]
