"""An OpenAI-compatible chat server over a transformers model: the local model with no build.

``python -m agentgym_envs.benchmarks.hf_server --model FILE.gguf --port N`` loads the GGUF file
through transformers (which de-quantizes it into a torch model; the result is cached as
safetensors under ``$AGENTGYM_ENVS_CACHE/local-llm`` or ``~/.cache/agentgym-envs/local-llm``, so
later starts skip the conversion), and answers
``GET /v1/models`` and ``POST /v1/chat/completions`` (plain and ``stream``), as llama.cpp's
server does for the same file. Everything it needs installs as wheels (torch, transformers,
gguf), which is why it is the default runtime of ``agentgym llm serve``; llama.cpp stays the
faster option when ``llama-cpp-python`` is installed.

Requests are served one at a time (one model, CPU); ``tools`` are offered to the model in the
system prompt and each ``{"name": ..., "arguments": ...}`` object in its reply becomes a tool
call (several: parallel calls, unless ``parallel_tool_calls`` is false). ``tool_choice``:
``"none"`` offers no tools, ``"required"`` starts the reply with a call's opening, and a named
function starts it with that function's call (:func:`offered_tools`). Messages may carry content
parts (their text is used), tool calls and tool results, in any role a harness sends
(``developer`` is read as ``system``). A prompt that, with the reply's ``max_tokens``, does not
fit the context window is a 400 that says so. :mod:`~agentgym_envs.benchmarks.llama_server`
serves GGUF files through llama.cpp with the same request handling.
As vLLM does, ``"logprobs": true`` (and ``top_logprobs``) returns each reply token's log
probability (``choices[0].logprobs.content``), and ``"return_token_ids": true`` returns the
prompt's token ids (``prompt_token_ids``) and the reply's (``choices[0].token_ids``): the
recording gateway keeps them per model call for on-policy training.

A model already in memory (one just fine-tuned in this process) is served with
:meth:`ChatModel.from_loaded`; its ``tool_format="template"`` leaves tools, tool calls and tool
results to the tokenizer's own chat template (the one the model was trained with) and reads
``<tool_call>{...}</tool_call>`` blocks of the reply back as tool calls (:data:`TOOL_FORMATS`).
"""

import argparse
import copy
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from agentgym_envs.benchmarks.model_wheel import cache_root

logger = logging.getLogger(__name__)

#: Reply tokens when a request names none (llama.cpp's server default is 16; agents need more).
DEFAULT_MAX_TOKENS = 256
#: Conversations whose key/value cache is kept (about 50 KB per token each for SmolLM2-135M).
CACHE_SLOTS = 4
#: How tools reach the model and its calls come back. ``"json"``: the tools in a system prompt
#: (:func:`tools_prompt`), the conversation flattened to text, a JSON object in the reply is the
#: call. ``"template"``: the tokenizer's chat template renders the tools and the conversation's
#: tool calls and results itself, and each ``<tool_call>{...}</tool_call>`` block of the reply
#: is a call (:func:`template_tool_calls`; Qwen2.5 / Hermes style).
TOOL_FORMATS = ("json", "template")
_TOOL_CALL = re.compile(r"\{.*\}", re.DOTALL)
_TAGGED_CALL = re.compile(r"<tool_call>\s*(\{.*?\})\s*</tool_call>", re.DOTALL)


def cache_dir(model_path: Path) -> Path:
    """Where the de-quantized copy of ``model_path`` is kept (keyed by the file's size and
    modification time, so a changed file is converted again)."""
    stat = model_path.stat()
    key = hashlib.sha256(f"{model_path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return cache_root() / "local-llm" / f"{model_path.stem}-{key.hexdigest()[:12]}"


def load_model(model_path: Path) -> tuple[Any, Any]:
    """The tokenizer and the model of a GGUF file (from the safetensors cache when present) or
    of a checkpoint folder (``save_pretrained``'s, e.g. a trainer's output)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if model_path.is_dir():
        return AutoTokenizer.from_pretrained(model_path), AutoModelForCausalLM.from_pretrained(
            model_path
        )
    cached = cache_dir(model_path)
    if (cached / "config.json").is_file():
        return AutoTokenizer.from_pretrained(cached), AutoModelForCausalLM.from_pretrained(cached)
    folder, name = model_path.parent, model_path.name
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    try:
        _save(tokenizer, model, cached)
    except (OSError, ValueError) as exc:
        logger.warning("could not cache the converted model in %s: %s", cached, exc)
    return tokenizer, model


def _save(tokenizer: Any, model: Any, folder: Path) -> None:
    """The de-quantized model as a plain checkpoint (transformers refuses ``save_pretrained`` of
    a GGUF-loaded model, so the weights go through safetensors, tied ones once)."""
    from safetensors.torch import save_model

    partial = folder.with_name(folder.name + f".{os.getpid()}.partial")
    partial.mkdir(parents=True, exist_ok=True)
    try:
        tokenizer.save_pretrained(partial)
        config = model.config.to_dict()
        config.pop("quantization_config", None)
        (partial / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        save_model(model, str(partial / "model.safetensors"))
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    try:
        os.replace(partial, folder)  # whole or not at all, whoever converts at the same time
    except OSError:
        if not (folder / "config.json").is_file():
            raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)


#: The longest tool description the tools prompt keeps (the first sentence, cut there).
DESCRIPTION_CHARS = 200


def tools_prompt(tools: list[dict[str, Any]]) -> str:
    """The system-prompt text that offers ``tools`` (OpenAI function schemas) to the model:
    one line per tool -- its name, the first sentence of its description and its arguments'
    types (``?``: optional). Compact on purpose: a harness offers dozens of tools whose full
    schemas run to thousands of tokens, each of which a small model on a CPU must read."""
    lines = [
        "You can call these functions. To call one, reply with only a JSON object "
        '{"name": <function name>, "arguments": {<argument>: <value>, ...}}; to call several, '
        "one such object per line."
    ]
    for tool in tools:
        fn = tool.get("function", tool)
        params = fn.get("parameters") or {}
        required = set(params.get("required") or [])
        arguments = {
            name + ("" if name in required else "?"): _type_of(schema)
            for name, schema in (params.get("properties") or {}).items()
        }
        text = {"name": fn.get("name"), "description": _first_sentence(fn.get("description"))}
        lines.append(json.dumps({**text, "arguments": arguments}))
    return "\n".join(lines)


def _first_sentence(text: Any) -> str:
    text = " ".join(str(text or "").split())
    cut = text.find(". ")
    text = text[: cut + 1] if cut >= 0 else text
    return text if len(text) <= DESCRIPTION_CHARS else text[: DESCRIPTION_CHARS - 3] + "..."


def _type_of(schema: Any) -> str:
    """A JSON schema's type in a few words (``string``, ``"a"|"b"``, ``array of string``)."""
    if not isinstance(schema, dict):
        return "any"
    if schema.get("enum"):
        return "|".join(json.dumps(v) for v in schema["enum"][:8])
    kind = schema.get("type") or "any"
    if isinstance(kind, list):
        kind = "|".join(map(str, kind))
    if kind == "array":
        return f"array of {_type_of(schema.get('items'))}"
    return str(kind)


def parse_tool_call(text: str, tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A tool call read off a reply: a JSON object naming one of ``tools``, else ``None``."""
    names = {t.get("function", t).get("name") for t in tools}
    match = _TOOL_CALL.search(text)
    if not match:
        return None
    try:
        call = json.loads(match.group(0))
    except ValueError:
        return None
    if not isinstance(call, dict) or call.get("name") not in names:
        return None
    arguments = call.get("arguments", call.get("parameters", {}))
    return {
        "id": f"call_{uuid.uuid4().hex[:12]}",
        "type": "function",
        "function": {"name": call["name"], "arguments": json.dumps(arguments)},
    }


def parse_tool_calls(text: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool call read off a reply: each JSON object (or list of objects) in it that
    names one of ``tools`` with an object of arguments, in order."""
    names = {t.get("function", t).get("name") for t in tools}
    decoder = json.JSONDecoder()
    found: list[Any] = []
    at = 0
    while True:
        at = min((i for i in (text.find("{", at), text.find("[", at)) if i >= 0), default=-1)
        if at < 0:
            break
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError:
            at += 1
            continue
        found += value if isinstance(value, list) else [value]
        at = end
    calls = []
    for call in found:
        if not isinstance(call, dict) or call.get("name") not in names:
            continue
        arguments = call.get("arguments", call.get("parameters", {}))
        if isinstance(arguments, str):
            arguments = _arguments({"arguments": arguments})
        if not isinstance(arguments, dict):
            continue  # a call's arguments are an object: this is text, not a call
        calls.append(
            {
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(arguments)},
            }
        )
    return calls


def offered_tools(request: dict[str, Any]) -> tuple[list[dict[str, Any]], str | None]:
    """The tools a request offers the model and the one its reply must call, by its
    ``tool_choice``: ``"auto"`` (or none given) -- every tool, no call forced; ``"none"`` -- no
    tools; ``"required"`` -- every tool, a call of any (``""``); ``{"type": "function",
    "function": {"name": N}}`` -- that tool, a call of it (``N``). A ``tool_choice`` that is none
    of these, or names a tool not offered, is a :class:`ValueError`."""
    tools = request.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise ValueError("'tools' must be a list of objects")
    choice = request.get("tool_choice")
    if choice in (None, "auto"):
        return tools, None
    if choice == "none":
        return [], None
    if choice == "required":
        if not tools:
            raise ValueError("tool_choice 'required' needs tools")
        return tools, ""
    name = ((choice or {}).get("function") or {}).get("name") if isinstance(choice, dict) else None
    chosen = [t for t in tools if t.get("function", t).get("name") == name]
    if not name or not chosen:
        raise ValueError(
            f"tool_choice {json.dumps(choice)[:120]}: use 'auto', 'none', 'required' or "
            '{"type": "function", "function": {"name": <one of the tools>}}'
        )
    return chosen, str(name)


def reply_start(forced: str | None, tool_format: str = "json") -> str:
    """The text a reply is made to start with so that it calls a tool (``forced``: ``""`` any,
    a name that one; ``None``: nothing forced)."""
    if forced is None:
        return ""
    head = "<tool_call>\n" if tool_format == "template" else ""
    if forced:
        return f'{head}{{"name": {json.dumps(forced)}, "arguments": '
    return f'{head}{{"name": "'


def fit_reply(n_prompt: int, max_tokens: int, n_ctx: int) -> int:
    """The reply tokens that fit the context window after a prompt of ``n_prompt`` tokens:
    ``max_tokens``, or what room is left (the reply then ends with ``length``, as llama.cpp's
    own server does: Hermes Agent asks for its whole 64K context). A prompt that leaves no room
    is a :class:`ValueError` (a 400) that says so."""
    if n_prompt >= n_ctx:
        raise ValueError(
            f"Requested tokens ({n_prompt + max_tokens}) exceed context window of {n_ctx}: the "
            f"prompt alone is {n_prompt} tokens; shorten the conversation or serve the model "
            "with a larger n_ctx"
        )
    return min(max_tokens, n_ctx - n_prompt)


def template_tool_calls(text: str) -> tuple[str, list[dict[str, Any]]]:
    """The ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks of a reply as
    OpenAI tool calls, and the reply's text without them (blocks that do not parse are
    dropped)."""
    calls = []
    for raw in _TAGGED_CALL.findall(text):
        try:
            call = json.loads(raw)
            name, arguments = str(call["name"]), call.get("arguments") or {}
        except (ValueError, KeyError, TypeError):
            continue
        calls.append(
            {
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        )
    return _TAGGED_CALL.sub("", text).strip(), calls


def chat_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages as a tool-aware chat template renders them: content parts joined
    into text, each tool call's ``arguments`` parsed into an object (``{}`` if it is not
    JSON)."""
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        m = {**m, "content": content or ""}
        if m.get("tool_calls"):
            m["tool_calls"] = [
                {**c, "function": {**c["function"], "arguments": _arguments(c["function"])}}
                for c in m["tool_calls"]
            ]
        out.append(m)
    return out


def _arguments(fn: dict[str, Any]) -> Any:
    arguments = fn.get("arguments") or "{}"
    if isinstance(arguments, dict):
        return arguments
    try:
        return json.loads(arguments)
    except (TypeError, ValueError):
        return {}


class ChatModel:
    """One model, one request at a time: chat messages in, a completion out.

    The key/value caches of the last :data:`CACHE_SLOTS` requests are kept: an agent's next
    request repeats the whole conversation so far, so only the tokens after the longest prefix it
    shares with a kept cache are computed anew (the prompt of a 15-turn episode is otherwise
    re-read every turn; on CPU that is as slow as the reply itself). Several slots let
    episodes played side by side keep theirs.

    Args:
        model_path: a GGUF file or a checkpoint folder (:func:`load_model`).
        alias: the model name it answers to.
        n_ctx: most prompt plus reply tokens of a request (400 past it).
        n_threads: torch's CPU threads (``None``: torch's default).
    """

    def __init__(self, model_path: Path, alias: str, n_ctx: int, n_threads: int | None) -> None:
        import torch

        if n_threads:
            torch.set_num_threads(n_threads)
        tokenizer, model = load_model(model_path)
        self._start(model, tokenizer, alias, n_ctx)

    @classmethod
    def from_loaded(
        cls,
        model: Any,
        tokenizer: Any,
        alias: str,
        n_ctx: int,
        *,
        tool_format: str = "json",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> "ChatModel":
        """A chat model over a ``transformers`` model and tokenizer already in memory.

        Args:
            tool_format: one of :data:`TOOL_FORMATS`.
            max_tokens: most reply tokens, whatever a request asks (``None``: as asked).
            temperature: used for every request instead of the request's (``0``: greedy).
        """
        if tool_format not in TOOL_FORMATS:
            raise ValueError(f"tool_format={tool_format!r}: use one of {', '.join(TOOL_FORMATS)}")
        chat = cls.__new__(cls)
        chat._start(model, tokenizer, alias, n_ctx)
        chat.tool_format, chat.max_tokens, chat.temperature = tool_format, max_tokens, temperature
        return chat

    def _start(self, model: Any, tokenizer: Any, alias: str, n_ctx: int) -> None:
        self.tokenizer, self.model = tokenizer, model
        self.model.eval()
        self.alias = alias
        self.n_ctx = n_ctx
        self.tool_format = "json"
        self.max_tokens: int | None = None
        self.temperature: float | None = None
        self.lock = threading.Lock()
        self._slots: list[tuple[list[int], Any]] = []  # (token ids cached, cache), oldest first
        self._closed = threading.Event()

    def _inputs(self, request: dict[str, Any], tools: list[dict[str, Any]], start: str = "") -> Any:
        """The request's conversation (and tools) rendered and tokenized for generation, the
        reply begun with ``start`` (:func:`reply_start`)."""
        import torch

        if self.tool_format == "template":
            messages = _checked(request)
            try:
                inputs = self.tokenizer.apply_chat_template(
                    chat_messages(messages),
                    tools=tools or None,
                    add_generation_prompt=True,
                    return_tensors="pt",
                    return_dict=True,
                )
            except Exception as exc:  # the template's own error, from a client's odd message
                raise ValueError(
                    f"the messages do not fit the model's chat template: {exc!r:.200}"
                ) from None
        else:
            inputs = self.tokenizer.apply_chat_template(
                _messages(request, tools),
                add_generation_prompt=True,
                return_tensors="pt",
                return_dict=True,
            )
        if start:
            more = self.tokenizer(start, add_special_tokens=False, return_tensors="pt")["input_ids"]
            mask = inputs["attention_mask"]
            inputs["input_ids"] = torch.cat([inputs["input_ids"], more], dim=1)
            inputs["attention_mask"] = torch.cat([mask, torch.ones_like(more, dtype=mask.dtype)], 1)
        return inputs

    def close(self) -> None:
        """Refuse new requests, stop a reply being generated at its next token, and return
        once no request is running (a request whose client went away -- a harness stopped at
        its deadline -- would otherwise keep computing into the next run, or past the end of
        the process)."""
        self._closed.set()
        with self.lock:
            pass

    def _reusable_cache(self, ids: list[int]) -> Any:
        """A cache of the longest prefix ``ids`` shares with a kept one (at least one token of
        ``ids`` is left to compute), or ``None``: the kept one itself when ``ids`` extends it,
        else a cut copy. Generation updates the cache it is given in place."""
        best, best_shared = None, 0
        for index, (cached, _) in enumerate(self._slots):
            limit = min(len(cached), len(ids) - 1)
            shared = next((i for i in range(limit) if cached[i] != ids[i]), limit)
            if shared > best_shared:
                best, best_shared = index, shared
        if best is None:
            return None
        cached, cache = self._slots[best]
        if best_shared < len(cached):  # a branch (e.g. the same system prompt): keep the original
            cache = copy.deepcopy(cache)
            cache.crop(best_shared - cache.get_seq_length())  # transformers 5: tokens to drop
        else:  # this conversation going on: its cache moves to the new request
            del self._slots[best]
        return cache

    def _generate(
        self,
        inputs: Any,
        max_tokens: int,
        sampling: dict[str, Any],
        seed: Any,
        want_logprobs: bool = False,
    ) -> tuple[Any, int, Any]:
        """The reply's token ids, how many prompt tokens came from a kept cache, and the logits
        of each reply token (``None`` unless ``want_logprobs``)."""
        import torch

        ids = inputs["input_ids"][0].tolist()
        with self.lock, torch.inference_mode():
            if self._closed.is_set():
                raise ValueError("the model is closed: its server is shutting down")
            if seed is not None:
                torch.manual_seed(int(seed))
            cache = self._reusable_cache(ids)
            reused = cache.get_seq_length() if cache is not None else 0
            out = self.model.generate(
                **inputs,
                max_new_tokens=max_tokens,
                pad_token_id=self.tokenizer.eos_token_id,
                past_key_values=cache,
                stopping_criteria=_stop_when(self._closed),
                return_dict_in_generate=True,
                output_logits=want_logprobs,
                **sampling,
            )
            sequence, kept = out.sequences[0], out.past_key_values
            self._slots.append((sequence[: kept.get_seq_length()].tolist(), kept))
            del self._slots[:-CACHE_SLOTS]
        return sequence[len(ids) :], reused, (out.logits if want_logprobs else None)

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        """An OpenAI ``chat.completion`` for ``request`` (raises ValueError on a bad one)."""
        tools, forced = offered_tools(request)
        start = reply_start(forced, self.tool_format)
        max_tokens = int(
            request.get("max_tokens") or request.get("max_completion_tokens") or DEFAULT_MAX_TOKENS
        )
        if self.max_tokens is not None:
            max_tokens = min(max_tokens, self.max_tokens)
        inputs = self._inputs(request, tools, start)
        n_prompt = int(inputs["input_ids"].shape[1])
        max_tokens = fit_reply(n_prompt, max_tokens, self.n_ctx)
        temperature = self.temperature
        if temperature is None:
            temperature = float(request.get("temperature", 1.0) or 0.0)
        sampling = {"do_sample": temperature > 0}
        if temperature > 0:
            sampling |= {"temperature": temperature, "top_p": float(request.get("top_p") or 1.0)}
        stops = _stop_strings(request.get("stop"))
        if stops:  # generation ends at the first stop string, not max_tokens later
            sampling |= {"stop_strings": stops, "tokenizer": self.tokenizer}
        top = _top_logprobs(request)
        want_logprobs = bool(request.get("logprobs")) or top > 0
        new, reused, logits = self._generate(
            inputs, max_tokens, sampling, request.get("seed"), want_logprobs
        )
        text = start + self.tokenizer.decode(new, skip_special_tokens=True)
        finish = "length" if len(new) >= max_tokens else "stop"
        message, finish = reply_message(text, finish, request, tools, self.tool_format)
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish}
        if want_logprobs:
            choice["logprobs"] = {"content": self._logprobs(new.tolist(), logits, top)}
        completion: dict[str, Any] = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.alias,
            "choices": [choice],
            "usage": {
                "prompt_tokens": n_prompt,
                "completion_tokens": len(new),
                "total_tokens": n_prompt + len(new),
                "prompt_tokens_details": {"cached_tokens": reused},
            },
        }
        if request.get("return_token_ids"):  # vLLM's fields: the prompt's ids, the reply's
            completion["prompt_token_ids"] = inputs["input_ids"][0].tolist()
            choice["token_ids"] = new.tolist()
        return completion

    def _logprobs(self, tokens: list[int], logits: Any, top: int) -> list[dict[str, Any]]:
        """OpenAI ``logprobs.content`` entries of the reply's tokens: each token's log
        probability under the model (its raw logits, before temperature or top-p), and the
        ``top`` likeliest alternatives."""
        import torch

        out = []
        for token, step in zip(tokens, logits, strict=False):
            logp = torch.log_softmax(step[0].float(), dim=-1)
            entry = self._token_logprob(token, float(logp[token]))
            alternatives = torch.topk(logp, top) if top else None
            entry["top_logprobs"] = (
                [
                    self._token_logprob(int(t), float(v))
                    for v, t in zip(alternatives.values, alternatives.indices, strict=True)
                ]
                if alternatives is not None
                else []
            )
            out.append(entry)
        return out

    def _token_logprob(self, token: int, logprob: float) -> dict[str, Any]:
        text = self.tokenizer.decode([token])
        return {"token": text, "logprob": logprob, "bytes": list(text.encode("utf-8"))}


def _top_logprobs(request: dict[str, Any]) -> int:
    """How many alternatives per reply token a request asks for (0 to 20, as OpenAI allows)."""
    try:
        return max(0, min(20, int(request.get("top_logprobs") or 0)))
    except (TypeError, ValueError):
        raise ValueError("'top_logprobs' must be an integer from 0 to 20") from None


def _stop_when(event: threading.Event) -> Any:
    """A ``StoppingCriteriaList`` that stops generating once ``event`` is set."""
    import torch
    from transformers import StoppingCriteria, StoppingCriteriaList

    class Closed(StoppingCriteria):
        def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
            return torch.full((input_ids.shape[0],), event.is_set(), dtype=torch.bool)

    return StoppingCriteriaList([Closed()])


def reply_message(
    text: str,
    finish: str,
    request: dict[str, Any],
    tools: list[dict[str, Any]],
    tool_format: str = "json",
) -> tuple[dict[str, Any], str]:
    """The assistant message of a reply's text (cut at the request's ``stop``; its tool calls
    read back, only the first unless ``parallel_tool_calls`` allows more) and its finish
    reason."""
    text, stopped = _cut_at_stop(text, request.get("stop"))
    finish = "stop" if stopped else finish
    content: str | None = text
    calls: list[dict[str, Any]] = []
    if tools and tool_format == "template":
        content, calls = template_tool_calls(text)
    elif tools:
        calls = parse_tool_calls(text, tools)
        content = None
    if not calls:
        return {"role": "assistant", "content": text}, finish
    if request.get("parallel_tool_calls") is False:
        calls = calls[:1]
    return {"role": "assistant", "content": content, "tool_calls": calls}, "tool_calls"


def _checked(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's messages: a non-empty list of objects (ValueError otherwise)."""
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("'messages' must be a non-empty list")
    if not all(isinstance(m, dict) for m in messages):
        raise ValueError("each message must be an object")
    return messages


#: How a role a client sends is read: the chat template knows system, user and assistant.
_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}


def _messages(
    request: dict[str, Any], tools: list[dict[str, Any]] | None = None
) -> list[dict[str, str]]:
    """The request's messages as role + text: content parts joined, tool calls written as the
    JSON objects the tools prompt asks for, tool results as user turns, other roles as user
    ones; ``tools`` offered in the (first) system message."""
    out = []
    for m in _checked(request):
        role, content = m.get("role"), m.get("content")
        if isinstance(content, list):  # content parts: keep the text ones
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        elif not isinstance(content, str):
            content = "" if content is None else json.dumps(content)
        calls = [c for c in m.get("tool_calls") or [] if isinstance(c, dict)]
        if calls:
            written = [
                json.dumps({"name": fn.get("name"), "arguments": _arguments(fn)})
                for fn in (c.get("function") or {} for c in calls)
            ]
            content = "\n".join([content, *written] if content else written)
        out.append({"role": _ROLES.get(str(role), "user"), "content": content})
    if tools:
        offer = tools_prompt(tools)
        if out[0]["role"] == "system":
            out[0] = {"role": "system", "content": f"{out[0]['content']}\n\n{offer}"}
        else:
            out.insert(0, {"role": "system", "content": offer})
    return out


def _stop_strings(stop: Any) -> list[str]:
    """A request's ``stop`` (a string or a list) as a list of non-empty strings."""
    stops = [stop] if isinstance(stop, str) else [s for s in (stop or []) if isinstance(s, str)]
    return [s for s in stops if s]


def _cut_at_stop(text: str, stop: Any) -> tuple[str, bool]:
    stops = _stop_strings(stop)
    cut = min((i for i in (text.find(s) for s in stops) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


#: Seconds a streamed request waits for its reply before its stream starts with keep-alives.
STREAM_WAIT = 2.0
#: Seconds between the keep-alive comments of a stream whose reply is still being computed.
KEEPALIVE = 5.0


def build_app(chat: ChatModel):
    """The FastAPI app: ``/v1/models`` and ``/v1/chat/completions``.

    A streamed request whose reply takes more than :data:`STREAM_WAIT` seconds (a long prompt
    on a CPU, or requests queued for the one model) gets its stream at once, with an SSE comment
    every :data:`KEEPALIVE` seconds until the reply's chunks follow: clients that give up on a
    silent connection (harnesses wait about 300 s) keep waiting. A request found bad by then is a
    400; one found bad later ends its stream with an error event."""
    import asyncio

    from fastapi import FastAPI, Request
    from fastapi.concurrency import run_in_threadpool
    from fastapi.responses import JSONResponse, StreamingResponse

    from agentgym_envs.integrations.sse import DONE, completion_chunks, event

    app = FastAPI(title="agentgym local model (transformers)")

    def refused(exc: ValueError) -> JSONResponse:
        error = {"message": str(exc), "type": "invalid_request_error"}
        return JSONResponse({"error": error}, status_code=400)

    async def later(reply: asyncio.Future):
        while not reply.done():
            yield b": keep-alive\n\n"
            await asyncio.wait([reply], timeout=KEEPALIVE)
        try:
            completion = reply.result()
        except ValueError as exc:
            yield event({"error": {"message": str(exc), "type": "invalid_request_error"}})
        else:
            for chunk in completion_chunks(completion):
                yield event(chunk)
        yield DONE

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": chat.alias, "object": "model", "owned_by": "local"}],
        }

    @app.post("/v1/chat/completions")
    async def completions(request: Request):
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
        except ValueError as exc:
            return refused(exc)
        reply = asyncio.ensure_future(run_in_threadpool(chat.complete, body))
        if body.get("stream"):
            await asyncio.wait([reply], timeout=STREAM_WAIT)
            if not reply.done():
                return StreamingResponse(later(reply), media_type="text/event-stream")
        try:
            completion = await reply
        except ValueError as exc:
            return refused(exc)
        if body.get("stream"):
            events = [*map(event, completion_chunks(completion)), DONE]
            return StreamingResponse(iter(events), media_type="text/event-stream")
        return completion

    return app


def main(argv: list[str] | None = None) -> None:
    """Serve a GGUF model (llama.cpp's server's arguments, the ones this server uses)."""
    serve_main(ChatModel, "python -m agentgym_envs.benchmarks.hf_server", argv)


def serve_main(model_class: Any, prog: str, argv: list[str] | None = None) -> None:
    """The command line of a local model server: the arguments of llama.cpp's server that ours
    use, ``model_class(path, alias, n_ctx, n_threads)`` served by :func:`build_app` (a busy
    port is one line on stderr and exit 2, before the model is loaded)."""
    from agentgym_envs.serving import check_bindable, one_line_errors, serve_app

    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--model", required=True)
    parser.add_argument("--model_alias", default="local")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--n_ctx", type=int, default=4096)
    parser.add_argument("--n_threads", type=int, default=None)
    parser.add_argument("--max_tokens", type=int, default=None, help="most tokens of any reply")
    args = parser.parse_args(argv)
    with one_line_errors():
        check_bindable(args.host, args.port)
        chat = model_class(Path(args.model), args.model_alias, args.n_ctx, args.n_threads)
        chat.max_tokens = args.max_tokens
        serve_app(build_app(chat), args.host, args.port, extra="local-llm", log_level="warning")


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    main()
