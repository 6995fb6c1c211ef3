"""What every site shares: the per-episode database (a sandbox chosen by cookie), sign-in
with signed session cookies (:class:`Accounts`), form parsing, paged tables and the page
skeleton, and the app that serves a site's routers (:func:`site_app`)."""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, FastAPI
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

SANDBOX_COOKIE = "agentgym_sandbox"
_SECRET = secrets.token_bytes(16)


class Sandboxes:
    """Sandbox name -> SQLite file; each episode's browser carries its sandbox in a cookie."""

    def __init__(self) -> None:
        self._paths: dict[str, Path] = {}
        self._lock = threading.Lock()
        self.default: str | None = None

    def add(self, name: str, path: Path) -> None:
        with self._lock:
            self._paths[name] = path

    def remove(self, name: str) -> None:
        with self._lock:
            self._paths.pop(name, None)

    def path(self, name: str | None) -> Path | None:
        with self._lock:
            if name in self._paths:
                return self._paths[name]
            return self._paths.get(self.default) if self.default else None


SANDBOXES = Sandboxes()


def connect(request: Request) -> sqlite3.Connection:
    """The database of the request's sandbox (its cookie), else the default sandbox."""
    path = SANDBOXES.path(request.cookies.get(SANDBOX_COOKIE))
    if path is None:
        raise LookupError("no sandbox database for this request")
    conn = sqlite3.connect(path, timeout=5, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    return conn


def sign(value: str) -> str:
    mac = hmac.new(_SECRET, value.encode(), hashlib.sha256).hexdigest()[:16]
    return f"{value}.{mac}"


def unsign(token: str | None) -> str | None:
    if not token or "." not in token:
        return None
    value, _, mac = token.rpartition(".")
    return value if hmac.compare_digest(sign(value), token) and mac else None


def password_hash(password: str) -> str:
    return hashlib.sha256(("agentgym:" + password).encode()).hexdigest()


def current_user(request: Request, cookie: str) -> str | None:
    return unsign(request.cookies.get(cookie))


async def form(request: Request) -> dict[str, str]:
    """An urlencoded form body as a dict (last value wins)."""
    body = (await request.body()).decode("utf-8", "replace")
    return {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def qs(**params: object) -> str:
    return urlencode({k: v for k, v in params.items() if v not in (None, "")})


def table(headers: Iterable[str], rows: Iterable[Iterable[str]], caption: str = "") -> str:
    """A table whose cells are already HTML."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def pager(base: str, page: int, pages: int, key: str = "page", **params: object) -> str:
    """Magento/GitLab-style paging: Previous, numbered pages around ``page``, Next."""
    if pages <= 1:
        return ""

    def link(n: int, label: str, cls: str = "") -> str:
        return (
            f'<li class="item {cls}"><a href="{base}?{qs(**params, **{key: n})}">{label}</a></li>'
        )

    items = []
    if page > 1:
        items.append(link(page - 1, "Previous Page", "pages-item-previous"))
    for n in range(max(1, page - 2), min(pages, page + 2) + 1):
        if n == page:
            items.append(f'<li class="item current"><strong aria-current="page">{n}</strong></li>')
        else:
            items.append(link(n, f"Page {n}"))
    if page < pages:
        items.append(link(page + 1, "Next Page", "pages-item-next"))
    return (
        f'<nav class="pages" aria-label="Pagination"><span class="pages-label">Page {page} of '
        f'{pages}</span><ul class="items pages-items">{"".join(items)}</ul></nav>'
    )


STATIC = Path(__file__).parent / "static"


class _Data:
    """The built data the sites read besides their sandbox: the wiki and the git repositories
    (read-only, shared by every episode); set by the site server."""

    wiki_db: Path | None = None
    repos: Path | None = None


DATA = _Data()


def render(
    title: str,
    body: str,
    nav: str = "",
    status: int = 200,
    css: str = "",
    body_class: str = "",
) -> HTMLResponse:
    """A page: ``nav`` is the site's header, ``css`` its stylesheet (``static/<css>.css``)."""
    sheet = f"<link rel='stylesheet' href='/static/{css}.css'>" if css else ""
    cls = f" class='{esc(body_class)}'" if body_class else ""
    doc = (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<link rel='icon' href='data:,'>{sheet}</head>"
        f"<body{cls}><header class='page-header'>{nav}</header>"
        f"<main id='maincontent' class='page-main'>{body}</main></body></html>"
    )
    return HTMLResponse(doc, status_code=status)


def stylesheet(name: str) -> Response:
    """``static/<name>.css`` (the sites' own stylesheets, package data)."""
    path = STATIC / f"{name}.css"
    if not path.is_file():
        return Response("not found", status_code=404)
    return Response(path.read_text(), media_type="text/css")


def login_form(action: str, user_label: str, error: str = "") -> str:
    note = f"<p role='alert'>{esc(error)}</p>" if error else ""
    return (
        f"{note}<form method='post' action='{action}'>"
        f"<label>{esc(user_label)} <input name='username' type='text'></label> "
        "<label>Password <input name='password' type='password'></label> "
        "<button type='submit'>Sign In</button></form>"
    )


class SqlRows(Sequence[Any]):
    """The rows of ``SELECT * FROM <source> WHERE <where> ORDER BY <order>`` as a sequence
    that counts and slices in SQL (a grid over 20,000 products reads one page of them)."""

    def __init__(
        self, db: sqlite3.Connection, source: str, where: str, args: Sequence[Any], order: str
    ) -> None:
        self.db, self.source, self.where, self.args, self.order = db, source, where, args, order
        self._len: int | None = None

    def __len__(self) -> int:
        if self._len is None:
            sql = f"SELECT COUNT(*) FROM {self.source} WHERE {self.where}"
            self._len = int(self.db.execute(sql, self.args).fetchone()[0])
        return self._len

    def __getitem__(self, index: Any) -> Any:
        if not isinstance(index, slice):
            return self[index : index + 1][0]
        start, stop, _ = index.indices(len(self))
        sql = (
            f"SELECT * FROM {self.source} WHERE {self.where} ORDER BY {self.order} LIMIT ? OFFSET ?"
        )
        return self.db.execute(sql, [*self.args, max(0, stop - start), start]).fetchall()


def paginate(rows: Sequence[Any], page: int, per_page: int) -> tuple[Sequence[Any], int, int]:
    pages = max(1, -(-len(rows) // per_page))
    page = min(max(1, page), pages)
    return rows[(page - 1) * per_page : page * per_page], page, pages


def paged_table(
    rows: Sequence[Any],
    page: int,
    per_page: int,
    headers: Iterable[str],
    cells: Callable[[Any], Iterable[str]],
    base: str,
    **params: object,
) -> str:
    """Page ``page`` of ``rows`` as a table (``cells(row)`` gives a row's HTML cells) and the
    pager to its neighbours at ``base`` (``params`` ride along in the links)."""
    shown, page, pages = paginate(rows, page, per_page)
    return table(headers, [cells(row) for row in shown]) + pager(base, page, pages, **params)


def not_found(nav: str = "") -> HTMLResponse:
    return render("404 Not Found", "<h1>404 Not Found</h1>", nav, 404)


@dataclass(frozen=True)
class Accounts:
    """A site's sign-in: the ``users`` table (whose ``name_column`` names a user), the signed
    session ``cookie``, the page at ``login`` (``GET`` shows the form, ``POST`` signs in and
    goes ``home``, or back with ``error`` shown) and ``logout`` (which goes to ``logged_out``).

    Handlers take the signed-in user as a dependency: ``user: User`` with
    ``User = Annotated[str | None, Depends(accounts.user)]``.
    """

    cookie: str
    users: str
    name_column: str
    login: str
    logout: str
    home: str
    logged_out: str
    error: str

    def user(self, request: Request) -> str | None:
        """The name of the signed-in user, else None."""
        return current_user(request, self.cookie)

    def router(self, login_page: Callable[..., Response]) -> APIRouter:
        """The routes to sign in (``login_page`` shows the form) and out."""
        router = APIRouter()
        router.add_api_route(self.login, login_page, methods=["GET"])
        router.add_api_route(self.login, self.sign_in, methods=["POST"])
        router.add_api_route(self.logout, self.sign_out, methods=["GET"])
        return router

    async def sign_in(self, request: Request) -> RedirectResponse:
        """Check the posted ``username``/``password``; on success set the session cookie."""
        data = await form(request)
        with connect(request) as db:
            row = db.execute(
                f"SELECT password FROM {self.users} WHERE {self.name_column}=?",
                (data.get("username", ""),),
            ).fetchone()
        if row is None or row[0] != password_hash(data.get("password", "")):
            return redirect(f"{self.login}?" + qs(error=self.error))
        response = redirect(self.home)
        response.set_cookie(self.cookie, sign(data["username"]), httponly=True)
        return response

    def sign_out(self) -> RedirectResponse:
        response = redirect(self.logged_out)
        response.delete_cookie(self.cookie)
        return response


async def _client_gone(request: Request, exc: Exception) -> Response:
    """A browser that left before sending its form (the agent's next action navigated away):
    nobody reads the answer, and it is no server error to log with a traceback."""
    return Response(status_code=499)  # nginx's "client closed request"


def site_app(*routers: APIRouter) -> FastAPI:
    """An app serving ``routers`` (in order: the first route that matches a path answers)
    and the stylesheets at ``/static/<name>.css``, without API docs pages."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    app.add_exception_handler(ClientDisconnect, _client_gone)
    app.add_api_route("/static/{name}.css", stylesheet, methods=["GET"])
    for router in routers:
        app.include_router(router)
    return app
