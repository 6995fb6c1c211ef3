"""Concurrent greedy requests decoded as one batch answer exactly as one at a time."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("transformers")


def _model():
    from tests.integrations.conftest import tiny_maze_policy

    model, tokenizer = tiny_maze_policy(seed=3)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    return model, tokenizer


CONVERSATIONS = [[{"role": "user", "content": "move up " * n}] for n in (1, 5, 12, 30)]


def test_batched_replies_and_caches_match_one_at_a_time() -> None:
    from agentgym_envs.benchmarks.hf_batch import BatchingChatModel
    from agentgym_envs.benchmarks.hf_server import ChatModel

    model, tokenizer = _model()
    serial = ChatModel.from_loaded(model, tokenizer, "a", 4096, max_tokens=6, temperature=0)
    batched = BatchingChatModel.from_loaded(
        model, tokenizer, "b", 4096, max_tokens=6, temperature=0
    )
    expected = [serial.complete({"messages": c})["choices"][0]["message"] for c in CONVERSATIONS]
    gate = threading.Barrier(len(CONVERSATIONS))
    got: list = [None] * len(CONVERSATIONS)

    def ask(i: int, messages) -> None:
        gate.wait()
        got[i] = batched.complete({"messages": messages})

    def round_of(conversations) -> None:
        threads = [threading.Thread(target=ask, args=(i, c)) for i, c in enumerate(conversations)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    round_of(CONVERSATIONS)
    assert [g["choices"][0]["message"] for g in got] == expected
    assert max(batched.batches) > 1  # some requests really were decoded together

    # the next turn of each conversation reads only its new tokens, and still matches
    follow = [
        [
            *c,
            {"role": "assistant", "content": e["content"]},
            {"role": "user", "content": "move down"},
        ]
        for c, e in zip(CONVERSATIONS, expected)
    ]
    expected2 = [serial.complete({"messages": c})["choices"][0]["message"] for c in follow]
    round_of(follow)
    assert [g["choices"][0]["message"] for g in got] == expected2
    assert all(g["usage"]["prompt_tokens_details"]["cached_tokens"] > 0 for g in got)


def test_a_sampled_request_is_served_one_at_a_time() -> None:
    from agentgym_envs.benchmarks.hf_batch import BatchingChatModel

    model, tokenizer = _model()
    chat = BatchingChatModel.from_loaded(model, tokenizer, "b", 4096, max_tokens=4)
    reply = chat.complete({"messages": CONVERSATIONS[0], "temperature": 1.0, "seed": 1})
    assert reply["choices"][0]["message"]["role"] == "assistant"
    assert chat.batches == []
