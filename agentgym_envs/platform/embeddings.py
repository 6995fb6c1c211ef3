"""Text embeddings for episode search: a small local model from a package (the default), an
offline hashing fallback, and any OpenAI-compatible endpoint.

No model hub is reachable from the machines this project is built on, so the default model is
one whose weights ship inside its PyPI wheel:

- :class:`WordLlamaEmbedder` (the default when ``wordllama`` is installed -- it is in the
  ``platform`` extra; model name ``wordllama-l2-supercat-256``): WordLlama's ``l2_supercat``
  static token embeddings (256 dimensions, 16 MB, in the wheel), trained from a large language
  model's token embeddings for sentence similarity; an episode's vector is the normalised
  average of its tokens'. Loaded from the package's own files, never downloaded; about a second
  to load, well under a millisecond per short text. It knows related words ("purchase a
  crimson shirt" is near "buy a red cotton t-shirt"), which hashing cannot.
- :class:`HashingEmbedder` (model name ``hashing-ngram-256``; the fallback without
  ``wordllama``, or ``AGENTGYM_EMBEDDINGS=hashing``): deterministic, no dependency. Lower-cased
  word unigrams and bigrams and character 3-grams of each word are hashed (BLAKE2b) into 256
  signed buckets, weighted ``1 + log(count)`` (word n-grams count double), and the vector is
  scaled to unit length. Texts that share words and word pieces come out close in cosine
  distance; it knows nothing of synonyms or meaning.
- :class:`EndpointEmbedder`: ``POST {base_url}/embeddings`` of an OpenAI-compatible server
  (OpenAI, vLLM ``--task embed``, llama.cpp ``--embedding``, Ollama, TEI...). Configure it
  with ``AGENTGYM_EMBEDDINGS_URL`` (the ``/v1`` root), ``AGENTGYM_EMBEDDINGS_MODEL`` and,
  if the server wants one, ``AGENTGYM_EMBEDDINGS_KEY``; :func:`embedder_from_env` picks it
  when the URL is set.

Vectors of different models are never compared: search stores each vector with its model's
name and only looks among vectors of the same model.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
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
#: ``wordllama`` or ``hashing``: the local embedder (default: wordllama when installed).
LOCAL_VAR = "AGENTGYM_EMBEDDINGS"
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


@functools.lru_cache(maxsize=1)
def _wordllama():
    """WordLlama's bundled model, loaded once per process from the package's own files."""
    from pathlib import Path

    import wordllama
    from wordllama import WordLlama

    # the wheel holds the weights and the tokenizer (under tokenizers/, where its cache
    # lookup finds them): no download
    return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


class WordLlamaEmbedder:
    """WordLlama's ``l2_supercat`` 256-dimensional model, shipped in the ``wordllama`` wheel
    (see the module docstring)."""

    name = "wordllama-l2-supercat-256"

    def __init__(self) -> None:
        try:
            self.model = _wordllama()
        except ImportError:
            raise EmbeddingError(
                'the wordllama embedder needs wordllama: pip install "agentgym-envs[platform]" '
                f"(or {LOCAL_VAR}=hashing)"
            ) from None

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self.model.embed([t if t.strip() else "." for t in texts], norm=True)
        return [[float(x) for x in v] for v in vectors]


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
    """The endpoint embedder when ``AGENTGYM_EMBEDDINGS_URL`` is set; else the local one
    ``AGENTGYM_EMBEDDINGS`` names (``wordllama`` or ``hashing``); else WordLlama when it is
    installed, the hashing embedder when not."""
    env = os.environ if environ is None else environ
    url = env.get(URL_VAR, "").strip()
    if url:
        return EndpointEmbedder(
            url, env.get(MODEL_VAR, "").strip(), api_key=env.get(KEY_VAR) or None
        )
    local = env.get(LOCAL_VAR, "").strip().lower()
    if local not in ("", "wordllama", "hashing"):
        raise EmbeddingError(f"{LOCAL_VAR}={local!r}: use wordllama or hashing")
    if local == "hashing":
        return HashingEmbedder()
    if local == "wordllama" or importlib.util.find_spec("wordllama") is not None:
        return WordLlamaEmbedder()
    return HashingEmbedder()


__all__ = [
    "DIMENSION",
    "Embedder",
    "EmbeddingError",
    "EndpointEmbedder",
    "HashingEmbedder",
    "WordLlamaEmbedder",
    "embedder_from_env",
]
