"""Browser mode: the same shop as a web app (FastAPI) for people and browser agents.

Each browser session is one :class:`~agentgym_envs.envs.webshop.env.WebShopEnv` on a task;
every form post is turned into the text env's ``search[...]`` / ``click[...]`` action, and the
page is rendered from the same page elements as the text observation. So a purchase made in
the browser gets exactly the reward the text env gives for the same actions, and
:func:`html_to_text` of any page equals the text observation.

Routes (in :mod:`agentgym_envs.envs.webshop.routes`): ``GET /`` (start form),
``GET /start?split=test&task_id=0`` (new session, redirects to it), ``GET /session/{sid}`` (the
current page), ``POST /session/{sid}/search`` (``keywords``), ``POST /session/{sid}/click``
(``value``), ``GET /session/{sid}/click?value=`` (product links), ``GET /session/{sid}/state``
(JSON: observation, actions, reward, score).
"""

import logging
import socket
import threading
import time
from html import escape as esc
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote

from agentgym_envs.envs.webshop.shop import SEP, Element
from agentgym_envs.errors import require

logger = logging.getLogger(__name__)

MAX_SESSIONS = 1000

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
#instruction-text { background: #f3f6fa; border-left: 4px solid #2f6fdb; padding: .6em 1em; }
form { display: inline-block; margin: .2em .4em .2em 0; }
.btn { padding: .35em .9em; border: 1px solid #2f6fdb; background: #fff; color: #2f6fdb; border-radius: 4px; cursor: pointer; }
.btn:hover { background: #2f6fdb; color: #fff; }
.purchase { background: #f0a020; color: #000; border-color: #c07a00; font-weight: bold; }
.product { border-top: 1px solid #ddd; padding: .4em 0; }
.product-link { font-weight: bold; }
.radio-toolbar input { margin-left: .8em; }
#search_input { width: 30em; padding: .35em; }
"""


def _attr(anchor: str) -> str:
    return f' id="{anchor}"' if anchor else ""


def render_html(elements: list[Element], sid: str, options: dict[str, str] | None = None) -> str:
    """The HTML page for a shop page's elements (visible texts in the same order)."""
    options = options or {}
    base = f"/session/{quote(sid)}"
    parts: list[str] = []
    i = 0
    in_product = False
    while i < len(elements):
        kind = elements[i].kind
        if kind == "search_box":
            part, i = _search_form(elements, i, base)
        elif kind == "option":
            part, i = _radio_form(elements, i, base, options, f"radio_{len(parts)}")
        else:
            if kind == "link":  # a product: its texts sit in its box up to the next product
                if in_product:
                    parts.append("</div>")
                in_product = True
            part, i = _element(elements[i], base), i + 1
        parts.append(part)
    if in_product:
        parts.append("</div>")
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>WebShop</title>'
        f"<style>{_CSS}</style></head>\n<body>\n{body}\n</body></html>"
    )


def _search_form(elements: list[Element], i: int, base: str) -> tuple[str, int]:
    """The search box at ``elements[i]`` with its button if one follows; and the next index."""
    following = elements[i + 1] if i + 1 < len(elements) else None
    button = following if following is not None and following.key == "search" else None
    form = (
        f'<form method="post" action="{base}/search" role="search">'
        f'<input id="search_input" type="text" name="keywords" placeholder="Search..." '
        f'aria-label="Search" required>'
        + (f'<button class="btn" type="submit">{esc(button.text)}</button>' if button else "")
        + "</form>"
    )
    return form, i + (2 if button else 1)


def _radio_form(
    elements: list[Element], i: int, base: str, options: dict[str, str], prefix: str
) -> tuple[str, int]:
    """The options of one group from ``elements[i]`` on as radio buttons (ids ``prefix_N``);
    and the index after them."""
    group = elements[i].group
    radios = []
    while i < len(elements) and elements[i].kind == "option" and elements[i].group == group:
        o = elements[i]
        rid = f"{prefix}_{len(radios)}"
        checked = " checked" if options.get(group) == o.key else ""
        radios.append(
            f'<input type="radio" id="{rid}" name="value" value="{esc(o.key)}" data-group="{esc(group)}"'
            f' onchange="this.form.submit()"{checked}><label for="{rid}">{esc(o.text)}</label>'
        )
        i += 1
    form = (
        f'<form method="post" action="{base}/click" class="radio-toolbar">{"".join(radios)}</form>'
    )
    return form, i


def _element(e: Element, base: str) -> str:
    """A product link (opening its box), a button, a heading or a paragraph."""
    if e.kind == "link":
        return (
            f'<div class="product"><a class="product-link" href="{base}/click?value={quote(e.key)}">'
            f"{esc(e.text)}</a>"
        )
    if e.kind == "button":
        css = "btn purchase" if e.key == "buy now" else "btn"
        return (
            f'<form method="post" action="{base}/click"><input type="hidden" name="value" value="{esc(e.key)}">'
            f'<button type="submit" class="{css}">{esc(e.text)}</button></form>'
        )
    if e.kind == "heading":
        return f"<h3{_attr(e.anchor)}>{esc(e.text)}</h3>"
    return f"<p{_attr(e.anchor)}>{esc(e.text)}</p>"


class _TextCollector(HTMLParser):
    _HIDDEN = frozenset({"style", "script", "head", "title", "meta"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in ("input", "meta", "br", "img", "link"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop() == tag:
                break

    def handle_data(self, data: str) -> None:
        if (self.stack and self.stack[-1] in self._HIDDEN) or any(
            t in self._HIDDEN for t in self.stack
        ):
            return
        text = data.strip()
        if text:
            self.texts.append(text)


def html_to_text(page: str) -> str:
    """WebShop's simple text conversion: visible strings, stripped, joined by ``" [SEP] "``."""
    collector = _TextCollector()
    collector.feed(page)
    return SEP.join(collector.texts)


def home_html(splits: dict[str, int]) -> str:
    """The start page: pick a split and a task id."""
    rows = "".join(f'<option value="{s}">{s} ({n} tasks)</option>' for s, n in splits.items())
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>WebShop</title>'
        f"<style>{_CSS}</style></head><body><h2>WebShop</h2>"
        '<form method="get" action="/start"><label>split <select name="split">'
        + rows
        + "</select></label> "
        '<label>task id <input type="number" name="task_id" value="0" min="0"></label> '
        '<button class="btn" type="submit">Start shopping</button></form></body></html>'
    )


def create_app(max_sessions: int = MAX_SESSIONS, **env_kwargs: Any):
    """A FastAPI app serving the shop; ``env_kwargs`` go to :class:`WebShopEnv` (catalog, data).
    The routes are :mod:`agentgym_envs.envs.webshop.routes`; the sessions are ``app.state``."""
    fastapi = require("fastapi", "webshop")
    from agentgym_envs.envs.webshop.routes import Sessions, router

    app = fastapi.FastAPI(title="WebShop (agentgym-envs)", docs_url=None, redoc_url=None)
    app.state.sessions = Sessions(max_sessions, env_kwargs)
    app.include_router(router)
    return app


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class ShopServer:
    """Run the app with uvicorn in a background thread (tests, notebooks): ``with ShopServer() as url``."""

    def __init__(
        self, app=None, host: str = "127.0.0.1", port: int | None = None, **env_kwargs: Any
    ) -> None:
        uvicorn = require("uvicorn", "webshop")
        self.app = app if app is not None else create_app(**env_kwargs)
        self.host, self.port = host, port or free_port(host)
        self.server = uvicorn.Server(
            uvicorn.Config(self.app, host=self.host, port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the shop server did not start on {self.url}")
            time.sleep(0.02)
        return self.url

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
