"""Where a training run computes: this machine's CPU, or a CUDA GPU with a larger model and vLLM.

:func:`resolve` looks once per process: with a CUDA GPU (``torch.cuda.is_available()``) the
trainers run on it, ``--model auto`` means :data:`GPU_MODEL` instead of the local 135M model,
and when ``vllm`` is importable too the held-out evaluation is served by vLLM
(:class:`~agentgym_envs.train.vllm_chat.VllmChat`) and TRL's GRPO gets ``use_vllm`` (colocated
with the trainer). ``vllm="on"`` insists (a missing GPU or package is a one-line error with the
mend), ``"off"`` never uses it. Without a GPU everything stays on the CPU, as before.

Which device and whether vLLM is used is how the work is done, not what it computes, so it is
not part of :class:`~agentgym_envs.train.settings.TrainSettings`; the model id it picks is.
"""

from __future__ import annotations

import importlib.util
import logging
from dataclasses import dataclass
from typing import Any

from agentgym_envs.train.settings import LOCAL_MODEL, TrainError

logger = logging.getLogger(__name__)

#: ``--model auto`` on a CUDA machine: SmolLM2's largest instruct model (a Hugging Face id,
#: fetched into the Hugging Face cache on first use; any checkpoint folder works too).
GPU_MODEL = "HuggingFaceTB/SmolLM2-1.7B-Instruct"
#: ``--model auto`` on a CPU-only machine: the local SmolLM2-135M, converted once.
CPU_MODEL = LOCAL_MODEL
#: The ``--vllm`` choices.
VLLM_CHOICES = ("auto", "on", "off")
#: What to install for vLLM (not an extra of ours: vLLM pins its own CUDA build of torch).
VLLM_HINT = "pip install vllm (on Linux with a CUDA GPU)"


@dataclass(frozen=True)
class Runtime:
    """Where a run computes: ``device`` (``"cpu"`` or ``"cuda"``) and whether vLLM serves the
    evaluation and GRPO's sampling."""

    device: str = "cpu"
    vllm: bool = False

    @property
    def gpu(self) -> bool:
        return self.device == "cuda"

    def default_model(self) -> str:
        """The model ``--model auto`` means here."""
        return GPU_MODEL if self.gpu else CPU_MODEL

    def trainer_kwargs(self) -> dict[str, Any]:
        """``TrainingArguments`` fields for this device (``SFTConfig``, ``GRPOConfig``)."""
        return {"use_cpu": not self.gpu}

    def grpo_kwargs(self, trl_generates: bool = True) -> dict[str, Any]:
        """``GRPOConfig`` fields: the device's, and TRL's colocated vLLM when it is used and TRL
        does the sampling itself (``environment_factory``, plain prompts); a ``rollout_func``
        that calls ``model.generate`` (:class:`~agentgym_envs.integrations.trl.TextRollout`)
        gains nothing from it, so ``trl_generates=False`` leaves it out."""
        kwargs = self.trainer_kwargs()
        if self.vllm and trl_generates:
            kwargs.update(use_vllm=True, vllm_mode="colocate", vllm_gpu_memory_utilization=0.3)
        return kwargs

    @property
    def autocast_device(self) -> str:
        """``torch.autocast``'s device type for bfloat16 passes here."""
        return "cuda" if self.gpu else "cpu"

    def describe(self) -> str:
        return f"{self.device}{' + vLLM' if self.vllm else ''}"


def cuda_available() -> bool:
    """Whether torch sees a CUDA GPU (``False`` without torch)."""
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def vllm_installed() -> bool:
    """Whether ``vllm`` can be imported (looked up, not imported: importing it is slow)."""
    return importlib.util.find_spec("vllm") is not None


def resolve(
    vllm: str = "auto", *, cuda: bool | None = None, installed: bool | None = None
) -> Runtime:
    """The runtime of this machine for ``--vllm auto|on|off`` (``cuda`` / ``installed``: what
    was found, looked up when ``None``)."""
    if vllm not in VLLM_CHOICES:
        raise TrainError(f"--vllm {vllm!r}: use {', '.join(VLLM_CHOICES)}")
    cuda = cuda_available() if cuda is None else cuda
    device = "cuda" if cuda else "cpu"
    if vllm == "off":
        return Runtime(device, False)
    installed = vllm_installed() if installed is None else installed
    if vllm == "on":
        if not cuda:
            raise TrainError(
                "--vllm on needs a CUDA GPU and torch sees none: run on a GPU machine, "
                "or use --vllm off (the CPU path)"
            )
        if not installed:
            raise TrainError(f"--vllm on: vllm is not installed: {VLLM_HINT}")
    use = cuda and installed
    if cuda and not installed:
        logger.info("a CUDA GPU but no vllm: evaluating with transformers (%s)", VLLM_HINT)
    return Runtime(device, use)


_current = Runtime()


def use(runtime: Runtime) -> None:
    """Make ``runtime`` this process's (:func:`~agentgym_envs.train.pipeline.run_stages` does,
    so every stage module reads the same one)."""
    global _current
    _current = runtime


def current() -> Runtime:
    """This process's runtime (the CPU until :func:`use` says otherwise)."""
    return _current


def resolve_model(model: str, runtime: Runtime) -> str:
    """``"auto"`` as this runtime's default model; anything else as given."""
    return runtime.default_model() if model == "auto" else model


__all__ = [
    "CPU_MODEL",
    "GPU_MODEL",
    "VLLM_CHOICES",
    "Runtime",
    "cuda_available",
    "current",
    "resolve",
    "resolve_model",
    "use",
    "vllm_installed",
]
