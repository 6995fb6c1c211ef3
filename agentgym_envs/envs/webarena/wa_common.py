"""Pieces the ``wa_*`` instantiators share: eval dicts, unachievable instances, plans."""

from __future__ import annotations

from typing import Any

from agentgym_envs.envs.webarena.templates import exact, html, money, must, spaced, url

__all__ = ["both", "exact", "fuzzy", "html", "money", "must", "na", "spaced", "url", "us_date"]


def fuzzy(*refs: Any) -> dict[str, Any]:
    """``string_match`` judged (an LLM judge, else the deterministic fallback)."""
    values = [str(r) for r in refs]
    return {"eval_types": ["string_match"], "reference_answers": {"fuzzy_match": values}}


def na(note: str) -> dict[str, Any]:
    """An unachievable instance, graded as WebArena grades them: ``fuzzy_match`` "N/A"."""
    return {
        "eval_types": ["string_match"],
        "reference_answers": {"fuzzy_match": "N/A"},
        "string_note": note,
        "reference_answer_raw_annotation": "N/A",
    }


NA_PLAN: list[list[Any]] = [["stop", "N/A"]]


def both(*evals: dict[str, Any]) -> dict[str, Any]:
    """Several evaluators at once (their product), e.g. ``url_match`` and ``program_html``."""
    out: dict[str, Any] = {"eval_types": []}
    for ev in evals:
        for kind in ev["eval_types"]:
            if kind not in out["eval_types"]:
                out["eval_types"].append(kind)
        for key, value in ev.items():
            if key != "eval_types":
                out[key] = value
    return out


def us_date(day: str) -> str:
    """``2023-03-05`` -> ``3/5/2023`` (WebArena's way of writing dates in intents)."""
    y, m, d = day[:10].split("-")
    return f"{int(m)}/{int(d)}/{y}"


def month_name(month: str) -> str:
    """``2023-03`` -> ``March 2023``."""
    import calendar

    y, m = month.split("-")
    return f"{calendar.month_name[int(m)]} {y}"
