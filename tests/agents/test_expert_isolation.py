"""The expert chat server answers each conversation from that conversation alone: Wordle's
tasks all open with the same observation and the expert's first guess is the same for every
task, so conversations played side by side share their first turns -- and must still each get
their own task's guesses (three interleaved Cline episodes once all got task 1's). A stateless
server (``cache=False``) gives the same answers."""

from __future__ import annotations

import json

import gymnasium as gym
import httpx
import pytest

from agentgym_envs.agents.harness_expert import HarnessExpertServer

WORDLE = "AgentGym/Wordle-v0"
#: A harness's view of our env: its prefixed name for ``act`` and its own completion tool.
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "agentgym__act",
            "description": "Send one action.",
            "parameters": {
                "type": "object",
                "properties": {"action": {"type": "string"}},
                "required": ["action"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "attempt_completion",
            "description": "End the task.",
            "parameters": {"type": "object", "properties": {"result": {"type": "string"}}},
        },
    },
]


def _play(base_url, tasks, interleaved):
    """Each task's guesses and success, its conversation's requests sent one task after the
    other or in turn (one request per task per round)."""
    envs, conversations, guesses, ended = {}, {}, {}, {}
    for task in tasks:
        envs[task] = gym.make(WORDLE)
        obs, _ = envs[task].reset(options={"task_id": task, "split": "test"})
        conversations[task] = [
            {"role": "system", "content": [{"type": "text", "text": "You are a harness."}]},
            {"role": "user", "content": f"Play it.\n\n{obs}"},
        ]
        guesses[task] = []
    rounds = 8
    order = (
        [t for _ in range(rounds) for t in tasks]
        if interleaved
        else [t for t in tasks for _ in range(rounds)]
    )
    with httpx.Client(timeout=120) as client:
        for task in order:
            if task in ended:
                continue
            body = {"model": "expert", "messages": conversations[task], "tools": TOOLS}
            reply = client.post(f"{base_url}/chat/completions", json=body).json()
            message = reply["choices"][0]["message"]
            conversations[task].append(message)
            calls = message.get("tool_calls") or []
            if not calls or calls[0]["function"]["name"] != "agentgym__act":
                ended[task] = None  # the harness's completion: the model stopped
                continue
            guess = json.loads(calls[0]["function"]["arguments"])["action"]
            guesses[task].append(guess)
            obs, _, terminated, _, info = envs[task].step(guess)
            conversations[task].append(
                {"role": "tool", "tool_call_id": calls[0]["id"], "content": obs}
            )
            if terminated:
                ended[task] = info["success"]
    for env in envs.values():
        env.close()
    return guesses, ended


@pytest.mark.parametrize("cache", [True, False], ids=["cached", "stateless"])
def test_interleaved_conversations_each_get_their_own_tasks_guesses(cache):
    tasks = [1, 2, 3, 4]
    with HarnessExpertServer([WORDLE], cache=cache) as server:
        alone = {t: _play(server.base_url, [t], interleaved=False) for t in tasks}
    with HarnessExpertServer([WORDLE], cache=cache) as server:
        guesses, ended = _play(server.base_url, tasks, interleaved=True)
    for task in tasks:
        assert guesses[task] == alone[task][0][task], task
        assert ended[task] is True, task
    # the tasks share their first guess, then part ways: the case that used to cross-talk
    assert len({g[0] for g in guesses.values()}) == 1
    assert len({tuple(g) for g in guesses.values()}) == len(tasks)
