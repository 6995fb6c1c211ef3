"""The shop's web routes (browser mode; :func:`~agentgym_envs.envs.webshop.web.create_app`
serves them).

Each browser session is one :class:`~agentgym_envs.envs.webshop.env.WebShopEnv`; the app keeps
them in ``app.state.sessions`` (:class:`Sessions`) and handlers take them as a dependency.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

from agentgym_envs.envs.webshop.env import WebShopEnv
from agentgym_envs.envs.webshop.web import home_html, render_html
from agentgym_envs.errors import AgentGymError


class Sessions:
    """The open browser sessions, one env each; past ``limit`` the least recently used goes.
    ``env_kwargs`` go to every :class:`WebShopEnv` (catalog, data)."""

    def __init__(self, limit: int, env_kwargs: dict[str, Any]) -> None:
        self.limit = limit
        self.env_kwargs = env_kwargs
        self.template = WebShopEnv(**env_kwargs)  # builds the shared catalog (and its index) now
        _ = self.template.catalog.index
        self._envs: OrderedDict[str, WebShopEnv] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, split: str, task_id: int, seed: int | None) -> str:
        """A new session on task ``task_id`` of ``split``; returns its id."""
        env = WebShopEnv(**self.env_kwargs)
        env.reset(seed=seed, options={"split": split, "task_id": task_id})
        sid = secrets.token_hex(8)
        with self._lock:
            self._envs[sid] = env
            while len(self._envs) > self.limit:
                self._envs.popitem(last=False)
        return sid

    def get(self, sid: str) -> WebShopEnv:
        """The session's env (404 for an unknown or dropped session)."""
        with self._lock:
            env = self._envs.get(sid)
            if env is None:
                raise HTTPException(404, f"unknown session {sid!r}: start one at /start")
            self._envs.move_to_end(sid)
            return env

    def step(self, sid: str, action: str) -> None:
        """Step the session's env with ``action`` unless its episode is over."""
        env = self.get(sid)
        with (
            self._lock
        ):  # steps take well under a millisecond; one at a time keeps sessions consistent
            if not env.done:
                env.step(action)


async def _sessions(request: Request) -> Sessions:
    return request.app.state.sessions


Shop = Annotated[Sessions, Depends(_sessions)]

router = APIRouter()


def _act(shop: Sessions, sid: str, action: str) -> RedirectResponse:
    """Play ``action`` in the session, then show its page again."""
    shop.step(sid, action)
    return RedirectResponse(f"/session/{sid}", status_code=303)


#: Largest form body read (bytes); a shop form is a few words.
MAX_FORM_BYTES = 64 * 1024


async def _form(request: Request) -> dict[str, str]:
    """The posted form, read at most :data:`MAX_FORM_BYTES` (413 past it: the rest is not read
    and the connection is closed)."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            raise HTTPException(
                413, f"form over {MAX_FORM_BYTES} bytes", headers={"Connection": "close"}
            )
        chunks.append(chunk)
    body = b"".join(chunks).decode("utf-8", "replace")
    return {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}


@router.get("/")
def home(shop: Shop):
    return HTMLResponse(home_html(shop.template.tasks.splits()))


@router.get("/start")
def start(shop: Shop, split: str = "test", task_id: int = 0, seed: int | None = None):
    if seed is not None and not 0 <= seed < 2**63:
        raise HTTPException(400, f"seed must be 0 to 2**63-1, got {seed}")
    try:
        sid = shop.start(split, task_id, seed)
    except AgentGymError as exc:
        raise HTTPException(400, str(exc)) from None
    return RedirectResponse(f"/session/{sid}", status_code=303)


@router.get("/session/{sid}")
def show(sid: str, shop: Shop):
    env = shop.get(sid)
    assert env.shop is not None
    return HTMLResponse(render_html(env.shop.elements(), sid, env.shop.state.options))


@router.post("/session/{sid}/search")
async def search(sid: str, request: Request, shop: Shop):
    keywords = (await _form(request)).get("keywords", "")
    return _act(shop, sid, f"search[{keywords}]")


@router.post("/session/{sid}/click")
async def click_post(sid: str, request: Request, shop: Shop):
    return _act(shop, sid, f"click[{(await _form(request)).get('value', '')}]")


@router.get("/session/{sid}/click")
def click_get(sid: str, shop: Shop, value: str = ""):
    return _act(shop, sid, f"click[{value}]")


@router.get("/session/{sid}/state")
def state(sid: str, shop: Shop):
    env = shop.get(sid)
    assert env.shop is not None
    return JSONResponse(
        {
            "observation": env.shop.observation(),
            "available_actions": env.shop.available_actions(),
            "done": env.done,
            "reward": env.shop.reward_info.reward if env.shop.reward_info else 0.0,
            "score": env.score,
            "success": env.success,
            "task_id": env.task.task_id if env.task else None,
            "split": env.task.split if env.task else None,
        }
    )
