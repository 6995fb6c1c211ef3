"""The transformers runtime of the local model: SmolLM2-135M's GGUF served through transformers
(wheels only), answering as llama.cpp's server does -- for real, on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

httpx = pytest.importorskip("httpx")

from agentgym_envs.benchmarks.hf_server import _cut_at_stop, parse_tool_call, tools_prompt
from agentgym_envs.benchmarks.llm import ChatClient, ContextLengthError, Sampling
from agentgym_envs.benchmarks.local_llm import (
    LOCAL_MODEL_ALIAS,
    LocalLLMServer,
    default_runtime,
    local_llm_available,
)
from agentgym_envs.errors import AgentGymError

MOVE = {
    "type": "function",
    "function": {
        "name": "move",
        "description": "Move one step.",
        "parameters": {"type": "object", "properties": {"direction": {"type": "string"}}},
    },
}


@pytest.fixture(scope="module")
def hf_server():
    reason = local_llm_available("transformers")
    if reason:
        pytest.skip(reason)
    with LocalLLMServer(runtime="transformers", n_ctx=512, startup_timeout=600) as server:
        yield server


def _chat(server, **body):
    body = {"model": LOCAL_MODEL_ALIAS, "temperature": 0, "max_tokens": 8} | body
    return httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=600)


def test_it_answers_as_an_openai_endpoint(hf_server):
    client = ChatClient(hf_server.base_url, sampling=Sampling(max_tokens=8))
    assert client.check() == LOCAL_MODEL_ALIAS
    reply = client.chat([{"role": "user", "content": "Say hello."}])
    assert reply.content.strip()
    assert reply.usage["prompt_tokens"] > 0 and 0 < reply.usage["completion_tokens"] <= 8
    client.close()


def test_a_streamed_reply_is_the_same_reply_as_events(hf_server):
    messages = [{"role": "user", "content": "Name a colour."}]
    plain = _chat(hf_server, messages=messages).json()["choices"][0]["message"]["content"]
    with httpx.stream(
        "POST",
        f"{hf_server.base_url}/chat/completions",
        json={
            "model": LOCAL_MODEL_ALIAS,
            "messages": messages,
            "temperature": 0,
            "max_tokens": 8,
            "stream": True,
        },
        timeout=600,
    ) as r:
        lines = [x for x in r.iter_lines() if x.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    chunks = [json.loads(x[6:]) for x in lines[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) == plain
    assert chunks[-1]["choices"][0]["finish_reason"] in ("stop", "length")


def test_generation_stops_at_a_stop_string(hf_server):
    """A stop string ends generation where it appears (fewer tokens generated), and the reply
    is the text before it, as without the stop string."""
    messages = [{"role": "user", "content": "Count from one to twenty in words."}]
    full = _chat(hf_server, messages=messages, max_tokens=48).json()
    text = full["choices"][0]["message"]["content"]
    words = text.split()
    assert len(words) > 4, text
    stop = words[2]  # a word early in the reply
    cut = _chat(hf_server, messages=messages, max_tokens=48, stop=[stop]).json()
    assert cut["choices"][0]["message"]["content"] == text[: text.find(stop)]
    assert cut["choices"][0]["finish_reason"] == "stop"
    assert cut["usage"]["completion_tokens"] < full["usage"]["completion_tokens"]


def test_bad_requests_are_400_with_the_reason(hf_server):
    long = [{"role": "user", "content": "word " * 600}]
    r = _chat(hf_server, messages=long)
    assert r.status_code == 400 and "exceed context window" in r.json()["error"]["message"]
    with pytest.raises(ContextLengthError):
        ChatClient(hf_server.base_url, sampling=Sampling(max_tokens=8)).chat(long)
    assert _chat(hf_server, messages=[]).status_code == 400
    assert httpx.post(f"{hf_server.base_url}/chat/completions", content=b"[1]").status_code == 400


def test_tools_are_offered_and_a_json_call_is_read_back():
    assert '"name": "move"' in tools_prompt([MOVE])
    call = parse_tool_call('Sure: {"name": "move", "arguments": {"direction": "up"}}', [MOVE])
    assert call["function"] == {"name": "move", "arguments": '{"direction": "up"}'}
    assert parse_tool_call('{"name": "fly", "arguments": {}}', [MOVE]) is None
    assert parse_tool_call("no call here {", [MOVE]) is None
    assert _cut_at_stop("Action: up\nObservation: x", ["\nObservation"]) == ("Action: up", True)
    assert _cut_at_stop("abc", None) == ("abc", False)


def test_the_runtime_is_chosen_by_name_and_a_wrong_one_is_refused(monkeypatch):
    monkeypatch.setenv("AGENTGYM_LLM_RUNTIME", "transformers")
    assert default_runtime() == "transformers"
    monkeypatch.setenv("AGENTGYM_LLM_RUNTIME", "vllm")
    with pytest.raises(AgentGymError, match="use transformers or llama.cpp"):
        default_runtime()
    with pytest.raises(AgentGymError, match="unknown local model runtime 'onnx'"):
        LocalLLMServer(runtime="onnx")


def test_bench_policy_local_plays_on_the_transformers_runtime(tmp_path, monkeypatch):
    typer = pytest.importorskip("typer")
    from typer.testing import CliRunner

    from agentgym_envs.benchmarks.cli import register_cli

    if local_llm_available("transformers"):
        pytest.skip(local_llm_available("transformers"))
    monkeypatch.setenv("AGENTGYM_LLM_RUNTIME", "transformers")
    app = typer.Typer()
    app.command("noop")(lambda: None)
    register_cli(app)
    args = ["bench", "--envs", "Maze-v0", "--policy", "local", "--limit", "1"]
    args += ["--max-rounds", "1", "--out", str(tmp_path), "--no-progress"]
    r = CliRunner().invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    (record,) = [json.loads(x) for x in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert record["turns"] == 1 and 0 < record["tokens"]["completion_tokens"] <= 128
    settings = json.loads((tmp_path / "run.json").read_text())
    assert settings["policy"]["max_tokens"] == 128  # the local policy's shorter default


def test_a_checkpoint_folder_is_served_and_answers_as_its_gguf_does(hf_server):
    from agentgym_envs.benchmarks.hf_server import cache_dir
    from agentgym_envs.benchmarks.local_llm import smollm2_path

    folder = cache_dir(smollm2_path())  # the GGUF server's converted checkpoint
    assert (folder / "config.json").is_file()
    with pytest.raises(AgentGymError, match="checkpoint folder: the transformers runtime"):
        LocalLLMServer(folder, runtime="llama.cpp").command()
    prompt = [{"role": "user", "content": "Name a fruit."}]
    expected = _chat(hf_server, messages=prompt).json()["choices"][0]["message"]["content"]
    with LocalLLMServer(folder, runtime="transformers", n_ctx=512, startup_timeout=600) as server:
        reply = _chat(server, messages=prompt).json()["choices"][0]["message"]["content"]
    assert reply == expected and reply.strip()


def test_a_conversation_reuses_its_prefix_and_replies_as_without_it():
    if local_llm_available("transformers"):
        pytest.skip(local_llm_available("transformers"))
    from agentgym_envs.benchmarks.hf_server import ChatModel
    from agentgym_envs.benchmarks.local_llm import smollm2_path

    chat = ChatModel(smollm2_path(), LOCAL_MODEL_ALIAS, n_ctx=2048, n_threads=1)

    def play(reuse: bool) -> list[tuple[str, int]]:
        messages = [{"role": "user", "content": "You are in a maze. Which way do you move?"}]
        replies = []
        for turn in range(3):
            if not reuse:
                chat._slots.clear()
            body = {"messages": messages, "temperature": 0, "max_tokens": 12}
            completion = chat.complete(body)
            text = completion["choices"][0]["message"]["content"]
            replies.append((text, completion["usage"]["prompt_tokens_details"]["cached_tokens"]))
            messages += [
                {"role": "assistant", "content": text},
                {"role": "user", "content": f"You moved. Turn {turn}: which way now?"},
            ]
        return replies

    cold, warm = play(reuse=False), play(reuse=True)
    assert [text for text, _ in warm] == [text for text, _ in cold]
    assert all(cached == 0 for _, cached in cold)
    assert all(cached > 20 for _, cached in warm[1:])  # the conversation so far was not re-read
    # two conversations taking turns each keep their own cache
    other = [{"role": "user", "content": "Guess a five-letter word."}]
    first = chat.complete({"messages": other, "temperature": 0, "max_tokens": 12})
    chat.complete({"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4})
    other += [
        {"role": "assistant", "content": first["choices"][0]["message"]["content"]},
        {"role": "user", "content": "Wrong. Guess again."},
    ]
    again = chat.complete({"messages": other, "temperature": 0, "max_tokens": 12})
    assert (
        again["usage"]["prompt_tokens_details"]["cached_tokens"]
        > first["usage"]["prompt_tokens"] - 2
    )


def test_threads_follow_the_setting_else_the_machine_load(monkeypatch):
    from agentgym_envs.benchmarks import local_llm

    cores = local_llm.os.cpu_count() or 1
    monkeypatch.setattr(local_llm.os, "getloadavg", lambda: (cores + 5.0, 0.0, 0.0))
    assert local_llm._default_threads("transformers") == 1  # busy: one spinning thread at most
    assert local_llm._default_threads("llama.cpp") == cores
    monkeypatch.setattr(local_llm.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert local_llm._default_threads("transformers") == cores
    monkeypatch.setenv("AGENTGYM_LLM_THREADS", "3")
    assert local_llm._default_threads("transformers") == 3
    command = LocalLLMServer(Path("model.gguf"), runtime="transformers", port=1).command()
    assert command[command.index("--n_threads") + 1] == "3"
