"""Rendered views of a stored episode, step by step, by replaying its actions in the live env.

The episode's task is reset with its recorded seed and each stored action is sent again (a
ReAct reply is parsed as the policy wrappers parse it). After the reset and after every step
the env is drawn: BabyAI as a picture of its grid (minigrid's own frame, as PNG), WebShop as the
shop page the agent was on (HTML, as the shop's web view renders it), any other family as its
``render()`` text. Families whose extra is missing, or episodes that cannot be replayed, get
no views (the reason is returned instead).
"""

from __future__ import annotations

import base64
import io
import logging
from typing import Any

logger = logging.getLogger(__name__)


def _action_of(reply: str) -> str:
    from agentgym_envs.wrappers.react import parse_react

    parsed = parse_react(reply)
    return parsed.action if parsed.action else reply


def _frame(env) -> dict[str, Any]:
    base = env.unwrapped
    mg = getattr(base, "mg", None)
    if mg is not None and hasattr(mg, "get_frame"):
        try:
            import matplotlib.image

            buf = io.BytesIO()
            matplotlib.image.imsave(buf, mg.get_frame(highlight=True, tile_size=24), format="png")
            return {
                "kind": "png",
                "content": "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode(),
            }
        except ImportError:
            pass
    shop = getattr(base, "shop", None)
    if shop is not None and hasattr(shop, "elements"):
        from agentgym_envs.envs.webshop.web import render_html

        return {
            "kind": "html",
            "content": render_html(shop.elements(), "replay", shop.state.options),
        }
    text = env.render()
    return {"kind": "text", "content": text if isinstance(text, str) else ""}


def episode_views(episode: dict[str, Any]) -> dict[str, Any]:
    """``{"frames": [frame after reset, frame after step 0, ...], "error": None | str}``.

    ``episode``: ``env_id``, ``split``, ``task_id``, ``seed`` and ``steps`` (each with
    ``action``). A frame is ``{"kind": "png" | "html" | "text", "content": ...}``.
    """
    import gymnasium as gym

    from agentgym_envs.spec import ENV_INFO

    env_id = episode.get("env_id")
    info = ENV_INFO.get(env_id)
    if info is None:
        return {"frames": [], "error": f"{env_id} is not registered here"}
    if not info.installed:
        return {
            "frames": [],
            "error": f'{env_id} needs its extra: pip install "agentgym-envs[{info.extra}]"',
        }
    if episode.get("task_id") is None:
        return {"frames": [], "error": "the episode does not say which task it played"}
    try:
        env = gym.make(env_id, render_mode="ansi")
    except Exception as exc:
        return {"frames": [], "error": f"cannot make {env_id}: {exc}"}
    try:
        env.reset(
            seed=episode.get("seed"),
            options={"split": episode.get("split") or "test", "task_id": episode["task_id"]},
        )
        frames = [_frame(env)]
        for step in episode.get("steps", []):
            _obs, _r, terminated, truncated, _info = env.step(_action_of(step["action"]))
            frames.append(_frame(env))
            if terminated or truncated:
                break
        return {"frames": frames, "error": None}
    except Exception as exc:
        logger.debug("replaying episode for views failed", exc_info=True)
        return {"frames": [], "error": f"replay failed: {type(exc).__name__}: {exc}"}
    finally:
        env.close()


__all__ = ["episode_views"]
