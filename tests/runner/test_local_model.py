"""A real ``lightweight`` battery against the local model (llama.cpp serving SmolLM2), reached
through the endpoint fallback: the first endpoint is down, the second plays."""

from __future__ import annotations

import json
import socket
from collections import Counter

from agentgym_envs.runner import (
    BATCH_COMPLETED,
    EPISODE_COMPLETED,
    EXIT_OK,
    battery_ids,
    parse_profile,
    run_profile,
    schema_errors,
)
from agentgym_envs.runner.preflight import failed, preflight


def _dead_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


def test_lightweight_battery_on_the_local_model_with_fallback(tmp_path, llm_server):
    profile = parse_profile(
        {
            "node": "workstation",
            "model": {
                "policy": "openai",
                "endpoints": [
                    {"name": "tensorzero", "base_url": _dead_url()},
                    {"name": "llama.cpp", "base_url": llm_server.base_url},
                ],
                "max_tokens": 24,
                "max_retries": 1,
            },
            "envs": ["lightweight"],
            "episodes": 1,
            "repeat": 2,
            "max_rounds": 1,
            "concurrency": 1,
            "output": str(tmp_path / "out"),
            "sinks": [{"type": "jsonl"}],
        }
    )
    checks = preflight(profile, [], tmp_path / "out", sinks=False)
    by_name = {c.name: c for c in checks if c.area == "endpoint"}
    assert not by_name["tensorzero"].ok and by_name["llama.cpp"].ok
    assert not failed(checks)

    result, left = run_profile(profile)
    assert result.exit_code == EXIT_OK and left == {"jsonl": 0}
    assert result.endpoint == "llama.cpp" and result.model == llm_server.alias
    ids = battery_ids("lightweight")
    results = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert Counter(r["env_id"] for r in results) == dict.fromkeys(ids, 2)
    assert all(r["endpoint"] == "llama.cpp" and not r.get("error") for r in results)
    played = [r for r in results if r["turns"] == 1]
    # a tool family's instructions can exceed SmolLM2's 4096-token context: AgentGym's stop
    assert all(r["truncation_reason"] == "context_length" for r in results if r["turns"] == 0)
    assert len({r["env_id"] for r in played}) >= len(ids) - 2
    assert all(r["tokens"]["completion_tokens"] > 0 for r in played)  # really generated
    events = [json.loads(x) for x in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    assert all(schema_errors(e) == [] for e in events)
    kinds = Counter(e["event"] for e in events)
    assert kinds[EPISODE_COMPLETED] == 2 * len(ids) and kinds[BATCH_COMPLETED] == len(ids)
    assert {e["model"] for e in events if e["event"] == EPISODE_COMPLETED} == {llm_server.alias}
