"""WebArena's evaluators (``evaluation_harness/evaluators.py``): ``string_match``,
``url_match`` and ``program_html``; the score is their product over ``eval_types``.

Fuzzy matches go to an optional LLM judge (:class:`LLMJudge`, any OpenAI-compatible endpoint);
without one a deterministic token match decides (:func:`fallback_fuzzy`).
"""

from __future__ import annotations

import html
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import parse_qs, unquote, urlsplit

logger = logging.getLogger(__name__)

_TOKEN = re.compile(r"\w+|[^\w\s]")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "and",
        "or",
        "is",
        "are",
        "was",
        "be",
        "it",
        "its",
        "this",
        "that",
    ]
)


class Browser(Protocol):
    """What ``program_html`` needs from the episode's browser."""

    def current_url(self) -> str: ...

    def goto(self, url: str) -> None: ...

    def content(self) -> str: ...

    def evaluate(self, expression: str) -> Any: ...


def clean_answer(answer: str) -> str:
    """WebArena's ``clean_answer``: strip, drop one pair of surrounding quotes, lower-case."""
    answer = answer.strip()
    if len(answer) >= 2 and answer[0] == answer[-1] and answer[0] in "'\"":
        answer = answer[1:-1]
    return answer.lower()


def tokens(text: str) -> list[str]:
    """Word and punctuation tokens (the role ``nltk.word_tokenize`` plays in WebArena)."""
    return _TOKEN.findall(text)


def exact_match(ref: str, pred: str) -> float:
    return float(clean_answer(pred) == clean_answer(ref))


def must_include(ref: str, pred: str, tokenize: bool = False) -> float:
    clean_ref, clean_pred = clean_answer(ref), clean_answer(pred)
    if tokenize and len(clean_ref) == 1:
        return float(clean_ref in tokens(clean_pred))
    return float(clean_ref in clean_pred)


def fallback_fuzzy(ref: str, pred: str, whole: str | None = None) -> float:
    """Deterministic stand-in for the LLM judge: every content token of the reference occurs in
    the answer (numbers compared as numbers), and the answer is not a dump: at most twice the
    content tokens of ``whole`` (the task's whole reference: all items of a list reference,
    each judged on its own against the same answer; default ``ref``) plus
    :data:`FUZZY_SLACK` (a judge asked for semantic equivalence refuses a list of everything
    the site says, too)."""

    def norm(text: str) -> list[str]:
        out = []
        for tok in tokens(_UNIT_GLUE.sub(r"\1 \2", clean_answer(text))):
            if tok in _STOP or not tok.strip() or re.fullmatch(r"[^\w]", tok):
                continue
            tok = _UNITS.get(tok, tok)
            out.append(str(float(tok)) if re.fullmatch(r"\d+(\.\d+)?", tok) else tok)
        return out

    ref_toks, pred_toks = norm(ref), norm(pred)
    budget = set(norm(whole)) if whole is not None else set(ref_toks)
    if len(set(pred_toks)) > 2 * len(budget) + FUZZY_SLACK:
        return 0.0
    return float(bool(ref_toks) and set(ref_toks) <= set(pred_toks))


#: Content tokens an answer may have beyond twice the reference's (the fallback judge).
FUZZY_SLACK = 8
#: A number glued to its unit (``4min``, ``1h``) is read as two tokens, and a unit's
#: spellings as one (``4 minutes`` is ``4min``, as a judge would read them).
_UNIT_GLUE = re.compile(r"(\d)(min|mins|minutes?|h|hrs?|hours?|m|km)\b")
_UNITS = {
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
}


@dataclass
class LLMJudge:
    """WebArena's ``llm_fuzzy_match`` / ``llm_ua_match`` over an OpenAI-compatible endpoint.

    Args:
        base_url: the endpoint (``AGENTGYM_WEBARENA_JUDGE_URL``), e.g. a local llama.cpp server.
        model: the model name (``AGENTGYM_WEBARENA_JUDGE_MODEL``).
        api_key: ``AGENTGYM_WEBARENA_JUDGE_KEY`` or ``OPENAI_API_KEY`` (``"none"`` if unset).
        timeout: seconds per request; any failure falls back to :func:`fallback_fuzzy`.
    """

    base_url: str
    model: str = "gpt-4-1106-preview"
    api_key: str = "none"
    timeout: float = 30.0

    @classmethod
    def from_env(cls) -> LLMJudge | None:
        url = os.environ.get("AGENTGYM_WEBARENA_JUDGE_URL")
        if not url:
            return None
        return cls(
            base_url=url,
            model=os.environ.get("AGENTGYM_WEBARENA_JUDGE_MODEL", cls.model),
            api_key=os.environ.get("AGENTGYM_WEBARENA_JUDGE_KEY")
            or os.environ.get("OPENAI_API_KEY", "none"),
        )

    def _ask(self, prompt: str) -> str:
        import httpx

        reply = httpx.post(
            self.base_url.rstrip("/") + "/chat/completions",
            headers={"Authorization": f"Bearer {self.api_key}"},
            json={
                "model": self.model,
                "temperature": 0,
                "max_tokens": 256,
                "messages": [
                    {"role": "system", "content": "You are a helpful assistant"},
                    {"role": "user", "content": prompt},
                ],
            },
            timeout=self.timeout,
        )
        reply.raise_for_status()
        return str(reply.json()["choices"][0]["message"]["content"]).lower()

    def fuzzy(self, intent: str, ref: str, pred: str) -> float:
        prompt = (
            "Help a teacher to grade the answer of a student given a question. Keep in mind "
            "that the student may use different phrasing or wording to answer the question. "
            "The goal is to evaluate whether the answer is semantically equivalent to the "
            f"reference answer.\nquestion: {intent}\nreference answer: {ref}\nall the string "
            "'N/A' that you see is a special sequence that means 'not achievable'\n"
            f"student answer: {pred}\nConclude the judgement by correct/incorrect/partially "
            "correct."
        )
        try:
            text = self._ask(prompt)
        except Exception as exc:
            logger.warning("LLM judge failed (%s); using the deterministic match", exc)
            return fallback_fuzzy(ref, pred)
        if "partially correct" in text or "incorrect" in text:
            return 0.0
        return float("correct" in text)

    def unachievable(self, intent: str, reason: str, pred: str) -> float:
        prompt = (
            f"task: {intent}\nactual unachievable reason: {reason}\nreported unachievable "
            f"reasoning: {pred}\nDetermine if the reported reason aligns with the actual "
            "reason, even if implicitly. If the stated reason is in line with the actual "
            "reason, respond with 'same'. Otherwise, respond with 'different'."
        )
        try:
            text = self._ask(prompt)
        except Exception as exc:
            logger.warning("LLM judge failed (%s); answer counted as different", exc)
            return 0.0
        return 0.0 if "different" in text else float("same" in text)


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)*(?![\w])")
#: Distinct numbers an answer may list beyond the numbers its references need.
EXTRA_NUMBERS = 4


def enumerates_numbers(refs: list[str], answer: str) -> bool:
    """Whether ``answer`` lists many more numbers than ``refs`` hold: a blind enumeration
    (``0 1 2 ... 300``) that contains every count by construction. WebArena's ``must_include``
    is a substring test, so such an answer passes every numeric reference there; generated
    tasks (those with a scripted plan) refuse it and :func:`enumerates_items` answers: their
    ``string_match`` scores 0. WebArena's own configs (a deployment) keep its grading as is."""
    wanted = {n for ref in refs for n in _NUMBER.findall(ref)}
    if not wanted:
        return False
    return len(set(_NUMBER.findall(answer)) - wanted) > EXTRA_NUMBERS


def enumerates_items(refs: list[str], answer: str) -> bool:
    """Whether ``answer`` is a list of many more items (split on commas, semicolons and new
    lines) than ``refs`` name: e.g. every user of the site, one of whom is the answer."""

    def count(text: str) -> int:
        return sum(1 for part in re.split(r"[,;\n]", text) if part.strip())

    return count(answer) > sum(count(ref) for ref in refs) + EXTRA_NUMBERS


def string_match(config: dict[str, Any], answer: str, judge: LLMJudge | None) -> float:
    refs = config["eval"]["reference_answers"] or {}
    if "agentgym_solution" in config:
        values = [str(v) for vs in refs.values() for v in (vs if isinstance(vs, list) else [vs])]
        if enumerates_numbers(values, answer) or enumerates_items(values, answer):
            return 0.0
    score = 1.0
    for kind, value in refs.items():
        if kind == "exact_match":
            score *= exact_match(str(value), answer)
        elif kind == "must_include":
            items = value if isinstance(value, list) else [value]
            for item in items:
                score *= must_include(str(item), answer, tokenize=len(items) == 1)
        elif kind == "fuzzy_match":
            intent = config.get("intent", "")
            if value == "N/A":
                score *= exact_match("N/A", answer)
                if score != 1 and judge is not None:
                    score = judge.unachievable(
                        intent, config["eval"].get("string_note", ""), answer
                    )
            else:
                items = value if isinstance(value, list) else [value]
                whole = " ".join(str(ref) for ref in items)
                for ref in items:
                    score *= (
                        judge.fuzzy(intent, str(ref), answer)
                        if judge is not None
                        else fallback_fuzzy(str(ref), answer, whole)
                    )
    return score


def _split_url(url: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(unquote(url.rstrip("/")))
    return parts.netloc + parts.path, parse_qs(parts.query)


def url_match(config: dict[str, Any], url: str) -> float:
    """``GOLD in PRED``: some reference ``netloc+path`` is a substring of the page's, and every
    query key of the references has one of their values in the page's query."""
    pred_base, pred_query = _split_url(url)
    refs = [_split_url(u) for u in config["eval"]["reference_url"].split(" |OR| ")]
    base = float(any(ref_base in pred_base for ref_base, _ in refs))
    wanted: dict[str, set[str]] = {}
    for _, query in refs:
        for key, values in query.items():
            wanted.setdefault(key, set()).update(values)
    query_score = float(
        all(any(v in pred_query.get(key, []) for v in values) for key, values in wanted.items())
    )
    return base * query_score


def _contents_match(required: dict[str, Any], content: str) -> float:
    content = html.unescape(content).lower()
    if "exact_match" in required:
        return float(clean_answer(str(required["exact_match"])) == clean_answer(content))
    score = 1.0
    for item in required.get("must_include", []):
        options = [o.strip().lower() for o in str(item).split(" |OR| ")]
        score *= float(any(o in content for o in options))
    return score


Helper = Callable[..., str]


def program_html(config: dict[str, Any], browser: Browser, helpers: dict[str, Helper]) -> float:
    """Visit each target URL (``last`` stays, ``func:`` calls a helper), read the locator and
    check its required contents."""
    score = 1.0
    for target in config["eval"]["program_html"]:
        url = target["url"]
        if url.startswith("func:"):
            url = _call(url[5:], helpers, browser)
            if not url:  # no page to check (WebArena's helper would have raised)
                score = 0.0
                continue
        if url and url != "last":
            browser.goto(url)
        locator = target.get("locator", "") or ""
        for prep in target.get("prep_actions", []) or []:
            _safe_eval(browser, prep)
        if not locator.strip():
            content = browser.content()
        elif locator.startswith("func:"):
            content = _call(locator[5:], helpers, browser)
            if content is None:
                score = 0.0
                continue
        else:
            content = _safe_eval(browser, locator)
        score *= _contents_match(target["required_contents"], str(content or ""))
    return score


def _safe_eval(browser: Browser, expression: str) -> str:
    try:
        value = browser.evaluate(expression)
    except Exception as exc:
        logger.debug("locator %r failed: %s", expression, exc)
        return ""
    return "" if value is None else str(value)


def _call(call: str, helpers: dict[str, Helper], browser: Browser) -> str | None:
    """The helper's answer; None (and a warning) when it is not supported or fails: its
    target scores 0."""
    match = re.fullmatch(r"\s*(\w+)\((.*)\)\s*", call, re.DOTALL)
    if not match or match.group(1) not in helpers:
        logger.warning("evaluator helper %r is not supported here; its target scores 0", call)
        return None
    args = []
    for raw in [a.strip() for a in match.group(2).split(",") if a.strip()]:
        if raw == "__page__":
            args.append(browser)
        else:
            value = raw.strip("'\"")
            args.append(browser.current_url() if value == "__last_url__" else value)
    try:
        return str(helpers[match.group(1)](*args))
    except Exception as exc:
        logger.warning("evaluator helper %r failed (its target scores 0): %s", call, exc)
        return None


def evaluate(
    config: dict[str, Any],
    answer: str | None,
    browser: Browser,
    helpers: dict[str, Helper] | None = None,
    judge: LLMJudge | None = None,
) -> float:
    """The task's score for a trajectory that ended with ``stop [answer]`` (``answer=None``:
    it did not end with stop, score 0)."""
    if answer is None:
        return 0.0
    score = 1.0
    for kind in config["eval"]["eval_types"]:
        if kind == "string_match":
            score *= string_match(config, answer, judge)
        elif kind == "url_match":
            score *= url_match(config, browser.current_url())
        elif kind == "program_html":
            score *= program_html(config, browser, helpers or {})
        else:
            raise ValueError(f"unknown eval type {kind!r}")
    return score
