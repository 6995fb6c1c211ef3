from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def local_llm():
    """SmolLM2 on llama.cpp, started once for the session (skipped without the extra)."""
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, local_llm_available

    reason = local_llm_available()
    if reason:
        pytest.skip(reason)
    with LocalLLMServer(n_ctx=4096) as server:
        yield server
