"""The gateway records what the upstream returns of its tokens: with ``token_ids=True`` it asks
for them (vLLM's ``return_token_ids``, OpenAI ``logprobs``) without changing the recorded
request, and keeps the logprobs of plain and streamed completions -- here from the real local
model (llama.cpp returns logprobs; it has no token-id option)."""

from __future__ import annotations

import json

import httpx
import pytest

pytest.importorskip("mcp")

from agentgym_envs.benchmarks.local_llm import (
    LOCAL_MODEL_ALIAS,
    LocalLLMServer,
    local_llm_available,
)
from agentgym_envs.integrations.gateway import Gateway, create_app
from agentgym_envs.integrations.harnesses.runner import ServedApp


@pytest.fixture(scope="module")
def local():
    reason = local_llm_available()
    if reason:
        pytest.skip(reason)
    with LocalLLMServer(n_ctx=1024) as server:
        yield server


def test_logprobs_of_plain_and_streamed_completions_are_recorded(local, tmp_path):
    gateway = Gateway("Maze-v0", local.base_url, tmp_path, token_ids=True)
    body = {
        "model": LOCAL_MODEL_ALIAS,
        "messages": [{"role": "user", "content": "Say one word."}],
        "max_tokens": 6,
        "temperature": 0,
    }
    owner = {"X-Session-Token": "tok-secret"}  # the session is ours on every call
    with ServedApp(create_app(gateway)) as served, httpx.Client(headers=owner) as http:
        url = f"{served.url}/s/tok/v1/chat/completions"
        plain = http.post(url, json=body, timeout=300).json()
        with http.stream("POST", url, json={**body, "stream": True}, timeout=300) as r:
            lines = [line for line in r.iter_lines() if line.startswith("data:")]
        assert lines[-1] == "data: [DONE]"
        record = http.post(f"{served.url}/s/tok/finish", timeout=60).json()
    calls = [json.loads(line) for line in (tmp_path / "sessions" / "tok.jsonl").open()]
    assert len(calls) == 2
    for call in calls:
        assert "return_token_ids" not in call["request"]  # the harness's request, as sent
        assert call["logprobs"] and all(isinstance(x, float) for x in call["logprobs"])
        assert len(call["logprobs"]) == len(call["logprob_tokens"])
        assert (
            "".join(call["logprob_tokens"]).strip() == (call["response"]["content"] or "").strip()
        )
    assert plain["choices"][0]["logprobs"]["content"]  # passed back to the harness too
    chat = json.loads((tmp_path / "chat.jsonl").read_text().splitlines()[-1])
    assert [c["logprobs"] for c in chat["token_ids"]] == [c["logprobs"] for c in calls]
    assert record["model_calls"] == 2
