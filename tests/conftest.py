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
    "tests/integrations/test_adapter_sameness.py",
    "tests/integrations/test_harness_parallel.py",
    "tests/integrations/test_nemo_gym.py",
)

#: Modules whose tests go to both workers though they share a module-scoped fixture: each test
#: takes minutes, the fixture (a local model server) seconds.
SPLIT = ("tests/integrations/test_harness_local_model.py",)


#: Tests outside the Ray modules that start Ray clusters under the Ray tests' lock: the docs
#: page whose blocks run ``agentgym ray up`` and ``--ray`` (it joins their group, so it never
#: waits on the other worker for the lock).
RAY_PAGES = ("tests/docs/test_docs_code.py::test_page_code_runs[guides/scale-out.md]",)


def _group(item: pytest.Item) -> str | None:
    """The xdist group of ``item``: ``ray-cluster`` for the tests that hold the Ray lock
    (``tests/rollout/conftest.py``: one worker runs those modules one after the other, the
    other never waits for the lock); its module for a test that shares a module-scoped fixture
    (set up once, on one worker); ``None`` (a unit of its own) otherwise."""
    if "ray_lock" in getattr(item, "fixturenames", ()) or item.nodeid in RAY_PAGES:
        return "ray-cluster"
    module = item.nodeid.split("::", 1)[0]
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    if module not in SPLIT and any(d and d[-1].scope in ("module", "package") for d in defs):
        return module
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Group the tests (:func:`_group`); the Ray group first, then the :data:`HEAVY` tests in
    that order, then the rest as collected (xdist keeps that order: ``--no-loadscope-reorder``)."""
    groups = {}
    for item in items:
        group = groups[item.nodeid] = _group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))

    def rank(item: pytest.Item) -> int:
        if groups[item.nodeid] == "ray-cluster":
            return -1
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
