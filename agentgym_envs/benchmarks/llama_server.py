"""An OpenAI-compatible chat server over llama.cpp (``llama-cpp-python``): the fast local model.

``python -m agentgym_envs.benchmarks.llama_server --model FILE.gguf --port N`` loads the GGUF
file with ``llama_cpp.Llama`` and answers ``GET /v1/models`` and ``POST /v1/chat/completions``
(plain and ``stream``) exactly as :mod:`~agentgym_envs.benchmarks.hf_server` does -- the same
request handling (content parts, tool calls and results in the history, ``tools`` offered in
the system prompt, ``tool_choice``, parallel tool calls, ``max_tokens`` cut to the room the
prompt leaves, a 400 for a prompt that leaves none), the same replies -- with llama.cpp computing them. The conversation is rendered by the model's
own chat template (the GGUF file's ``tokenizer.chat_template``; ChatML when it has none).
llama-cpp-python's own server refuses what harnesses send (content parts, an assistant turn
with only tool calls, ``tool_choice: "required"``: HTTP 500), hence this one.

Requests are served one at a time; llama.cpp keeps the last prompt's key/value cache, so an
agent's next request computes only the tokens after the prefix it shares with the last one.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from agentgym_envs.benchmarks.hf_server import (
    DEFAULT_MAX_TOKENS,
    _messages,
    fit_reply,
    offered_tools,
    reply_message,
    reply_start,
    serve_main,
)

logger = logging.getLogger(__name__)

#: ChatML, for a GGUF file without a chat template of its own.
CHATML = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


class LlamaChatModel:
    """One GGUF model in llama.cpp, one request at a time: chat messages in, a completion out.

    Args:
        model_path: the GGUF file.
        alias: the model name it answers to.
        n_ctx: most prompt plus reply tokens of a request (400 past it).
        n_threads: CPU threads (``None``: llama.cpp's default).
    """

    def __init__(self, model_path: Path, alias: str, n_ctx: int, n_threads: int | None) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.llm = Llama(
            model_path=str(model_path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            verbose=False,
        )
        self.alias, self.n_ctx = alias, n_ctx
        metadata = self.llm.metadata

        def token(key: str) -> str:
            found = metadata.get(f"tokenizer.ggml.{key}_token_id")
            return self.llm._model.token_get_text(int(found)) if found is not None else ""

        self.formatter = Jinja2ChatFormatter(
            template=metadata.get("tokenizer.chat_template") or CHATML,
            eos_token=token("eos"),
            bos_token=token("bos"),
            stop_token_ids=[self.llm.token_eos()],
        )
        self.lock = threading.Lock()
        #: Most tokens of any reply, whatever a request asks (``None``: as asked).
        self.max_tokens: int | None = None

    def _prompt(self, request: dict[str, Any], tools: list[dict[str, Any]], start: str) -> Any:
        """The token ids of the request's conversation (tools offered), the reply begun with
        ``start``, and the template's stop strings."""
        rendered = self.formatter(messages=_messages(request, tools))
        ids = self.llm.tokenize(
            (rendered.prompt + start).encode("utf-8"),
            add_bos=not rendered.added_special,
            special=True,
        )
        stop = rendered.stop if isinstance(rendered.stop, list) else [rendered.stop]
        return ids, [s for s in stop if s]

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        """An OpenAI ``chat.completion`` for ``request`` (raises ValueError on a bad one).

        ``logprobs`` (with ``top_logprobs``) adds each reply token's logprob as OpenAI's
        ``choices[0].logprobs.content``; ``return_token_ids`` (vLLM's) adds the prompt's
        ``prompt_token_ids`` and the reply's ``choices[0].token_ids``."""
        tools, forced = offered_tools(request)
        start = reply_start(forced)
        max_tokens = int(
            request.get("max_tokens") or request.get("max_completion_tokens") or DEFAULT_MAX_TOKENS
        )
        if self.max_tokens is not None:
            max_tokens = min(max_tokens, self.max_tokens)
        ids, stop = self._prompt(request, tools, start)
        max_tokens = fit_reply(len(ids), max_tokens, self.n_ctx)
        top = int(request.get("top_logprobs") or 1) if request.get("logprobs") else 0
        with self.lock:
            held = list(self.llm.input_ids[: self.llm.n_tokens])
            reused = next((i for i, (a, b) in enumerate(zip(held, ids)) if a != b), len(held))
            new, text, finish, logprobs = self._generate(ids, request, max_tokens, stop, top)
        message, finish = reply_message(start + text, finish, request, tools)
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish}
        if top:
            choice["logprobs"] = {"content": logprobs}
        completion: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.alias,
            "choices": [choice],
            "usage": {
                "prompt_tokens": len(ids),
                "completion_tokens": len(new),
                "total_tokens": len(ids) + len(new),
                "prompt_tokens_details": {"cached_tokens": min(reused, len(ids) - 1)},
            },
        }
        if request.get("return_token_ids"):
            completion["prompt_token_ids"] = list(ids)
            choice["token_ids"] = new
        return completion

    def _generate(
        self, ids: list[int], request: dict[str, Any], max_tokens: int, stop: list[str], top: int
    ) -> tuple[list[int], str, str, list[dict[str, Any]]]:
        """Sample the reply to ``ids`` token by token (llama.cpp reuses the prefix it shares
        with the last prompt): its token ids, its text (cut at a stop string), its finish
        reason, and each token's logprob with the ``top`` likeliest (when ``top``)."""
        import llama_cpp
        import numpy as np

        scores: list[Any] = []

        def keep(_: Any, logits: Any) -> Any:
            if top:
                scores.append(np.array(logits, dtype=np.float32))
            return logits

        if request.get("seed") is not None:
            self.llm.set_seed(int(request["seed"]))
        temperature = float(request.get("temperature", 1.0) or 0.0)
        stops = [*stop, *_stop_strings(request.get("stop"))]
        new: list[int] = []
        logprobs: list[dict[str, Any]] = []
        text, finish = "", "length"
        for token in self.llm.generate(
            ids,
            temp=temperature,
            top_p=float(request.get("top_p") or 1.0),
            logits_processor=llama_cpp.LogitsProcessorList([keep]),
        ):
            if llama_cpp.llama_token_is_eog(self.llm._model.vocab, token):
                finish = "stop"
                break
            new.append(token)
            if top:
                logprobs.append(self._logprob(token, scores[-1], top))
            text = self.llm.detokenize(new, prev_tokens=ids).decode("utf-8", errors="ignore")
            cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=-1)
            if cut >= 0:
                text, finish = text[:cut], "stop"
                break
            if len(new) >= max_tokens:
                break
        return new, text, finish, logprobs

    def _logprob(self, token: int, logits: Any, top: int) -> dict[str, Any]:
        """OpenAI's logprob entry of ``token`` sampled from ``logits``."""
        import numpy as np

        shifted = logits - logits.max()
        logsoftmax = shifted - np.log(np.exp(shifted).sum())

        def entry(t: int) -> dict[str, Any]:
            piece = self.llm.detokenize([t])
            return {
                "token": piece.decode("utf-8", errors="replace"),
                "logprob": float(logsoftmax[t]),
                "bytes": list(piece),
            }

        best = np.argsort(-logsoftmax)[:top]
        return {**entry(token), "top_logprobs": [entry(int(t)) for t in best]}


def _stop_strings(stop: Any) -> list[str]:
    return [stop] if isinstance(stop, str) else [s for s in stop or [] if isinstance(s, str)]


def main(argv: list[str] | None = None) -> None:
    """Serve a GGUF model (the arguments of llama-cpp-python's server that this one uses)."""
    serve_main(LlamaChatModel, "python -m agentgym_envs.benchmarks.llama_server", argv)


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    main()
