"""The generated task source: WebArena's config format, every site and kind of task, stable."""

from __future__ import annotations

import json
from collections import Counter

from agentgym_envs.envs.webarena.tasks import (
    GeneratedTasks,
    generated_configs,
    resolve,
    resolve_config,
)
from agentgym_envs.envs.webarena.templates import SITE_SHARES, TEMPLATES, TEST_SHARES

FIELDS = {
    "sites",
    "task_id",
    "require_login",
    "storage_state",
    "start_url",
    "geolocation",
    "intent_template",
    "instantiation_dict",
    "intent",
    "require_reset",
    "eval",
    "intent_template_id",
}


def _site(config):
    return config["sites"][0] if len(config["sites"]) == 1 else "multi"


def test_splits_have_webarenas_count_and_per_site_shares():
    source = GeneratedTasks()
    assert source.size("test") == 20  # AgentEval's WebArena size
    assert source.size("train") + source.size("test") == 812  # WebArena's task count
    train = [source.get("train", i).config for i in range(source.size("train"))]
    test = [source.get("test", i).config for i in range(source.size("test"))]
    assert Counter(map(_site, train + test)) == SITE_SHARES
    assert Counter(map(_site, test)) == TEST_SHARES
    assert {c["agentgym_template"] for c in train + test} == {t for _, t, _ in TEMPLATES}
    kinds = Counter(k for c in train + test for k in c["eval"]["eval_types"])
    assert {"string_match", "url_match", "program_html"} <= set(kinds)
    for site in ("shopping", "shopping_admin", "reddit", "gitlab"):
        kinds = {t for c in train + test if _site(c) == site for t in c["eval"]["eval_types"]}
        assert kinds == {"string_match", "url_match", "program_html"}, site


def test_configs_have_webarena_fields_and_unique_intents():
    train, test = generated_configs()
    for split in (train, test):
        for task_id, config in enumerate(split):
            assert set(config) >= FIELDS and config["task_id"] == task_id
            assert "{{" not in config["intent"]
            assert config["agentgym_solution"][-1][0] == "stop"
    intents = [c["intent"] for c in train + test]
    assert len(set(intents)) == len(intents)


def test_generation_is_deterministic_across_processes():
    import subprocess
    import sys

    code = (
        "import json; from agentgym_envs.envs.webarena.tasks import generated_configs;"
        "print(json.dumps(generated_configs(), sort_keys=True))"
    )
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert other == json.dumps(generated_configs(), sort_keys=True)


def test_placeholders_resolve_admin_before_shop():
    urls = {"shopping": "http://a:1", "shopping_admin": "http://b:2/", "reddit": "http://c:3"}
    assert resolve("__SHOPPING_ADMIN__/admin __SHOPPING__/x __GITLAB__", urls) == (
        "http://b:2/admin http://a:1/x __GITLAB__"
    )
    config = {"start_url": "__REDDIT__/f/books", "eval": {"reference_url": "__REDDIT__/f"}}
    assert resolve_config(config, urls)["eval"]["reference_url"] == "http://c:3/f"
    assert config["start_url"] == "__REDDIT__/f/books"


def test_agentgym_list_shows_webarenas_count_and_per_site_split():
    import shutil
    import subprocess

    out = subprocess.run(
        [shutil.which("agentgym") or "agentgym", "list", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    (record,) = [r for r in json.loads(out) if r["id"] == "AgentGym/WebArena-v0"]
    assert record["splits"]["train"] + record["splits"]["test"] == 812
    for site, n in SITE_SHARES.items():
        assert f"{site if site != 'multi' else 'multi-site'} {n}" in record["description"]
