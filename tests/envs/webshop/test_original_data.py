"""Loading WebShop's own product and attribute files, and AgentGym's goal order.

The files are small ones the test writes in WebShop's formats (``items_shuffle_1000.json``:
a JSON list of scraped products; ``items_ins_v2_1000.json``: asin -> attributes and the
synthetic instruction).
"""

from __future__ import annotations

import itertools
import json
import os
import random

import pytest

pytest.importorskip("bm25s")
pytest.importorskip("thefuzz")

from agentgym_envs.envs.webshop.catalog import (
    find_data_files,
    load_original_products,
    original_catalog,
)
from agentgym_envs.envs.webshop.env import WebShopEnv
from agentgym_envs.envs.webshop.expert import WebShopExpert
from agentgym_envs.errors import BadDataError


def raw_product(
    asin,
    name,
    *,
    pricing="$19.99",
    options=None,
    query="men's shorts",
    category="fashion",
    pc="Clothing, Shoes & Jewelry \u203a Men \u203a Clothing \u203a Shorts",
    desc=None,
    bullets=None,
):
    return {
        "asin": asin,
        "name": name,
        "full_description": desc if desc is not None else f"{name}. Great quality.",
        "small_description": bullets if bullets is not None else [f"About {name}", "Imported"],
        "pricing": pricing,
        "customization_options": options,
        "images": [f"https://example.invalid/{asin}.jpg", "x"],
        "category": category,
        "query": f"  {query.upper()} ",
        "product_category": pc,
        "brand": "dropped on load",
        "list_price": "$99",
    }


def opts(**groups):
    return {
        name.replace("_", " ").title(): [{"value": v, "image": None} for v in values]
        for name, values in groups.items()
    }


PRODUCTS = [
    raw_product(
        "B00SHORT01",
        "Kestrel Men's Athletic Shorts Elastic Waist",
        options=opts(color=["Navy", "Black"], size=["Small", "X-Large"]),
    ),
    raw_product("nan", "broken row"),
    raw_product("B00TOOLONG123", "asin longer than ten characters"),
    raw_product(
        "B00SCRUB01",
        "Sorrel Tea Tree Body Scrub",
        pricing="$10.00 - $14.50",
        query="body scrub",
        category="beauty",
        pc="Beauty & Personal Care \u203a Skin Care \u203a Body \u203a Scrubs & Body Treatments",
        options=opts(scent=["Lavender/Mint", "Unscented"]),
    ),
    raw_product("B00SHORT01", "duplicate asin is skipped"),
    raw_product(
        "B00LAMP001",
        "Hearthline Table Lamp",
        pricing="",
        query="table lamp",
        category="furniture",
        pc="Home & Kitchen \u203a Lighting \u203a Lamps",
        options=None,
        bullets="One bullet as a string",
    ),
    raw_product(
        "B00SPEAK01",
        "Voltix Bluetooth Speaker Waterproof",
        pricing="$989.00",
        query="bluetooth speaker",
        category="electronics",
        pc="Electronics \u203a Portable Audio \u203a Speakers",
        options={"Color": [{"value": "Blue", "image": None}], "Style": None},
    ),
]
ATTRS = {
    "B00SHORT01": {
        "attributes": ["elastic waist", "machine wash"],
        "instruction": "Find me machine wash men's shorts with elastic waist",
        "instruction_attributes": ["machine wash", "elastic waist"],
    },
    "B00SCRUB01": {
        "attributes": ["tea tree", "natural ingredients"],
        "instruction": "Find me scrubs & body treatments with tea tree",
        "instruction_attributes": ["tea tree"],
    },
    "B00LAMP001": {"attributes": []},
    "B00SPEAK01": {
        "attributes": ["waterproof"],
        "instruction": "Find me waterproof speakers",
        "instruction_attributes": ["waterproof"],
    },
}


@pytest.fixture()
def data_dir(tmp_path):
    (tmp_path / "items_shuffle_1000.json").write_text(json.dumps(PRODUCTS))
    (tmp_path / "items_ins_v2_1000.json").write_text(json.dumps(ATTRS))
    return tmp_path


def test_products_load_as_webshop_derives_them(data_dir):
    products = load_original_products(*find_data_files(data_dir), price_seed=3)
    assert [p.asin for p in products] == ["B00SHORT01", "B00SCRUB01", "B00LAMP001", "B00SPEAK01"]
    shorts, scrub, lamp, speaker = products
    assert shorts.query == "men's shorts"  # lower-cased and stripped
    assert shorts.options == {"color": ("navy", "black"), "size": ("small", "x-large")}
    assert shorts.price_tag == "$19.99" and shorts.price == 19.99
    assert scrub.options == {"scent": ("lavender | mint", "unscented")}  # '/' -> ' | '
    assert scrub.pricing == (10.0, 14.5) and scrub.price_tag == "$10.0 to $14.5"
    assert 10.0 <= scrub.price <= 14.5
    assert scrub.price == random.Random(3).uniform(10.0, 14.5)  # the first range-priced product
    assert lamp.pricing == (100.0,) and lamp.price_tag == "$100.0" and lamp.options == {}
    assert lamp.bullets == ("One bullet as a string",) and lamp.attributes == ()
    assert speaker.options == {"color": ("blue",)}  # a None option group is skipped
    assert shorts.image.endswith("B00SHORT01.jpg")


def test_catalog_is_read_once_and_again_when_its_file_changes(data_dir):
    first = original_catalog(str(data_dir))
    assert original_catalog(str(data_dir)) is first
    products_file = data_dir / "items_shuffle_1000.json"
    products_file.write_text(json.dumps(PRODUCTS[:2]))
    stat = products_file.stat()
    os.utime(products_file, ns=(stat.st_atime_ns, first.source_mtime + 1_000_000_000))
    second = original_catalog(str(data_dir))
    assert second is not first and len(second) < len(first) == 4


def agentgym_order(products):
    """AgentGym's goal list, computed the way its server does, with the global ``random``."""
    random.seed(233)
    goals = []
    for p in products:
        if p.instruction is None:
            continue
        price_range = [10.0 * i for i in range(1, 100) if 10.0 * i > p.price][:4]
        if len(price_range) >= 2:
            _, upper = sorted(random.sample(price_range, 2))
            price_text = f", and price lower than {upper:.2f} dollars"
        else:
            upper, price_text = 1000000, ""
        names = sorted(p.options)
        for combo in itertools.product(*(p.options[n] for n in names)):
            option_text = ", and ".join(f"{k}: {v}" for k, v in zip(names, combo))
            option_text = " with " + option_text if option_text else ""
            goals.append((p.asin, p.instruction + option_text + price_text, upper))
    random.seed(233)
    random.shuffle(goals)
    return goals


def test_goals_follow_agentgyms_order(data_dir):
    env = WebShopEnv(data_path=data_dir)
    expected = agentgym_order(env.catalog.products)
    assert (
        len(expected) == 4 + 2 + 1
    )  # 2x2 shorts, 2 scrub scents, 1 speaker colour; the lamp has no instruction
    assert env.tasks.size("train") == len(expected)
    got = [(g.asin, g.instruction_text, g.price_upper) for g in env.tasks.goals]
    assert got == expected
    speaker = next(g for g in env.tasks.goals if g.asin == "B00SPEAK01")
    assert (
        speaker.price_upper == 1000000 and "price" not in speaker.instruction_text
    )  # only 990 fits above 989
    # weights: mean of 1 / (goals with that attribute)
    shorts = next(g for g in env.tasks.goals if g.asin == "B00SHORT01")
    assert shorts.weight == pytest.approx(1 / 4)


def test_train_task_n_is_agentgyms_webshop_n(data_dir):
    env = WebShopEnv(data_path=data_dir)
    for n in range(env.tasks.size("train")):
        obs, _info = env.reset(options={"split": "train", "task_id": n})
        assert env.item_id == f"webshop_{n}"
        assert (
            obs
            == f"WebShop [SEP] Instruction: [SEP] {env.tasks.goals[n].instruction_text} [SEP] Search"
        )
    assert env.tasks.locate(3) == ("train", 3)
    # default test split: the first goals (all 7 here)
    assert env.tasks.size("test") == 7


def test_test_items_from_an_agenteval_file(data_dir, tmp_path):
    path = tmp_path / "webshop_test.json"
    path.write_text(
        json.dumps([{"item_id": "webshop_5", "conversations": None}, {"item_id": "webshop_2"}])
    )
    env = WebShopEnv(data_path=data_dir, test_items=str(path))
    assert env.tasks.size("test") == 2
    env.reset(options={"split": "test", "task_id": 0})
    assert env.item_id == "webshop_5" and env.goal == env.tasks.goals[5]
    with pytest.raises(BadDataError, match="outside"):
        WebShopEnv(data_path=data_dir, test_items=[99])


def test_expert_buys_the_real_target(data_dir):
    env = WebShopEnv(data_path=data_dir)
    expert = WebShopExpert(env)
    for n in range(env.tasks.size("train")):
        obs, info = env.reset(options={"split": "train", "task_id": n})
        for _ in range(10):
            obs, _reward, done, _, info = env.step(expert(obs, info))
            if done:
                break
        assert done and info["purchased"]["asin"] == env.goal.asin
        assert info["success"], (env.goal.instruction_text, info["reward_info"])


def test_bad_data_paths_say_the_mend(tmp_path):
    with pytest.raises(BadDataError, match="not found"):
        WebShopEnv(data_path=tmp_path / "missing")
    with pytest.raises(BadDataError, match="items_shuffle"):
        WebShopEnv(data_path=tmp_path)
    (tmp_path / "items_shuffle_1000.json").write_text("[]")
    with pytest.raises(BadDataError, match="items_ins_v2"):
        WebShopEnv(data_path=tmp_path)
    (tmp_path / "items_ins_v2_1000.json").write_text("{}")
    with pytest.raises(BadDataError, match="no usable product"):
        WebShopEnv(data_path=tmp_path)
