"""The package's own web sites, served on 127.0.0.1 for the WebArena family.

One uvicorn server in a background thread listens on one free port per site and hands each
request to the site that owns the port. Every episode gets a sandbox: a copy of the seeded
database (copy-on-reset) that the browser selects with a cookie, so state an episode changes
is gone at the next reset. Sites are started lazily, once per process (:func:`server`).
"""

from __future__ import annotations

import atexit
import importlib
import logging
import shutil
import socket
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from agentgym_envs.envs.webarena.sites.build import build
from agentgym_envs.envs.webarena.sites.common import DATA, SANDBOX_COOKIE, SANDBOXES

logger = logging.getLogger(__name__)

#: WebArena's site keys (its config placeholders are ``__SHOPPING__`` ...) -> our modules.
SITES: dict[str, str] = {
    "shopping": "agentgym_envs.envs.webarena.sites.shop",
    "shopping_admin": "agentgym_envs.envs.webarena.sites.admin",
    "reddit": "agentgym_envs.envs.webarena.sites.forum",
    "gitlab": "agentgym_envs.envs.webarena.sites.code",
    "wikipedia": "agentgym_envs.envs.webarena.sites.wiki",
    "map": "agentgym_envs.envs.webarena.sites.map",
}
#: Paths the base URLs include (WebArena's ``__SHOPPING_ADMIN__`` is ``http://host:7780/admin``).
BASE_PATHS: dict[str, str] = {"shopping_admin": "/admin"}
#: Besides these, a homepage (``homepage``) links to every site.
#: The sites' own session cookie names (all sites share the host, so names must differ).
LOGIN_COOKIES: dict[str, str] = {
    "shopping": "shop_session",
    "shopping_admin": "admin_session",
    "reddit": "forum_session",
    "gitlab": "code_session",
}


class SiteServer:
    """Every site on its own 127.0.0.1 port, in one uvicorn server on a daemon thread."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        import uvicorn

        self.host = host
        self._dir = Path(tempfile.mkdtemp(prefix="agentgym-webarena-"))
        self.data = build()
        self.seed_path = self.data.seed_db
        DATA.wiki_db, DATA.repos = self.data.wiki_db, self.data.repos
        self.apps: dict[str, Any] = {}
        self._sockets: list[socket.socket] = []
        self.ports: dict[str, int] = {}
        by_port: dict[int, Any] = {}
        from agentgym_envs.envs.webarena.sites import homepage

        apps = {key: importlib.import_module(module).create_app() for key, module in SITES.items()}
        apps["homepage"] = homepage.create_app(
            lambda: {site: self.url(site) for site in SITES if site in self.ports}
        )
        for key, app in apps.items():
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, 0))
            sock.listen(128)
            self._sockets.append(sock)
            port = sock.getsockname()[1]
            self.apps[key], self.ports[key], by_port[port] = app, port, app
        self.default_sandbox = self.new_sandbox()
        SANDBOXES.default = self.default_sandbox

        async def dispatch(scope, receive, send):
            if scope["type"] == "lifespan":
                message = await receive()
                while message["type"] != "lifespan.shutdown":
                    await send({"type": message["type"] + ".complete"})
                    message = await receive()
                await send({"type": "lifespan.shutdown.complete"})
                return
            port = (scope.get("server") or (None, None))[1]
            await by_port[port](scope, receive, send)

        config = uvicorn.Config(dispatch, log_level="warning", access_log=False, lifespan="on")
        self._server = uvicorn.Server(config)
        self._server.install_signal_handlers = lambda: None  # not the main thread
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": self._sockets},
            name="agentgym-webarena-sites",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the WebArena sites did not start")
            time.sleep(0.01)

    def url(self, site: str) -> str:
        """The base URL of ``site`` (``shopping``, ``reddit`` ...) as WebArena's placeholders
        mean it: ``http://127.0.0.1:<port>``, plus ``/admin`` for the shop admin."""
        return f"http://{self.host}:{self.ports[site]}{BASE_PATHS.get(site, '')}"

    @property
    def origins(self) -> list[str]:
        return [f"http://{self.host}:{port}" for port in self.ports.values()]

    def new_sandbox(self, snapshot: bytes | None = None) -> str:
        """A fresh copy of the seeded database (or of ``snapshot``); returns its name. The
        copy is a plain file copy of the cached build (15 MB; the kernel's copy, no parsing);
        the wiki and the git repositories are read-only and shared."""
        name = uuid.uuid4().hex
        path = self._dir / f"{name}.db"
        if snapshot is None:
            shutil.copyfile(self.seed_path, path)
        else:
            path.write_bytes(snapshot)
        SANDBOXES.add(name, path)
        return name

    def sandbox_path(self, name: str) -> Path:
        path = SANDBOXES.path(name)
        assert path is not None
        return path

    def drop_sandbox(self, name: str) -> None:
        path = SANDBOXES.path(name)
        SANDBOXES.remove(name)
        if path is not None and name != self.default_sandbox:
            path.unlink(missing_ok=True)

    def sandbox_cookie(self, name: str) -> dict[str, Any]:
        return {"name": SANDBOX_COOKIE, "value": name, "domain": self.host, "path": "/"}

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(5)
        for sock in self._sockets:
            sock.close()
        shutil.rmtree(self._dir, ignore_errors=True)


_SERVER: SiteServer | None = None
_LOCK = threading.Lock()


def server() -> SiteServer:
    """The process's :class:`SiteServer`, started on first use and stopped at exit."""
    global _SERVER
    with _LOCK:
        if _SERVER is None:
            _SERVER = SiteServer()
            atexit.register(_SERVER.close)
        return _SERVER
