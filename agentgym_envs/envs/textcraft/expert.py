"""TextCraft's scripted expert: a recursive planner played on a copy of the game."""

from __future__ import annotations

from functools import lru_cache
from math import ceil
from typing import Any

from agentgym_envs.envs.textcraft.crafting import CraftingTree, Game, Recipe, item_id_to_str
from agentgym_envs.envs.textcraft.env import TextCraftEnv


class _Planner:
    """Cheapest recipes by a static count of actions (one ``get`` per base item, one craft per
    recipe), then a plan run on a copy of the game so every action is checked by its rules."""

    def __init__(self, tree: CraftingTree) -> None:
        self.tree = tree
        self.cost = lru_cache(maxsize=None)(self._cost)

    def _cost(self, name: str) -> int:
        recipes = self.tree.item_recipes.get(name)
        if not recipes:
            return 1
        return min(self._recipe_cost(r) for r in recipes)

    def _recipe_cost(self, recipe: Recipe) -> int:
        total = 1
        for i in recipe.inputs:
            if i.ref.item_id is not None:
                total += self.cost(i.ref.item_id)
            else:
                total += min(self.cost(m) for m in self.craftable_members(i.ref.tag or ""))
        return total

    def craftable_members(self, tag: str) -> list[str]:
        return [m for m in self.tree.members(tag) if m in self.tree.item_recipes]

    def recipe(self, item: str) -> Recipe:
        return min(self.tree.item_recipes[item], key=self._recipe_cost)

    def member(self, tag: str, need: int, game: Game) -> str:
        members = self.craftable_members(tag)
        held = [m for m in members if game.inventory.get(m, 0) >= need]
        return held[0] if held else min(members, key=self.cost)

    def obtain(self, item: str, n: int, game: Game, actions: list[str], depth: int = 0) -> None:
        """Play the actions that bring ``item`` to ``n`` in ``game``; record them."""
        if depth > 30:
            raise RecursionError(f"crafting {item} recurses too deep")
        have = game.inventory.get(item, 0)
        if have >= n:
            return
        if item not in self.tree.item_recipes:
            self._do(f"get {n - have} {item_id_to_str(item)}", game, actions)
            return
        recipe = self.recipe(item)
        batches = ceil((n - have) / recipe.output.count)
        if batches > 1:  # ingredients for every batch at once: fewer gets and crafts
            for i in recipe.inputs:
                name = i.ref.item_id or self.member(i.ref.tag or "", i.count * batches, game)
                self.obtain(name, i.count * batches, game, actions, depth + 1)
        for _ in range(batches * 4):
            if game.inventory.get(item, 0) >= n:
                return
            for _attempt in range(8):  # making one ingredient may use up another: repeat
                chosen = []
                for i in recipe.inputs:
                    name = i.ref.item_id or self.member(i.ref.tag or "", i.count, game)
                    chosen.append((name, i.count))
                    self.obtain(name, i.count, game, actions, depth + 1)
                if all(game.inventory.get(name, 0) >= c for name, c in chosen):
                    break
            parts = ", ".join(f"{c} {item_id_to_str(name)}" for name, c in chosen)
            self._do(
                f"craft {recipe.output.count} {item_id_to_str(item)} using {parts}", game, actions
            )
        raise RuntimeError(f"could not make {n} {item}")

    @staticmethod
    def _do(action: str, game: Game, actions: list[str]) -> None:
        observation, _, _ = game.step(action)
        if not observation.startswith(("Got ", "Crafted ")):
            raise RuntimeError(f"planned {action!r}, got {observation!r}")
        actions.append(action)


class TextCraftExpert:
    """Each turn, plans the goal's whole crafting tree from the current inventory (fetch base
    items, craft each intermediate as many batches as needed) and takes the plan's first
    action."""

    def __init__(self, env: TextCraftEnv) -> None:
        self.env = env
        self._planner: _Planner | None = None

    def plan(self) -> list[str]:
        env = self.env
        if env.game is None:
            return []
        if self._planner is None or self._planner.tree is not env.tree:
            self._planner = _Planner(env.tree)
        game = Game(env.tree, env.game.goal)
        game.inventory = dict(env.game.inventory)
        actions: list[str] = []
        self._planner.obtain(game.goal, game.inventory.get(game.goal, 0) + 1, game, actions)
        return actions

    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        actions = self.plan()
        return actions[0] if actions else "inventory"
