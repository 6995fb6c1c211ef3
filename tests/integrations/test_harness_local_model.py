"""Every pre-built harness plays a Wordle episode on the local SmolLM2-135M (the default
runtime, started here) to an outcome that judges the model -- ``success``, ``failure`` or
``token_limit`` (its reply ran out of tokens and the harness gave up) or ``turn_limit`` (it made
:data:`MAX_CALLS` model calls without ending the episode), reward valid -- never ``env_error``
or ``time_limit``: whatever the small model answers, the server takes each harness's requests
(content parts, tool turns, ``tool_choice``, streams, long prompts) and answers them. The cap
bounds a harness that goes on calling (each call of a harness's long prompt may take minutes
on a loaded CPU) without changing what is proved: its first calls carry every kind of request
it makes. A harness that is not installed is skipped as in ``test_harnesses.py``."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from agentgym_envs.benchmarks.local_llm import LocalLLMServer, local_llm_available
from agentgym_envs.integrations.harnesses import names
from agentgym_envs.integrations.harnesses.cli import LOCAL_CONTEXT, LOCAL_MAX_TOKENS
from agentgym_envs.integrations.harnesses.runner import run_harness
from tests.integrations.test_harnesses import installed

#: Model calls an episode may make here: the first request, tool turns and the side calls.
MAX_CALLS = 6


@pytest.fixture(scope="module")
def local_model():
    reason = local_llm_available()
    if reason:
        pytest.skip(reason)
    with LocalLLMServer(
        n_ctx=LOCAL_CONTEXT, max_tokens=LOCAL_MAX_TOKENS, startup_timeout=900
    ) as server:
        yield server


@pytest.mark.parametrize("name", names())
def test_harness_plays_an_episode_on_the_local_model(name, local_model, tmp_path):
    harness = installed(name)
    result = run_harness(
        harness,
        "Wordle-v0",
        0,
        local_model.base_url,
        out=tmp_path,
        timeout=1800,
        max_calls=MAX_CALLS,
    )
    outcomes = ("success", "failure", "token_limit", "turn_limit")
    assert result.outcome in outcomes, (result.outcome, result.error)
    assert result.reward_valid and result.model_calls >= 1
    calls = [json.loads(line) for line in next((tmp_path / "sessions").iterdir()).open()]
    # every request the harness made was answered (no 4xx / 5xx from the server); a call cut
    # short by the stop at the cap is the runner's doing, not the server's
    calls = calls[:MAX_CALLS] if result.outcome == "turn_limit" else calls
    assert all(c.get("response") is not None and not c.get("error") for c in calls), [
        c.get("error") for c in calls
    ]
    assert result.tokens["prompt_tokens"] > 1000  # the harness's own long prompt, served
