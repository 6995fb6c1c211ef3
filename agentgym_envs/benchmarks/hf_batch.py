"""Greedy replies to concurrent requests decoded together: :class:`BatchingChatModel`.

On a CPU a small model's decoding is bound by per-step overhead, not arithmetic: one decoding
step for eight conversations costs little more than for one. :class:`BatchingChatModel` is a
:class:`~agentgym_envs.benchmarks.hf_server.ChatModel` (same API, same prefix cache) whose
greedy requests wait in a queue; a worker takes every request waiting, reads each prompt past
its longest cached prefix (one at a time: reading is arithmetic-bound), then decodes them all
in one batch -- their caches left-padded into one, each at its own positions -- and files each
conversation's cache back for its next turn. Requests that sample (``temperature > 0``) or
carry a seed are served one at a time as before.
"""

from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.benchmarks.hf_server import ChatModel

logger = logging.getLogger(__name__)

#: Most requests decoded together.
MAX_BATCH = 8


@dataclass
class _Request:
    ids: list[int]
    max_new: int
    done: threading.Event = field(default_factory=threading.Event)
    result: list[int] = field(default_factory=list)
    reused: int = 0
    error: BaseException | None = None
    cache: Any = None


class BatchingChatModel(ChatModel):
    """A :class:`ChatModel` that decodes concurrent greedy requests as one batch.

    Build it as a :class:`ChatModel` (``BatchingChatModel(path, ...)`` or
    ``BatchingChatModel.from_loaded(model, tokenizer, ...)``); ``max_batch`` caps a batch.
    """

    max_batch = MAX_BATCH

    def _start(self, model: Any, tokenizer: Any, alias: str, n_ctx: int) -> None:
        super()._start(model, tokenizer, alias, n_ctx)
        self._queue: queue.Queue[_Request] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._worker_lock = threading.Lock()
        eos = model.generation_config.eos_token_id
        eos_ids = set(eos if isinstance(eos, (list, tuple)) else [eos])
        eos_ids.add(tokenizer.eos_token_id)
        self._eos = {e for e in eos_ids if e is not None}
        #: Batches decoded and requests in them (for logs and tests).
        self.batches: list[int] = []

    def _generate(
        self,
        inputs: Any,
        max_tokens: int,
        sampling: dict[str, Any],
        seed: Any,
        want_logprobs: bool = False,
    ) -> tuple[Any, int, Any]:
        import torch

        if sampling.get("do_sample") or seed is not None or want_logprobs:
            return super()._generate(inputs, max_tokens, sampling, seed, want_logprobs)
        request = _Request(inputs["input_ids"][0].tolist(), max_tokens)
        with self._worker_lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._serve, name="agentgym-batch", daemon=True
                )
                self._worker.start()
        self._queue.put(request)
        request.done.wait()
        if request.error is not None:
            raise request.error
        return torch.tensor(request.result, dtype=torch.long), request.reused, None

    def _serve(self) -> None:
        while True:
            batch = [self._queue.get()]
            while len(batch) < self.max_batch:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                self._decode(batch)
            except BaseException as exc:  # handed to every waiting request
                logger.debug("batch of %d failed", len(batch), exc_info=True)
                for r in batch:
                    r.error = exc
            finally:
                for r in batch:
                    r.cache = None
                    r.done.set()

    def _decode(self, batch: list[_Request]) -> None:
        import torch
        from transformers import DynamicCache

        with self.lock, torch.inference_mode():
            self.batches.append(len(batch))
            for r in batch:  # read each prompt past its cached prefix
                cache = self._reusable_cache(r.ids)
                r.reused = cache.get_seq_length() if cache is not None else 0
                cache = cache if cache is not None else DynamicCache()
                out = self.model(
                    input_ids=torch.tensor([r.ids[r.reused :]]),
                    past_key_values=cache,
                    use_cache=True,
                )
                r.cache = out.past_key_values
                r.result = [int(out.logits[0, -1].argmax())]
            live = [r for r in batch if not self._finished(r)]
            if live:
                self._decode_together(live)
            for r in batch:
                self._keep(r)

    def _finished(self, r: _Request) -> bool:
        return r.result[-1] in self._eos or len(r.result) >= r.max_new

    def _decode_together(self, live: list[_Request]) -> None:
        import torch
        from transformers import DynamicCache

        lengths = [r.cache.get_seq_length() for r in live]
        longest = max(lengths)
        merged = DynamicCache()
        for index in range(len(live[0].cache.layers)):
            keys, values = [], []
            for r, n in zip(live, lengths, strict=True):
                layer = r.cache.layers[index]
                pad = (0, 0, longest - n, 0)  # left-pad the sequence axis
                keys.append(torch.nn.functional.pad(layer.keys, pad))
                values.append(torch.nn.functional.pad(layer.values, pad))
            merged.update(torch.cat(keys), torch.cat(values), index)
        mask = torch.ones(len(live), longest, dtype=torch.long)
        for i, n in enumerate(lengths):
            mask[i, : longest - n] = 0
        positions = torch.tensor([[n] for n in lengths])
        tokens = torch.tensor([[r.result[-1]] for r in live])
        active = [True] * len(live)
        fed = [0] * len(live)
        while any(active):
            mask = torch.cat([mask, torch.ones(len(live), 1, dtype=torch.long)], dim=1)
            out = self.model(
                input_ids=tokens,
                attention_mask=mask,
                position_ids=positions,
                past_key_values=merged,
                use_cache=True,
            )
            chosen = out.logits[:, -1].argmax(-1).tolist()
            for i, r in enumerate(live):
                if active[i]:
                    fed[i] += 1
                    r.result.append(int(chosen[i]))
                    active[i] = not self._finished(r)
            tokens = torch.tensor([[c] for c in chosen])
            positions = positions + 1
        for i, r in enumerate(live):  # each conversation's own cache, padding cut away
            own = DynamicCache()
            start, stop = longest - lengths[i], longest + fed[i]
            for index, layer in enumerate(merged.layers):
                own.update(
                    layer.keys[i : i + 1, :, start:stop].clone(),
                    layer.values[i : i + 1, :, start:stop].clone(),
                    index,
                )
            r.cache = own

    def _keep(self, r: _Request) -> None:
        """File the conversation's cache for its next turn (the reply's last token is not in
        it, as after ``generate``)."""
        kept = r.ids + r.result[:-1]
        if r.cache is None or r.cache.get_seq_length() != len(kept):
            return
        self._slots.append((kept, r.cache))
        del self._slots[: -(self.max_batch + 2)]


__all__ = ["MAX_BATCH", "BatchingChatModel"]
