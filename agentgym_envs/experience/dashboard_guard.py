"""What the dashboard checks before any route runs: the ``Host`` it is asked for, and where a
write comes from.

The dashboard has no login and is meant for 127.0.0.1, so the browser of its user is the only
client to fear: a page on another site can make that browser send requests to it. Two checks
stop that:

* **Host** (DNS rebinding: a hostile name that resolves to the dashboard's address): a request
  whose ``Host`` is not one the dashboard serves is refused with 400. By default
  (:func:`default_hosts`) those are the address it is bound to, plus ``127.0.0.1``,
  ``localhost`` and ``[::1]`` when that address is a loopback one (or every address, ``0.0.0.0``
  / ``::``); ``agentgym dashboard --allowed-hosts a.example,*.corp.example`` adds names
  (``*.domain`` matches its subdomains).
* **Writes** (``POST`` and the like): a request whose ``Origin`` (or, without one, ``Referer``)
  is another site, or that the browser marks ``Sec-Fetch-Site: cross-site``/``same-site``, is
  refused with 403; the JSON API's writes must also be ``application/json`` or untyped (415
  otherwise): no cross-site form or ``text/plain`` fetch can send JSON without the
  dashboard's consent, and a browser sends ``Origin`` with any cross-site write.
  Clients that are not browsers (``curl``, scripts) send none of these headers and are served.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

#: Host names of this machine's loopback interface.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
_WRITES = {"POST", "PUT", "PATCH", "DELETE"}
_WILDCARD_BINDS = ("0.0.0.0", "::", "")
_NAME = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


def _is_loopback(host: str) -> bool:
    if host in ("localhost", *_WILDCARD_BINDS):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def default_hosts(bind: str) -> tuple[str, ...]:
    """The ``Host`` names a dashboard bound to ``bind`` answers to by default: ``bind``
    itself (unless it is every address), and :data:`LOCAL_HOSTS` when ``bind`` takes
    loopback connections."""
    bind = _host_name(bind)
    hosts = () if bind in _WILDCARD_BINDS else (bind,)
    return tuple(dict.fromkeys([*hosts, *(LOCAL_HOSTS if _is_loopback(bind) else ())]))


def parse_hosts(text: str) -> tuple[str, ...]:
    """``--allowed-hosts``: comma-separated host names, IP addresses or ``*.domain`` patterns.

    Raises:
        ValueError: for an item that is none of these (a URL, a port, an empty item), with
            the mend.
    """
    hosts = []
    for item in text.split(","):
        name = item.strip().lower()
        bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
        try:
            hosts.append(str(ipaddress.ip_address(bare)))
            continue
        except ValueError:
            pass
        if not _NAME.match(name) or len(name) > 253:
            raise ValueError(
                f"--allowed-hosts: {item.strip()[:80]!r} is not a host name: give names or "
                "addresses without scheme or port, comma-separated (e.g. "
                "dash.example,10.0.0.5,*.corp.example)"
            )
        hosts.append(name)
    return tuple(dict.fromkeys(hosts))


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
        allowed_hosts: the host names answered (``*.domain`` matches its subdomains).
    """

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = LOCAL_HOSTS) -> None:
        self.app = app
        names = {_host_name(h) for h in allowed_hosts}
        self.hosts = {h for h in names if not h.startswith("*.")}
        self.domains = tuple(h[1:] for h in names if h.startswith("*."))

    def serves(self, host: str) -> bool:
        """Whether a request with ``Host: host`` is answered."""
        name = _host_name(host)
        return name in self.hosts or (bool(name) and name.endswith(self.domains))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        problem = None
        if not self.serves(host):
            problem = (
                400,
                f"host {host[:80]!r} is not served here (allow it with agentgym dashboard "
                "--allowed-hosts <name>)",
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


__all__ = ["LOCAL_HOSTS", "DashboardGuard", "default_hosts", "parse_hosts"]
