"""Signing in to a user's deployment and the evaluator helpers that read its pages, played
for real on the package's own sites served on 127.0.0.1 as if they were a deployment."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path

import pytest

from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.helpers import reddit_get_post_url
from agentgym_envs.envs.webarena.login import (
    WEBARENA_FORMS,
    Login,
    LoginError,
    LoginForm,
    package_accounts,
    package_forms,
)
from agentgym_envs.envs.webarena.sites import server
from agentgym_envs.envs.webarena.sites.data import CODE_USER, FORUM_USER, SHOP_USER

SITES = ("shopping", "shopping_admin", "reddit", "gitlab")


def _do(body: str) -> str:
    return f"In summary, the next action I will perform is ```{body}```"


def _task(task_id, sites, start_url, state, eval_, require_login=True):
    return {
        "task_id": task_id,
        "sites": sites,
        "require_login": require_login,
        "storage_state": state,
        "start_url": start_url,
        "intent": f"task {task_id}",
        "eval": eval_,
    }


def _deployment(tmp_path, configs, **kwargs) -> WebArenaEnv:
    srv = server()
    path = tmp_path / "test.raw.json"
    path.write_text(json.dumps(configs))
    kwargs.setdefault("accounts", package_accounts())
    kwargs.setdefault("login_forms", package_forms())
    return WebArenaEnv(
        config_path=str(path),
        site_urls={site: srv.url(site) for site in SITES},
        auth_dir=str(tmp_path),
        **kwargs,
    )


def _reset(env, task_id):
    return env.reset(options={"split": "test", "task_id": task_id})


def test_a_missing_state_is_produced_by_signing_in_then_reused(tmp_path):
    who = {"eval_types": ["string_match"], "reference_answers": {"must_include": ["Emma Lopez"]}}
    todos = {"eval_types": ["url_match"], "reference_url": "__GITLAB__/dashboard/todos"}
    configs = [
        _task(0, ["shopping"], "__SHOPPING__/customer/account", "./.auth/shopping_state.json", who),
        _task(
            1,
            ["gitlab", "reddit"],
            "__GITLAB__/dashboard/todos |AND| __REDDIT__/forums",
            "./.auth/gitlab.reddit_state.json",
            todos,
        ),
        _task(
            2,
            ["shopping_admin"],
            "__SHOPPING_ADMIN__/dashboard",
            "./.auth/shopping_admin_state.json",
            todos,
        ),
    ]
    env = _deployment(tmp_path, configs)
    state = tmp_path / ".auth" / "shopping_state.json"
    assert not state.exists()
    try:
        obs, info = _reset(env, 0)
        assert info["signed_in"] is True and info["storage_state"] == str(state)
        assert state.exists()
        assert "heading 'My Account'" in obs and "Emma Lopez" in obs and SHOP_USER in obs
        assert "URL: http://onestopmarket.com/customer/account\n" in obs
        assert env.step(_do("stop [Emma Lopez]"))[1] == 1.0
        saved, stamp = state.read_bytes(), state.stat().st_mtime_ns
        assert "shop_session" in {c["name"] for c in json.loads(saved)["cookies"]}

        obs, info = _reset(env, 0)
        assert info["signed_in"] is False and "heading 'My Account'" in obs
        assert (state.read_bytes(), state.stat().st_mtime_ns) == (saved, stamp)

        # two sites in one state file, one tab each
        obs, info = _reset(env, 1)
        assert info["signed_in"] is True
        assert (tmp_path / ".auth" / "gitlab.reddit_state.json").exists()
        assert f"link '{FORUM_USER}'" in obs and "link 'Log out'" in obs
        obs, *_ = env.step(_do("tab_focus [0]"))
        assert "heading 'To-Do List'" in obs and CODE_USER in obs
        assert env.step(_do("stop [done]"))[1] == 1.0

        obs, info = _reset(env, 2)
        assert info["signed_in"] is True and "heading 'Dashboard'" in obs
    finally:
        env.close()

    # another env (a later run) finds the files and signs in to nothing
    again = _deployment(tmp_path, configs)
    try:
        for task_id in (0, 1, 2):
            obs, info = _reset(again, task_id)
            assert info["signed_in"] is False
            assert "Sign In" not in obs and "Log in" not in obs
        assert (state.read_bytes(), state.stat().st_mtime_ns) == (saved, stamp)
    finally:
        again.close()


def test_a_state_that_no_longer_signs_in_is_renewed(tmp_path, caplog):
    who = {"eval_types": ["string_match"], "reference_answers": {"must_include": ["Emma Lopez"]}}
    configs = [
        _task(0, ["shopping"], "__SHOPPING__/customer/account", "auth/stale.json", who),
        _task(1, ["shopping"], "__SHOPPING__/customer/account", "auth/expired.json", who),
    ]
    (tmp_path / "auth").mkdir()
    host = server().host
    for name, value, expires in (
        ("stale.json", "nobody.0000000000000000", -1),
        ("expired.json", "anything", time.time() - 60),
    ):
        cookie = {"name": "shop_session", "value": value, "domain": host, "path": "/"}
        cookie.update(expires=expires, httpOnly=True, secure=False, sameSite="Lax")
        (tmp_path / "auth" / name).write_text(json.dumps({"cookies": [cookie], "origins": []}))
    env = _deployment(tmp_path, configs)
    try:
        for task_id in (0, 1):
            with caplog.at_level(logging.INFO, "agentgym_envs.envs.webarena.login"):
                obs, info = _reset(env, task_id)
            assert info["signed_in"] is True and "heading 'My Account'" in obs
        assert "no longer works" in caplog.text
    finally:
        env.close()


def test_bad_or_missing_accounts_are_one_line_errors(tmp_path):
    page = {"eval_types": ["url_match"], "reference_url": "__REDDIT__/forums"}
    configs = [
        _task(0, ["reddit"], "__REDDIT__/forums", "./.auth/reddit_state.json", page),
        _task(1, ["reddit"], "__REDDIT__/forums", "./.auth/none_state.json", page, False),
    ]
    wrong = package_accounts()
    wrong["reddit"]["password"] = "not-the-password"
    env = _deployment(tmp_path, configs, accounts=wrong)
    try:
        with pytest.raises(LoginError, match="failed .*check the account"):
            _reset(env, 0)
        assert not (tmp_path / ".auth" / "reddit_state.json").exists()
        # no login required and no file: the episode starts signed out, without a state
        obs, info = _reset(env, 1)
        assert "storage_state" not in info and "link 'Log in'" in obs
    finally:
        env.close()
    env = _deployment(tmp_path, configs, accounts={})
    try:
        with pytest.raises(LoginError, match="no account to sign in to 'reddit'"):
            _reset(env, 0)
    finally:
        env.close()
    odd = dict(package_forms(), reddit=LoginForm("/login", "#nope", "#nope", "button", "/"))
    env = _deployment(tmp_path, configs, login_forms=odd)
    try:
        with pytest.raises(LoginError, match="has no field '#nope'"):
            _reset(env, 0)
    finally:
        env.close()


def test_evaluator_helpers_read_the_deployments_pages(tmp_path, caplog):
    srv = server()
    db = sqlite3.connect(srv.sandbox_path(srv.default_sandbox))
    post_id, forum, title = db.execute(
        "SELECT id, forum, title FROM forum_posts LIMIT 1"
    ).fetchone()
    (number,) = db.execute(
        "SELECT number FROM shop_orders WHERE email=? ORDER BY created DESC, id DESC LIMIT 1",
        (SHOP_USER,),
    ).fetchone()
    ns, name = db.execute("SELECT namespace, name FROM code_projects LIMIT 1").fetchone()
    (sku,) = db.execute(
        "SELECT p.sku FROM shop_reviews r JOIN shop_products p ON p.id = r.product_id LIMIT 1"
    ).fetchone()
    db.close()

    def html(url, locator, required):
        target = {"url": url, "locator": locator, "required_contents": required}
        return {"eval_types": ["program_html"], "program_html": [target]}

    members = f"__GITLAB__/{ns}/{name}/-/project_members"
    role = "func:gitlab_get_project_memeber_role(__page__, '{}')"
    configs = [
        _task(
            0,
            ["reddit"],
            f"__REDDIT__/f/{forum}/{post_id}",
            None,
            html("func:reddit_get_post_url('__last_url__')", "", {"must_include": [title]}),
        ),
        _task(
            1,
            ["shopping"],
            "__SHOPPING__/",
            "./.auth/shopping_state.json",
            html("func:shopping_get_latest_order_url()", "", {"must_include": [number]}),
        ),
        _task(
            2,
            ["gitlab"],
            members,
            None,
            html("last", role.format(CODE_USER), {"exact_match": "Owner"}),
        ),
        _task(
            3,
            ["gitlab"],
            members,
            None,
            html("last", role.format("nobody"), {"exact_match": "Owner"}),
        ),
        _task(
            4,
            ["shopping"],
            "__SHOPPING__/",
            None,
            html(
                "last", f"func:shopping_get_sku_latest_review_rating('{sku}')", {"exact_match": ""}
            ),
        ),
    ]
    env = _deployment(tmp_path, configs)
    try:
        for task_id, score in ((0, 1.0), (1, 1.0), (2, 1.0), (3, 0.0)):
            _reset(env, task_id)
            assert env.step(_do("stop [done]"))[1] == score, task_id
        # the latest order's page is where the evaluator went
        _reset(env, 1)
        assert "/sales/order/view/" in env.step(_do("stop [done]"))[4]["url"]
        # Magento's review helpers need its REST API: the target scores 0, with a warning
        with caplog.at_level(logging.WARNING, "agentgym_envs.envs.webarena.evaluators"):
            _reset(env, 4)
            assert env.step(_do("stop [done]"))[1] == 0.0
        assert "shopping_get_sku_latest_review_rating" in caplog.text
        assert "not supported" in caplog.text
    finally:
        env.close()


def test_post_urls_forms_accounts_and_state_paths_as_webarena_names_them(tmp_path, monkeypatch):
    assert reddit_get_post_url("http://h:9999/f/books/12/some-title/comment/3") == (
        "http://h:9999/f/books/12/"
    )
    assert reddit_get_post_url("http://h:9999/forums") == "http://h:9999/forums"
    urls = {"gitlab": "http://h:8023", "reddit": "http://h:9999", "map": "http://h:3000"}
    login = Login(urls, {}, {"gitlab": {"path": "/gl/users/sign_in"}}, tmp_path)
    assert login.forms["gitlab"].path == "/gl/users/sign_in"
    assert login.forms["gitlab"].password == WEBARENA_FORMS["gitlab"].password
    assert login.forms["reddit"] == WEBARENA_FORMS["reddit"]
    config = {"storage_state": "./.auth/gitlab.reddit_state.json", "sites": ["gitlab"]}
    path = login.state_path(config)
    assert path == tmp_path / ".auth" / "gitlab.reddit_state.json"
    assert login.sites(config, path) == ["gitlab", "reddit"]
    own = {"storage_state": "/x/mine.json", "sites": ["map", "reddit"]}
    assert login.state_path(own) == Path("/x/mine.json")
    assert login.sites(own, login.state_path(own)) == ["reddit"]
    assert login.state_path({"storage_state": None}) is None
    accounts = tmp_path / "accounts.json"
    accounts.write_text(json.dumps({"reddit": {"username": "u", "password": "p"}}))
    monkeypatch.setenv("AGENTGYM_WEBARENA_ACCOUNTS", str(accounts))
    assert Login(urls).accounts == {"reddit": {"username": "u", "password": "p"}}
    monkeypatch.setenv("AGENTGYM_WEBARENA_ACCOUNTS", str(tmp_path / "missing.json"))
    with pytest.raises(LoginError, match="cannot read AGENTGYM_WEBARENA_ACCOUNTS"):
        Login(urls)
