"""AgentGym's TextCraft recipe list: from ``minecraft-data`` plus a few facts, or from its folder.

AgentGym reads recipe files one by one; what it keeps of each is a :class:`RawRecipe`: the
output id, its count, the recipe ``group`` and the ingredients in file order, each an item or a
tag (an ingredient group such as ``planks``) with a count. :func:`from_minecraft_data` rebuilds
that list from minecraft-data 1.16.1 and :mod:`~agentgym_envs.envs.textcraft.agentgym_facts`;
:func:`from_folder` reads AgentGym's own ``recipes/`` folder.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agentgym_envs.envs.textcraft import agentgym_facts as facts
from agentgym_envs.errors import BadDataError, require

MINECRAFT_VERSION = "1.16.1"


@dataclass(frozen=True)
class Ingredient:
    name: str  # id without the ``minecraft:`` namespace
    count: int
    tag: bool = False


@dataclass(frozen=True)
class RawRecipe:
    """One crafting recipe file as AgentGym reads it (ids without the namespace)."""

    stem: str
    output: str
    count: int
    group: str | None
    inputs: tuple[Ingredient, ...]


# -- minecraft-data ------------------------------------------------------------------------------
def _kind(item: str) -> str | None:
    """Which interchangeable set an ingredient belongs to (variants differing only in members
    of one set are one recipe), or None."""
    base = item.removeprefix("stripped_")
    wood, _, rest = base.rpartition("_")
    if item.endswith("_planks"):
        return "planks"
    if item.endswith("_wool"):
        return "wool"
    if rest == "slab" and wood in facts.WOODS:
        return "wooden_slab"
    if wood in facts.WOODS and rest in ("log", "wood", "stem", "hyphae"):
        return "log"
    for kind, members in _SETS.items():
        if item in members:
            return kind
    return None


_SETS = {
    "coal": {"coal", "charcoal"},
    "stone": {"cobblestone", "blackstone"},
    "soul": {"soul_sand", "soul_soil"},
    "sand": {"sand", "red_sand"},
    "sandstone": {"sandstone", "chiseled_sandstone", "cut_sandstone"},
    "red_sandstone": {"red_sandstone", "chiseled_red_sandstone", "cut_red_sandstone"},
    "quartz": {"quartz_block", "chiseled_quartz_block", "quartz_pillar"},
    "purpur": {"purpur_block", "purpur_pillar"},
}


def _tag_name(members: frozenset[str]) -> str:
    kind = _kind(next(iter(members)))
    if kind == "log":
        woods = {m.removeprefix("stripped_").rpartition("_")[0] for m in members}
        if len(woods) > 1:
            return "logs"
        wood = woods.pop()
        return f"{wood}_stems" if wood in ("crimson", "warped") else f"{wood}_logs"
    return {
        "planks": "planks",
        "wool": "wool",
        "wooden_slab": "wooden_slabs",
        "coal": "coals",
        "stone": "stone_tool_materials",
        "soul": "soul_fire_base_blocks",
    }[kind]


Slots = tuple[tuple[frozenset[str], int], ...]


def _merge(variants: list[tuple[Slots, int]]) -> list[tuple[Slots, int]]:
    """Merge variants that differ in one slot whose items are interchangeable."""
    out = list(dict.fromkeys(variants))
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                (a, ca), (b, cb) = out[i], out[j]
                if ca != cb or len(a) != len(b):
                    continue
                diff = [k for k in range(len(a)) if a[k] != b[k]]
                if len(diff) != 1 or a[diff[0]][1] != b[diff[0]][1]:
                    continue
                union = a[diff[0]][0] | b[diff[0]][0]
                if len({_kind(m) for m in union}) != 1 or _kind(next(iter(union))) is None:
                    continue
                k = diff[0]
                out[i] = (a[:k] + ((union, a[k][1]),) + a[k + 1 :], ca)
                del out[j]
                merged = True
                break
            if merged:
                break
    return out


def _output(stem: str) -> str:
    return stem.split("_from_")[0]


def _group(stem: str, output: str) -> str | None:
    if stem in facts.DUPLICATES:
        return None
    if output in facts.SELF_GROUPS:
        return output
    for group, patterns in facts.GROUPS:
        for pattern in patterns.split():
            names = (
                [pattern.format(wood=w) for w in facts.WOODS] if "{wood}" in pattern else [pattern]
            )
            if any(fnmatch.fnmatchcase(stem, n) for n in names):
                return group
    return None


def _assign(stems: list[str], recipes: list[tuple[Slots, int]]) -> dict[str, tuple[Slots, int]]:
    """Which merged minecraft-data recipe each of an output's recipe files holds: a file named
    ``<output>_from_<words>`` holds the recipe whose ingredients share most of those words."""
    left = list(recipes)
    out: dict[str, tuple[Slots, int]] = {}

    def score(stem: str, recipe: tuple[Slots, int]) -> int:
        words = {w.removesuffix("s") for w in stem.partition("_from_")[2].split("_")} - {"and", ""}
        names = {
            w.removesuffix("s") for members, _ in recipe[0] for m in members for w in m.split("_")
        }
        return len(words & names)

    for stem in sorted(stems, key=lambda s: "_from_" not in s):
        if not left:
            break
        best = max(left, key=lambda r: score(stem, r))
        out[stem] = best
        left.remove(best)
    return out


@lru_cache(maxsize=2)
def from_minecraft_data(version: str = MINECRAFT_VERSION) -> tuple[RawRecipe, ...]:
    """AgentGym's recipe list rebuilt from minecraft-data (``version`` 1.16.1 is AgentGym's)."""
    minecraft_data = require("minecraft_data", "textcraft")
    try:
        md = minecraft_data(version)
        raw = md.recipes
    except Exception as exc:  # the package raises plain errors for unknown versions
        raise BadDataError(
            f"minecraft-data has no crafting recipes for version {version!r}: use {MINECRAFT_VERSION!r}"
        ) from exc
    names = {item["id"]: item["name"] for item in md.items_list}
    ids = {name: i for i, name in names.items()}
    by_output: dict[str, list[str]] = {}
    for stem in facts.LOAD_ORDER:
        by_output.setdefault(_output(stem), []).append(stem)
    chosen: dict[str, tuple[Slots, int]] = {}
    for output, stems in by_output.items():
        stems = [s for s in stems if s not in facts.DUPLICATES]
        variants = []
        for v in raw.get(str(ids.get(output, -1)), []):
            order: dict[str, int] = {}
            cells = [c for row in v.get("inShape", []) for c in row] + list(
                v.get("ingredients", [])
            )
            for c in cells:
                if c is not None:
                    name = names[c if isinstance(c, int) else c["id"]]
                    order[name] = order.get(name, 0) + 1
            variants.append(
                (tuple((frozenset([n]), k) for n, k in order.items()), int(v["result"]["count"]))
            )
        if not variants:
            raise BadDataError(
                f"minecraft-data {version} has no recipe for {output!r}: use {MINECRAFT_VERSION!r}"
            )
        chosen.update(_assign(stems, _merge(variants)))
    book = []
    for stem, original in facts.DUPLICATES.items():
        chosen[stem] = chosen[original]
    for stem in facts.LOAD_ORDER:
        if stem not in chosen:
            raise BadDataError(
                f"minecraft-data {version} lacks AgentGym's recipe {stem!r}: use {MINECRAFT_VERSION!r}"
            )
        slots, count = chosen[stem]
        inputs = []
        for members, k in slots:
            if len(members) > 1 and facts.ALTERNATIVES.get(stem) in members:
                inputs.append(Ingredient(facts.ALTERNATIVES[stem], k))
            elif len(members) > 1:
                inputs.append(Ingredient(_tag_name(members), k, tag=True))
            else:
                inputs.append(Ingredient(next(iter(members)), k))
        if stem in facts.TAG_OVERRIDES:
            old, new = facts.TAG_OVERRIDES[stem]
            inputs = [Ingredient(new, i.count, True) if i.name == old else i for i in inputs]
        if stem in facts.KEY_ORDER:
            rank = {n: r for r, n in enumerate(facts.KEY_ORDER[stem].split())}
            inputs.sort(key=lambda i: rank[i.name])
        output = _output(stem)
        book.append(RawRecipe(stem, output, count, _group(stem, output), tuple(inputs)))
    return tuple(book)


# -- AgentGym's folder ---------------------------------------------------------------------------
def _strip(name: str) -> str:
    return name.split(":", 1)[1] if ":" in name else name


def _ingredient(entry: object, count: int) -> Ingredient:
    if isinstance(entry, list):  # alternatives: AgentGym keeps the first
        entry = entry[0]
    if isinstance(entry, dict) and "item" in entry:
        return Ingredient(_strip(entry["item"]), count)
    if isinstance(entry, dict) and "tag" in entry:
        return Ingredient(_strip(entry["tag"]), count, tag=True)
    raise ValueError(f"ingredient {entry!r} has neither 'item' nor 'tag'")


def parse_recipe(stem: str, data: dict) -> RawRecipe | None:
    """One recipe file's content as AgentGym reads it; None for non-crafting recipes."""
    kind = data.get("type")
    inputs: list[Ingredient] = []
    if kind == "minecraft:crafting_shaped":
        for key, entry in data["key"].items():
            inputs.append(_ingredient(entry, sum(line.count(key) for line in data["pattern"])))
    elif kind == "minecraft:crafting_shapeless":
        position: dict[str, int] = {}
        for entry in data["ingredients"]:
            ing = _ingredient(entry, 1)
            if ing.name in position:
                old = inputs[position[ing.name]]
                inputs[position[ing.name]] = Ingredient(old.name, old.count + 1, old.tag)
            else:
                position[ing.name] = len(inputs)
                inputs.append(ing)
    else:
        return None
    result = data["result"]
    if isinstance(result, str):
        output, count = result, 1
    else:
        output, count = result["item"], int(result.get("count") or 1)
    group = data.get("group")
    return RawRecipe(stem, _strip(output), count, group, tuple(inputs))


def from_folder(path: str | Path) -> tuple[RawRecipe, ...]:
    """AgentGym's ``recipes/`` folder (or the folder holding it). Files are read in the order
    AgentGym's server read them (:data:`~agentgym_facts.LOAD_ORDER`), others after, by name."""
    root = Path(path).expanduser()
    folder = root / "recipes" if (root / "recipes").is_dir() else root
    if not folder.is_dir():
        raise BadDataError(
            f"recipe folder {str(folder)!r} not found: pass data_path= AgentGym's recipes/ folder"
        )
    files = {f.stem: f for f in folder.glob("*.json")}
    if not files:
        raise BadDataError(
            f"recipe folder {str(folder)!r} has no .json recipes: pass AgentGym's recipes/ folder"
        )
    known = {s: i for i, s in enumerate(facts.LOAD_ORDER)}
    book = []
    for stem in sorted(files, key=lambda s: (known.get(s, len(known)), s)):
        try:
            recipe = parse_recipe(stem, json.loads(files[stem].read_text()))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise BadDataError(
                f"recipe file {str(files[stem])!r} is not a Minecraft recipe ({exc}): fix or remove it"
            ) from exc
        if recipe is not None:
            book.append(recipe)
    return tuple(book)
