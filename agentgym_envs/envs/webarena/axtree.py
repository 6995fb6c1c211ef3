"""WebArena's accessibility-tree observation, built from Chromium's CDP data.

The tree comes from ``Accessibility.getFullAXTree``; node bounds for the viewport pruning come
from one ``DOMSnapshot.captureSnapshot`` call (WebArena resolves every node separately, which is
what makes its steps take seconds). Lines are ``[id] role 'name' prop: value`` with one tab per
depth of kept nodes. The ids are the browser's, as WebArena's: CDP's AX node ids, which
Chromium makes equal to the DOM node's backend node id for every node backed by the DOM (only
inline text boxes, never shown, have negative ids of their own). A node keeps its id for as long
as it is in the document, so an id is stable while the agent types or scrolls, and a new page
gets new ids. Chromium hands the ids out in the order it first touches the nodes, so the same
page reached by the same steps in a fresh context gets the same ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: AX properties WebArena leaves out of a line (plus ``url``, which newer Chromium adds).
IGNORED_PROPERTIES = frozenset(
    {"focusable", "editable", "readonly", "level", "settable", "multiline", "invalid", "url"}
)
#: Roles dropped when the node has no name and no shown property.
EMPTY_DROPPED_ROLES = frozenset(
    {
        "generic",
        "img",
        "list",
        "strong",
        "paragraph",
        "banner",
        "navigation",
        "Section",
        "LabelText",
        "Legend",
        "listitem",
    }
)
VIEWPORT_RATIO = 0.6


@dataclass(frozen=True)
class Node:
    """What an action needs about one element of the last observation."""

    backend_id: int
    line: str
    role: str
    name: str
    #: ``(x, y, width, height)`` in the viewport when the tree was pruned to it, else None.
    box: tuple[float, float, float, float] | None = None


def _value(prop_value: dict[str, Any]) -> str:
    value = prop_value.get("value", "")
    return str(value)


def _bounds(
    snapshot: dict[str, Any],
) -> tuple[dict[int, tuple[float, float, float, float]], tuple[float, float]]:
    doc = snapshot["documents"][0]
    backend = doc["nodes"]["backendNodeId"]
    bounds: dict[int, tuple[float, float, float, float]] = {}
    for index, rect in zip(doc["layout"]["nodeIndex"], doc["layout"]["bounds"], strict=False):
        bounds.setdefault(backend[index], tuple(rect))  # first layout object of the node
    return bounds, (doc.get("scrollOffsetX", 0.0), doc.get("scrollOffsetY", 0.0))


def _in_viewport(
    rect: tuple[float, float, float, float] | None,
    scroll: tuple[float, float],
    viewport: tuple[int, int],
) -> bool:
    if rect is None:
        return False
    x, y, w, h = rect
    if w == 0 or h == 0:
        return False
    x, y = x - scroll[0], y - scroll[1]
    overlap_w = max(0.0, min(x + w, viewport[0]) - max(x, 0.0))
    overlap_h = max(0.0, min(y + h, viewport[1]) - max(y, 0.0))
    # WebArena's formula, operator precedence included: (ow * oh / w) * h.
    return overlap_w * overlap_h / w * h >= VIEWPORT_RATIO


def build_tree(
    ax_nodes: list[dict[str, Any]],
    snapshot: dict[str, Any] | None,
    viewport: tuple[int, int] = (1280, 720),
) -> tuple[str, dict[str, Node]]:
    """The tree text and the id -> :class:`Node` map of its kept nodes.

    ``snapshot`` is a ``DOMSnapshot.captureSnapshot`` result; ``None`` turns viewport pruning
    off.
    """
    by_id: dict[str, dict[str, Any]] = {}
    for node in ax_nodes:
        by_id.setdefault(node["nodeId"], node)
    if not ax_nodes:
        return "", {}
    bounds, scroll = _bounds(snapshot) if snapshot is not None else ({}, (0.0, 0.0))
    lines: list[str] = []
    kept: dict[str, Node] = {}
    root_id = ax_nodes[0]["nodeId"]
    stack: list[tuple[str, int]] = [(root_id, 0)]
    seen: set[str] = set()
    while stack:
        node_id, depth = stack.pop()
        if node_id in seen or node_id not in by_id:
            continue
        seen.add(node_id)
        node = by_id[node_id]
        child_depth = depth
        if not node.get("ignored"):
            role = _value(node.get("role", {}))
            name = _value(node.get("name", {}))
            props = [
                f"{p['name']}: {_bool(p.get('value', {}))}"
                for p in node.get("properties", [])
                if p["name"] not in IGNORED_PROPERTIES and "value" in p.get("value", {})
            ]
            keep = role not in ("InlineTextBox", "none", "LineBreak", "")
            empty = not name.strip()
            if (
                keep
                and empty
                and ((role in EMPTY_DROPPED_ROLES and not props) or role == "listitem")
            ):
                keep = False
            backend = node.get("backendDOMNodeId")
            if keep and node_id != root_id and snapshot is not None:
                keep = backend is not None and _in_viewport(bounds.get(backend), scroll, viewport)
            if keep:
                shown_id = str(node_id)
                line = " ".join([f"[{shown_id}] {role} {name!r}", *props]).rstrip()
                lines.append("\t" * depth + line)
                rect = bounds.get(backend) if backend is not None else None
                box = (rect[0] - scroll[0], rect[1] - scroll[1], rect[2], rect[3]) if rect else None
                kept[shown_id] = Node(int(backend or 0), line.split("] ", 1)[1], role, name, box)
                child_depth = depth + 1
        for child in reversed(node.get("childIds", [])):
            stack.append((child, child_depth))
    return "\n".join(_dedupe_static_text(lines)), kept


def _bool(value: dict[str, Any]) -> str:
    v = value.get("value", "")
    if isinstance(v, bool):
        return "True" if v else "False"
    return str(v)


def _dedupe_static_text(lines: list[str]) -> list[str]:
    """WebArena's clean-up: a StaticText line whose text is already in one of the previous
    three kept lines is dropped."""
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.split(" ", 2)[1:2] == ["StaticText"] if stripped.startswith("[") else False:
            text = stripped.split(" ", 2)[2] if stripped.count(" ") >= 2 else ""
            text = text[1:-1] if len(text) >= 2 and text[0] == text[-1] in "'\"" else text
            if text and any(text in prev for prev in out[-3:]):
                continue
        out.append(line)
    return out


def tab_line(titles: list[str], current: int) -> str:
    """``Tab 0 (current): title | Tab 1: title``."""
    return " | ".join(
        f"Tab {i} (current): {t}" if i == current else f"Tab {i}: {t}" for i, t in enumerate(titles)
    )
