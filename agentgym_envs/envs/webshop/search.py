"""BM25 search over the catalog, set up like WebShop's Lucene index.

WebShop indexes ``lower(Title + ' ' + Description + ' ' + BulletPoints[0] + ' ' + option text)``
with pyserini (Anserini defaults: Porter stemmer, Lucene's English stop words, BM25 k1=0.9,
b=0.4) and returns the top 50 hits. Here the same fields go into a ``bm25s`` index with the
same stemmer family (PyStemmer's Porter), stop words and parameters ("lucene" BM25 variant).
Documents with no query term are not hits (Lucene returns only matching documents), and ties
keep index order.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

import numpy as np

from agentgym_envs.errors import require

logger = logging.getLogger(__name__)

#: Lucene's default English stop words (``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``).
LUCENE_STOPWORDS = (
    "a",
    "an",
    "and",
    "are",
    "as",
    "at",
    "be",
    "but",
    "by",
    "for",
    "if",
    "in",
    "into",
    "is",
    "it",
    "no",
    "not",
    "of",
    "on",
    "or",
    "such",
    "that",
    "the",
    "their",
    "then",
    "there",
    "these",
    "they",
    "this",
    "to",
    "was",
    "will",
    "with",
)
SEARCH_RETURN_N = 50
_STOPSET = frozenset(LUCENE_STOPWORDS)
_WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s's default token pattern


class SearchIndex:
    """A BM25 index over a list of documents; :meth:`search` returns document positions."""

    def __init__(self, documents: Sequence[str]) -> None:
        bm25s = require("bm25s", "webshop")
        stemmer_mod = require("Stemmer", "webshop")
        self._bm25s = bm25s
        self._stemmer = stemmer_mod.Stemmer("porter")
        self.size = len(documents)
        tokens = bm25s.tokenize(
            list(documents),
            lower=True,
            stopwords=list(LUCENE_STOPWORDS),
            stemmer=self._stemmer,
            show_progress=False,
        )
        self.model = bm25s.BM25(k1=0.9, b=0.4, method="lucene")
        self.model.index(tokens, show_progress=False)
        self.vocab = tokens.vocab
        self._stem_cache: dict[str, str] = {}
        logger.debug("indexed %d documents, %d terms", self.size, len(self.vocab))

    def _query_ids(self, query: str) -> list[int]:
        ids = []
        for word in _WORD.findall(query.lower()):
            if word in _STOPSET:
                continue
            stem = self._stem_cache.get(word)
            if stem is None:
                stem = self._stem_cache[word] = self._stemmer.stemWord(word)
            tid = self.vocab.get(stem)
            if tid is not None:
                ids.append(int(tid))
        return ids

    def search(self, query: str, k: int = SEARCH_RETURN_N) -> list[int]:
        """Positions of the top ``k`` documents for ``query``, best first."""
        ids = self._query_ids(query)
        if not ids or self.size == 0:
            return []
        scores = self.model.get_scores(ids)
        k = min(k, self.size)
        kth = -np.partition(-scores, k - 1)[k - 1]
        above = np.flatnonzero(scores > kth)
        equal = np.flatnonzero(scores == kth)[: k - len(above)]
        chosen = np.concatenate([above, equal])
        # best first; equal scores keep catalog order (flatnonzero is sorted, the sort is stable)
        order = chosen[np.argsort(-scores[chosen], kind="stable")]
        return [int(i) for i in order if scores[i] > 0]
