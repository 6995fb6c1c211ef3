"""WebArena-v0 in real Chromium: observation, bad input as feedback, state restored per
episode, tabs, and the config loader for a user's deployment."""

from __future__ import annotations

import asyncio
import json
import os
import re

import pytest

from agentgym_envs.browser import SYSTEM_CHROMIUMS
from agentgym_envs.envs.webarena import actions as act
from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.expert import WebArenaExpert, find
from agentgym_envs.envs.webarena.sites import server
from agentgym_envs.envs.webarena.tasks import resolve
from agentgym_envs.errors import BadDataError


def _do(body: str) -> str:
    return f"In summary, the next action I will perform is ```{body}```"


def _template_task(env, name):
    for task_id in range(env.tasks.size("test")):
        if env.tasks.get("test", task_id).config["agentgym_template"] == name:
            return task_id
    raise AssertionError(name)


def test_first_observation_has_agentgyms_shape(env):
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": 0})
    assert obs.startswith("OBSERVATION:\nTab 0 (current): One Stop Market\n\n[")
    assert re.search(r"^\[\d+\] RootWebArea 'One Stop Market' focused: True$", obs, re.MULTILINE)
    assert re.search(r"^\t\t\[\d+\] searchbox 'Search entire store here...'$", obs, re.MULTILINE)
    assert "\nURL: http://onestopmarket.com/\nOBJECTIVE: What is the price of" in obs
    assert obs.endswith("PREVIOUS ACTION: None")
    assert info["url"].startswith("http://127.0.0.1:")


def test_bad_input_is_feedback(env):
    obs, _ = env.reset(seed=0, options={"split": "test", "task_id": 0})
    text, _, done, _, info = env.step("click [3]")
    assert text == act.NO_BACKTICKS and "error" in info and not done
    text, _, done, _, info = env.step(_do("fly [3]"))
    assert text == "Invalid action fly [3]" and not done
    text, _, _, _, info = env.step(_do("click [99999]"))
    assert "no matching element found" in text and "99999" in info["error"]
    for url in ("http://example.com/", "http://127.0.0.1:9/x", "file:///etc/passwd"):
        text, _, done, _, info = env.step(_do(f"goto [{url}]"))
        assert "Failed to load the page" in info["error"] and not done
        assert "OBSERVATION:" in text
    text, _, _, _, info = env.step(_do("tab_focus [5]"))
    assert "no tab 5" in info["error"]
    searchbox = find(obs, "searchbox", "Search entire store here...")
    text, _, _, _, info = env.step(_do(f"type [{searchbox}] [shampoo] [1]"))
    assert "error" not in info and "Search results for: 'shampoo'" in text


def _ids(text: str) -> set[int]:
    return {int(x.strip().split("]")[0][1:]) for x in text.splitlines() if x.strip()[:1] == "["}


def test_ids_come_from_the_browsers_nodes_and_stay_while_the_agent_types(env):
    """Each shown id stands for one of the browser's DOM nodes (its backend node id), as
    WebArena's: typing into a field (no Enter) keeps every id of the page, the field's
    included; the next page's ids are all new."""
    obs, _ = env.reset(seed=0, options={"split": "test", "task_id": 0})
    searchbox = find(obs, "searchbox", "Search entire store here...")
    backend = env._nodes[searchbox].backend_id
    assert backend > 0 and all(n.backend_id > 0 for n in env._nodes.values())
    text, _, _, _, info = env.step(_do(f"type [{searchbox}] [hiking boots] [0]"))
    assert "error" not in info
    assert find(text, "searchbox", "Search entire store here...") == searchbox
    assert env._nodes[searchbox].backend_id == backend
    assert _ids(obs) <= _ids(text)
    assert f"[{searchbox}] searchbox 'Search entire store here...' focused: True" in text
    results, _, _, _, info = env.step(_do(f"type [{searchbox}] [hiking boots] [1]"))
    assert "error" not in info and "Search results for" in results
    assert min(_ids(results)) > max(_ids(text))


def test_ids_number_the_nodes_in_document_order_once():
    """ShownIds: document order on first sight, a node keeps its number, a script's new node
    gets the next one, a new document starts afresh without reusing numbers."""
    from agentgym_envs.envs.webarena.axtree import ShownIds

    def snap(doc_id, url, backends):
        nodes = {"backendNodeId": [doc_id, *backends]}
        return {"strings": [url], "documents": [{"documentURL": 0, "nodes": nodes}]}

    ids = ShownIds()
    ids.update(snap(2, "http://a/", [9, 5, 7]))
    first = [ids.shown({"nodeId": "x", "backendDOMNodeId": b}) for b in (2, 9, 5, 7)]
    assert first == ["1", "2", "3", "4"]
    ids.update(snap(2, "http://a/#top", [9, 11, 5, 7]))  # same document, a node added
    assert [ids.shown({"nodeId": "x", "backendDOMNodeId": b}) for b in (9, 11)] == ["2", "5"]
    ids.update(snap(40, "http://a/next", [41, 9]))
    assert ids.shown({"nodeId": "x", "backendDOMNodeId": 9}) == "8"
    assert ids.shown({"nodeId": "-3"}) == "9"  # a node the snapshot lacked


def test_a_hanging_page_is_cut_off_by_the_action_time_limit():
    srv = server()

    async def hang():
        await asyncio.sleep(30)

    srv.apps["reddit"].add_api_route("/test-hang", hang)
    env = WebArenaEnv(action_timeout=1.5)
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    _, _, done, _, info = env.step(_do(f"goto [{srv.url('reddit')}/test-hang]"))
    assert "goto" in info["error"] and not done
    obs, _, _, _, info = env.step(_do(f"goto [{srv.url('shopping')}/checkout/cart]"))
    assert "error" not in info and "URL: http://onestopmarket.com/" in obs
    env.close()


def test_state_changes_are_undone_by_reset(env):
    task_id = _template_task(env, "forum_bio")
    expert = WebArenaExpert(env)
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
    done = False
    while not done:
        obs, reward, done, _, info = env.step(expert(obs, info))
    assert reward == 1.0 and info["success"]
    env.reset(seed=0, options={"split": "test", "task_id": task_id})
    _, reward, done, _, info = env.step(_do("stop [done]"))
    assert done and reward == 0.0 and not info["success"]


def test_tabs_scroll_and_history(env):
    obs, _ = env.reset(seed=0, options={"split": "test", "task_id": 0})
    obs, *_ = env.step(_do("new_tab"))
    assert obs.startswith("OBSERVATION:\nTab 0: One Stop Market | Tab 1 (current): ")
    obs, *_ = env.step(_do("goto [http://onestopmarket.com/electronics.html]"))
    assert "Tab 1 (current): Electronics" in obs
    obs, *_ = env.step(_do("tab_focus [0]"))
    assert "Tab 0 (current): One Stop Market | Tab 1: Electronics" in obs
    obs, *_ = env.step(_do("tab_focus [1]"))
    obs, *_ = env.step(_do("goto [http://reddit.com/f/books]"))
    before = set(re.findall(r"\[(\d+)\] link", obs))
    obs, *_ = env.step(_do("scroll [down]"))
    after = set(re.findall(r"\[(\d+)\] link", obs))
    assert after - before, "scrolling shows links that were below the viewport"
    obs, *_ = env.step(_do("scroll [up]"))
    assert set(re.findall(r"\[(\d+)\] link", obs)) == before
    below = min(after - before)
    obs, _, _, _, info = env.step(_do(f"click [{below}]"))
    assert "no matching element found" in obs and below in info["error"]
    obs, *_ = env.step(_do("close_tab"))
    assert obs.startswith("OBSERVATION:\nTab 0 (current): One Stop Market\n")
    obs, *_ = env.step(_do("goto [http://onestopmarket.com/video-games.html]"))
    obs, *_ = env.step(_do("go_back"))
    assert "URL: http://onestopmarket.com/\n" in obs
    obs, *_ = env.step(_do("go_forward"))
    assert "URL: http://onestopmarket.com/video-games.html\n" in obs


def test_config_loader_maps_placeholders_to_a_deployment(tmp_path):
    srv = server()
    configs = [
        {
            "task_id": 0,
            "sites": ["shopping"],
            "require_login": False,
            "storage_state": None,
            "start_url": "__SHOPPING__/category/Food",
            "intent": "Which category is this?",
            "eval": {"eval_types": ["string_match"], "reference_answers": {"exact_match": "Food"}},
        },
        {
            "task_id": 1,
            "sites": ["reddit"],
            "require_login": False,
            "storage_state": None,
            "start_url": "__REDDIT__/forums",
            "intent": "Open the books forum",
            "eval": {"eval_types": ["url_match"], "reference_url": "__REDDIT__/f/books"},
        },
    ]
    raw = tmp_path / "test.raw.json"
    raw.write_text(json.dumps(configs))
    folder = tmp_path / "config_files"
    folder.mkdir()
    for i, config in enumerate(configs):
        (folder / f"{i}.json").write_text(json.dumps(config))
    urls = {"shopping": srv.url("shopping"), "reddit": srv.url("reddit")}
    for path in (raw, folder):
        env = WebArenaEnv(config_path=str(path), site_urls=urls)
        assert env.tasks.splits() == {"train": 0, "test": 2}
        obs, info = env.reset(options={"split": "test", "task_id": 0})
        assert info["url"] == srv.url("shopping") + "/category/Food"
        assert "URL: http://onestopmarket.com/category/Food" in obs
        assert env.step(_do("stop [Food]"))[1] == 1.0
        obs, _ = env.reset(options={"split": "test", "task_id": 1})
        books = find(obs, "link", "books")
        env.step(_do(f"click [{books}]"))
        assert env.step(_do("stop [done]"))[1] == 1.0
        env.close()
    with pytest.raises(BadDataError, match="not found"):
        WebArenaEnv(config_path=str(tmp_path / "missing.json"), site_urls=urls)
    with pytest.raises(BadDataError, match="unknown WebArena site"):
        WebArenaEnv(config_path=str(raw), site_urls={"shop": "http://x"})


def _chromium_pids() -> list[int]:
    """This process's Chromium browsers (not their renderers), read while others come and go."""
    from tests.processes import cmdline, descendants, named

    return [
        p.pid
        for p in named(descendants(os.getpid()), "chromium")
        if not any(a.startswith("--type=") for a in cmdline(p))
    ]


def test_a_crashed_browser_is_reported_in_one_line_and_reset_restarts_it(env):
    import os
    import signal

    obs, _ = env.reset(seed=0, options={"split": "test", "task_id": 0})
    pids = _chromium_pids()
    assert len(pids) == 1
    os.kill(pids[0], signal.SIGKILL)
    text, _, done, _, info = env.step(_do("scroll [down]"))
    assert "\n" not in text and "crashed" in info["error"] and not done
    again, _ = env.reset(seed=0, options={"split": "test", "task_id": 0})
    assert again == obs and _chromium_pids() != pids


def _no_chromium_outlives(how: str, tmp_path) -> None:
    """A process that made a WebArena env exits (or is killed): its Chromium goes with it."""
    import signal
    import subprocess
    import sys
    import time

    from tests.processes import alive, descendants, named, names

    script = tmp_path / "child.py"
    script.write_text(
        "import sys, time\n"
        "from agentgym_envs.envs.webarena.env import WebArenaEnv\n"
        "env = WebArenaEnv()\n"
        "env.reset(options={'split': 'test', 'task_id': 0})\n"
        "print('ready', flush=True)\n"
        "sys.stdin.readline()  # exits (or is killed) once the parent has seen its Chromium\n"
    )
    child = subprocess.Popen(
        [sys.executable, str(script), how], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "ready"
    family = descendants(child.pid)
    assert named(family, "chromium"), names(family)
    if how == "kill":
        os.kill(child.pid, signal.SIGKILL)
    else:
        child.stdin.write("go\n")
        child.stdin.flush()
    child.wait(120)
    child.stdin.close()
    child.stdout.close()
    deadline = time.monotonic() + 60
    while (left := alive(family)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not left, names(left)


@pytest.mark.parametrize("how", ["exit", "kill"])
def test_no_chromium_outlives_its_process(how, tmp_path):
    _no_chromium_outlives(how, tmp_path)


def test_no_chromium_outlives_its_process_while_others_come_and_go(tmp_path):
    """The same check while, beside it, another Chromium starts and is killed in a loop and
    short processes start and exit: the process walk reads a table that changes under it."""
    from tests.processes import churn

    with churn() as counts:
        _no_chromium_outlives("exit", tmp_path)
        _no_chromium_outlives("kill", tmp_path)
        assert _chromium_pids() is not None  # this process's own walk, mid-churn
    assert counts["chromium"] >= 1 and counts["short"] >= 1


def test_envs_in_threads_share_the_browser_and_keep_their_own_state():
    from concurrent.futures import ThreadPoolExecutor

    probe = WebArenaEnv()
    tasks = [_template_task(probe, "forum_bio"), _template_task(probe, "code_invite_member")]
    probe.close()

    def solve(task_id):
        env = WebArenaEnv()
        expert = WebArenaExpert(env)
        obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
        done = False
        while not done:
            obs, reward, done, _, info = env.step(expert(obs, info))
        env.close()
        return reward

    with ThreadPoolExecutor(2) as pool:
        assert list(pool.map(solve, tasks)) == [1.0, 1.0]


def test_homepage_lists_the_sites(env):
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    obs, *_ = env.step(_do("goto [http://homepage.com]"))
    for name in ("One Stop Market", "Merchant Admin Portal", "Postmill", "GitLab"):
        assert find(obs, "link", name)
    obs, *_ = env.step(_do(f"click [{find(obs, 'link', 'Postmill')}]"))
    assert "URL: http://reddit.com/\n" in obs


def test_urls_are_shown_with_agentgyms_hosts_and_mapped_back(env):
    task_id = _template_task(env, "admin_invoice_total")
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
    assert "\nURL: http://luma.com/admin/dashboard\n" in obs
    assert info["url"] == server().url("shopping_admin") + "/dashboard"
    obs, _, _, _, info = env.step(_do("goto [https://luma.com/admin/sales/order?status=pending]"))
    assert "\nURL: http://luma.com/admin/sales/order?status=pending\n" in obs
    _, _, _, _, info = env.step(_do("goto [http://reddit.community/]"))
    assert "Failed to load the page" in info["error"]


def test_navigation_outside_the_sites_is_blocked(env):
    env.reset(seed=0, options={"split": "test", "task_id": 0})
    for url in (
        "data:text/html,<h1>hi</h1>",
        "javascript:alert(1)",
        "file:///etc/hostname",
        f"http://127.0.0.1:{server().ports['shopping'] + 1}/",
        "http://localhost:22/",
    ):
        _, _, done, _, info = env.step(_do(f"goto [{url}]"))
        assert "Failed to load the page" in info["error"] and not done, url
        assert info["url"].startswith("http://127.0.0.1:"), url


def _solve(env, split, task_id):
    expert = WebArenaExpert(env)
    obs, info = env.reset(seed=0, options={"split": split, "task_id": task_id})
    done, reward = False, 0.0
    while not done:
        obs, reward, done, _, info = env.step(expert(obs, info))
    return reward


def _task_of(env, split, name):
    for task_id in range(env.tasks.size(split)):
        if env.tasks.get(split, task_id).config["agentgym_template"] == name:
            return task_id
    raise AssertionError(name)


def test_one_episode_never_sees_anothers_cart_posts_or_orders():
    first, second = WebArenaEnv(), WebArenaEnv()
    try:
        cases = [
            ("test", "shop_add_cart", "__SHOPPING__/checkout/cart"),
            ("test", "forum_new_post", None),
            ("train", "shop_buy", "__SHOPPING__/sales/order/history"),
        ]
        for split, name, page in cases:
            task_id = _task_of(first, split, name)
            assert _solve(first, split, task_id) == 1.0, name
            config = first.task.config
            mark = (
                config["instantiation_dict"].get("product") or config["instantiation_dict"]["title"]
            )
            where = page or f"__REDDIT__/f/{config['instantiation_dict']['subreddit']}?sort=new"
            second.reset(seed=0, options={"split": split, "task_id": task_id})
            second.step(_do(f"goto [{resolve(where, second._urls())}]"))
            assert mark not in second.page_html(), name
            # ... while the first episode sees its change (its evaluator's page shows it)
            assert mark in first.page_html(), name
    finally:
        first.close()
        second.close()


def test_the_next_episode_of_the_same_env_starts_clean():
    env = WebArenaEnv()
    try:
        task_id = _task_of(env, "test", "shop_add_cart")
        assert _solve(env, "test", task_id) == 1.0
        product = env.task.config["instantiation_dict"]["product"]
        assert product in env.page_html()
        _, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
        start = info["url"]
        env.step(_do(f"goto [{resolve('__SHOPPING__/checkout/cart', env._urls())}]"))
        assert product not in env.page_html()  # a fresh copy of the database
        env.step(_do("go_back"))
        _, _, _, _, info = env.step(_do("go_back"))  # no history from the last episode
        assert info["url"] in (start, "about:blank")
    finally:
        env.close()


def test_envs_that_start_together_share_one_chromium_launch():
    from concurrent.futures import ThreadPoolExecutor

    from agentgym_envs.envs.webarena.browser import BrowserHost

    browsers = BrowserHost()  # a host of its own: no browser launched yet
    try:
        with ThreadPoolExecutor(6) as pool:
            got = list(pool.map(lambda _: browsers.run(browsers.browser, 120), range(6)))
        assert browsers.launches == 1
        assert all(b is got[0] for b in got)
    finally:
        browsers.close()


_TRANSCRIPT = """
import json, sys
from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.expert import WebArenaExpert
env = WebArenaEnv()
expert = WebArenaExpert(env)
out = []
for task_id in map(int, sys.argv[1:]):
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
    out.append(obs)
    done = False
    while not done:
        obs, reward, done, _, info = env.step(expert(obs, info))
        out.append([obs, reward])
env.close()
print(json.dumps(out))
"""


@pytest.mark.skipif(
    not all(os.path.exists(p) for p in SYSTEM_CHROMIUMS),
    reason="needs Debian's chromium and chromium-headless-shell",
)
def test_the_headless_shell_and_full_chromium_give_the_same_transcripts(tmp_path):
    import json
    import subprocess
    import sys

    from agentgym_envs.envs.webarena.tasks import generated_configs

    test = generated_configs()[1]  # one test task per site combination
    tasks = sorted({tuple(c["sites"]): k for k, c in enumerate(test)}.values())
    script = tmp_path / "transcript.py"
    script.write_text(_TRANSCRIPT)
    runs = []
    for exe in SYSTEM_CHROMIUMS:  # the headless shell, then the full Chromium
        done = subprocess.run(
            [sys.executable, str(script), *map(str, tasks)],
            env={**os.environ, "AGENTGYM_CHROMIUM": exe},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]  # ids included: they number the nodes, not Chromium's touches
    assert [step[1] for step in runs[0] if isinstance(step, list)].count(1.0) == len(tasks)
