"""The harness loop's cheap parts (``agentgym_envs.train.harness_loop``, which
``examples/harness_loop.py`` runs), for real: its SFT examples (loss on the harness's own
assistant turns) from a gateway chat record, and the A/B arm's server -- the local model's
server over SmolLM2 in memory, with the SFT's chat template and ``<tool_call>`` blocks --
answering the openai client on 127.0.0.1. The whole loop with the real Cline is in
tests/train/test_harness_loop.py."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from agentgym_envs.benchmarks.hf_server import chat_messages, template_tool_calls

GUESS = {
    "type": "function",
    "function": {
        "name": "guess",
        "description": "Guess a five-letter word.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string"}},
            "required": ["word"],
        },
    },
}
#: A chat record as the gateway writes it (chat.jsonl): the harness's own prompt, tools and
#: native tool calls.
CHAT = {
    "item_id": "wordle_0",
    "tools": [GUESS],
    "messages": [
        {"role": "system", "content": "You are a coding agent. Use the tools."},
        {"role": "user", "content": [{"type": "text", "text": "Guess the hidden word."}]},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "guess", "arguments": '{"word": "crane"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "c r a n e: g b b y b"},
        {"role": "assistant", "content": "The word starts with c."},
    ],
}


def test_tool_call_blocks_and_chat_messages():
    text = (
        'Let me guess.\n<tool_call>\n{"name": "guess", "arguments": {"word": "crane"}}\n'
        "</tool_call>\n<tool_call>{not json}</tool_call>"
    )
    content, calls = template_tool_calls(text)
    assert content == "Let me guess."
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("guess", {"word": "crane"})
    ]
    assert template_tool_calls("no call here") == ("no call here", [])
    rendered = chat_messages(CHAT["messages"])
    assert rendered[1]["content"] == "Guess the hidden word."
    assert rendered[2]["tool_calls"][0]["function"]["arguments"] == {"word": "crane"}
    assert rendered[2]["content"] == "" and rendered[3]["tool_call_id"] == "call_1"


@pytest.fixture(scope="module")
def loop():
    """The loop's module, with its SFT helpers."""
    pytest.importorskip("torch")
    from agentgym_envs.train import harness_loop, harness_sft

    return SimpleNamespace(
        sft_examples=harness_sft.sft_examples, chat_model=harness_loop.chat_model
    )


@pytest.fixture(scope="module")
def smollm2():
    """SmolLM2-135M and its tool-aware tokenizer, as the example loads them."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    pytest.importorskip("trl")
    from agentgym_envs.benchmarks.local_llm import local_llm_available
    from agentgym_envs.integrations.trl import load_local_model

    reason = local_llm_available("transformers")
    if reason:
        pytest.skip(reason)
    return load_local_model(tools=True)


def test_sft_examples_learn_only_the_harness_turns(loop, smollm2):
    _, tokenizer = smollm2
    ((ids, labels),) = loop.sft_examples(tokenizer, [CHAT], max_length=4096)
    ids, labels = ids[0].tolist(), labels[0].tolist()
    assert len(ids) == len(labels)
    learned = tokenizer.decode([t for t, lab in zip(ids, labels, strict=True) if lab != -100])
    assert "<tool_call>" in learned and '"crane"' in learned
    assert "The word starts with c." in learned
    assert "Guess the hidden word" not in learned and "g b b y b" not in learned
    assert "coding agent" not in learned
    # the end of the conversation is kept when it is longer than max_length
    ((short, _),) = loop.sft_examples(tokenizer, [CHAT], max_length=16)
    assert short[0].tolist() == ids[-16:]


def test_an_ab_arm_is_served_with_the_sft_template(loop, smollm2):
    openai = pytest.importorskip("openai")
    pytest.importorskip("fastapi")
    from agentgym_envs.benchmarks.hf_server import build_app
    from agentgym_envs.integrations.harnesses.runner import ServedApp

    model, tokenizer = smollm2
    chat = loop.chat_model(model, tokenizer, "smollm2-0", reply_tokens=48)
    messages = CHAT["messages"][:4]
    with ServedApp(build_app(chat)) as served:
        client = openai.OpenAI(base_url=f"{served.url}/v1", api_key="none", timeout=600)
        assert [m.id for m in client.models.list().data] == ["smollm2-0"]
        replies = [
            client.chat.completions.create(
                model="smollm2-0",
                messages=messages,
                tools=[GUESS],
                temperature=1.0,  # the arm is greedy whatever the harness asks
                max_tokens=4000,
            )
            for _ in range(2)
        ]
    # the prompt is the SFT's rendering: the template's own tools and tool turns
    expected = tokenizer.apply_chat_template(
        chat_messages(messages), tools=[GUESS], add_generation_prompt=True, return_dict=True
    )["input_ids"]
    first, second = replies
    assert first.usage.prompt_tokens == len(expected)
    assert 0 < first.usage.completion_tokens <= 48
    assert first.choices[0].message == second.choices[0].message  # greedy
    assert second.usage.prompt_tokens_details.cached_tokens > 0  # the prefix cache is kept
