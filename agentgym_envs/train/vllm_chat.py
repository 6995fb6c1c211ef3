"""A checkpoint served by vLLM in this process, as the benchmark runner's chat client (GPU).

:class:`VllmChat` has the same face as :class:`~agentgym_envs.train.chat.LocalChat` (``chat``,
``check``, ``model``, ``sampling``, ``close``): the ``eval`` stage uses it on a CUDA machine
with ``vllm`` installed (:mod:`agentgym_envs.train.device`). Greedy, with the run's cap on reply
tokens; vLLM applies the checkpoint's own chat template. Not run on this project's CI (no GPU).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agentgym_envs.benchmarks.llm import ChatReply, Sampling


class VllmChat:
    """vLLM's offline ``LLM`` over ``checkpoint`` (see the module docstring).

    Args:
        alias: the model name runs record.
        max_tokens: most tokens per reply.
        n_ctx: vLLM's ``max_model_len`` (a longer episode ends as ``context_length``).
        gpu_memory_utilization: vLLM's share of the GPU's memory.
    """

    base_url = "in-process-vllm"

    def __init__(
        self,
        checkpoint: Path,
        alias: str,
        *,
        max_tokens: int,
        n_ctx: int = 4096,
        gpu_memory_utilization: float = 0.6,
        seed: int = 0,
    ) -> None:
        from vllm import LLM

        self.model = alias
        self.sampling = Sampling(temperature=0.0, max_tokens=max_tokens)
        self._llm = LLM(
            model=str(checkpoint),
            max_model_len=n_ctx,
            gpu_memory_utilization=gpu_memory_utilization,
            seed=seed,
        )
        self._lock = threading.Lock()  # the runner's episode threads share one engine
        self.calls = 0

    def check(self) -> str:
        return self.model

    def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        sampling: Sampling | None = None,
    ) -> ChatReply:
        from vllm import SamplingParams

        from agentgym_envs.benchmarks.llm import ContextLengthError

        s = sampling or self.sampling
        params = SamplingParams(
            temperature=0.0, max_tokens=s.max_tokens, stop=list(s.stop) if s.stop else None
        )
        try:
            with self._lock:
                out = self._llm.chat(messages, params, tools=tools, use_tqdm=False)[0]
        except ValueError as exc:
            if "longer than the maximum model length" in str(exc) or "max_model_len" in str(exc):
                raise ContextLengthError(str(exc)) from None
            raise
        self.calls += 1
        choice = out.outputs[0]
        prompt, completion = len(out.prompt_token_ids or []), len(choice.token_ids)
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        message = {"role": "assistant", "content": choice.text}
        return ChatReply(message, choice.finish_reason, usage)

    def close(self) -> None:
        """Free the engine's GPU memory."""
        del self._llm


__all__ = ["VllmChat"]
