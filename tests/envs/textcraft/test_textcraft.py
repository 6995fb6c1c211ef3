"""TextCraft's rules: AgentGym's recipe list rebuilt from minecraft-data, its crafting tree, goals,
feedback texts and ingredient groups, goal by name, AgentGym's recipe folder, and the expert."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

pytest.importorskip("minecraft_data")

from agentgym_envs.envs.textcraft import agentgym_facts
from agentgym_envs.envs.textcraft.crafting import CraftingTree, item_id_to_str
from agentgym_envs.envs.textcraft.env import TextCraftEnv
from agentgym_envs.envs.textcraft.expert import TextCraftExpert
from agentgym_envs.envs.textcraft.recipes import RawRecipe, from_folder, from_minecraft_data
from agentgym_envs.envs.textcraft.tasks import TextCraftTasks, embedded_tree
from agentgym_envs.errors import BadDataError, BadTaskError, MissingExtraError
from agentgym_envs.rollout import run_episode


def texts(tree: CraftingTree, item: str) -> list[str]:
    return [r.text for r in tree.item_recipes.get("minecraft:" + item, [])]


# -- AgentGym's recipes from minecraft-data ---------------------------------------------------------
def test_rebuilt_recipe_list_follows_agentgyms_files():
    book = from_minecraft_data()
    assert [r.stem for r in book] == list(agentgym_facts.LOAD_ORDER)
    by_stem = {r.stem: r for r in book}
    assert by_stem["stick"].group == "sticks" and by_stem["stick"].inputs[0].tag
    assert by_stem["torch"].inputs[1].name == "coal"  # of coal / charcoal AgentGym keeps the first
    assert [i.name for i in by_stem["campfire"].inputs] == ["logs", "stick", "coals"]
    assert by_stem["sugar"] == RawRecipe(
        "sugar", "sugar", 1, None, by_stem["sugar_from_sugar_cane"].inputs
    )
    assert [i.name for i in by_stem["golden_shovel"].inputs] == ["stick", "gold_ingot"]


def test_agentgyms_goal_set():
    tree = embedded_tree()
    goals = [g for g, _ in tree.goals]
    assert len(goals) == 544 and len(set(goals)) == 544
    assert {"minecraft:iron_ingot", "minecraft:gold_ingot", "minecraft:stick"} <= set(goals)
    assert "minecraft:quartz_slab" not in goals  # its recipe would close a cycle
    assert (
        "minecraft:iron_block" in goals
    )  # block recipes ("ingot from block") are dropped, not blocks
    depths = [d for _, d in tree.goals]
    assert depths == sorted(depths) and depths[0] == 1
    assert texts(tree, "oak_planks") == ["craft 4 oak planks using 1 oak logs"]
    assert texts(tree, "crafting_table") == ["craft 1 crafting table using 4 planks"]
    assert "minecraft:oak_logs" in tree.items and "minecraft:oak_logs" not in tree.tags
    assert "minecraft:planks" in tree.tags and not tree.is_craftable("minecraft:oak_logs")


def test_splits_are_100_test_goals_over_every_depth():
    tasks = TextCraftTasks()
    assert tasks.splits() == {"train": 444, "test": 100}
    test = [tasks.get("test", t) for t in range(100)]
    assert len({t.goal for t in test}) == 100 and len({t.depth for t in test}) >= 4
    train = {tasks.get("train", t).goal for t in range(444)}
    assert not train & {t.goal for t in test}
    for t in (0, 57, 99):
        index = tasks.agentgym_index("test", t)
        assert tasks.locate(index) == ("test", t) and tasks.locate(index + 544) == ("test", t)


# -- the env's rules ----------------------------------------------------------------------------
@pytest.fixture
def env():
    e = TextCraftEnv()
    yield e
    e.close()


def test_observation_and_server_views(env):
    obs, info = env.reset(options={"goal": "crafting table"})
    assert obs.startswith("Crafting commands:\ncraft ") and obs.endswith(
        "\n\nGoal: craft crafting table."
    )
    assert (
        "craft 1 crafting table using 4 planks" in obs
        and "craft 4 oak planks using 1 oak logs" in obs
    )
    assert info["goal"] == "crafting table" and info["depth"] == 2
    assert env.goal == "minecraft:crafting_table"
    assert obs == f"Crafting commands:\n{env.commands}\n\nGoal: craft crafting table."
    lines = env.commands.split("\n")
    tree_lines = {r.text for r in env.tree.tree(env.goal)}
    assert tree_lines <= set(lines) and 0 < len(set(lines) - tree_lines) <= 10


def test_feedback_texts_are_agentgyms(env):
    env.reset(options={"goal": "crafting table"})
    assert env.step("inventory")[0] == "Inventory: You are not carrying anything."
    assert env.step("get 2 oak logs")[0] == "Got 2 oak logs"
    obs, _, _, _, info = env.step("get 1 stick")
    assert obs == "Could not find stick" and info["error"] == obs
    assert env.step("get 1 planks")[0] == "Could not find planks"  # a group
    assert env.step("get 1 iron ingot")[0] == "Could not find iron ingot"  # craftable
    assert env.step("get 1 unobtainium")[0] == "Could not find unobtainium"
    assert env.step("craft 4 oak planks using 1 oak logs")[0] == "Crafted 4 minecraft:oak_planks"
    assert env.step("inventory")[0] == "Inventory: [oak logs] (1) [oak planks] (4) "
    assert env.step("craft 1 crafting table using 4 planks")[0] == (
        "Could not find enough items to craft minecraft:crafting_table"
    )
    assert env.step("craft 1 crafting table using 3 oak planks")[0] == (
        "Could not find a valid recipe for ItemTagWithCount(item_tag=ItemTag(tag=None, "
        "item_id='minecraft:crafting_table'), count=1)"
    )
    assert env.step("craft 1 planks using 1 oak logs")[0] == (  # a group is not an output
        "Could not find a valid recipe for ItemTagWithCount(item_tag=ItemTag(tag='minecraft:planks', "
        "item_id=None), count=1)"
    )
    assert (
        env.step("craft 1 planks using 5 oak logs")[0]
        == "Could not find enough items to craft None"
    )
    assert env.step("craft 1 crafting table using oak planks")[0] == "Wrong item format: oak planks"
    obs, _, _, _, info = env.step("Craft 1 crafting table using 4 oak planks")
    assert obs == "Could not execute Craft 1 crafting table using 4 oak planks" and info["error"]
    # the craft's own count is not checked; the recipe decides what is made
    obs, reward, terminated, _, info = env.step("craft 7 crafting table using 4 oak planks")
    assert obs == "Crafted 1 minecraft:crafting_table" and reward == 1 and terminated
    assert info["success"] and info["score"] == 1.0
    assert info["inventory"] == {"oak logs": 1, "crafting table": 1}


def test_odd_commands_as_agentgym_reads_them(env):
    env.reset(options={"goal": "crafting table"})
    assert env.step("get 0 oak logs")[0] == "Got 0 oak logs"
    assert env.step("inventory please")[0] == "Inventory: [oak logs] (0) "  # matched at the start
    assert env.step(" inventory")[0] == "Could not execute  inventory"
    assert env.step("craft 4 oak planks using 1 oak logs, ")[0] == "Wrong item format: "


def test_a_group_ingredient_takes_any_member_but_one_kind(env):
    env.reset(options={"goal": "stick"})
    env.step("get 1 oak logs")
    env.step("get 1 spruce logs")
    env.step("craft 4 oak planks using 1 oak logs")
    env.step("craft 4 spruce planks using 1 spruce logs")
    before = dict(env.game.inventory)
    obs, reward, terminated, _, _ = env.step("craft 4 stick using 1 oak planks, 1 spruce planks")
    assert obs.startswith("Could not find a valid recipe for ") and not terminated
    assert env.game.inventory == before
    obs, reward, terminated, _, _ = env.step("craft 4 stick using 2 spruce planks")
    assert obs == "Crafted 4 minecraft:stick" and reward == 1 and terminated


def test_goal_by_name(env):
    for name in ("crafting table", "crafting_table", "minecraft:crafting_table", "Crafting Table"):
        assert env.reset(options={"goal": name})[0].endswith("Goal: craft crafting table.")
    split, task_id = env.task.split, env.task.task_id
    assert env.reset(options={"split": split, "task_id": task_id})[0].endswith(
        "craft crafting table."
    )
    with pytest.raises(
        BadTaskError,
        match="'crafting tabel' is not a TextCraft goal: did you mean 'crafting table'",
    ) as err:
        env.reset(options={"goal": "crafting tabel"})
    assert "\n" not in str(err.value)
    with pytest.raises(BadTaskError, match="not both"):
        env.reset(options={"goal": "stick", "task_id": 0})
    assert "stick" in env.goal_names and len(env.goal_names) == 544


def test_a_fresh_random_state_every_reset(env):
    first = env.reset(options={"goal": "campfire"})[0]
    env.reset(options={"goal": "stick"})
    assert env.reset(options={"goal": "campfire"})[0] == first
    assert TextCraftEnv().reset(options={"goal": "campfire"})[0] == first


def test_random_actions_are_well_formed(env):
    env.reset(options={"goal": "campfire"})
    rng = np.random.default_rng(0)
    for _ in range(50):
        action = env.random_action(rng)
        assert action == "inventory" or action.startswith(("get ", "craft "))
        assert not env.step(action)[0].startswith("Could not execute")


def test_missing_minecraft_data_raises_the_one_line_mend(monkeypatch):
    monkeypatch.setitem(sys.modules, "minecraft_data", None)
    embedded_tree.cache_clear()
    from_minecraft_data.cache_clear()
    with pytest.raises(MissingExtraError, match=r'pip install "agentgym-envs\[textcraft\]"'):
        TextCraftEnv()


def test_expert_crafts_every_goal(env):
    expert = TextCraftExpert(env)
    for split in ("test", "train"):
        for t in range(env.tasks.size(split)):
            ep = run_episode(env, expert, task_id=t, split=split, seed=t, max_turns=200)
            assert ep.success, (split, t, env.goal)


# -- AgentGym's recipe folder -------------------------------------------------------------------
def _write_vanilla(folder, recipe: RawRecipe) -> None:
    """A recipe as a vanilla Minecraft JSON file (a shaped grid with one key per ingredient)."""
    key = {}
    pattern = []
    for symbol, ing in zip("#XABCDEFG", recipe.inputs):
        key[symbol] = {"tag" if ing.tag else "item": f"minecraft:{ing.name}"}
        pattern.append(symbol * ing.count)
    data = {"type": "minecraft:crafting_shaped", "pattern": pattern, "key": key}
    if recipe.group:
        data["group"] = recipe.group
    data["result"] = {"item": f"minecraft:{recipe.output}", "count": recipe.count}
    (folder / f"{recipe.stem}.json").write_text(json.dumps(data))


def test_a_recipe_folder_plays_the_same_game(tmp_path):
    folder = tmp_path / "agentenv_textcraft" / "recipes"
    folder.mkdir(parents=True)
    book = from_minecraft_data()
    for recipe in reversed(book):  # file order on disk does not matter
        _write_vanilla(folder, recipe)
    (folder / "iron_ingot_from_smelting.json").write_text(
        json.dumps(
            {
                "type": "minecraft:smelting",
                "ingredient": {"item": "minecraft:iron_ore"},
                "result": "minecraft:iron_ingot",
            }
        )
    )
    assert from_folder(folder.parent) == book  # the parent of recipes/ works too
    mine, default = TextCraftEnv(data_path=folder), TextCraftEnv()
    assert mine.tasks.user_data and not default.tasks.user_data
    for t in (0, 31, 99):
        assert (
            mine.reset(options={"split": "test", "task_id": t})[0]
            == default.reset(options={"split": "test", "task_id": t})[0]
        )


def _file(folder, name, data):
    (folder / f"{name}.json").write_text(json.dumps(data))


def test_recipe_folder_rules(tmp_path):
    """Alternatives keep the first; a tag without craftable members is an item; a single
    ``*_block`` ingredient recipe is dropped; of two recipes closing a cycle the one read later
    (in AgentGym's load order) is skipped."""
    for wood in ("oak", "spruce"):
        _file(
            tmp_path,
            f"{wood}_planks",
            {
                "type": "minecraft:crafting_shapeless",
                "group": "planks",
                "ingredients": [{"tag": f"minecraft:{wood}_logs"}],
                "result": {"item": f"minecraft:{wood}_planks", "count": 4},
            },
        )
    _file(
        tmp_path,
        "stick",
        {
            "type": "minecraft:crafting_shaped",
            "group": "sticks",
            "pattern": ["#", "#"],
            "key": {"#": {"tag": "minecraft:planks"}},
            "result": {"item": "minecraft:stick", "count": 4},
        },
    )
    _file(
        tmp_path,
        "torch",
        {
            "type": "minecraft:crafting_shaped",
            "pattern": ["X", "#"],
            "key": {
                "X": [{"item": "minecraft:coal"}, {"item": "minecraft:charcoal"}],
                "#": {"item": "minecraft:stick"},
            },
            "result": {"item": "minecraft:torch", "count": 4},
        },
    )
    _file(
        tmp_path,
        "iron_nugget",
        {
            "type": "minecraft:crafting_shapeless",
            "ingredients": [{"item": "minecraft:iron_ingot"}],
            "result": {"item": "minecraft:iron_nugget", "count": 9},
        },
    )
    _file(
        tmp_path,
        "iron_ingot_from_nuggets",
        {
            "type": "minecraft:crafting_shaped",
            "group": "iron_ingot",
            "pattern": ["###", "###", "###"],
            "key": {"#": {"item": "minecraft:iron_nugget"}},
            "result": {"item": "minecraft:iron_ingot"},
        },
    )
    _file(
        tmp_path,
        "iron_ingot_from_iron_block",
        {
            "type": "minecraft:crafting_shapeless",
            "group": "iron_ingot",
            "ingredients": [{"item": "minecraft:iron_block"}],
            "result": {"item": "minecraft:iron_ingot", "count": 9},
        },
    )
    tree = CraftingTree(from_folder(tmp_path))
    assert texts(tree, "torch") == ["craft 4 torch using 1 coal, 1 stick"]
    assert "minecraft:charcoal" not in tree.items
    assert "minecraft:oak_logs" in tree.items and "minecraft:planks" in tree.tags
    assert texts(tree, "iron_ingot") == [
        "craft 1 iron ingot using 9 iron nugget"
    ]  # not from a block
    assert "minecraft:iron_nugget" not in tree.item_recipes  # read after the ingot: a cycle
    # goals by depth, ties in the order AgentGym read their first recipe file
    first_file = {}
    for i, stem in enumerate(agentgym_facts.LOAD_ORDER):
        first_file.setdefault("minecraft:" + stem.split("_from_")[0], i)
    keys = [(d, first_file[g]) for g, d in tree.goals]
    assert keys == sorted(keys) and len(keys) == 5
    assert {item_id_to_str(g): d for g, d in tree.goals}["torch"] == 3
    env = TextCraftEnv(data_path=tmp_path)
    expert = TextCraftExpert(env)
    for t in range(env.tasks.size("test")):
        assert run_episode(env, expert, task_id=t, split="test", seed=0, max_turns=50).success
    with pytest.warns(DeprecationWarning, match="recipes_path= is deprecated.*data_path="):
        old_name = TextCraftEnv(recipes_path=tmp_path)
    assert old_name.tasks.user_data and old_name.tree.goals == env.tree.goals


def test_bad_recipe_folder_errors_say_the_mend(tmp_path):
    with pytest.raises(BadDataError, match="not found"):
        from_folder(tmp_path / "nope")
    with pytest.raises(BadDataError, match="no .json recipes"):
        from_folder(tmp_path)
    (tmp_path / "broken.json").write_text(
        json.dumps({"type": "minecraft:crafting_shaped", "pattern": ["#"]})
    )
    with pytest.raises(BadDataError, match="is not a Minecraft recipe") as err:
        from_folder(tmp_path)
    assert "\n" not in str(err.value)


def test_an_item_named_twice_for_two_ingredients_is_feedback_not_an_exception(tmp_path):
    """A recipe whose group ingredient and item ingredient one item fills: AgentGym checks each
    named share alone, so naming the 4 planks held twice passes, and its server then fails with
    a KeyError; here that is feedback."""
    _file(
        tmp_path,
        "oak_planks",
        {
            "type": "minecraft:crafting_shapeless",
            "group": "planks",
            "ingredients": [{"tag": "minecraft:oak_logs"}],
            "result": {"item": "minecraft:oak_planks", "count": 4},
        },
    )
    _file(
        tmp_path,
        "odd_box",
        {
            "type": "minecraft:crafting_shaped",
            "pattern": ["####", "XXXX"],
            "key": {"#": {"tag": "minecraft:planks"}, "X": {"item": "minecraft:oak_planks"}},
            "result": {"item": "minecraft:odd_box"},
        },
    )
    env = TextCraftEnv(data_path=tmp_path)
    env.reset(options={"goal": "odd box"})
    env.step("get 1 oak logs")
    env.step("craft 4 oak planks using 1 oak logs")
    obs, reward, terminated, _, info = env.step("craft 1 odd box using 4 oak planks, 4 oak planks")
    assert obs == "'minecraft:oak_planks'" and info["error"] == obs and not terminated
    env.step("get 2 oak logs")
    env.step("craft 4 oak planks using 1 oak logs")
    env.step("craft 4 oak planks using 1 oak logs")
    obs, reward, terminated, _, _ = env.step("craft 1 odd box using 4 oak planks, 4 oak planks")
    assert obs == "Crafted 1 minecraft:odd_box" and reward == 1 and terminated


def test_bad_versions_and_hashes_say_the_mend():
    with pytest.raises(BadDataError, match="use '1.16.1'"):
        TextCraftEnv(minecraft_version="9.9")
    with pytest.raises(ValueError, match="use one of siphash13, siphash24"):
        TextCraftEnv(string_hash="fnv")
