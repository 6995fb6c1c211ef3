"""The served model reuses the prefix every harness episode shares: the harness's tool schemas
come first in the system turn (:func:`~agentgym_envs.train.harness_sft.tools_first`), so an
episode whose system prompt differs only in its working directory starts from the previous
episode's key/value cache -- and replies, greedy, exactly as with no cache at all. Real
SmolLM2-135M, real chat templates, the served ``ChatModel``."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch")
pytest.importorskip("trl")

from agentgym_envs.integrations.trl import tool_chat_template
from agentgym_envs.train import harness_loop
from agentgym_envs.train.harness_sft import tools_first

#: Tool schemas of the size and shape a harness sends (Cline sends ~18,000 characters).
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{n}",
            "description": f"Tool number {n}: does thing {n} to the file it is given. " * 3,
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "count": {"type": "integer"}},
                "required": ["path"],
            },
        },
    }
    for n in range(6)
]


def _request(workdir: str) -> dict:
    system = f"You are a coding agent.\nWorking Directory: {workdir}\nUse the tools to act."
    return {
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": "Guess a five-letter word with the guess tool."},
        ],
        "tools": TOOLS,
        "temperature": 0,
        "max_tokens": 12,
    }


@pytest.fixture(scope="module")
def smollm2():
    from agentgym_envs.benchmarks.local_llm import local_llm_available

    reason = local_llm_available("transformers")
    if reason:
        pytest.skip(reason)
    from agentgym_envs.train.harness_sft import load_base_model

    return load_base_model()


def test_the_tools_come_before_the_system_prompt_in_the_system_turn(smollm2):
    _, tokenizer = smollm2
    text = tokenizer.apply_chat_template(
        _request("/tmp/a/work")["messages"], tools=TOOLS, tokenize=False
    )
    assert text.startswith("<|im_start|>system\n# Tools")
    assert text.index(json.dumps(TOOLS[-1])) < text.index("You are a coding agent.")
    assert text.count("<|im_start|>system") == 1  # still one system turn
    # and nothing else of TRL's template changed: the same text, the two parts swapped
    trl = tokenizer.apply_chat_template(
        _request("/tmp/a/work")["messages"],
        tools=TOOLS,
        tokenize=False,
        chat_template=tool_chat_template(),
    )
    assert sorted(trl) == sorted(text)


def test_a_template_without_that_system_turn_is_refused():
    with pytest.raises(ValueError, match="tools-then-system"):
        tools_first("{{ messages }}")


def test_the_next_episode_reuses_the_tools_prefix_and_replies_as_without_a_cache(smollm2):
    model, tokenizer = smollm2
    cached = {}
    for order, template in (("trl", tool_chat_template()), ("tools-first", None)):
        if template is not None:
            tokenizer_template, tokenizer.chat_template = tokenizer.chat_template, template
        try:
            chat = harness_loop.chat_model(model, tokenizer, "x", reply_tokens=12)
            chat.complete(_request("/tmp/agentgym-cline-aaaa/work"))  # the first episode
            warm = chat.complete(_request("/tmp/agentgym-cline-bbbb/work"))  # the next one
            chat._slots.clear()
            cold = chat.complete(_request("/tmp/agentgym-cline-bbbb/work"))
        finally:
            if template is not None:
                tokenizer.chat_template = tokenizer_template
        assert _same_reply(warm, cold), (order, warm["choices"], cold["choices"])
        assert cold["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
        cached[order] = warm["usage"]["prompt_tokens_details"]["cached_tokens"]
    tools_tokens = len(tokenizer(json.dumps(TOOLS))["input_ids"])
    assert cached["tools-first"] > tools_tokens > cached["trl"]


def _same_reply(a: dict, b: dict) -> bool:
    """The same reply text and the same tool calls (their generated ids aside)."""
    ma, mb = a["choices"][0]["message"], b["choices"][0]["message"]
    calls = [[c["function"] for c in m.get("tool_calls") or []] for m in (ma, mb)]
    return ma.get("content") == mb.get("content") and calls[0] == calls[1]


def test_warming_answers_the_first_recorded_request_once(smollm2, tmp_path):
    model, tokenizer = smollm2
    chat = harness_loop.chat_model(model, tokenizer, "x", reply_tokens=4)
    assert harness_loop.warm(chat, tmp_path / "sessions") == 0.0  # nothing recorded yet
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    entries = [{"kind": "start"}, {"request": _request("/tmp/t/work"), "finish_reason": "stop"}]
    (sessions / "cline-1.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    assert harness_loop.warm(chat, sessions) > 0
    after = chat.complete(_request("/tmp/u/work"))
    assert after["usage"]["prompt_tokens_details"]["cached_tokens"] > 100


def test_the_first_request_with_tools_is_warmed_and_measured(smollm2, tmp_path):
    """A side request without tools (OpenCode titles its session first) is neither warmed nor
    counted as the harness's prompt."""
    _, tokenizer = smollm2
    title = {"messages": [{"role": "system", "content": "You are a title generator."}]}
    agent = _request("/tmp/t/work")
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    lines = [json.dumps({"request": r}) + "\n" for r in (title, agent)]
    (sessions / "opencode-1.jsonl").write_text("".join(lines))
    assert harness_loop.first_request(sessions) == agent
    size = harness_loop.prompt_size(agent, tokenizer)
    assert size["tools"] == len(TOOLS) and size["tool_chars"] == len(json.dumps(TOOLS))
    assert size["system_chars"] > len("Working Directory: /tmp/t/work")
    rendered = tokenizer.apply_chat_template(
        agent["messages"], tools=TOOLS, tokenize=False, add_generation_prompt=True
    )
    assert size["tokens"] == len(tokenizer(rendered)["input_ids"])


def test_unknown_arms_are_one_line_with_the_choices(tmp_path):
    with pytest.raises(ValueError, match="use base, sft or both"):
        harness_loop.run(tmp_path, harnesses=["cline"], arms=("teacher",))


def test_sft_of_the_last_layers_moves_only_them(smollm2):
    """``layers=2``: one step changes the last two decoder layers and the final norm, and
    leaves every other weight (embeddings, tied output head, lower layers) as it was."""
    import copy

    import torch

    from agentgym_envs.train.harness_sft import sft_examples, train, trainable

    base, tokenizer = smollm2
    model = copy.deepcopy(base)
    call = {"name": "tool_0", "arguments": json.dumps({"path": "a.txt"})}
    row = {
        **_request("/tmp/t/work"),
        "messages": [
            *_request("/tmp/t/work")["messages"],
            {"role": "assistant", "tool_calls": [{"type": "function", "function": call}]},
        ],
    }
    examples = sft_examples(tokenizer, [row], max_length=128)
    ran = train(model, examples, epochs=1, lr=1e-3, layers=2)
    assert ran["steps"] == 1 and ran["losses"][0] > 0
    before, after = dict(base.named_parameters()), dict(model.named_parameters())
    moved = {n for n in after if not torch.equal(after[n], before[n])}
    last = len(model.model.layers) - 2
    assert moved and all(
        n.startswith(("model.norm", f"model.layers.{last}.", f"model.layers.{last + 1}."))
        for n in moved
    )
    assert f"model.layers.{last + 1}.mlp.down_proj.weight" in moved
    with pytest.raises(ValueError, match="the model has 30 decoder layers"):
        trainable(model, 99)
    assert len(trainable(model, None)) == len(list(model.parameters()))
