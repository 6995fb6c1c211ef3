"""Set-of-marks (VisualWebArena's screenshot observation): the page's screenshot with a
numbered box on every interactive element of the observation, and the marks as text."""

from __future__ import annotations

import io
from collections.abc import Mapping

import numpy as np

from agentgym_envs.envs.webarena.axtree import Node

#: Roles that get a mark (what an agent can click or type into).
INTERACTIVE = frozenset(
    {
        "link",
        "button",
        "textbox",
        "searchbox",
        "combobox",
        "checkbox",
        "radio",
        "menuitem",
        "tab",
        "option",
        "spinbutton",
        "slider",
        "switch",
    }
)
COLORS = ((230, 25, 75), (60, 130, 75), (0, 90, 200), (245, 130, 48), (145, 30, 180))


def marked(nodes: Mapping[str, Node]) -> dict[str, Node]:
    """The nodes that get a mark: interactive and with a box in the viewport."""
    return {k: n for k, n in nodes.items() if n.role in INTERACTIVE and n.box is not None}


def marks_text(nodes: Mapping[str, Node]) -> str:
    """One line a mark: ``[id] [role] [name]`` (VisualWebArena's SoM text)."""
    return "\n".join(f"[{k}] [{n.role}] [{n.name}]" for k, n in marked(nodes).items())


def decode_png(png: bytes) -> np.ndarray:
    """A PNG as an ``H x W x 3`` uint8 array."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB")).copy()


def draw_marks(png: bytes, nodes: Mapping[str, Node]) -> np.ndarray:
    """The screenshot ``png`` with a box and its id on every marked node."""
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGB")
    draw = ImageDraw.Draw(image)
    for i, (key, node) in enumerate(marked(nodes).items()):
        assert node.box is not None
        x, y, w, h = node.box
        color = COLORS[i % len(COLORS)]
        draw.rectangle([x, y, x + w, y + h], outline=color, width=2)
        label_w = 7 * len(key) + 4
        draw.rectangle([x, max(0, y - 12), x + label_w, max(12, y)], fill=color)
        draw.text((x + 2, max(0, y - 12)), key, fill=(255, 255, 255))
    return np.asarray(image).copy()
