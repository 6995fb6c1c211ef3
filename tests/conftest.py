"""Shared fixtures. Keep this small: each area's own fixtures live in its test folder."""

from __future__ import annotations

import pytest

#: Tests that take minutes on CI's 2 cores (the last full run: 100-750 s each), by node id
#: prefix. They are collected first, so that xdist (``--dist loadgroup``, pyproject.toml) hands
#: them out before the short ones and its two workers end together, not one of them alone on
#: a long test at the end. A renamed test only loses its place here.
HEAVY = (
    "tests/integrations/test_harness_local_model.py",
    "tests/envs/test_contract.py::test_expert_solves_every_test_task_and_random_scores_lower",
    "tests/envs/webarena/test_webarena_task_set.py::test_expert_walks_from_the_start_page",
    "tests/runner/test_local_model.py",
    "tests/train/test_harness_loop.py",
    "tests/docs/test_docs_code.py::test_page_code_runs[guides/scale-out.md]",
    "tests/integrations/test_adapter_sameness.py",
    "tests/integrations/test_harness_parallel.py",
    "tests/integrations/test_nemo_gym.py",
)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The :data:`HEAVY` tests first, in that order; the rest as collected. Every test that
    holds the Ray lock (``tests/rollout/conftest.py``) goes to one xdist group: one worker runs
    those modules one after the other, and the other worker never idles waiting for the lock."""
    for item in items:
        if "ray_lock" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("ray-cluster"))

    def rank(item: pytest.Item) -> int:
        return next((i for i, p in enumerate(HEAVY) if item.nodeid.startswith(p)), len(HEAVY))

    items.sort(key=rank)  # stable: each part keeps its collection order


@pytest.fixture(scope="session")
def llm_server():
    """A real OpenAI-compatible server on 127.0.0.1: llama.cpp serving SmolLM2-135M-Instruct
    (extra ``local-llm``). Started once per test session, stopped by its pid at the end."""
    from agentgym_envs.benchmarks.local_llm import LocalLLMServer, local_llm_available

    reason = local_llm_available()
    if reason:
        pytest.skip(f"needs the local model server: {reason}")
    server = LocalLLMServer(n_ctx=4096, startup_timeout=300)
    server.start()
    yield server
    server.stop()
