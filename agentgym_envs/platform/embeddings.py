"""Text embeddings for episode search: an offline default and any OpenAI-compatible endpoint.

No model hub is reachable from the machines this project is built on, and no PyPI package here
ships a small embedding model's weights inside it (``fastembed`` and ``model2vec`` download
theirs on first use), so the default is not a learned model:

- :class:`HashingEmbedder` (the default, model name ``hashing-ngram-256``): deterministic,
  offline, no dependency. Lower-cased word unigrams and bigrams and character 3-grams of each
  word are hashed (BLAKE2b) into 256 signed buckets, weighted ``1 + log(count)`` (word
  n-grams count double), and the vector is scaled to unit length. Texts that share words and
  word pieces come out close in cosine distance; it knows nothing of synonyms or meaning.
  Same text, same vector, on every machine and Python version.
- :class:`EndpointEmbedder`: ``POST {base_url}/embeddings`` of an OpenAI-compatible server
  (OpenAI, vLLM ``--task embed``, llama.cpp ``--embedding``, Ollama, TEI...). Configure it
  with ``AGENTGYM_EMBEDDINGS_URL`` (the ``/v1`` root), ``AGENTGYM_EMBEDDINGS_MODEL`` and,
  if the server wants one, ``AGENTGYM_EMBEDDINGS_KEY``; :func:`embedder_from_env` picks it
  when the URL is set.

Vectors of different models are never compared: search stores each vector with its model's
name and only looks among vectors of the same model.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import re
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from agentgym_envs.errors import AgentGymError

#: Dimension of the offline default's vectors.
DIMENSION = 256
#: Environment variables of the endpoint embedder.
URL_VAR, MODEL_VAR, KEY_VAR = (
    "AGENTGYM_EMBEDDINGS_URL",
    "AGENTGYM_EMBEDDINGS_MODEL",
    "AGENTGYM_EMBEDDINGS_KEY",
)
_WORD = re.compile(r"[a-z0-9]+")


class EmbeddingError(AgentGymError):
    """An embedding endpoint that cannot be used (the message says the mend)."""


class Embedder(Protocol):
    #: Stored with each vector; only vectors of the same model are compared.
    name: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text."""
        ...


class HashingEmbedder:
    """Hashed word and character n-grams projected to ``dimension`` buckets (see the module
    docstring): the offline default, deterministic."""

    def __init__(self, dimension: int = DIMENSION) -> None:
        if dimension < 8:
            raise EmbeddingError(f"dimension {dimension}: use 8 or more")
        self.dimension = dimension
        self.name = f"hashing-ngram-{dimension}"

    def features(self, text: str) -> Counter[str]:
        words = _WORD.findall(text.lower())
        feats: Counter[str] = Counter()
        for w in words:
            feats["w:" + w] += 2
            padded = f"<{w}>"
            for i in range(max(1, len(padded) - 2)):
                feats["c:" + padded[i : i + 3]] += 1
        for a, b in itertools.pairwise(words):
            feats[f"b:{a} {b}"] += 2
        return feats

    def embed_one(self, text: str) -> list[float]:
        vec = [0.0] * self.dimension
        for feat, count in self.features(text).items():
            digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.dimension
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[bucket] += sign * (1.0 + math.log(count))
        norm = math.sqrt(sum(x * x for x in vec))
        return [x / norm for x in vec] if norm else vec

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.embed_one(t) for t in texts]


class EndpointEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint.

    Args:
        base_url: the server's ``/v1`` root, e.g. ``http://127.0.0.1:8000/v1``.
        model: the model name sent (and stored with each vector).
        api_key: sent as ``Authorization: Bearer`` when given.
        timeout: seconds per request.
        batch: most texts per request.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        batch: int = 64,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise EmbeddingError(f"embeddings URL {base_url!r}: give an http(s) /v1 root")
        if not model:
            raise EmbeddingError(f"name the embedding model ({MODEL_VAR})")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.name = f"endpoint:{model}"
        self.api_key = api_key
        self.timeout = timeout
        self.batch = max(1, batch)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        out: list[list[float]] = []
        with httpx.Client(timeout=self.timeout, headers=headers) as client:
            for start in range(0, len(texts), self.batch):
                chunk = list(texts[start : start + self.batch])
                url = f"{self.base_url}/embeddings"
                try:
                    reply = client.post(url, json={"model": self.model, "input": chunk})
                    reply.raise_for_status()
                    data = sorted(reply.json()["data"], key=lambda d: d.get("index", 0))
                    vectors = [[float(x) for x in d["embedding"]] for d in data]
                except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
                    why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                    raise EmbeddingError(
                        f"embeddings from {url} failed ({why}): check "
                        f"{URL_VAR} and {MODEL_VAR}, or unset {URL_VAR} for the offline default"
                    ) from exc
                if len(vectors) != len(chunk):
                    raise EmbeddingError(
                        f"{url} returned {len(vectors)} vectors for {len(chunk)} texts"
                    )
                out.extend(vectors)
        return out


def embedder_from_env(environ: dict[str, str] | None = None) -> Embedder:
    """The endpoint embedder when ``AGENTGYM_EMBEDDINGS_URL`` is set, else the offline
    :class:`HashingEmbedder`."""
    env = os.environ if environ is None else environ
    url = env.get(URL_VAR, "").strip()
    if not url:
        return HashingEmbedder()
    return EndpointEmbedder(url, env.get(MODEL_VAR, "").strip(), api_key=env.get(KEY_VAR) or None)


__all__ = [
    "DIMENSION",
    "Embedder",
    "EmbeddingError",
    "EndpointEmbedder",
    "HashingEmbedder",
    "embedder_from_env",
]
