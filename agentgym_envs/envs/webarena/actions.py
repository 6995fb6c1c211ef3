"""WebArena's id-based action grammar (``create_id_based_action``) and the texts it shows.

A reply is read as AgentGym's server reads it: the first triple-backtick block, stripped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: AgentGym client's reply when a reply has no triple-backtick block.
NO_BACKTICKS = (
    "Cannot parse action from response. Your action should be inside triple backticks (```). "
    "Please adjust accordingly."
)
ACTION_NAMES = (
    "click",
    "hover",
    "type",
    "press",
    "scroll",
    "goto",
    "new_tab",
    "tab_focus",
    "close_tab",
    "go_back",
    "go_forward",
    "stop",
)
#: WebArena's names for special keys (``press [enter]``).
SPECIAL_KEYS = {
    "enter": "Enter",
    "tab": "Tab",
    "control": "Control",
    "ctrl": "Control",
    "shift": "Shift",
    "meta": "Control",
    "alt": "Alt",
    "backspace": "Backspace",
    "delete": "Delete",
    "escape": "Escape",
    "esc": "Escape",
    "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "home": "Home",
    "end": "End",
    "space": "Space",
}


class ActionParsingError(ValueError):
    """The action text does not fit WebArena's grammar (message as WebArena words it)."""


@dataclass(frozen=True)
class Action:
    """One parsed action: its name and arguments."""

    name: str
    element_id: str = ""
    text: str = ""
    enter: bool = False
    key: str = ""
    direction: str = ""
    url: str = ""
    tab: int = 0
    answer: str = ""
    raw: str = ""


def extract(reply: str) -> str | None:
    """The first triple-backtick block of ``reply``, stripped; ``None`` when there is none."""
    match = re.search(r"```(.*?)```", reply, re.DOTALL)
    return match.group(1).strip() if match else None


def parse(text: str) -> Action:
    """Parse one action in WebArena's id-based grammar (raises :class:`ActionParsingError`)."""
    text = text.strip()
    name = text.split("[")[0].strip() if "[" in text else (text.split() or [""])[0].strip()
    raw = text
    if name in ("click", "hover"):
        m = re.search(rf"{name} ?\[(\d+)\]", text)
        if not m:
            raise ActionParsingError(f"Invalid {name} action {text}")
        return Action(name, element_id=m.group(1), raw=raw)
    if name == "type":
        if not text.endswith(("[0]", "[1]")):
            text += " [1]"
        m = re.search(r"type ?\[(\d+)\] ?\[(.+)\] ?\[(\d+)\]", text, re.DOTALL)
        if not m:
            raise ActionParsingError(f"Invalid type action {text}")
        return Action(
            "type", element_id=m.group(1), text=m.group(2), enter=m.group(3) == "1", raw=raw
        )
    if name == "press":
        m = re.search(r"press ?\[(.+)\]", text)
        if not m:
            raise ActionParsingError(f"Invalid press action {text}")
        return Action("press", key=m.group(1), raw=raw)
    if name == "scroll":
        m = re.search(r"scroll ?\[?(up|down)\]?", text)
        if not m:
            raise ActionParsingError(f"Invalid scroll action {text}")
        return Action("scroll", direction=m.group(1), raw=raw)
    if name == "goto":
        m = re.search(r"goto ?\[(.+)\]", text)
        if not m:
            raise ActionParsingError(f"Invalid goto action {text}")
        return Action("goto", url=m.group(1), raw=raw)
    if name in ("new_tab", "close_tab", "go_back", "go_forward"):
        return Action(name, raw=raw)
    if name == "tab_focus":
        m = re.search(r"tab_focus ?\[(\d+)\]", text)
        if not m:
            raise ActionParsingError(f"Invalid tab_focus action {text}")
        return Action("tab_focus", tab=int(m.group(1)), raw=raw)
    if name == "stop":
        m = re.search(r"stop ?\[(.+)\]", text, re.DOTALL)
        return Action("stop", answer=m.group(1) if m else "", raw=raw)
    raise ActionParsingError(f"Invalid action {text}")


def key_combo(key: str) -> str:
    """WebArena's key mapping: each ``+`` part through :data:`SPECIAL_KEYS` (Meta -> Control)."""
    return "+".join(SPECIAL_KEYS.get(part.strip().lower(), part.strip()) for part in key.split("+"))


def describe(action: Action, element_line: str | None) -> str:
    """The PREVIOUS ACTION text WebArena shows for ``action`` (``element_line`` is the acted-on
    node's line without its ``[id]``, ``None`` when the id was not in the observation)."""
    if action.name in ("click", "hover", "type"):
        if element_line is None:
            return (
                f'Attempt to perfom "{action.name}" on element "[{action.element_id}]" but no '
                "matching element found. Please check the observation more carefully."
            )
        if action.name == "type":
            text = action.text.replace("\n", " ")
            return (
                f"type [{action.element_id}] [{text}] where [{action.element_id}] is {element_line}"
            )
        return f"{action.name} [{action.element_id}] where [{action.element_id}] is {element_line}"
    if action.name == "scroll":
        return f"scroll [{action.direction}]"
    if action.name == "press":
        return f"press [{action.key}]"
    if action.name == "goto":
        return f"goto [{action.url}]"
    if action.name == "tab_focus":
        return f"page_focus [{action.tab}]"
    if action.name == "stop":
        return f"stop [{action.answer}]"
    return action.name
