"""WebShop's reward, pinned on hand-built products and goals -- quirks included."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("thefuzz")

from agentgym_envs.envs.webshop.catalog import Product, price_tag
from agentgym_envs.envs.webshop.reward import (
    COLOR_SET,
    get_reward,
    normalize_color,
    option_hits,
    price_threshold,
    title_nouns,
    type_reward,
)
from agentgym_envs.envs.webshop.tasks import Goal

SHORTS_CAT = "Clothing, Shoes & Jewelry \u203a Men \u203a Clothing \u203a Shorts"


def product(**kw) -> Product:
    base = {
        "asin": "B000SHORTS",
        "title": "Kestrel Men's Athletic Shorts, Elastic Waist",
        "description": "The Kestrel men's athletic shorts are made with elastic waist. It is machine wash by design.",
        "bullets": (
            "ELASTIC WAIST: elastic waist you can count on",
            "Reinforced seams for a longer life.",
        ),
        "category": "fashion",
        "query": "men's shorts",
        "product_category": SHORTS_CAT,
        "pricing": (24.99,),
        "price_tag": "$24.99",
        "options": {
            "color": ("black", "navy", "light blue"),
            "size": ("small", "large", "x-large"),
        },
        "attributes": ("machine wash", "elastic waist", "gym workout"),
        "price": 24.99,
    }
    base.update(kw)
    return Product(**base)


def goal(**kw) -> Goal:
    base = {
        "asin": "B000SHORTS",
        "category": "fashion",
        "query": "men's shorts",
        "name": "Kestrel Men's Athletic Shorts, Elastic Waist",
        "product_category": SHORTS_CAT,
        "instruction_text": "Find me machine wash men's shorts with elastic waist with color: navy, and size: x-large, "
        "and price lower than 40.00 dollars",
        "attributes": ("machine wash", "elastic waist"),
        "price_upper": 40.0,
        "goal_options": {"color": "navy", "size": "x-large"},
    }
    base.update(kw)
    return Goal(**base)


def test_exact_purchase_scores_one():
    info = get_reward(product(), goal(), 24.99, {"color": "navy", "size": "x-large"})
    assert info.reward == 1.0
    assert (info.r_type, info.attribute_hits, info.option_hits, info.r_price) == (1.0, 2, 2, True)


def test_wrong_size_misses_one_option():
    info = get_reward(product(), goal(), 24.99, {"color": "navy", "size": "small"})
    assert info.option_hits == 1
    assert info.reward == pytest.approx(4 / 5)


def test_no_option_chosen_and_too_expensive():
    info = get_reward(product(), goal(), 45.0, {})
    assert (info.option_hits, info.r_price) == (0, False)
    assert info.reward == pytest.approx(2 / 5)


def test_quirk_token_subset_large_hits_x_large():
    # "('size', 'x-large')" has tokens {size, x, large}; "large" is a subset -> ratio 100
    info = get_reward(product(), goal(), 24.99, {"color": "navy", "size": "large"})
    assert info.option_hits == 2 and info.reward == 1.0


def test_quirk_any_blue_hits_navy_blue():
    # purchased "light blue" normalises to "blue" (first colour word found), a subset of the goal tuple's tokens
    g = goal(goal_options={"color": "navy blue"})
    assert normalize_color("light blue") == "blue"
    assert option_hits(["light blue"], g.goal_options) == 1
    assert option_hits(["black"], g.goal_options) == 0


def test_quirk_standard_becomes_tan_and_misses():
    assert normalize_color("standard") == "tan"
    p = product(options={"style": ("standard", "pro")})
    g = goal(goal_options={"style": "standard"})
    info = get_reward(p, g, 24.99, {"style": "standard"})
    assert info.option_hits == 0
    assert info.reward == pytest.approx(3 / 4)  # 2 attributes + price of 2 + 1 + 1


def test_goal_tuple_normalised_only_when_value_is_a_colour_word():
    assert normalize_color(("color", "black")) == "black"
    assert normalize_color(("color", "jet black")) == ("color", "jet black")
    # purchased "jet black" -> "black" == goal colour "black"
    assert option_hits(["jet black"], {"color": "black"}) == 1


def test_list_goal_options_human_style():
    assert option_hits(["x-large", "navy"], ["navy", "x-large"]) == 2
    assert option_hits(["small"], ["x-large"]) == 0


def test_fuzzy_attribute_and_substring_matches():
    p = product(
        attributes=("machine washable",),
        description="Soft shorts.",
        bullets=("Great for tea time",),
    )
    g = goal(attributes=("machine wash", "tea", "elastic waist"), goal_options={})
    info = get_reward(p, g, 10.0, {})
    # "machine washable" ~ "machine wash" is 86 > 85; "tea" is a substring of the bullets;
    # "elastic waist" appears in the title only
    assert info.attribute_hits == 3
    assert info.reward == 1.0


def test_attribute_missing_everywhere():
    p = product(
        attributes=("gym workout",), title="Kestrel Shorts", description="Shorts.", bullets=()
    )
    g = goal(attributes=("elastic waist",), goal_options={})
    assert get_reward(p, g, 10.0, {}).reward == pytest.approx(1 / 2)


def test_type_reward_levels():
    g = goal(name="Kestrel Men's Athletic Shorts, Elastic Waist")  # nouns: kestrel men shorts waist
    other_cat = "Electronics \u203a Audio \u203a Speakers"
    # same query -> 1.0 even with few shared nouns
    assert type_reward(product(title="Kestrel Speaker", product_category=other_cat), g)[0] == 1.0
    # nothing in common -> 0.0
    far = product(
        title="Voltix Bluetooth Speaker", query="bluetooth speaker", product_category=other_cat
    )
    assert type_reward(far, g)[0] == 0.0
    assert get_reward(far, g, 10.0, {"color": "navy", "size": "x-large"}).reward == 0.0
    # breadcrumbs sharing two segments count as the same type
    near = product(
        title="Kestrel Speaker",
        query="speaker",
        product_category="Clothing, Shoes & Jewelry \u203a Men \u203a Speakers",
    )
    r_type, query_match, category_match, title_score = type_reward(near, g)
    assert (query_match, category_match, title_score, r_type) == (False, True, 0.25, 1.0)


def test_type_reward_half_and_tenth():
    other_cat = "Electronics \u203a Audio \u203a Speakers"
    # 1 of 5 goal nouns (0.2, not > 0.2) with no query or category match -> 0.5
    g5 = goal(name="Alpha Bravo Charlie Delta Echo")
    p = product(title="Alpha Radio", query="radio", product_category=other_cat)
    assert type_reward(p, g5)[3] == pytest.approx(0.2)
    assert type_reward(p, g5)[0] == 0.5
    # 1 of 11 nouns (< 0.1) -> 0.1
    g11 = goal(name="Alpha Bravo Charlie Delta Echo Foxtrot Golf Hotel India Juliet Kilo")
    assert type_reward(p, g11)[0] == 0.1
    # no noun in the goal title -> title_score 0.2
    assert type_reward(p, goal(name="the 2 and"))[3] == 0.2


def test_title_nouns_lexicon():
    assert title_nouns("Kestrel Men's Athletic Shorts with Elastic Waist, Classic Fit") == [
        "kestrel",
        "men",
        "shorts",
        "waist",
        "fit",
    ]
    assert "wireless" not in title_nouns("Voltix Wireless Earbuds")


def test_price_threshold_follows_webshop():
    # candidates are the first four tens above the price; the bound is the larger of two draws
    rng = random.Random(1)
    upper, text = price_threshold(24.99, rng)
    assert upper in (40.0, 50.0, 60.0)
    assert text == f", and price lower than {upper:.2f} dollars"
    ref = random.Random(1)
    assert upper == sorted(ref.sample([30.0, 40.0, 50.0, 60.0], 2))[1]
    assert price_threshold(985.0, random.Random(0)) == (1000000, "")  # only 990 fits


def test_colour_list_and_price_tag():
    assert len(COLOR_SET) == 102 and COLOR_SET[:3] == ("alabaster", "apricot", "aqua")
    assert price_tag((12.99,)) == "$12.99" and price_tag((15.0, 20.5)) == "$15.0 to $20.5"
