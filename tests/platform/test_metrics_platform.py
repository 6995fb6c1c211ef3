"""``/metrics`` of the real ``agentgym platform serve`` process, scraped: requests by route
template, latency histograms, recorded executions by outcome and live sessions move as the SDK
works, no organisation's names or ids show, and every metric the Grafana dashboard queries is
in the scrape."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("prometheus_client")

from agentgym_envs.platform import AgentGym
from tests.platform.helpers import as_key
from tests.test_metrics import DASHBOARD, _metric_names, scrape, value


def test_the_platform_counts_requests_executions_and_sessions(platform):
    before = scrape(platform.url)
    for outcome in ("success", "failure", "invalid_action"):  # every outcome starts at 0
        labels = {"service": "platform", "env": "platform", "outcome": outcome}
        assert ("agentgym_episodes_total", tuple(sorted(labels.items()))) in before
    with AgentGym(api_key=platform.b.key, base_url=platform.url) as gym:
        agent_id = gym.register_agent(name="Metered Secret", description="", version="1.0.0")
        for q in ("a", "b", "c"):
            gym.execute_with_feedback(agent_id, q, agent=lambda x, ctx: x)
        gym.record_execution(agent_id, "d", "nope", success=False)
        gym.record_execution(agent_id, "e", "loop", outcome="turn_limit", success=False)
    with as_key(platform.url, platform.b.key) as c:
        assert c.get(f"/v1/agents/{agent_id}/executions/not-a-uuid").status_code in (400, 404)
    after = scrape(platform.url)
    text = __import__("httpx").get(platform.url + "/metrics", timeout=30).text

    def delta(name, **labels):
        return value(after, name, service="platform", **labels) - value(
            before, name, service="platform", **labels
        )

    assert delta("agentgym_episodes_total", env="platform", outcome="success") == 3
    assert delta("agentgym_episodes_total", env="platform", outcome="failure") == 1
    assert delta("agentgym_episodes_total", env="platform", outcome="turn_limit") == 1
    route = "/v1/agents/{agent_id}/executions"
    assert delta("agentgym_http_requests_total", method="POST", route=route, status=201) == 5
    assert delta("agentgym_http_request_duration_seconds_count", method="POST", route=route) == 5
    assert delta("agentgym_http_request_duration_seconds_bucket", route=route, le="+Inf") == 5
    # the scrape itself holds no tenant session; between requests none is open
    assert value(after, "agentgym_live_sessions", service="platform") == 0
    # route templates, never ids or names: nothing of an organisation in a public page
    assert agent_id not in text and "Metered Secret" not in text


def test_the_grafana_dashboard_queries_what_the_platform_exports(platform):
    scraped = {name for name, _ in scrape(platform.url)}
    dash = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    for expr in exprs:
        unknown = _metric_names(expr) - scraped
        assert not unknown, f"{expr!r} names {unknown}, which the platform does not export"
