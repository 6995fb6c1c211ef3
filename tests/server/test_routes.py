"""``Runner``: handlers start in the thread pool and move to the event loop while fast."""

from __future__ import annotations

import asyncio
import threading

from agentgym_envs.server.routes import Runner


def _threads(runner: Runner, calls: int) -> list[bool]:
    """For each call, whether the handler ran on the event loop's thread."""
    seen: list[bool] = []

    async def main() -> None:
        loop_thread = threading.current_thread()
        for _ in range(calls):
            await runner(loop_thread)

    runner.handler = lambda loop_thread: seen.append(threading.current_thread() is loop_thread)
    asyncio.run(main())
    return seen


def test_fast_handler_moves_to_the_event_loop_after_a_streak():
    runner = Runner(lambda _: None, fast_seconds=float("inf"), fast_calls=3)
    assert _threads(runner, 5) == [False, False, False, True, True]


def test_slow_handler_stays_in_the_thread_pool():
    runner = Runner(lambda _: None, fast_seconds=0.0, fast_calls=1)
    assert _threads(runner, 4) == [False] * 4 and not runner.inline


def test_failures_are_error_replies():
    def fail(_):
        raise ValueError("bad index")

    def crash(_):
        raise RuntimeError("boom")

    assert asyncio.run(Runner(fail)(None)) == {"error": "bad index"}
    assert asyncio.run(Runner(crash)(None)) == {"error": "RuntimeError: boom"}
    assert asyncio.run(Runner(lambda _: {}["k"])(None)) == {"error": "missing key 'k'"}
