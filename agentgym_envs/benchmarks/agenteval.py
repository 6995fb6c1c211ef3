"""AgentEval: AgentGym's test splits, addressed by AgentGym item ids.

Every registered env's embedded test split has AgentEval's size for its family (WebShop 200,
Maze 25, ...), so :func:`agenteval_items` gives the benchmark on any machine. When a user has
AgentGym's own AgentEval files (``webshop_test.json`` ... ``{"conversations": null, "item_id":
"webshop_5238"}``), :func:`load_agenteval` reads them and resolves each item id through the
env's task source, so the same runner plays the published item ids.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agentgym_envs.datasets.items import (
    ItemResolver,
    canonical_prefix,
    default_resolver,
    read_item_file,
    registered_prefixes,
)
from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import ENV_INFO, FAMILIES, resolve_id

#: AgentEval's test-split size per family, by canonical prefix (a view of the family records).
AGENTEVAL_SIZES: dict[str, int] = {
    f.item_prefix: f.agenteval_size for f in FAMILIES.values() if f.agenteval_size
}

#: AgentEval's file name per family, by canonical prefix (a view of the family records).
AGENTEVAL_FILES: dict[str, str] = {
    f.item_prefix: f.agenteval_file for f in FAMILIES.values() if f.agenteval_file
}


@dataclass(frozen=True)
class BenchItem:
    """One benchmark task: the env id, the task within it, and AgentGym's item id for it."""

    env_id: str
    split: str
    task_id: int
    item_id: str


def agenteval_env_ids(installed_only: bool = True) -> list[str]:
    """One registered id per AgentEval family (the first registered for its prefix)."""
    ids = [env_id for prefix, env_id in registered_prefixes().items() if prefix in AGENTEVAL_SIZES]
    return [i for i in ids if not installed_only or ENV_INFO[i].installed]


def agenteval_items(
    env_id: str,
    split: str = "test",
    *,
    limit: int | None = None,
    resolver: ItemResolver | None = None,
) -> list[BenchItem]:
    """Every task of ``split`` of ``env_id`` (the embedded AgentEval split for ``test``)."""
    env_id = resolve_id(env_id)
    ids = (resolver or default_resolver()).split_item_ids(env_id, split, limit)
    return [BenchItem(env_id, split, t, item_id) for t, item_id in enumerate(ids)]


def load_agenteval(
    source: str | os.PathLike[str],
    *,
    envs: Iterable[str] | None = None,
    resolver: ItemResolver | None = None,
    skip_unregistered: bool = True,
) -> dict[str, list[BenchItem]]:
    """AgentGym's AgentEval files (one file or a folder of ``*_test.json``) as benchmark items.

    Returns ``{env_id: [BenchItem, ...]}`` in file order. ``envs`` keeps only those env ids.
    Files of families that are not registered here are skipped with a warning
    (``skip_unregistered=False``: an error that names the family).
    """
    import logging

    from agentgym_envs.datasets.items import UnlinkedItemError, parse_item_id

    logger = logging.getLogger(__name__)
    resolver = resolver or default_resolver()
    path = Path(source).expanduser()
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file())
        if not files:
            raise BadDataError(f"{path}: no AgentEval .json files here (e.g. webshop_test.json)")
    elif path.is_file():
        files = [path]
    else:
        raise BadDataError(
            f"{path}: no such file or folder: pass AgentEval's *_test.json files or their folder"
        )
    wanted = {resolve_id(e) for e in envs} if envs is not None else None
    out: dict[str, list[BenchItem]] = {}
    for file in files:
        for item_id in read_item_file(file):
            parse_item_id(item_id)  # a malformed id is an error here, not a skip
            try:
                env_id = resolver.env_id(item_id)
            except UnlinkedItemError as exc:
                if not skip_unregistered:
                    raise
                logger.warning("skipping %s: %s", file.name, exc)
                break
            if wanted is not None and env_id not in wanted:
                break
            ref = resolver.resolve(item_id)
            out.setdefault(env_id, []).append(BenchItem(env_id, ref.split, ref.task_id, item_id))
    return out


def write_agenteval(items: Iterable[BenchItem], folder: str | os.PathLike[str]) -> list[Path]:
    """Write items as AgentEval files (``<family file name>``, ``{"conversations": null,
    "item_id": ...}`` records), one file per family -- the same format :func:`load_agenteval`
    reads."""
    by_family: dict[str, list[BenchItem]] = {}
    for item in items:
        by_family.setdefault(canonical_prefix(item.item_id.rpartition("_")[0]), []).append(item)
    out_dir = Path(folder).expanduser()
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for fam, fam_items in sorted(by_family.items()):
        path = out_dir / AGENTEVAL_FILES.get(fam, f"{fam}_test.json")
        records = [{"conversations": None, "item_id": i.item_id} for i in fam_items]
        path.write_text(json.dumps(records, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


__all__ = [
    "AGENTEVAL_FILES",
    "AGENTEVAL_SIZES",
    "BenchItem",
    "agenteval_env_ids",
    "agenteval_items",
    "load_agenteval",
    "write_agenteval",
]
