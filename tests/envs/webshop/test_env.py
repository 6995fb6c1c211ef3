"""WebShop's pages, actions, search and goals on the generated catalog."""

from __future__ import annotations

import pickle
import re

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("bm25s")
pytest.importorskip("thefuzz")

from agentgym_envs.envs.webshop import vocab
from agentgym_envs.envs.webshop.catalog import generated_catalog
from agentgym_envs.envs.webshop.env import WebShopEnv
from agentgym_envs.envs.webshop.expert import WebShopExpert, key_terms
from agentgym_envs.envs.webshop.reward import get_reward
from agentgym_envs.envs.webshop.shop import parse_action
from agentgym_envs.envs.webshop.tasks import TEST_SIZE
from agentgym_envs.errors import BadDataError

SEP = " [SEP] "


@pytest.fixture(scope="module")
def env():
    e = gym.make("AgentGym/WebShop-v0").unwrapped
    yield e
    e.close()


def start(env, task_id=0):
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
    return obs, info


def test_search_page(env):
    obs, info = start(env)
    instr = env.goal.instruction_text
    assert obs == f"WebShop [SEP] Instruction: [SEP] {instr} [SEP] Search"
    assert info["available_actions"] == ["search[<keywords>]"]
    assert info["has_search_bar"] is True and info["clickables"] == ["search"]
    assert info["page"] == "search"


def test_results_pages_and_paging(env):
    start(env)
    instr = env.goal.instruction_text
    obs, reward, done, _, info = env.step("search[men's shorts elastic waist]")
    assert (reward, done) == (0.0, False)
    assert obs.startswith(
        f"Instruction: [SEP] {instr} [SEP] Back to Search [SEP] Page 1 (Total results: 50) [SEP] Next > [SEP] "
    )
    rest = obs.split("Next > [SEP] ", 1)[1].split(SEP)
    assert len(rest) == 30  # ten products: ASIN, title, price
    asins = rest[0::3]
    assert all(re.fullmatch(r"B0[A-Z0-9]{8}", a) for a in asins)
    assert all(re.fullmatch(r"\$\d+\.\d+( to \$\d+\.\d+)?", p) for p in rest[2::3])
    assert info["clickables"] == ["back to search", "next >"] + [a.lower() for a in asins]
    assert info["has_search_bar"] is False
    assert info["available_actions"][:2] == ["click[back to search]", "click[next >]"]

    obs2, *_, info2 = env.step("click[Next >]")
    assert "Page 2 (Total results: 50) [SEP] < Prev [SEP] Next > [SEP]" in obs2
    assert info2["clickables"][:3] == ["back to search", "< prev", "next >"]
    assert not set(info2["clickables"][3:]) & set(info["clickables"][2:])
    for _ in range(3):
        obs_last, *_ = env.step("click[next >]")
    assert "Page 5 (Total results: 50) [SEP] < Prev [SEP] Next > [SEP] B0" in obs_last
    obs6, *_ = env.step("click[next >]")  # past the last result: Next is still shown, no products
    assert obs6.endswith("Page 6 (Total results: 50) [SEP] < Prev [SEP] Next >")
    for _ in range(5):
        env.step("click[< prev]")
    assert env.step("click[< Prev]")[0] == obs  # page 1 again; page 1 has no "< prev"


def test_item_page_options_subpages_and_back(env):
    start(env)
    obs, *_, info = env.step("search[wireless earbuds charging case]")
    asin = info["clickables"][2]
    product = env.catalog.by_asin[asin.upper()]
    obs, *_, info = env.step(f"click[{asin.upper()}]")
    instr = env.goal.instruction_text
    options = "".join(
        f"{name} [SEP] " + "".join(f"{v} [SEP] " for v in values)
        for name, values in product.options.items()
    )
    assert obs == (
        f"Instruction: [SEP] {instr} [SEP] Back to Search [SEP] < Prev [SEP] {options}{product.title} [SEP] "
        f"Price: {product.price_tag} [SEP] Rating: N.A. [SEP] Description [SEP] Features [SEP] Reviews [SEP] Buy Now"
    )
    values = [v for vs in product.options.values() for v in vs]
    assert info["clickables"] == [
        "back to search",
        "< prev",
        "description",
        "features",
        "reviews",
        "buy now",
        *values,
    ]

    first_group = next(iter(product.options))
    chosen = product.options[first_group][-1]
    same, *_ = env.step(f"click[{chosen}]")
    assert same == obs  # the simple text mode does not mark chosen options
    assert env.shop.state.options == {first_group: chosen}

    desc, *_, sub_info = env.step("click[Description]")
    assert (
        desc
        == f"Instruction: [SEP] {instr} [SEP] Back to Search [SEP] < Prev [SEP] {product.description}"
    )
    assert sub_info["clickables"] == ["back to search", "< prev"]
    assert env.step("click[< prev]")[0] == obs
    feats, *_ = env.step("click[features]")
    assert feats.endswith("< Prev [SEP] " + SEP.join(product.bullets))
    env.step("click[< prev]")
    reviews, *_ = env.step("click[reviews]")
    assert reviews.endswith("Back to Search [SEP] < Prev")
    env.step("click[< prev]")
    assert env.shop.state.options == {first_group: chosen}  # kept across sub-pages

    results, *_ = env.step("click[< prev]")  # item -> results page, options reset
    assert "Page 1 (Total results: 50)" in results and env.shop.state.options == {}
    back, *_, binfo = env.step("click[back to search]")
    assert back.startswith("WebShop [SEP] Instruction:") and binfo["has_search_bar"]


def test_invalid_actions_leave_the_page_unchanged(env):
    obs, _ = start(env)
    for bad in ("click[buy now]", "click[search]", "search[]", "buy it", "look[around]", "click[]"):
        out, reward, done, _, info = env.step(bad)
        assert (out, reward, done) == (obs, 0.0, False), bad
        assert info["error"]
    results, *_ = env.step("search[shorts]")
    assert env.step("click[b0nonexist0]")[0] == results


def test_search_works_from_any_page_and_is_case_insensitive(env):
    start(env)
    _, *_, info = env.step("search[bookcase]")
    env.step(f"click[{info['clickables'][2]}]")
    obs, *_ = env.step("SEARCH[Bookcase]")
    assert "Page 1 (Total results:" in obs and env.shop.state.keywords == "bookcase"


def test_parse_action_is_webshops():
    assert parse_action("click[Buy Now]") == ("click", "buy now")
    assert parse_action("  search[Red Shoes]\n") == ("search", "red shoes")
    assert parse_action("click[a[b]]") == ("click[a", "b]")  # greedy, as WebShop's regex
    assert parse_action("click") == ("click", None)


def test_buy_now_ends_with_webshops_reward(env):
    start(env, 5)
    goal = env.goal
    env.step(f"search[{goal.name}]")
    obs, *_ = env.step(f"click[{goal.asin}]")
    wrong = {}
    for name, values in env.catalog.by_asin[goal.asin].options.items():
        other = next(v for v in values if v != goal.goal_options[name])
        env.step(f"click[{other}]")
        wrong[name] = other
    obs, reward, done, _, info = env.step("click[Buy Now]")
    expected = get_reward(
        env.catalog.by_asin[goal.asin], goal, env.catalog.by_asin[goal.asin].price, wrong
    )
    assert done and reward == pytest.approx(expected.reward) and reward < 1.0
    assert info["score"] == pytest.approx(reward) and info["success"] is False
    assert info["purchased"] == {"asin": goal.asin, "options": wrong}
    assert info["reward_info"]["r_type"] == 1.0
    assert obs.startswith("Thank you for shopping with us! [SEP] Your code: [SEP] webshop_")
    assert obs.endswith(f"Your score (min 0.0, max 1.0) [SEP] {expected.reward}")
    after = env.step("click[Buy Now]")
    assert after[2] is True and "error" in after[4]


def test_expert_and_turns(env):
    expert = WebShopExpert(env)
    for task_id in range(5):
        obs, info = env.reset(seed=task_id, options={"split": "test", "task_id": task_id})
        for turn in range(10):  # noqa: B007 -- read after the loop
            obs, reward, done, _, info = env.step(expert(obs, info))
            if done:
                break
        assert done and info["success"] and reward == 1.0 and turn < 10


def test_key_terms():
    text = "Find me machine wash men's shorts with elastic waist for gym workout with color: navy, and size: x-large, and price lower than 50.00 dollars"
    assert (
        key_terms(text, {"color": "navy", "size": "x-large"})
        == "machine wash men's shorts with elastic waist for gym workout"
    )


def test_goals_are_webshop_style_and_splits_disjoint(env):
    tasks = env.tasks
    assert tasks.size("test") == TEST_SIZE and tasks.size("train") >= 1000
    pattern = re.compile(
        r"Find me .+?( with [a-z ]+: [^,]+(, and [a-z ]+: [^,]+)*)?(, and price lower than \d+\.00 dollars)?"
    )
    test_targets = set()
    for i in range(TEST_SIZE):
        goal = tasks.get("test", i).goal
        assert pattern.fullmatch(goal.instruction_text), goal.instruction_text
        assert 2 <= len(goal.attributes) <= 3
        assert set(goal.goal_options) == set(env.catalog.by_asin[goal.asin].options)
        test_targets.add(goal.asin)
    train_targets = {tasks.get("train", i).goal.asin for i in range(0, tasks.size("train"), 7)}
    assert not test_targets & train_targets
    assert tasks.get("test", 3) == tasks.get("test", 3)


def test_catalog_is_seeded_shared_and_in_webshop_schema():
    a = generated_catalog(2000, seed=1)
    assert generated_catalog(2000, seed=1) is a  # built once per process
    b = generated_catalog(2000, seed=2)
    assert [p.asin for p in a.products[:20]] != [p.asin for p in b.products[:20]]
    assert len({p.asin for p in a.products}) == 2000
    assert {p.category for p in a.products} == set(vocab.CATEGORIES)
    p = a.products[0]
    assert p.product_category.count(" \u203a ") >= 2 and p.query == p.query.lower()
    assert p.attributes and p.bullets and p.options
    assert all(v == v.lower() for vs in p.options.values() for v in vs)
    assert pickle.loads(pickle.dumps(a)) is a  # pickles as "rebuild me", not as data
    with pytest.raises(BadDataError, match="1..100000"):
        generated_catalog(100_001)


def test_filler_text_never_mentions_an_attribute():
    for t in vocab.TYPES:
        for sentence in vocab.FILLER[t.category]:
            assert not [a for a in t.attributes if a in sentence.lower()], (t.query, sentence)


def test_search_is_bm25_over_webshop_fields():
    c = generated_catalog(2000, seed=1)
    target = c.products[123]
    hits = c.search(target.title.lower())
    assert hits[0] is target or target in hits[:3]
    assert len(c.search("shorts")) == 50
    assert c.search("zzzz qqqq") == []
    assert c.search("the and of") == []  # stop words only
    # near duplicates: a type query brings many products of that type
    assert sum(h.query == "men's shorts" for h in c.search("men's shorts")) >= 40


def test_env_pickles_and_shares_the_catalog(env):
    start(env, 2)
    env.step("search[nightstand]")
    clone = pickle.loads(pickle.dumps(env))
    assert clone.catalog is env.catalog
    assert clone.step("click[next >]")[0] == env.step("click[next >]")[0]


def test_random_action_is_well_formed(env):
    rng = np.random.default_rng(0)
    start(env)
    for _ in range(30):
        action = env.random_action(rng)
        assert re.fullmatch(r"(search|click)\[.+\]", action)
        _obs, _reward, done, _, info = env.step(action)
        assert "error" not in info
        if done:
            start(env)


def test_tools_map_to_actions(env):
    names = [t["function"]["name"] for t in env.tool_schemas()]
    assert names == ["search", "click"]
    assert env.action_from_tool_call("search", {"keywords": "red shoes"}) == "search[red shoes]"
    assert env.action_from_tool_call("click", {"value": "Buy Now"}) == "click[Buy Now]"
    with pytest.raises(ValueError):
        env.action_from_tool_call("buy", {})
    assert "search[keywords]" in env.instructions()


def test_item_id_and_num_products_argument():
    small = WebShopEnv(num_products=1000)
    assert len(small.catalog) == 1000
    small.reset(options={"split": "test", "task_id": 4})
    assert small.item_id == f"webshop_{small.tasks.size('train') + 4}"
