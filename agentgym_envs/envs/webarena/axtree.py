"""WebArena's accessibility-tree observation, built from Chromium's CDP data.

The tree comes from ``Accessibility.getFullAXTree``; node bounds for the viewport pruning come
from one ``DOMSnapshot.captureSnapshot`` call (WebArena resolves every node separately, which is
what makes its steps take seconds). Lines are ``[id] role 'name' prop: value`` with one tab per
depth of kept nodes.

The ids come from the browser's own node identities, as WebArena's, numbered so that they do
not depend on timing (:class:`ShownIds`). WebArena shows CDP's AX node ids, which Chromium
makes equal to the DOM node's backend node id; Chromium hands those out in the order something
first touches a node, and under load its paint-timing bookkeeping touches some nodes while the
page is still being parsed, so the same page reached by the same steps got ids shifted by one
now and then. Here each backend node gets a number of its own the first time an observation of
its document sees it, in document order: a node keeps its id for as long as it is in the
document (stable while the agent types or scrolls; nodes a script adds get the next numbers),
a new page gets new ids, and the same steps give the same ids.
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


class ShownIds:
    """The ids one tab's observations show: per document, each backend DOM node numbered in
    document order the first time a snapshot holds it (numbers keep growing across the tab's
    pages, so an id of the last page never names an element of the next one)."""

    def __init__(self) -> None:
        self._next = 1
        self._document: tuple[int, str] | None = None
        self._ids: dict[int | str, int] = {}

    def update(self, snapshot: dict[str, Any]) -> None:
        """Number the nodes of a ``DOMSnapshot.captureSnapshot`` result not numbered yet."""
        docs = snapshot["documents"]
        main = docs[0]
        url = snapshot["strings"][main["documentURL"]] if main["documentURL"] >= 0 else ""
        document = (main["nodes"]["backendNodeId"][0], url.split("#", 1)[0])
        if document != self._document:
            self._document, self._ids = document, {}
        for doc in docs:
            for backend in doc["nodes"]["backendNodeId"]:
                self._number(backend)

    def shown(self, node: dict[str, Any]) -> str:
        """The id shown for an AX node (one the snapshot lacked gets the next number)."""
        backend = node.get("backendDOMNodeId")
        return str(self._number(backend if backend is not None else f"ax{node['nodeId']}"))

    def _number(self, key: int | str) -> int:
        if key not in self._ids:
            self._ids[key] = self._next
            self._next += 1
        return self._ids[key]


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
    ids: ShownIds | None = None,
) -> tuple[str, dict[str, Node]]:
    """The tree text and the id -> :class:`Node` map of its kept nodes.

    ``snapshot`` is a ``DOMSnapshot.captureSnapshot`` result; ``None`` turns viewport pruning
    off. ``ids`` numbers the nodes (already updated with the page's snapshot); without it the
    lines show Chromium's AX node ids.
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
                shown_id = ids.shown(node) if ids is not None else str(node_id)
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
