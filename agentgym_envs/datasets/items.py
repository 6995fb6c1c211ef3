"""AgentGym item ids (``webshop_5238``) and the env tasks they stand for.

AgentTraj and AgentEval address a task by ``<prefix>_<index>``: the prefix names the env family
and the index is AgentGym's global data index for it (the evaluator reads it back with
``int(item_id.split("_")[-1])``). Here a prefix maps to a registered env id, and that env's
:class:`~agentgym_envs.core.TaskSource` maps the index to ``(split, task_id)`` with its
:meth:`~agentgym_envs.core.TaskSource.locate`. Prefixes of AgentGym families that this
installation has not registered are known by name, so the error says which family is missing.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym_envs.core import TaskSource
from agentgym_envs.errors import AgentGymError, BadDataError, BadTaskError
from agentgym_envs.spec import ENV_INFO, FAMILIES, family_for_prefix, resolve_id

_ITEM_ID = re.compile(r"^(?P<prefix>[A-Za-z][A-Za-z0-9_\-]*?)_(?P<index>\d+)$")

#: AgentGym's item-id prefixes (as its task names write them) -> our canonical prefix; a view of
#: the family records in ``registration.py``.
AGENTGYM_PREFIXES: dict[str, str] = {
    p: f.item_prefix for f in FAMILIES.values() for p in f.prefixes
}

#: Human names of AgentGym's families, by canonical prefix (a view of the family records).
FAMILY_NAMES: dict[str, str] = {f.item_prefix: f.display_name for f in FAMILIES.values()}


class StandInItemError(BadDataError):
    """An AgentGym item id was resolved against an embedded stand-in for AgentGym's data."""


class UnlinkedItemError(BadDataError):
    """An item id whose family is not registered here (or not known at all)."""


@dataclass(frozen=True)
class ItemRef:
    """One AgentGym item resolved to a task of a registered env."""

    item_id: str
    prefix: str
    index: int
    env_id: str
    split: str
    task_id: int


def parse_item_id(item_id: str) -> tuple[str, int]:
    """``("webshop", 5238)`` for ``"webshop_5238"``; a :class:`BadDataError` otherwise."""
    if not isinstance(item_id, str):
        raise BadDataError(f"item_id must be a string like 'webshop_12', got {item_id!r}")
    m = _ITEM_ID.match(item_id.strip())
    if not m:
        raise BadDataError(
            f"item_id {item_id!r} is not of the form '<prefix>_<index>' (e.g. 'webshop_12')"
        )
    return m["prefix"], int(m["index"])


def canonical_prefix(prefix: str) -> str:
    """Our prefix for an AgentGym prefix (``lmrlgym_maze`` -> ``maze``); others unchanged."""
    family = family_for_prefix(prefix)
    return family.item_prefix if family is not None else prefix


def canonical_item_id(item_id: str) -> str:
    """``lmrlgym_maze_3`` -> ``maze_3``: one spelling per item, for overlap checks and joins."""
    prefix, index = parse_item_id(item_id)
    return f"{canonical_prefix(prefix)}_{index}"


def family_of(item_id: str) -> str:
    """The canonical prefix (family key) of an item id, malformed ids give ``"?"``."""
    try:
        return canonical_prefix(parse_item_id(item_id)[0])
    except BadDataError:
        return "?"


def registered_prefixes() -> dict[str, str]:
    """Canonical item prefix -> the first registered env id that uses it."""
    out: dict[str, str] = {}
    for info in ENV_INFO.values():
        if info.item_prefix:
            out.setdefault(canonical_prefix(info.item_prefix), info.id)
    return out


def env_id_for_prefix(prefix: str, env_ids: dict[str, str] | None = None) -> str:
    """The registered env id for an item prefix, or an :class:`UnlinkedItemError` saying why."""
    canon = canonical_prefix(prefix)
    if env_ids:
        chosen = env_ids.get(prefix) or env_ids.get(canon)
        if chosen:
            return resolve_id(chosen)
    known = registered_prefixes()
    if canon in known:
        return known[canon]
    if canon in FAMILY_NAMES:
        raise UnlinkedItemError(
            f"item prefix {prefix!r} is AgentGym's {FAMILY_NAMES[canon]}, which is not registered in this "
            f"agentgym-envs installation: upgrade agentgym-envs or filter these records out"
        )
    raise UnlinkedItemError(
        f"unknown item prefix {prefix!r}: AgentGym's are {', '.join(sorted(set(AGENTGYM_PREFIXES.values())))}"
        f"; registered here: {', '.join(sorted(known)) or 'none'}"
    )


class ItemResolver:
    """Resolves item ids to :class:`ItemRef`, caching one task source per env id.

    ``env_ids`` overrides the env chosen for a prefix (``{"wordle": "AgentGym/Wordle-v0"}``),
    ``env_kwargs`` passes constructor arguments per env id (e.g. a ``data_path`` that makes the
    task source follow AgentGym's own indexing). Thread-safe.

    Item ids never lie: resolving an AgentGym item id of a family whose embedded task source is
    a stand-in for AgentGym's data (:attr:`~agentgym_envs.spec.Family.stand_in`), while the
    source is not the user's own data (:attr:`~agentgym_envs.core.TaskSource.user_data`), is a
    :class:`StandInItemError` naming the loader and its data, unless ``allow_stand_in=True``
    asks for the stand-in task of that index.
    """

    def __init__(
        self,
        env_ids: dict[str, str] | None = None,
        env_kwargs: dict[str, dict[str, Any]] | None = None,
        *,
        allow_stand_in: bool = False,
    ) -> None:
        self.allow_stand_in = bool(allow_stand_in)
        self.env_ids = dict(env_ids or {})
        self.env_kwargs = {resolve_id(k): dict(v) for k, v in (env_kwargs or {}).items()}
        self._sources: dict[str, TaskSource] = {}
        self._lock = threading.Lock()

    def task_source(self, env_id: str) -> TaskSource:
        env_id = resolve_id(env_id)
        with self._lock:
            if env_id not in self._sources:
                import gymnasium as gym

                env = gym.make(env_id, **self.env_kwargs.get(env_id, {}))
                self._sources[env_id] = env.unwrapped.tasks
                env.close()
            return self._sources[env_id]

    def env_id(self, item_id: str) -> str:
        prefix, _ = parse_item_id(item_id)
        return env_id_for_prefix(prefix, self.env_ids)

    def resolve(self, item_id: str) -> ItemRef:
        prefix, index = parse_item_id(item_id)
        env_id = env_id_for_prefix(prefix, self.env_ids)
        source = self.task_source(env_id)
        self.check_stand_in(item_id, env_id, source)
        try:
            split, task_id = source.locate(index)
        except BadTaskError as exc:
            raise BadTaskError(f"item {item_id!r} does not exist in {env_id}: {exc}") from None
        try:
            source.check(split, task_id)
        except BadTaskError:
            raise BadTaskError(
                f"item {item_id!r} maps to task {task_id} of {env_id}'s {split} split, "
                f"which has {source.size(split)} tasks"
            ) from None
        return ItemRef(item_id, canonical_prefix(prefix), index, env_id, split, task_id)

    def plays_stand_in(self, env_id: str) -> bool:
        """Whether ``env_id``'s task source is an embedded stand-in for AgentGym's data."""
        source = self.task_source(env_id)
        return bool(ENV_INFO[resolve_id(env_id)].record.stand_in) and not source.user_data

    def check_stand_in(self, item_id: str, env_id: str, source: TaskSource) -> None:
        """Refuse ``item_id`` on a stand-in source unless the stand-in was asked for."""
        record = ENV_INFO[env_id].record
        if self.allow_stand_in or not record.stand_in or getattr(source, "user_data", False):
            return
        raise StandInItemError(
            f"item {item_id!r} is AgentGym's, but {record.stand_in}; or ask for the stand-in "
            "task of that index (ItemResolver(allow_stand_in=True), --allow-stand-in)"
        )

    def split_item_ids(
        self, env_id: str, split: str = "test", limit: int | None = None
    ) -> list[str]:
        """The AgentGym item ids of ``split`` of ``env_id`` in task order (at most ``limit``)."""
        env_id = resolve_id(env_id)
        source = self.task_source(env_id)
        n = source.size(split)
        if n == 0:
            raise BadDataError(f"{env_id} has no {split!r} tasks: use split 'test' or 'train'")
        n = n if limit is None else min(n, limit)
        return [f"{source.item_prefix}_{source.agentgym_index(split, t)}" for t in range(n)]

    def item_id(self, env_id: str, split: str, task_id: int) -> str:
        """The AgentGym item id of task ``task_id`` of ``split`` of ``env_id``."""
        env_id = resolve_id(env_id)
        source = self.task_source(env_id)
        return f"{source.item_prefix}_{source.agentgym_index(split, task_id)}"


def read_item_file(path: Path) -> list[str]:
    """The item ids of an AgentEval-style file: a JSON list (or JSONL) of ``{"item_id": ...}``
    records or of bare id strings."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
            data = [json.loads(line) for line in lines if line.strip()]
        except json.JSONDecodeError as exc:
            raise BadDataError(
                f"{path}: not JSON or JSONL ({exc.msg}): expected AgentEval records like "
                '{"item_id": "webshop_12"}'
            ) from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise BadDataError(f'{path}: expected a list of {{"item_id": ...}} records')
    ids = []
    for i, record in enumerate(data):
        if isinstance(record, dict):
            item = record.get("item_id")
        else:
            item = record if isinstance(record, str) else None
        if not isinstance(item, str):
            raise BadDataError(f"{path}[{i}]: record has no string 'item_id'")
        ids.append(item)
    return ids


_default: ItemResolver | None = None


def default_resolver() -> ItemResolver:
    """A process-wide resolver with default env construction."""
    global _default
    if _default is None:
        _default = ItemResolver()
    return _default


def resolve_item(item_id: str, *, allow_stand_in: bool = False) -> ItemRef:
    """Resolve one item id with the default resolver (see :class:`ItemResolver`)."""
    if allow_stand_in:
        return ItemResolver(allow_stand_in=True).resolve(item_id)
    return default_resolver().resolve(item_id)


__all__ = [
    "AGENTGYM_PREFIXES",
    "FAMILY_NAMES",
    "AgentGymError",
    "ItemRef",
    "ItemResolver",
    "StandInItemError",
    "UnlinkedItemError",
    "canonical_item_id",
    "canonical_prefix",
    "default_resolver",
    "env_id_for_prefix",
    "family_of",
    "parse_item_id",
    "read_item_file",
    "registered_prefixes",
    "resolve_item",
]
