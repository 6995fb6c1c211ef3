"""Prometheus metrics: real servers on 127.0.0.1 (``agentgym serve``, the recording gateway, the
agent server, an app instrumented as the platform is) play real episodes, then ``/metrics`` is
scraped and the counters, histograms and gauges must have moved. The Grafana dashboard may only
query metrics that are exported."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("prometheus_client")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")

import gymnasium as gym
from prometheus_client.parser import text_string_to_metric_families

import agentgym_envs
from agentgym_envs.core import OUTCOMES
from agentgym_envs.metrics import METRIC_NAMES, exported_series
from tests.served import Served

DASHBOARD = Path(__file__).resolve().parents[1] / "deploy" / "grafana" / "agentgym.json"


def scrape(url: str) -> dict[tuple[str, tuple], float]:
    """``/metrics`` as ``{(sample name, sorted labels): value}``."""
    reply = httpx.get(url + "/metrics", timeout=30)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(reply.text):
        for s in family.samples:
            out[s.name, tuple(sorted(s.labels.items()))] = s.value
    return out


def value(samples, name: str, **labels) -> float:
    """Sum of the samples named ``name`` whose labels include ``labels``."""
    return sum(
        v
        for (n, lab), v in samples.items()
        if n == name and all(dict(lab).get(k) == str(w) for k, w in labels.items())
    )


def test_serve_counts_requests_latency_episodes_and_sessions():
    from agentgym_envs.server.app import create_app
    from agentgym_envs.server.client import RemoteTextEnv

    with Served(create_app("Maze-v0")) as url:
        before = scrape(url)
        assert value(before, "agentgym_http_requests_total", route="/step") == 0
        for outcome in OUTCOMES:  # every outcome exists at 0 before the first episode
            labels = {"service": "serve", "env": "AgentGym/Maze-v0", "outcome": outcome}
            assert before["agentgym_episodes_total", tuple(sorted(labels.items()))] == 0
        env = RemoteTextEnv(url, "Maze-v0")
        local = gym.make("AgentGym/Maze-v0")
        policy = agentgym_envs.expert_policy(local)
        obs, info = local.reset(options={"task_id": 3, "split": "test"})
        env.reset(options={"task_id": 3, "split": "test"})
        steps = 0
        for _ in range(50):
            action = policy(obs, info)
            obs, _, terminated, truncated, info = local.step(action)
            _, _, rterm, _, _ = env.step(action)
            steps += 1
            assert rterm == terminated
            if terminated or truncated:
                break
        assert info["success"]
        during = scrape(url)
        env.close()
        after = scrape(url)
    served = {"service": "serve", "env": "AgentGym/Maze-v0"}
    assert value(during, "agentgym_episodes_total", outcome="success", **served) == 1
    assert value(during, "agentgym_episodes_total", outcome="failure", **served) == 0
    assert value(during, "agentgym_http_requests_total", route="/step", status=200) == steps
    assert value(during, "agentgym_http_request_duration_seconds_count", route="/step") == steps
    assert value(during, "agentgym_http_request_duration_seconds_sum", route="/step") > 0
    inf = value(during, "agentgym_http_request_duration_seconds_bucket", route="/step", le="+Inf")
    assert inf == steps
    assert value(during, "agentgym_live_sessions", service="serve") == 1
    assert value(after, "agentgym_live_sessions", service="serve") == 0
    assert value(after, "agentgym_http_requests_total", route="/close") == 1


def test_serve_labels_routes_not_raw_paths():
    from agentgym_envs.server.app import create_app

    with Served(create_app("Wordle-v0")) as url:
        for i in range(5):
            assert httpx.get(f"{url}/no/such/{i}").status_code == 404
        samples = scrape(url)
    routes = {dict(lab).get("route") for (n, lab) in samples if n == "agentgym_http_requests_total"}
    assert value(samples, "agentgym_http_requests_total", route="other", status=404) == 5
    assert not any(r and r.startswith("/no/") for r in routes)


@pytest.fixture(scope="module")
def expert():
    from agentgym_envs.agents import ExpertChatServer

    with ExpertChatServer(["AgentGym/Maze-v0", "AgentGym/BabyAI-v0"]) as server:
        yield server


def test_gateway_counts_chat_env_calls_and_written_episodes(expert, tmp_path):
    pytest.importorskip("mcp")
    openai = pytest.importorskip("openai")
    from agentgym_envs.integrations.gateway import Gateway, create_app
    from agentgym_envs.integrations.ownership import TOKEN_HEADER

    key = {TOKEN_HEADER: "secret-of-g1-0123456789abcdef"}
    with Served(create_app(Gateway("AgentGym/Maze-v0", expert.base_url, tmp_path))) as base:
        model = openai.OpenAI(base_url=f"{base}/s/g1/v1", api_key="none", default_headers=key)
        env = httpx.Client(base_url=f"{base}/s/g1/env", headers=key)
        data = env.post("/reset", json={"task_id": 2}).json()
        messages = [{"role": "user", "content": data["observation"]}]
        calls = 0
        for _ in range(30):
            text = model.chat.completions.create(model="expert", messages=messages)
            text = text.choices[0].message.content
            calls += 1
            messages.append({"role": "assistant", "content": text})
            data = env.post("/step", json={"action": text.split("Action:")[-1].strip()}).json()
            messages.append({"role": "user", "content": data["observation"]})
            if data["done"]:
                break
        assert data["success"]
        live = scrape(base)
        assert httpx.post(f"{base}/s/g1/finish", headers=key).json()["success"]
        done = scrape(base)
    chat = "/s/{session}/v1/chat/completions"
    assert value(live, "agentgym_http_requests_total", service="gateway", route=chat) == calls
    assert value(live, "agentgym_http_requests_total", route="/s/{session}/env/step") == calls
    assert value(live, "agentgym_http_request_duration_seconds_count", route=chat) == calls
    assert value(live, "agentgym_live_sessions", service="gateway") == 1
    assert value(live, "agentgym_episodes_total", service="gateway", outcome="success") == 0
    assert value(done, "agentgym_episodes_total", service="gateway", outcome="success") == 1
    assert value(done, "agentgym_live_sessions", service="gateway") == 0


def test_agent_server_counts_runs_by_outcome(expert):
    pytest.importorskip("fastapi")
    from agentgym_envs.agents.server import AgentServer

    model = {"base_url": expert.base_url, "model": "expert"}
    with AgentServer("multistep", model=model) as server:
        answers = [
            httpx.post(server.url + "/run", json={"env_id": "Maze-v0", "task_id": t}, timeout=120)
            for t in (1, 4)
        ]
        bad = httpx.post(server.url + "/run", json={"env_id": "NoSuchEnv-v0"}, timeout=60)
        samples = scrape(server.url)
    assert all(a.status_code == 200 and a.json()["outcome"] == "success" for a in answers)
    assert 400 <= bad.status_code < 500
    labels = {"service": "agent-server", "env": "AgentGym/Maze-v0"}
    assert value(samples, "agentgym_episodes_total", outcome="success", **labels) == 2
    assert value(samples, "agentgym_http_requests_total", route="/run", status=200) == 2
    assert value(samples, "agentgym_http_requests_total", route="/run", status=bad.status_code) == 1
    assert value(samples, "agentgym_http_request_duration_seconds_count", route="/run") == 3
    assert value(samples, "agentgym_live_sessions", service="agent-server") == 0


def test_instrument_any_app_as_the_platform_mounts_it():
    pytest.importorskip("fastapi")
    from fastapi import FastAPI, HTTPException

    from agentgym_envs.metrics import instrument

    app = FastAPI()
    open_sessions = [3]

    @app.get("/items/{item}")
    def item(item: int) -> dict:
        if item < 0:
            raise HTTPException(404, "no such item")
        return {"item": item}

    @app.get("/boom")
    def boom() -> dict:
        raise RuntimeError("broken handler")

    metrics = instrument(app, "platform", live_sessions=lambda: open_sessions[0])
    with Served(app) as url:
        for i in (1, 2, -1):
            httpx.get(f"{url}/items/{i}")
        assert httpx.get(f"{url}/boom").status_code == 500
        metrics.episode_ended("turn_limit", env="support-agent")
        metrics.episode_ended("something-else")
        samples = scrape(url)
    assert value(samples, "agentgym_http_requests_total", route="/items/{item}", status=200) == 2
    assert value(samples, "agentgym_http_requests_total", route="/items/{item}", status=404) == 1
    assert value(samples, "agentgym_http_requests_total", route="/boom", status=500) == 1
    assert value(samples, "agentgym_live_sessions", service="platform") == 3
    assert value(samples, "agentgym_episodes_total", outcome="turn_limit", env="support-agent") == 1
    assert value(samples, "agentgym_episodes_total", outcome="unfinished") == 1


_PROMQL_WORDS = {
    "sum", "rate", "irate", "increase", "histogram_quantile", "by", "without", "avg", "max",
    "min", "count", "topk", "label_values", "and", "or", "unless", "on", "ignoring",
    "group_left", "group_right", "offset", "bool", "clamp_min", "clamp_max", "abs", "le",
}  # fmt: skip


def _metric_names(expr: str) -> set[str]:
    """Identifiers of a PromQL expression that name metrics (label matchers, grouping
    lists, ranges, strings, functions and keywords stripped)."""
    expr = re.sub(r"label_values\(\s*([^,()]+),[^)]*\)", r"\1", expr)
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    expr = re.sub(r"\{[^}]*\}", "", expr)
    expr = re.sub(r"\[[^\]]*\]", "", expr)
    expr = re.sub(r"\b(by|without|on|ignoring)\s*\([^)]*\)", "", expr)
    expr = re.sub(r"\$\w+", "", expr)
    words = set(re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", expr))
    return {w for w in words if w not in _PROMQL_WORDS}


def test_grafana_dashboard_queries_only_exported_metrics():
    """Every metric a dashboard query names is one a real scrape shows."""
    pytest.importorskip("fastapi")
    from fastapi import FastAPI

    from agentgym_envs.metrics import instrument

    app = FastAPI()
    app.get("/ping")(lambda: {"ok": True})
    metrics = instrument(app, "platform", live_sessions=lambda: 1)
    with Served(app) as url:
        httpx.get(url + "/ping")
        metrics.episode_ended("success", env="x")
        scraped = {name for name, _ in scrape(url)}
    assert scraped <= exported_series()
    dash = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    exprs += [v["definition"] for v in dash["templating"]["list"] if "definition" in v]
    assert len(exprs) >= 7
    named: set[str] = set()
    for expr in exprs:
        names = _metric_names(expr)
        assert names, f"no metric in {expr!r}"
        unknown = names - scraped
        assert not unknown, f"{expr!r} names {unknown}, not exported by agentgym_envs.metrics"
        named |= names
    # each exported family is on the dashboard
    for family in METRIC_NAMES:
        assert any(n.startswith(family) for n in named), family
    assert _metric_names('sum(rate(nope_total{a="b"}[5m]))') == {"nope_total"}
