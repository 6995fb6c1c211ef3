"""The TextCraft environment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.deprecation import renamed_argument
from agentgym_envs.envs.textcraft.crafting import CraftingTree, Game, item_id_to_str
from agentgym_envs.envs.textcraft.recipes import MINECRAFT_VERSION
from agentgym_envs.envs.textcraft.tasks import TextCraftTask, TextCraftTasks
from agentgym_envs.errors import BadTaskError, require
from agentgym_envs.tools.tool import Tool, Toolkit, param, schema


class TextCraftEnv(TextEnv):
    """Craft a Minecraft item from base materials, using the crafting commands given.

    ## Description
    AgentGym's TextCraft (from ADaPT), reproduced byte for byte: the same goal for the same
    AgentGym item index, the same crafting-commands list, the same feedback texts, reward and
    episode end as AgentGym's server (commit 3ef9235) started with ``PYTHONHASHSEED=0``. The
    recipes are Minecraft 1.16's, read from the ``minecraft-data`` package and completed with
    the facts minecraft-data lacks (AgentGym's file load order, recipe groups, ingredient
    order: :mod:`~agentgym_envs.envs.textcraft.agentgym_facts`).

    The observation lists every recipe of the goal's crafting tree plus up to 10 distractor
    recipes (recipes using one of the tree's ingredients), drawn and shuffled as AgentGym does:
    Python's ``random`` seeded with 42 at every reset (a fresh env and a reused one show the
    same list), drawing from ``set``s of strings. The order of those sets follows Python's
    string hashes, so in AgentGym both the order of the commands and which distractors are
    shown change with ``PYTHONHASHSEED`` (measured: under seed 1, 11 of 78 first observations
    match seed 0's). This env computes what AgentGym's server gives under ``PYTHONHASHSEED=0``
    on 64-bit CPython 3.11+ (or 3.4-3.10 with ``string_hash="siphash24"``), whatever the hash
    seed of the Python running it.

    AgentGym's index order of goals does not depend on the hash seed: goals are sorted by
    crafting depth, ties in the order its server read its recipe files (``os.listdir``). The
    order here is the one measured on the server that recorded the golden transcripts; a
    server on another file system may list the files in another order and number goals (and
    break recipe cycles) differently. The test split is 100 of the 544 goals spaced evenly
    along that order (AgentEval's own 100 item ids are not shipped); the train split is the
    other 444.

    ## Action Space
    AgentGym's three commands, matched as its server matches them (case-sensitive, at the start
    of the text): ``get <n> <item>`` (items without a recipe only), ``craft <n> <item> using
    <n> <item>, <n> <item>`` (the ingredients of one batch, each once with its exact count; a
    recipe's ingredient group such as ``planks`` is filled by naming a member, e.g. ``oak
    planks``), ``inventory``. The text is taken as AgentGym's server takes it; AgentGym's
    client first keeps only letters, digits, commas and spaces of the model's ``Action:`` line
    (that is the reply parser's job, not the env's).

    ## Observation Space
    Reset: ``Crafting commands:\\ncraft 4 oak planks using 1 oak logs\\n...\\n\\nGoal: craft
    crafting table.``. Step: AgentGym's texts -- ``Got 1 oak logs``, ``Crafted 4
    minecraft:oak_planks``, ``Inventory: [oak planks] (4) ``, ``Inventory: You are not carrying
    anything.``, ``Could not find stick`` (``get`` of something craftable, a group or an
    unknown item), ``Could not find enough items to craft minecraft:stick``, ``Could not find a
    valid recipe for ItemTagWithCount(...)`` (wrong ingredients, or a group named instead of a
    member), ``Wrong item format: planks``, ``Could not execute <action>``. The action's text
    is echoed as sent -- control characters and NULs included -- as AgentGym's server echoes
    it (parity); over ``agentgym serve`` a lone surrogate travels as a JSON ``\\udXXX``
    escape (AgentGym's server answers HTTP 500 there).

    ## Starting State
    An empty inventory; the goal of the chosen task.

    ## Rewards
    1 on the step that puts the goal item in the inventory, else 0.

    ## Episode End
    Terminated when the goal item is crafted. AgentGym's max rounds is 20 (a wrapper's limit).
    AgentGym's server keeps playing a finished episode (crafting the goal again gives reward 1
    again); here, as in every Gymnasium env, a finished episode needs a reset.

    ## Information
    ``goal`` (its name: ``crafting table``), ``depth`` (crafting depth of the goal),
    ``inventory`` (item name -> count), ``item_id``; ``error`` on a refused action.

    ## Arguments
    ``data_path``: AgentGym's ``recipes/`` folder (or the folder holding it) to read the
    recipes from its files instead of minecraft-data; files AgentGym's server read are read in
    its order. ``minecraft_version``: minecraft-data's version (1.16.1, AgentGym's).
    ``string_hash``: the string hash of the Python running the AgentGym server to reproduce,
    ``"siphash13"`` (CPython 3.11+, default: the golden transcripts' server) or
    ``"siphash24"`` (CPython 3.4-3.10; AgentGym's README sets up Python 3.9).
    ``recipes_path``: ``data_path``'s old name (deprecated, removed in the next release).

    Reset options: ``task_id`` and ``split``, or ``goal`` (``"crafting table"``) to pick a goal
    by name.

    ## Version History
    * v0: AgentGym's goals (544) in its server's index order, its crafting commands, texts,
      reward and done: identical to its server under ``PYTHONHASHSEED=0`` for 150 of 150
      recorded first observations and 100 of 100 recorded transcripts (CPython 3.11, and 3.9
      with ``string_hash="siphash24"``). Earlier development versions used readable names in
      the ``Crafted`` text, lenient parsing and a goal set of our own (547 goals).
    """

    family = "textcraft"
    extra_reset_options = ("goal",)

    def __init__(
        self,
        data_path: str | Path | None = None,
        minecraft_version: str = MINECRAFT_VERSION,
        string_hash: str = "siphash13",
        render_mode: str | None = None,
        *,
        recipes_path: str | Path | None = None,
    ) -> None:
        data_path = renamed_argument("data_path", data_path, "recipes_path", recipes_path)
        if data_path is None:
            require("minecraft_data", "textcraft")
        tasks = TextCraftTasks(data_path, minecraft_version, string_hash)
        super().__init__(tasks, render_mode=render_mode)
        self.tree: CraftingTree = tasks.tree
        self.game: Game | None = None

    # -- AgentGym's server views ---------------------------------------------------------------
    @property
    def commands(self) -> str | None:
        """The crafting commands of the episode, one a line, as AgentGym's env holds them
        (``env.commands``); None before the first reset."""
        task = self.task
        return "\n".join(task.commands) if isinstance(task, TextCraftTask) else None

    @property
    def goal(self) -> str | None:
        """The goal's item id, ``minecraft:crafting_table``, as AgentGym's env holds it
        (``env.goal``); None before the first reset."""
        task = self.task
        return task.goal if isinstance(task, TextCraftTask) else None

    @property
    def goal_names(self) -> list[str]:
        """Every goal's name, in AgentGym's index order."""
        return [item_id_to_str(g) for g, _ in self.tree.goals]

    def _current(self) -> TextCraftTask:
        if self.task is None:
            raise RuntimeError("call reset() first")
        return self.task  # type: ignore[return-value]

    # -- episode ------------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        if options is not None and not isinstance(options, dict):
            return super().reset(seed=seed, options=options)  # the base class says what to pass
        options = dict(options or {})
        if options.get("goal") is not None:
            if options.get("task_id") is not None or "split" in options:
                raise BadTaskError("pass either 'goal' or 'task_id'/'split', not both")
            tasks: TextCraftTasks = self.tasks  # type: ignore[assignment]
            options["split"], options["task_id"] = tasks.find_goal(options["goal"])
        options.pop("goal", None)
        return super().reset(seed=seed, options=options)

    def _begin(self, task: TextCraftTask) -> tuple[str, dict[str, Any]]:
        self.game = Game(self.tree, task.goal)
        return task.instruction(), self._extra()

    def _extra(self) -> dict[str, Any]:
        task = self._current()
        inventory = self.game.inventory if self.game else {}
        return {
            "goal": task.goal_name,
            "depth": task.depth,
            "inventory": {item_id_to_str(k): v for k, v in inventory.items()},
            "item_id": f"textcraft_{task.index}",
        }

    def _act(self, action: str) -> StepResult:
        assert self.game is not None
        obs, reward, done = self.game.step(action)
        if done:
            self.success, self.score = True, 1.0
        error = None if obs.startswith(("Got ", "Crafted ", "Inventory: ")) else obs
        return StepResult(obs, reward=reward, terminated=done, error=error, info=self._extra())

    # -- baselines and prompts ------------------------------------------------------------------
    def random_action(self, rng: np.random.Generator) -> str:
        """A random command: run a shown crafting command as written, fetch one of its
        ingredients, or look at the inventory."""
        task = self._current()
        roll = rng.random()
        if roll < 0.1 or not task.commands:
            return "inventory"
        line = task.commands[int(rng.integers(len(task.commands)))]
        if roll < 0.55:
            part = line.split(" using ", 1)[1].split(", ")
            return "get " + part[int(rng.integers(len(part)))]
        return line

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.task is None or self.game is None:
            return None
        return self._last_observation + "\n" + self.game.inventory_text()

    def instructions(self) -> str:
        return (
            "You are given a few useful crafting recipes to craft items in Minecraft. Crafting "
            'commands are of the format "craft [target object] using [input ingredients]".\n'
            'Every round you get an observation and answer with one action. You can "get" an '
            'object (ingredients) from the environment, look up the game inventory with "inventory", '
            'or "craft" (target) using any of the crafting commands.\n'
            "Reminder:\n"
            '1. Always specify the quantity when using "get" and "craft" commands. Example of get: '
            "get 1 lapis lazuli. Example of craft: craft 1 blue dye using 1 lapis lazuli. Another: "
            "craft 1 golden carrot using 8 gold nugget, 1 carrot.\n"
            '2. When using "get", do not say where the item comes from.\n'
            "3. You can use ONLY the crafting commands provided. If a command uses a generic "
            'ingredient like "planks", use a specific type of it, e.g. "oak planks", in your command.\n'
            "4. One craft command makes one batch: craft again to make more."
        )

    def tool_schemas(self) -> list[dict[str, Any]]:
        counted = schema(count=param("integer", minimum=1), item=param("string"))
        ingredients = param("array", items=counted, min_items=1)
        inventory = {"type": "object", "properties": {}, "additionalProperties": False}
        tools = [
            Tool(
                "get",
                "Fetch a base material (not craftable) into the inventory.",
                parameters=counted,
            ),
            Tool(
                "craft",
                "Craft one batch of an item from ingredients in the inventory.",
                parameters=schema(
                    count=param("integer", minimum=1),
                    item=param("string"),
                    ingredients=ingredients,
                ),
            ),
            Tool("inventory", "List the inventory.", parameters=inventory),
        ]
        return Toolkit(tools).openai_schemas()

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        if name == "inventory":
            return "inventory"
        if name == "get":
            return f"get {int(arguments['count'])} {arguments['item']}"
        if name == "craft":
            parts = ", ".join(f"{int(i['count'])} {i['item']}" for i in arguments["ingredients"])
            return f"craft {int(arguments['count'])} {arguments['item']} using {parts}"
        raise ValueError(f"unknown tool {name!r}: use get, craft or inventory")
