"""Live traffic splitting: the configured share of requests goes to each version (within a
statistical bound), sticky per end user, every decision recorded; routed executions feed the
offline A/B analysis; promote and rollback under load drop no request and never mix splits."""

from __future__ import annotations

import math
import threading
import time

from agentgym_envs.experience.ab import analyse
from agentgym_envs.platform import AgentGym
from tests.platform.helpers import as_key, count, login


def _agent(gym, name: str, versions=("1.0.0", "1.1.0")) -> str:
    agent_id = gym.register_agent(name=name, description="", version=versions[0])
    for v in versions[1:]:
        gym.register_version(agent_id, v)
    return agent_id


def test_the_split_share_is_kept_and_sticky_and_recorded(platform):
    """The issue's bar: within 3 points of the configured share over 10,000 requests (sent by
    the async SDK, 32 at a time, each a new end user), then the first 300 users again."""
    import asyncio

    from agentgym_envs.platform import AsyncClient

    n = 10_000
    with AgentGym(api_key=platform.a.key, base_url=platform.url) as gym:
        agent_id = _agent(gym, "Split share")
        split = gym.create_ab_test(agent_id, {"1.0.0": 70, "1.1.0": 30})
        assert split["revision"] == 1 and split["control"] == "1.0.0"

    async def main():
        async with AsyncClient(api_key=platform.a.key, base_url=platform.url) as gym:
            gate = asyncio.Semaphore(32)

            async def route(i):
                async with gate:
                    return (await gym.route(agent_id, f"user-{i}")).version

            first = await asyncio.gather(*(route(i) for i in range(n)))
            again = await asyncio.gather(*(route(i) for i in range(300)))
            return first, again

    first, again = asyncio.run(main())
    share = first.count("1.1.0") / n
    assert abs(share - 0.30) <= 0.03, share  # the bar
    bound = 4 * math.sqrt(0.3 * 0.7 / n)  # and 4 standard deviations of a binomial share
    assert abs(share - 0.30) < bound, (share, bound)
    assert again == first[:300]  # sticky: each user stays on their version
    decisions = count(
        platform.owner_url,
        f"SELECT count(*) FROM route_decisions d JOIN routes r ON r.id = d.route_id WHERE r.agent_id = '{agent_id}'",
    )
    assert decisions == n + 300


def test_routed_executions_feed_the_offline_split_analysis(platform):
    with AgentGym(api_key=platform.a.key, base_url=platform.url) as gym:
        agent_id = _agent(gym, "Split analysis")
        gym.create_ab_test(agent_id, {"1.0.0": 50, "1.1.0": 50})
        calls = {"1.0.0": 0, "1.1.0": 0}

        def make(version, good_every):
            def agent(q, ctx, trace):
                calls[version] += 1
                trace.outcome(int(q) % good_every == 0)
                return version

            return agent

        gym.bind(agent_id, make("1.0.0", 5), version="1.0.0")  # 20% success
        gym.bind(agent_id, make("1.1.0", 1), version="1.1.0")  # 100% success
        results = [gym.execute_with_feedback(agent_id, str(i), user=f"u{i}") for i in range(120)]
        assert all(r.output == r.version for r in results)  # each version ran its own callable
        report = gym.ab_test_results(agent_id)
    assert report["executions"] == calls
    cmp = report["comparisons"]["1.1.0"]
    assert cmp["mode"] == "split" and cmp["success"]["significant"] and cmp["success"]["diff"] > 0.5
    # the same numbers as the offline analysis on the same records
    by = {"1.0.0": [], "1.1.0": []}
    for r in results:
        by[r.version].append(
            {
                "env_id": "platform/Split analysis",
                "item_id": r.execution_id,
                "success": r.success,
                "reward": r.score,
            }
        )
    offline = analyse(by["1.0.0"], by["1.1.0"], mode="split")
    with login(platform.url, "org-a", platform.a.admin) as admin:  # the dashboard's A/B page
        page = admin.get(f"/ab/{report['ab_test_id']}")
        assert page.status_code == 200 and "live split" in page.text and "Fisher" in page.text
    assert offline["success"]["p_value"] == cmp["success"]["p_value"]
    assert offline["success"]["diff"] == cmp["success"]["diff"]


def test_promote_and_rollback_under_load_drop_no_request(platform):
    with AgentGym(api_key=platform.a.key, base_url=platform.url) as gym:
        agent_id = _agent(gym, "Split load", ("1.0.0", "1.1.0", "1.2.0"))
        splits = {1: gym.create_ab_test(agent_id, {"1.0.0": 80, "1.1.0": 20})["arms"]}
        stop = threading.Event()
        answers: list[tuple[int, int, str]] = []
        lock = threading.Lock()

        def hammer(worker: int) -> None:
            with as_key(platform.url, platform.a.key) as c:
                i = 0
                while not stop.is_set():
                    r = c.post(f"/v1/agents/{agent_id}/route", json={"user": f"w{worker}-{i}"})
                    with lock:
                        answers.append(
                            (
                                r.status_code,
                                r.json().get("revision", -1),
                                r.json().get("version", ""),
                            )
                        )
                    i += 1

        threads = [threading.Thread(target=hammer, args=(w,)) for w in range(6)]
        for t in threads:
            t.start()

        def wait_for(count: int) -> None:  # a loaded machine may be slow to start the clients
            deadline = time.monotonic() + 600
            while len(answers) < count and time.monotonic() < deadline:
                time.sleep(0.05)

        try:
            wait_for(6)  # requests are in flight before the first change
            for step in range(4):
                r = gym.promote(agent_id, "1.1.0")
                splits[r["revision"]] = r["arms"]
                r = gym.rollback(agent_id)
                splits[r["revision"]] = r["arms"]
                assert r["arms"]["1.0.0"] == 100.0
                r = gym.create_ab_test(
                    agent_id, {"1.0.0": 50, "1.1.0": 50} if step % 2 else {"1.0.0": 80, "1.1.0": 20}
                )
                splits[r["revision"]] = r["arms"]
            wait_for(len(answers) + 50)
        finally:
            stop.set()
            for t in threads:
                t.join()
    assert len(answers) > 50
    assert {status for status, _, _ in answers} == {200}
    for _, revision, version in answers:  # every answer follows the split of its revision
        assert splits[revision][version] > 0, (revision, version, splits[revision])
    with as_key(platform.url, platform.a.key) as c:
        assert c.get(f"/v1/agents/{agent_id}/split").json()["revision"] == max(splits)
    decisions = count(  # every answered request was recorded, under its revision
        platform.owner_url,
        "SELECT count(*) FROM route_decisions d JOIN routes r ON r.id = d.route_id"
        f" WHERE r.agent_id = '{agent_id}'",
    )
    assert decisions == len(answers)


def test_split_input_is_checked(platform):
    with as_key(platform.url, platform.a.key) as c:
        agent_id = c.post("/v1/agents", json={"name": "Split checks", "version": "1"}).json()["id"]
        for arms, needle in (
            ({"1": 60}, "add up to 60"),
            ({"2": 100}, "no version"),
            ({"1": "x"}, "percentage"),
            ([], "arms"),
        ):
            r = c.put(f"/v1/agents/{agent_id}/split", json={"arms": arms})
            assert r.status_code in (400, 404) and needle in r.json()["detail"], (arms, r.text)
        assert c.post(f"/v1/agents/{agent_id}/route", json={"user": "u"}).status_code == 404
        assert c.post(f"/v1/agents/{agent_id}/route", json={}).status_code == 400
