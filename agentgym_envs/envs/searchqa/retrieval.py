"""Passage corpora and the retrievers that search them.

AgentGym's server searches ``wiki-18.jsonl`` (one ``{"id", "contents"}`` passage a line, the
contents being the quoted title, a newline and the text) with e5 + FAISS and shows the top 3 as
``Doc 1(Title: "...") text`` lines inside ``<information>``. Here the default retriever is BM25
(``bm25s``); :class:`DenseRetriever` ranks by cosine similarity under any embedding function
the user supplies (e5, as AgentGym uses, where the user has the model).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agentgym_envs.errors import BadDataError, require

logger = logging.getLogger(__name__)

_WORD = re.compile(r"(?u)\b\w\w+\b")  # bm25s's default token pattern


@dataclass(frozen=True)
class Doc:
    """A passage as AgentGym shows it: ``title`` is the first line of ``contents``."""

    title: str
    text: str


def format_information(docs: Sequence[Doc]) -> str:
    """AgentGym's search observation for ``docs`` (best first)."""
    body = "".join(f"Doc {i + 1}(Title: {d.title}) {d.text}\n" for i, d in enumerate(docs))
    return f"<information>{body.strip()}</information>"


def doc_from_contents(contents: str) -> Doc:
    title, _, text = contents.partition("\n")
    return Doc(title, text)


def _open(path: Path):  # type: ignore[no-untyped-def]
    return (
        gzip.open(path, "rt", encoding="utf-8")
        if path.suffix == ".gz"
        else path.open(encoding="utf-8")
    )


def load_corpus(path: str | os.PathLike[str]) -> list[Doc]:
    """Passages from a JSONL file (``.jsonl`` or ``.jsonl.gz``).

    Each line is ``{"contents": "\\"Title\\"\\ntext"}`` (AgentGym's ``wiki-18.jsonl``) or
    ``{"title": ..., "text": ...}`` (the DPR / ``psgs_w100`` form); other keys are ignored.
    """
    p = Path(path).expanduser()
    if not p.is_file():
        raise BadDataError(f"corpus file {str(p)!r} does not exist: pass a passage JSONL file")
    docs: list[Doc] = []
    with _open(p) as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BadDataError(f"{p}:{n}: not JSON ({exc.msg})") from exc
            if "contents" in row:
                docs.append(doc_from_contents(str(row["contents"])))
            elif "text" in row:
                docs.append(Doc(str(row.get("title", "")), str(row["text"])))
            else:
                raise BadDataError(f"{p}:{n}: a passage needs 'contents' or 'title'/'text' keys")
    if not docs:
        raise BadDataError(f"corpus file {str(p)!r} holds no passages")
    return docs


class BM25Retriever:
    """BM25 (``bm25s``, Lucene variant) over title + text, English stop words removed.

    Ties keep corpus order; passages sharing no term with the query are not returned.
    """

    def __init__(self, docs: Sequence[Doc]) -> None:
        bm25s = require("bm25s", "searchqa")
        from bm25s.stopwords import STOPWORDS_EN

        self.docs = list(docs)
        self._stop = frozenset(STOPWORDS_EN)
        tokens = bm25s.tokenize(
            [f"{d.title} {d.text}" for d in self.docs],
            lower=True,
            stopwords="en",
            show_progress=False,
        )
        self.vocab: dict[str, int] = tokens.vocab
        self.model = bm25s.BM25(method="lucene")
        self.model.index(tokens, show_progress=False)

    def search(self, query: str, k: int) -> list[int]:
        ids = [
            self.vocab[w]
            for w in _WORD.findall(query.lower())
            if w not in self._stop and w in self.vocab
        ]
        if not ids or k <= 0:
            return []
        scores = self.model.get_scores(ids)
        order = np.argsort(-scores, kind="stable")[:k]
        return [int(i) for i in order if scores[i] > 0]


Embedder = Callable[[list[str]], np.ndarray]


class DenseRetriever:
    """Cosine similarity between an embedding of the query and of each passage."""

    def __init__(self, docs: Sequence[Doc], embed: Embedder) -> None:
        self.docs = list(docs)
        self.embed = embed
        vecs = self.embed([f"{d.title} {d.text}" for d in self.docs])
        self.matrix = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-9)

    def search(self, query: str, k: int) -> list[int]:
        if not query.strip() or k <= 0:
            return []
        q = self.embed([query])[0]
        q = q / max(float(np.linalg.norm(q)), 1e-9)
        scores = self.matrix @ q
        return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


_CACHE: dict[str, BM25Retriever] = {}


def corpus_key(docs: Sequence[Doc]) -> str:
    h = hashlib.sha1()
    for d in docs:
        h.update(d.title.encode())
        h.update(b"\0")
        h.update(d.text.encode())
        h.update(b"\n")
    return h.hexdigest()


def shared_bm25(key: str, docs: Callable[[], Sequence[Doc]]) -> BM25Retriever:
    """One BM25 index per corpus per process, shared by every env."""
    if key not in _CACHE:
        _CACHE[key] = BM25Retriever(docs())
        logger.debug("indexed %d passages", len(_CACHE[key].docs))
    return _CACHE[key]
