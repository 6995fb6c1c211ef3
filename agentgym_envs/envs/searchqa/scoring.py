"""How AgentGym's SearchQA server reads a reply and grades an answer.

The server takes the *first* ``<search>...</search>`` or ``<answer>...</answer>`` block of the
reply (whichever comes first) to decide what the reply is; an answer is then graded on the
*last* ``<answer>`` block of the whole reply, by exact match after SQuAD-style normalisation
(lower case, punctuation and the articles a/an/the removed, whitespace collapsed) against any of
the gold answers. F1 (token overlap) is reported alongside; it is not AgentGym's reward.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Sequence

_ACTION = re.compile(r"<(search|answer)>(.*?)</\1>", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = frozenset(string.punctuation)


def parse_reply(reply: str) -> tuple[str | None, str]:
    """``("search", query)``, ``("answer", text)`` or ``(None, "")`` for a model reply."""
    m = _ACTION.search(reply)
    if m is None:
        return None, ""
    return m.group(1), m.group(2).strip()


def final_answer(reply: str) -> str | None:
    """The content of the last ``<answer>`` block, stripped; ``None`` if there is none."""
    found = _ANSWER.findall(reply)
    return found[-1].strip() if found else None


def normalize_answer(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, golds: Sequence[str] | str) -> bool:
    if isinstance(golds, str):
        golds = [golds]
    pred = normalize_answer(prediction)
    return any(normalize_answer(g) == pred for g in golds)


def f1_score(prediction: str, golds: Sequence[str] | str) -> float:
    """Best token-overlap F1 of ``prediction`` against any gold answer."""
    if isinstance(golds, str):
        golds = [golds]
    pred = normalize_answer(prediction).split()
    best = 0.0
    for gold in golds:
        ref = normalize_answer(gold).split()
        common = sum((Counter(pred) & Counter(ref)).values())
        if not pred or not ref:
            best = max(best, float(pred == ref))
        elif common:
            p, r = common / len(pred), common / len(ref)
            best = max(best, 2 * p * r / (p + r))
    return best
