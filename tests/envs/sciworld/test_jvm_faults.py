"""A frozen (SIGSTOP) or killed ScienceWorld JVM: one line of env error, never a hang or garbage.

Each test runs on a pool of its own (one JVM) so the session's shared pool is not harmed.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

from agentgym_envs.envs.sciworld.simulator import SimulatorPool, _process_state

from .conftest import _skip_without_simulator


@pytest.fixture
def own_env():
    _skip_without_simulator()
    from agentgym_envs.envs.sciworld.env import SciWorldEnv

    pool = SimulatorPool(per_jvm=1, call_timeout=30)
    env = SciWorldEnv(pool=pool)
    env.reset(seed=0, options={"task_id": 0, "split": "test"})
    yield env, pool
    env.close()
    pool.close()


def _assert_env_error(result):
    obs, _, terminated, _, info = result
    assert obs.startswith("Environment error:") and "\n" not in obs
    assert "ScienceWorld JVM" in info["error"]
    assert terminated and info["outcome"] == "env_error" and info["reward_valid"] is False


def _wait_until_stopped(pid: int) -> None:
    deadline = time.monotonic() + 60
    while _process_state(pid) not in ("T", "t"):
        assert time.monotonic() < deadline, "the JVM never showed as stopped"
        time.sleep(0.01)


def _next_step_after_the_error(env):
    obs, _, _, _, info = env.step("look around")
    assert info["error"] == "episode has ended" and "Interface" not in obs


def test_a_killed_jvm_is_one_line_of_error_then_reset_starts_a_new_one(own_env):
    env, pool = own_env
    old = pool.jvms[0]
    os.kill(old.pid, signal.SIGKILL)
    _assert_env_error(env.step("look around"))
    _next_step_after_the_error(env)
    obs, _ = env.reset(seed=0, options={"task_id": 0, "split": "test"})
    assert "Your task is to" in obs and env.simulator.jvm is not old
    obs, _, _, _, info = env.step("look around")
    assert "error" not in info and "This room is called" in obs


def test_a_frozen_jvm_is_detected_killed_and_reported(own_env):
    env, pool = own_env
    old = pool.jvms[0]
    os.kill(old.pid, signal.SIGSTOP)
    _wait_until_stopped(old.pid)  # SIGSTOP lands asynchronously; a loaded machine shows the lag
    try:
        result = env.step("look around")
        _assert_env_error(result)
        assert "frozen" in result[4]["error"]
        assert old.process.poll() is not None  # killed, not left stopped
    finally:
        if old.process.poll() is None:
            os.kill(old.pid, signal.SIGKILL)
    _next_step_after_the_error(env)
    obs, _ = env.reset(seed=0, options={"task_id": 0, "split": "test"})
    assert "Your task is to" in obs and env.simulator.jvm is not old


def test_a_jvm_that_stops_answering_mid_call_hits_the_call_deadline():
    _skip_without_simulator()
    from agentgym_envs.envs.sciworld.env import SciWorldEnv

    pool = SimulatorPool(per_jvm=1, call_timeout=30)
    env = SciWorldEnv(pool=pool)
    try:
        env.reset(seed=0, options={"task_id": 0, "split": "test"})
        jvm = pool.jvms[0]
        # freeze it only after the liveness check has passed, inside the call
        original = jvm._check_alive

        def freeze_after_check():
            original()
            os.kill(jvm.pid, signal.SIGSTOP)

        jvm._check_alive = freeze_after_check
        # a JVM hung some other way looks alive to the freeze watchdog: only the deadline helps
        jvm.kill_if_frozen = lambda: False
        _, _, terminated, _, info = env.step("look around")
        assert "did not answer within 30 s" in info["error"] and terminated
        assert info["reward_valid"] is False and jvm.process.poll() is not None
    finally:
        env.close()
        pool.close()


def test_a_jvm_frozen_mid_step_is_cut_and_killed_without_touching_the_other_sessions_jvm():
    """Two sessions, each on its own JVM; A's JVM is SIGSTOPped while A's step is inside it. A's
    step ends as an env error as soon as the watchdog sees the stopped process (not at the
    call deadline, set far off here), A's JVM is killed, and B steps on its JVM untouched."""
    import threading

    _skip_without_simulator()
    from agentgym_envs.envs.sciworld.env import SciWorldEnv

    pool = SimulatorPool(per_jvm=1, call_timeout=3600)  # only the watchdog can cut it in time
    a, b = SciWorldEnv(pool=pool), SciWorldEnv(pool=pool)
    try:
        for env in (a, b):
            env.reset(seed=0, options={"task_id": 0, "split": "test"})
        jvm_a, jvm_b = a.simulator.jvm, b.simulator.jvm
        assert jvm_a is not jvm_b
        original = jvm_a._check_alive

        def freeze_after_check():
            original()
            os.kill(jvm_a.pid, signal.SIGSTOP)
            _wait_until_stopped(jvm_a.pid)

        jvm_a._check_alive = freeze_after_check
        results = {}
        steps = [
            threading.Thread(target=lambda e=env, k=key: results.update({k: e.step("look around")}))
            for key, env in (("a", a), ("b", b))
        ]
        for thread in steps:
            thread.start()
        for thread in steps:
            thread.join(300)
        assert "a" in results, "the step on the frozen JVM hung"
        _assert_env_error(results["a"])
        assert "frozen" in results["a"][4]["error"]
        assert jvm_a.process.poll() is not None  # killed, not left stopped
        obs_b, _, _, _, info_b = results["b"]
        assert "error" not in info_b and "This room is called" in obs_b
        assert jvm_b.process.poll() is None and not jvm_b.closed
        obs_b, _, _, _, info_b = b.step("look around")
        assert "error" not in info_b and b.simulator.jvm is jvm_b
        obs, _ = a.reset(seed=0, options={"task_id": 0, "split": "test"})
        assert "Your task is to" in obs and a.simulator.jvm not in (jvm_a, jvm_b)
    finally:
        for env in (a, b):
            env.close()
        pool.close()
