"""Comparing an agent's answer with the gold one: AgentGym's way, or leniently.

AgentGym compares with Python ``==`` after its own normalisation, which is only this: a
``finish`` answer that is a list is sorted, and the input was read as a Python literal (so
``18.5 != "18.5"``, ``"Fair" != "fair"``, ``[1, 2] == [2, 1]`` once sorted). That is
:func:`agentgym_equal`, the families' default (``answer_match="agentgym"``). It grades
formatting as well as knowledge; :func:`answers_match` (``answer_match="lenient"``) accepts
what a careful grader would:

* numbers within a tolerance (``abs <= 0.051`` or ``rel <= 1e-3``: an answer rounded to one
  decimal, or a distance given to the metre, is right), written as numbers or text, with
  thousands separators, a currency sign or a unit (``"12.5 mm"``, ``"300(minute)"``, ``"$1,000"``);
  two different units (``"5 cm"`` against ``"5 mm"``) do not match;
* text case-insensitively, ignoring surrounding quotes, spaces and a final period;
  ``yes``/``no`` also as ``True``/``False``;
* lists as multisets (AgentGym sorts list answers), given as a list, a list literal in text, or
  comma-separated text; dicts key by key (keys case-insensitive), lists inside them in order
  (a forecast's temperatures are a sequence, and AgentGym does not sort inside a dict);
* ``None`` as ``None``/``"None"``/``"null"``.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

ABS_TOL = 0.051
REL_TOL = 1e-3

_NUMBER = re.compile(
    r"^\s*(?P<cur>[$\u20ac\u00a3]|USD|EUR)?\s*(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+]?\.\d+)"
    r"\s*(?P<unit>\(?\s*[A-Za-z%\u00b0\"' ]{0,20}?\s*\)?)\s*\.?\s*$"
)
_UNITS = {
    "mm": "mm",
    "millimeter": "mm",
    "millimeters": "mm",
    "millimetre": "mm",
    "millimetres": "mm",
    "cm": "cm",
    "centimeter": "cm",
    "centimeters": "cm",
    "centimetre": "cm",
    "centimetres": "cm",
    "m": "m",
    "meter": "m",
    "meters": "m",
    "metre": "m",
    "metres": "m",
    "km": "km",
    "kilometer": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometres": "km",
    "in": "in",
    "inch": "in",
    "inches": "in",
    '"': "in",
    "c": "degc",
    "degc": "degc",
    "deg c": "degc",
    "celsius": "degc",
    "degrees": "degc",
    "degree": "degc",
    "degrees celsius": "degc",
    "deg": "degc",
    "\u00b0c": "degc",
    "\u00b0": "degc",
    "f": "degf",
    "fahrenheit": "degf",
    "degrees fahrenheit": "degf",
    "\u00b0f": "degf",
    "minute": "min",
    "minutes": "min",
    "min": "min",
    "mins": "min",
    "hour": "h",
    "hours": "h",
    "h": "h",
    "hr": "h",
    "hrs": "h",
    "day": "day",
    "days": "day",
    "%": "%",
    "percent": "%",
    "usd": "usd",
    "dollars": "usd",
    "dollar": "usd",
    "$": "usd",
}
_TRUE = {"yes", "true", "y"}
_FALSE = {"no", "false", "n"}
_NONE = {"none", "null", "nan", "n/a", ""}


def parse_number(value: Any) -> tuple[float, str | None] | None:
    """``(number, unit)`` for a number or numeric text (``"1,366.5 km"``), else ``None``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return (float(value), None) if math.isfinite(float(value)) else None
    if not isinstance(value, str):
        return None
    m = _NUMBER.match(value)
    if not m:
        return None
    try:
        number = float(m.group("num").replace(",", ""))
    except ValueError:
        return None
    raw_unit = m.group("unit").strip().strip("()").strip().lower()
    unit: str | None
    if m.group("cur"):
        unit = "usd"
    elif raw_unit:
        if raw_unit not in _UNITS:
            return None  # "2 apples" is not a number answer
        unit = _UNITS[raw_unit]
    else:
        unit = None
    return number, unit


def numbers_close(a: float, b: float) -> bool:
    return abs(a - b) <= ABS_TOL or abs(a - b) <= REL_TOL * max(abs(a), abs(b))


def normalize_text(value: str) -> str:
    text = value.strip().strip("`").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    text = re.sub(r"\s+", " ", text).strip().rstrip(".").strip()
    return text.casefold()


def _as_structure(value: Any) -> Any:
    """Text that spells a list or dict (``"['a', 'b']"``, ``'{"x": 1}'``) as that structure."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text[:1] in "[{(" and text[-1:] in "]})":
        for loader in (json.loads, ast.literal_eval):
            try:
                out = loader(text)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            if isinstance(out, (list, dict, tuple)):
                return list(out) if isinstance(out, tuple) else out
    return value


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = normalize_text(value)
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    return None


def answers_match(predicted: Any, gold: Any) -> bool:
    """Whether ``predicted`` is the ``gold`` answer (see the module docstring)."""
    try:
        return _match(predicted, gold, depth=0)
    except RecursionError:  # pragma: no cover
        return False


def _match(pred: Any, gold: Any, depth: int, ordered: bool = False) -> bool:
    if depth > 20:
        return False
    if gold is None:
        return pred is None or (isinstance(pred, str) and normalize_text(pred) in _NONE)
    if isinstance(gold, bool) or (
        isinstance(gold, str) and _truth(gold) is not None and parse_number(gold) is None
    ):
        g, p = _truth(gold), _truth(pred)
        return p is not None and p == g
    if isinstance(gold, Mapping):
        pred = _as_structure(pred)
        if not isinstance(pred, Mapping) or len(pred) != len(gold):
            return False
        keys = {str(k).casefold(): v for k, v in pred.items()}
        return all(
            str(k).casefold() in keys and _match(keys[str(k).casefold()], v, depth + 1, True)
            for k, v in gold.items()
        )
    if isinstance(gold, Sequence) and not isinstance(gold, str):
        pred = _as_structure(pred)
        if isinstance(pred, str):
            pred = (
                [p for p in (s.strip() for s in pred.split(",")) if p]
                if "," in pred or gold
                else [pred]
            )
        if not isinstance(pred, Sequence) or isinstance(pred, str) or len(pred) != len(gold):
            return False
        if ordered:
            return all(_match(p, g, depth + 1, True) for p, g in zip(pred, gold))
        unused = list(pred)
        for g in gold:
            for i, p in enumerate(unused):
                if _match(p, g, depth + 1):
                    del unused[i]
                    break
            else:
                return False
        return True
    gold_num = parse_number(gold)
    if gold_num is not None:
        pred_num = parse_number(pred)
        if pred_num is None:
            return False
        (g, gu), (p, pu) = gold_num, pred_num
        if gu and pu and gu != pu:
            return False
        return numbers_close(p, g)
    if isinstance(gold, str):
        if isinstance(pred, (list, tuple)) and len(pred) == 1:
            pred = pred[0]
        if not isinstance(pred, str):
            pred = str(pred)
        return normalize_text(pred) == normalize_text(gold)
    return pred == gold


def agentgym_equal(predicted: Any, gold: Any) -> bool:
    """AgentGym's comparison: ``predicted == gold`` (Python's ``==``; pass a ``finish``
    answer through :func:`canonical` first, as AgentGym's ``finish`` tool sorts lists)."""
    try:
        return bool(predicted == gold)
    except Exception:  # an exotic value whose == raises is simply not equal
        return False


#: The answer comparisons a tool family can use, by option name.
MATCHERS: dict[str, Callable[[Any, Any], bool]] = {
    "agentgym": agentgym_equal,
    "lenient": answers_match,
}


def answer_matcher(name: str) -> Callable[[Any, Any], bool]:
    """The comparison called ``name`` (``"agentgym"`` or ``"lenient"``)."""
    try:
        return MATCHERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown answer_match {name!r}: use 'agentgym' or 'lenient'") from None


def canonical(value: Any) -> Any:
    """``value`` as AgentGym records a finish answer: lists sorted (by text when mixed)."""
    if isinstance(value, list):
        try:
            return sorted(value)
        except TypeError:
            return sorted(value, key=str)
    return value


__all__ = [
    "ABS_TOL",
    "MATCHERS",
    "REL_TOL",
    "agentgym_equal",
    "answer_matcher",
    "answers_match",
    "canonical",
    "normalize_text",
    "numbers_close",
    "parse_number",
]
