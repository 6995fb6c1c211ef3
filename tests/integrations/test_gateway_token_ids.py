"""Token ids and logprobs from our transformers server, recorded per model call by the gateway
(plain and streamed), and a harness history that compaction rewrote flagged non-monotonic at
its first rewritten call -- with SmolLM2 served on 127.0.0.1 behind the real gateway."""

from __future__ import annotations

import json
import math

import httpx
import pytest

pytest.importorskip("starlette")
pytest.importorskip("fastapi")
pytest.importorskip("torch")
pytest.importorskip("transformers")

from agentgym_envs.integrations.gateway import Gateway, create_app
from agentgym_envs.integrations.harnesses.runner import ServedApp


@pytest.fixture(scope="module")
def served():
    """SmolLM2-135M served by the local transformers server (greedy, short replies)."""
    from agentgym_envs.benchmarks.hf_server import ChatModel, build_app
    from agentgym_envs.benchmarks.local_llm import local_llm_available, smollm2_path

    reason = local_llm_available("transformers")
    if reason:
        pytest.skip(reason)
    chat = ChatModel(smollm2_path(), "smollm2", 4096, None)
    chat.max_tokens, chat.temperature = 6, 0.0
    with ServedApp(build_app(chat)) as app:
        yield chat, app.url


def _read(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_local_server_returns_token_ids_and_logprobs_as_vllm_does(served):
    chat, url = served
    messages = [{"role": "user", "content": "Say hi."}]
    body = {"model": "smollm2", "messages": messages, "logprobs": True, "top_logprobs": 2}
    data = httpx.post(
        f"{url}/v1/chat/completions", json={**body, "return_token_ids": True}, timeout=600
    ).json()
    choice = data["choices"][0]
    expected = chat.tokenizer.apply_chat_template(
        messages, add_generation_prompt=True, return_dict=True
    )["input_ids"]
    assert data["prompt_token_ids"] == list(expected)
    assert len(choice["token_ids"]) == data["usage"]["completion_tokens"] > 0
    content = choice["logprobs"]["content"]
    assert [c["token"] for c in content] == [
        chat.tokenizer.decode([t]) for t in choice["token_ids"]
    ]
    assert all(c["logprob"] <= 0 and len(c["top_logprobs"]) == 2 for c in content)
    # greedy: each chosen token is the likeliest one
    assert all(math.isclose(c["logprob"], c["top_logprobs"][0]["logprob"]) for c in content)
    plain = httpx.post(f"{url}/v1/chat/completions", json={"messages": messages}, timeout=600)
    assert "prompt_token_ids" not in plain.json() and "logprobs" not in plain.json()["choices"][0]


def test_token_ids_are_recorded_per_model_call_through_the_gateway(served, tmp_path):
    _, url = served
    gateway = Gateway(
        "AgentGym/Wordle-v0", f"{url}/v1", tmp_path, token_ids=True, session_auth=False
    )
    with ServedApp(create_app(gateway)) as gw:
        first = [{"role": "user", "content": "Say hi."}]
        a = httpx.post(
            f"{gw.url}/s/tok/v1/chat/completions", json={"messages": first}, timeout=600
        ).json()
        second = [*first, a["choices"][0]["message"], {"role": "user", "content": "Again."}]
        with httpx.stream(
            "POST",
            f"{gw.url}/s/tok/v1/chat/completions",
            json={"messages": second, "stream": True},
            timeout=600,
        ) as r:
            events = [line for line in r.iter_lines() if line.startswith("data: {")]
        assert events
        httpx.post(f"{gw.url}/s/tok/finish", timeout=600)
    (chat,) = _read(tmp_path / "chat.jsonl")
    calls = _read(tmp_path / "sessions" / "tok.jsonl")
    assert [t["call"] for t in chat["token_ids"]] == [0, 1]
    for rec, call in zip(chat["token_ids"], calls, strict=True):
        n = call["usage"]["completion_tokens"]
        assert len(rec["token_ids"]) == len(rec["logprobs"]) == n > 0
        assert len(rec["prompt_token_ids"]) == call["usage"]["prompt_tokens"]
    # the second prompt starts with the first prompt and the first reply's tokens
    t0, t1 = chat["token_ids"]
    assert t1["prompt_token_ids"][: len(t0["prompt_token_ids"])] == t0["prompt_token_ids"]
    assert chat["monotonic"] is True and chat["rewritten_at"] is None


def test_a_compacted_history_is_flagged_non_monotonic(served, tmp_path):
    _, url = served
    gateway = Gateway("AgentGym/Wordle-v0", f"{url}/v1", tmp_path, session_auth=False)
    system = {"role": "system", "content": "You are a terse assistant."}
    with ServedApp(create_app(gateway)) as gw:

        def ask(messages):
            r = httpx.post(
                f"{gw.url}/s/compact/v1/chat/completions", json={"messages": messages}, timeout=600
            )
            return r.json()["choices"][0]["message"]

        history = [system, {"role": "user", "content": "Count to three."}]
        history += [ask(history), {"role": "user", "content": "And to four?"}]
        history += [ask(history), {"role": "user", "content": "And five?"}]
        ask(history)
        # the harness compacts: the turns so far become one summary
        summary = {"role": "user", "content": "Summary: we counted. Now count to six."}
        ask([system, summary])
        httpx.post(f"{gw.url}/s/compact/finish", timeout=600)
    (chat,) = _read(tmp_path / "chat.jsonl")
    (record,) = _read(tmp_path / "agenttraj.jsonl")
    assert (chat["monotonic"], chat["rewritten_at"]) == (False, 3)
    assert (record["monotonic"], record["rewritten_at"]) == (False, 3)


def test_a_closed_model_refuses_requests(served):
    from agentgym_envs.benchmarks.hf_server import ChatModel, build_app

    chat, _ = served
    closing = ChatModel.from_loaded(chat.model, chat.tokenizer, "closing", 4096, max_tokens=4)
    with ServedApp(build_app(closing)) as app:
        body = {"messages": [{"role": "user", "content": "Say hi."}]}
        assert httpx.post(f"{app.url}/v1/chat/completions", json=body, timeout=600).is_success
        closing.close()  # returns once no request is running
        refused = httpx.post(f"{app.url}/v1/chat/completions", json=body, timeout=600)
    assert refused.status_code == 400 and "closed" in refused.json()["error"]["message"]
