"""SFT of the local model on harness-format rows, on CPU, with progress and an ETA.

The rows are :func:`~agentgym_envs.datasets.harness.harness_sft_row` records: the harness's
system prompt, tool schemas and tool calls as the gateway recorded them. Each is rendered with
the tool-aware ChatML template the served model uses too (SmolLM2's special tokens, the tools
first in the system turn then the system prompt -- :func:`tools_first` --, ``<tool_call>``
blocks), and the loss falls on the tokens of the row's
``loss`` messages only (the model's turns).

The model is read once from the converted-model cache of the local server
(:func:`agentgym_envs.benchmarks.hf_server.load_model`: the GGUF file is de-quantized the first
time any process needs it and kept as safetensors), never de-quantized again per step or run.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

logger = logging.getLogger(__name__)


def load_base_model() -> tuple[Any, Any]:
    """SmolLM2-135M-Instruct (plain float32 weights from the converted cache) and its tokenizer
    with the tool-aware ChatML template; ``(model, tokenizer)``. Torch gets the local server's
    thread count (every core on an idle machine, one on a busy one; ``AGENTGYM_LLM_THREADS``
    overrides)."""
    import torch

    from agentgym_envs.benchmarks.hf_server import load_model
    from agentgym_envs.benchmarks.local_llm import _default_threads, smollm2_path
    from agentgym_envs.integrations.trl import tool_chat_template

    # torch's threads spin while they wait: on a busy machine one thread is many times faster
    torch.set_num_threads(_default_threads("transformers"))
    started = time.perf_counter()
    tokenizer, model = load_model(smollm2_path())
    tokenizer.chat_template = tools_first(tool_chat_template())
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.generation_config.eos_token_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    model.eval()
    logger.info(
        "model loaded from the converted cache in %.1fs (%d torch threads)",
        time.perf_counter() - started,
        torch.get_num_threads(),
    )
    return model, tokenizer


#: The system turn of TRL's Qwen2.5 template with tools: the system prompt, then the tools.
_SYSTEM = (
    "    {%- if messages[0]['role'] == 'system' %}\n"
    "        {{- messages[0]['content'] }}\n"
    "    {%- else %}\n"
    "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n"
    "    {%- endif %}\n"
)
_TOOLS_HEAD = '    {{- "\\n\\n# Tools\\n\\n'
_TOOLS_END = '</tool_call><|im_end|>\\n" }}\n'


def tools_first(template: str) -> str:
    """``template`` (TRL's Qwen2.5 ChatML template with tools) with the tools rendered before
    the system prompt in the system turn, not after it.

    A harness sends the same tool schemas in every request of every episode, but its system
    prompt names the episode's own working directory (Cline's ``Working Directory:
    /tmp/agentgym-cline-XXXX/work``, about 250 tokens in): with the tools first, the prefix
    every episode shares is the ~4,500 tokens of tools plus the system prompt up to that line,
    and the served model's key/value cache (:class:`~agentgym_envs.benchmarks.hf_server.
    ChatModel`) computes it once for the whole run instead of once per episode (as the order
    of Anthropic's prompt cache: tools, system, messages). Training and serving use the same
    template, so the model learns the order it is served. A template without that system turn
    is a :class:`ValueError` (TRL changed it: update this function)."""
    head = template.find(_TOOLS_HEAD)
    end = template.find(_TOOLS_END, head)
    if _SYSTEM not in template or head < 0 or end < 0 or template.find(_SYSTEM) > head:
        raise ValueError("the chat template has no tools-then-system turn to reorder")
    end += len(_TOOLS_END)
    tools = template[head:end]
    tools = tools.replace('"\\n\\n# Tools', '"# Tools', 1).replace(
        '</tool_call><|im_end|>\\n" }}', '</tool_call>\\n\\n" }}', 1
    )
    reordered = tools + _SYSTEM + "    {{- '<|im_end|>\\n' }}\n"
    return template[: template.find(_SYSTEM)] + reordered + template[end:]


def trainable(model: Any, layers: int | None) -> list[Any]:
    """The parameters SFT updates: all of them (``layers=None``), or only those of the last
    ``layers`` decoder layers and the final norm, every other weight (the embeddings, tied to
    the output head in SmolLM2, included) frozen. A ``layers`` the model does not have is a
    :class:`ValueError`."""
    if layers is None:
        for param in model.parameters():
            param.requires_grad_(True)
        return list(model.parameters())
    decoder = model.model.layers
    if not 0 < layers <= len(decoder):
        raise ValueError(f"layers={layers}: the model has {len(decoder)} decoder layers")
    model.requires_grad_(False)
    for module in (*decoder[-layers:], model.model.norm):
        module.requires_grad_(True)
    return [p for p in model.parameters() if p.requires_grad]


def sft_examples(
    tokenizer: Any, rows: Sequence[dict[str, Any]], max_length: int
) -> list[tuple[Any, Any]]:
    """Token ids and labels per row (``-100`` outside the ``loss`` messages); the last
    ``max_length`` tokens of a longer conversation (its end holds the most turns)."""
    import torch

    from agentgym_envs.benchmarks.hf_server import chat_messages

    def length(messages: list[dict[str, Any]], tools: Any, prompt: bool = False) -> int:
        text = tokenizer.apply_chat_template(
            messages, tools=tools, tokenize=False, add_generation_prompt=prompt
        )
        return len(tokenizer(text)["input_ids"])

    examples = []
    for row in rows:
        messages, tools = chat_messages(row["messages"]), row.get("tools") or None
        loss = row.get("loss") or [m["role"] == "assistant" for m in messages]
        text = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False)
        full = tokenizer(text)["input_ids"]
        labels = [-100] * len(full)
        for i, train in enumerate(loss):
            if not train:
                continue
            a = length(messages[:i], tools, prompt=True)
            b = length(messages[: i + 1], tools)
            labels[a:b] = full[a:b]
        keep = slice(max(0, len(full) - max_length), len(full))
        if all(label == -100 for label in labels[keep]):
            continue  # nothing of the model's in the kept window
        examples.append((torch.tensor([full[keep]]), torch.tensor([labels[keep]])))
    return examples


def train(
    model: Any,
    examples: Sequence[tuple[Any, Any]],
    *,
    epochs: int,
    lr: float,
    progress: Callable[[str], None] | None = None,
    layers: int | None = None,
) -> dict[str, Any]:
    """AdamW over ``examples`` for ``epochs`` passes (batch of one); a progress line per step
    with the loss, the elapsed time and an ETA. ``layers``: train only the last ``layers``
    decoder layers and the final norm (:func:`trainable`; the backward pass stops there, about
    half the time of a step), ``None`` all weights. Returns the losses and the time taken."""
    import torch

    say = progress or logger.info
    model.train()
    optim = torch.optim.AdamW(trainable(model, layers), lr=lr)
    total, losses = epochs * len(examples), []
    started = time.perf_counter()
    for epoch in range(epochs):
        for ids, labels in examples:
            loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            optim.step()
            optim.zero_grad()
            losses.append(float(loss.item()))
            done = len(losses)
            elapsed = time.perf_counter() - started
            say(
                f"SFT step {done}/{total} (epoch {epoch + 1}/{epochs}, {ids.shape[1]} tokens): "
                f"loss {losses[-1]:.3f}, {elapsed:.0f}s elapsed, "
                f"ETA {elapsed / done * (total - done):.0f}s"
            )
    model.eval()
    return {"steps": len(losses), "losses": losses, "seconds": time.perf_counter() - started}


__all__ = ["load_base_model", "sft_examples", "tools_first", "train", "trainable"]
