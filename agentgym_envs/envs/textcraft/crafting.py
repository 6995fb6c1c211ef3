"""AgentGym's TextCraft game: its crafting tree, goals, crafting commands and action rules.

Built from a list of :class:`~agentgym_envs.envs.textcraft.recipes.RawRecipe` in AgentGym's
load order, with AgentGym's rules (commit 3ef9235, ``agentenv_textcraft``):

* Loading: ingredient ids and tags of every crafting recipe are known items / tags, even of a
  recipe later dropped; a recipe with a single ``*_block`` ingredient is dropped; a recipe
  ``group`` other than the output's id is a tag whose members are the group's outputs; a recipe
  whose output is already a (transitive, as loaded so far) ingredient of one of its ingredients
  is dropped. Afterwards a tag none of whose members has a recipe becomes a plain item.
* Depth: 0 without a recipe, else the minimum over recipes of 1 + the deepest ingredient.
  Goals: every item with a recipe, ordered by depth, ties in load order.
* Crafting commands of a goal: every recipe of its tree (a tag's tree is its members'
  recipes), plus up to 10 distractors: for each ingredient of the tree, up to 10 recipes using
  it are drawn, and 10 of those not already shown. Python's ``random`` is seeded with 42 at
  every reset; the drawn lists come from ``set``s of strings whose order follows the string
  hashes (:mod:`~agentgym_envs.envs.textcraft.hashorder`).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from agentgym_envs.envs.textcraft.hashorder import HashOrderedSet
from agentgym_envs.envs.textcraft.recipes import RawRecipe

NS = "minecraft:"
SEED = 42
MAX_DISTRACTORS = 10
USES_PER_INGREDIENT = 10

_ACTIONS = (
    ("craft", re.compile(r"craft (.*) using (.*)")),
    ("get", re.compile(r"get ([0-9]+) (.*)")),
    ("inventory", re.compile(r"inventory")),
)
_COUNT = re.compile(r"([0-9]+) (.*)")


def item_id_to_str(name: str) -> str:
    """``minecraft:oak_planks`` -> ``oak planks``, as AgentGym writes ids."""
    return name.replace(NS, "").replace("_", " ")


@dataclass(frozen=True)
class Ref:
    """An item (``item_id``) or an ingredient group (``tag``), as AgentGym's ``ItemTag``."""

    tag: str | None = None
    item_id: str | None = None

    @property
    def name(self) -> str:
        return self.item_id or self.tag or ""


@dataclass
class Counted:
    ref: Ref
    count: int

    def __repr__(self) -> str:  # AgentGym prints this in "Could not find a valid recipe for ..."
        return (
            f"ItemTagWithCount(item_tag=ItemTag(tag={self.ref.tag!r}, item_id={self.ref.item_id!r}), "
            f"count={self.count!r})"
        )


@dataclass
class Recipe:
    inputs: list[Counted]
    output: Counted

    @property
    def text(self) -> str:
        """The crafting command: ``craft 4 stick using 2 planks``."""
        inputs = ", ".join(f"{i.count} {item_id_to_str(i.ref.name)}" for i in self.inputs)
        return f"craft {self.output.count} {item_id_to_str(self.output.ref.name)} using {inputs}"


class ActionFailed(Exception):
    """An action the game refuses; the message is AgentGym's observation."""


class CraftingTree:
    """AgentGym's recipe graph (see the module docstring)."""

    def __init__(self, book: tuple[RawRecipe, ...] | list[RawRecipe]) -> None:
        self.item_recipes: dict[str, list[Recipe]] = {}
        self.tag_recipes: dict[str, list[Recipe]] = {}
        self.tags: set[str] = set()
        self.items: set[str] = set()
        self.item_tag: dict[str, str] = {}
        self._closure: dict[str, set[str]] = {}
        self._depth: dict[str, int] = {}
        for raw in book:
            self._load(raw)
        self._untag_uncraftable()
        self.goals: list[tuple[str, int]] = sorted(
            ((item, self.depth(item)) for item in self.item_recipes), key=lambda t: t[1]
        )
        self.uses = self._uses()

    # -- building ---------------------------------------------------------------------------
    def _load(self, raw: RawRecipe) -> None:
        inputs: list[Counted] = []
        for ing in raw.inputs:
            name = NS + ing.name
            if ing.tag:
                self.tags.add(name)
                inputs.append(Counted(Ref(tag=name), ing.count))
            else:
                self.items.add(name)
                inputs.append(Counted(Ref(item_id=name), ing.count))
        output = NS + raw.output
        self.items.add(output)
        if len(inputs) == 1 and inputs[0].ref.name.endswith("_block"):
            return
        group = None
        if raw.group is not None:
            group = NS + raw.group
            if group != output:
                self.tags.add(group)
                self.item_tag[output] = group
        recipe = Recipe(inputs, Counted(Ref(tag=group, item_id=output), raw.count))
        closure = self._closure.setdefault(output, set())
        if any(output in self._closure.get(i.ref.name, ()) for i in inputs):
            return
        self.item_recipes.setdefault(output, []).append(recipe)
        for i in inputs:
            closure.add(i.ref.name)
            closure.update(self._closure.get(i.ref.name, ()))
        if group is not None:
            self.tag_recipes.setdefault(group, []).append(recipe)

    def _untag_uncraftable(self) -> None:
        converted = set()
        for recipes in self.item_recipes.values():
            for recipe in recipes:
                for i in recipe.inputs:
                    if i.ref.item_id is None and not any(
                        m in self.item_recipes for m in self.members(i.ref.tag or "")
                    ):
                        converted.add(i.ref.tag)
                        i.ref = Ref(item_id=i.ref.tag)
        for name in converted:
            self.items.add(name)
            self.tags.discard(name)

    def members(self, tag: str) -> list[str]:
        return [item for item, t in self.item_tag.items() if t == tag]

    def _uses(self) -> dict[str, list[Recipe]]:
        uses: dict[str, list[Recipe]] = {}
        for table in (self.item_recipes, self.tag_recipes):
            for recipes in table.values():
                for recipe in recipes:
                    for i in recipe.inputs:
                        uses.setdefault(i.ref.name, []).append(recipe)
        return uses

    # -- queries ----------------------------------------------------------------------------
    def recipes_of(self, name: str) -> list[Recipe]:
        return self.item_recipes.get(name) or self.tag_recipes.get(name) or []

    def depth(self, name: str) -> int:
        if name not in self._depth:
            recipes = self.recipes_of(name)
            self._depth[name] = (
                min(max(self.depth(i.ref.name) + 1 for i in r.inputs) for r in recipes)
                if recipes
                else 0
            )
        return self._depth[name]

    def is_craftable(self, name: str) -> bool:
        return name in self.item_recipes or name in self.tag_recipes

    def tree(self, name: str, visited: frozenset[str] = frozenset()) -> list[Recipe]:
        """Every recipe of ``name``'s crafting tree, in AgentGym's traversal order (repeats
        included)."""
        if name in visited:
            return []
        recipes = self.recipes_of(name)
        out = list(recipes)
        for recipe in recipes:
            for i in recipe.inputs:
                out.extend(self.tree(i.ref.name, visited | {name}))
        return out

    def commands(self, goal: str, string_hash: str = "siphash13") -> list[str]:
        """AgentGym's crafting-commands list of ``goal`` (an id such as ``minecraft:stick``) on a
        server whose Python hashes strings with ``string_hash`` under ``PYTHONHASHSEED=0``."""
        rng = random.Random(SEED)
        recipes = self.tree(goal)
        drawn: list[Recipe] = []
        for recipe in recipes:
            for i in recipe.inputs:
                uses = self.uses.get(i.ref.name)
                if uses:
                    drawn.extend(rng.sample(uses, min(len(uses), USES_PER_INGREDIENT)))
        shown = HashOrderedSet((r.text for r in recipes), string_hash)
        extra = HashOrderedSet((r.text for r in drawn if r.text not in shown), string_hash)
        pool = list(extra)
        lines = list(shown) + rng.sample(pool, min(len(pool), MAX_DISTRACTORS))
        rng.shuffle(lines)
        return lines

    def ref(self, text: str) -> Ref:
        """An item or tag named in an action (``oak planks`` -> ``minecraft:oak_planks``)."""
        name = NS + text.replace(" ", "_")
        return Ref(tag=name) if name in self.tags else Ref(item_id=name)

    def craft(self, inputs: list[Counted], output: Ref) -> Counted | None:
        """What crafting ``output`` from exactly ``inputs`` makes (the first recipe of the output
        that the inputs fill, each ingredient once with its exact count), or None."""
        for recipe in self.item_recipes.get(output.item_id or "", ()):
            left = list(inputs)
            ok = True
            for want in recipe.inputs:
                found = next((c for c in left if self._fills(c.ref, want.ref)), None)
                if found is None or found.count != want.count:
                    ok = False
                    break
                left.remove(found)
            if ok and not left:
                return recipe.output
        return None

    def _fills(self, given: Ref, want: Ref) -> bool:
        if want.item_id is not None:
            return given.item_id == want.item_id
        if want.tag is not None:
            return given.tag == want.tag or self.item_tag.get(given.item_id or "") == want.tag
        return False


class Game:
    """One TextCraft episode's state and AgentGym's action rules."""

    def __init__(self, tree: CraftingTree, goal: str) -> None:
        self.tree = tree
        self.goal = goal
        self.inventory: dict[str, int] = {}

    def step(self, action: str) -> tuple[str, float, bool]:
        """AgentGym's ``TextCraftEnv.step``: observation, reward, done."""
        observation = None
        reward, done = 0.0, False
        try:
            for kind, regex in _ACTIONS:
                m = regex.match(action)
                if not m:
                    continue
                if kind == "craft":
                    observation, made = self._craft(m.group(1), m.group(2))
                elif kind == "get":
                    observation, made = self._get(int(m.group(1)), m.group(2))
                else:
                    observation, made = self.inventory_text(), None
                if made is not None and made == self.goal:
                    reward, done = 1.0, True
            if observation is None:
                raise ActionFailed(f"Could not execute {action}")
        except ActionFailed as exc:
            return str(exc.args[0]), 0.0, False
        return observation, reward, done

    def _parse(self, output: str, inputs: str) -> tuple[Counted, list[Counted]]:
        m = _COUNT.match(output)
        out = (
            Counted(self.tree.ref(m.group(2)), int(m.group(1)))
            if m
            else Counted(self.tree.ref(output), 1)
        )
        parts = []
        for part in inputs.split(","):
            pm = _COUNT.match(part.strip())
            if not pm:
                raise ActionFailed(f"Wrong item format: {part.strip()}")
            parts.append(Counted(self.tree.ref(pm.group(2)), int(pm.group(1))))
        return out, parts

    def _craft(self, output: str, inputs: str) -> tuple[str, str | None]:
        out, parts = self._parse(output, inputs)
        if any(
            p.ref.item_id not in self.inventory or self.inventory[p.ref.item_id] < p.count
            for p in parts
        ):
            raise ActionFailed(f"Could not find enough items to craft {out.ref.item_id}")
        made = self.tree.craft(parts, out.ref)
        if made is None:
            raise ActionFailed(f"Could not find a valid recipe for {out!r}")
        for p in parts:
            key = p.ref.item_id or ""
            if key not in self.inventory:
                # one item named twice, filling two ingredients: AgentGym's server fails with
                # this KeyError (a reply with "error") after taking the first share
                raise ActionFailed(repr(key))
            self.inventory[key] -= p.count
            if self.inventory[key] == 0:
                del self.inventory[key]
        item = made.ref.item_id or ""
        self.inventory[item] = self.inventory.get(item, 0) + made.count
        return f"Crafted {made.count} {item}", item

    def _get(self, amount: int, text: str) -> tuple[str, str | None]:
        ref = self.tree.ref(text)
        if (
            self.tree.is_craftable(ref.name)
            or ref.item_id is None
            or ref.item_id not in self.tree.items
        ):
            raise ActionFailed(f"Could not find {text}")
        self.inventory[ref.item_id] = self.inventory.get(ref.item_id, 0) + amount
        return f"Got {amount} {text}", ref.item_id

    def inventory_text(self) -> str:
        text = "Inventory: "
        if not self.inventory:
            text += "You are not carrying anything."
        for item, n in self.inventory.items():
            text += f"[{item_id_to_str(item)}] ({n}) "
        return text
