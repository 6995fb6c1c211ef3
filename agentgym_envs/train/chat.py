"""A model in this process as the benchmark runner's chat client: no server, no HTTP.

:class:`LocalChat` has what :func:`~agentgym_envs.benchmarks.policies.openai_spec` needs of a
:class:`~agentgym_envs.benchmarks.llm.ChatClient` (``chat``, ``check``, ``model``,
``sampling``) and answers with :class:`~agentgym_envs.benchmarks.hf_server.ChatModel` -- the
local model server's own generation, prefix cache included -- over a model already in memory
(a checkpoint a stage just wrote). Greedy, with a cap on reply tokens; the replies of concurrent
episodes are decoded as one batch (:class:`~agentgym_envs.benchmarks.hf_batch.BatchingChatModel`).
"""

from __future__ import annotations

from typing import Any

from agentgym_envs.benchmarks.llm import ChatReply, Sampling


class LocalChat:
    """A chat client over ``model`` and ``tokenizer`` (see the module docstring).

    Args:
        alias: the model name runs record.
        max_tokens: most tokens per reply.
        n_ctx: most prompt plus reply tokens (a longer episode ends as ``context_length``).
    """

    base_url = "in-process"

    def __init__(
        self, model: Any, tokenizer: Any, alias: str, *, max_tokens: int, n_ctx: int = 4096
    ) -> None:
        from agentgym_envs.benchmarks.hf_batch import BatchingChatModel

        self.model = alias
        self.sampling = Sampling(temperature=0.0, max_tokens=max_tokens)
        self._chat = BatchingChatModel.from_loaded(
            model, tokenizer, alias, n_ctx, max_tokens=max_tokens, temperature=0.0
        )
        self.calls = 0

    def check(self) -> str:
        return self.model

    def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        sampling: Sampling | None = None,
    ) -> ChatReply:
        from agentgym_envs.benchmarks.llm import ContextLengthError

        s = sampling or self.sampling
        request: dict[str, Any] = {"messages": messages, "max_tokens": s.max_tokens}
        if tools:
            request["tools"] = tools
        if s.stop:
            request["stop"] = list(s.stop)
        try:
            completion = self._chat.complete(request)
        except ValueError as exc:
            if "exceed context window" in str(exc):
                raise ContextLengthError(str(exc)) from None
            raise
        self.calls += 1
        choice = completion["choices"][0]
        return ChatReply(choice["message"], choice.get("finish_reason"), completion["usage"])

    def close(self) -> None:
        """Nothing to release (the model belongs to the caller)."""


__all__ = ["LocalChat"]
