"""WebArena tasks: generated from templates over the seeded sites, or loaded from WebArena's
own config files for a user's deployment.

Every task is a WebArena config dict (``intent``, ``start_url``, ``sites``, ``require_login``,
``eval`` ...) whose URLs hold WebArena's placeholders (``__SHOPPING__``); the env maps them to
the sites it serves. Generated tasks also carry ``agentgym_solution``, the plan the scripted
expert follows through the browser: steps ``["click", role, name]``,
``["type", role, name, text, enter]``, ``["press", key]``, ``["goto", url]``,
``["stop", answer]``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import family_record

#: WebArena's placeholders -> site keys.
PLACEHOLDERS = {
    "__SHOPPING_ADMIN__": "shopping_admin",
    "__SHOPPING__": "shopping",
    "__REDDIT__": "reddit",
    "__GITLAB__": "gitlab",
    "__MAP__": "map",
    "__WIKIPEDIA__": "wikipedia",
    "__HOMEPAGE__": "homepage",
}
#: AgentGym's URL_MAPPINGS: the "real" host shown to the agent for each site.
REAL_HOSTS = {
    "shopping": "http://onestopmarket.com",
    "shopping_admin": "http://luma.com/admin",
    "reddit": "http://reddit.com",
    "gitlab": "http://gitlab.com",
    "map": "http://openstreetmap.org",
    "wikipedia": "http://wikipedia.org",
    "homepage": "http://homepage.com",
}


@dataclass(frozen=True)
class WebArenaTask(Task):
    """One task: a WebArena config (placeholders unresolved unless loaded from a deployment)."""

    config: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def intent(self) -> str:
        return str(self.config.get("intent", ""))


def resolve(text: str, urls: dict[str, str]) -> str:
    """Replace WebArena's placeholders in ``text`` with ``urls[site]``."""
    for placeholder, site in PLACEHOLDERS.items():
        if placeholder in text and site in urls:
            text = text.replace(placeholder, urls[site].rstrip("/"))
    return text


def resolve_config(config: dict[str, Any], urls: dict[str, str]) -> dict[str, Any]:
    """A deep copy of ``config`` with every placeholder replaced."""
    return json.loads(resolve(json.dumps(config), urls))


# -- the source ---------------------------------------------------------------------------
@lru_cache(maxsize=1)
def generated_configs() -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """``(train, test)`` configs from every template over the built sites' data (see
    :mod:`.templates`); deterministic, built once per process."""
    from agentgym_envs.envs.webarena.templates import instantiate

    return split_instances(instantiate)


def split_instances(
    instantiate: Callable[[sqlite3.Connection], list[dict[str, Any]]],
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """``(train, test)``: the configs ``instantiate`` makes from the built sites' database
    (read only), split by their ``agentgym_test`` flag and numbered per split."""
    from agentgym_envs.envs.webarena.sites.build import build

    db = sqlite3.connect(f"file:{build().seed_db}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        configs = instantiate(db)
    finally:
        db.close()
    train = [c for c in configs if not c.get("agentgym_test")]
    test = [c for c in configs if c.get("agentgym_test")]
    for split in (train, test):
        for task_id, config in enumerate(split):
            config["task_id"] = task_id
    return tuple(train), tuple(test)


class GeneratedTasks(TaskSource):
    """Tasks from the templates over the seeded sites: WebArena's 812 in its per-site shares,
    20 of them test tasks (AgentEval's size) in the same shares, the rest train tasks."""

    item_prefix = family_record("webarena").item_prefix

    def __init__(self) -> None:
        self._train, self._test = generated_configs()

    def size(self, split: str) -> int:
        return len(self._test if split == "test" else self._train)

    def _load(self, split: str, task_id: int) -> WebArenaTask:
        configs = self._test if split == "test" else self._train
        return WebArenaTask(task_id, split, config=configs[task_id])

    def __reduce__(self):
        return (GeneratedTasks, ())


class ConfigTasks(TaskSource):
    """WebArena's own task configs (``config_files/test.raw.json`` or a folder of
    ``{i}.json``) for a user's deployment; every task is a test task, train is empty.

    Args:
        path: the raw JSON list, one config file, or a folder of numbered config files.
        urls: site key (``shopping``, ``shopping_admin``, ``reddit``, ``gitlab``, ``map``,
            ``wikipedia``, ``homepage``) -> the deployment's base URL; placeholders of sites
            not given stay as they are (those tasks cannot reach the site).
    """

    item_prefix = family_record("webarena").item_prefix
    user_data = True

    def __init__(self, path: str | Path, urls: dict[str, str]) -> None:
        self.path, self.urls = Path(path), dict(urls)
        unknown = set(self.urls) - set(PLACEHOLDERS.values())
        if unknown:
            raise BadDataError(
                f"unknown WebArena site(s) {sorted(unknown)}: use "
                + ", ".join(sorted(PLACEHOLDERS.values()))
            )
        self._configs = [resolve_config(c, self.urls) for c in _read_configs(self.path)]

    def size(self, split: str) -> int:
        return len(self._configs) if split == "test" else 0

    def _load(self, split: str, task_id: int) -> WebArenaTask:
        return WebArenaTask(task_id, split, config=self._configs[task_id])

    def __reduce__(self):
        return (ConfigTasks, (str(self.path), self.urls))


def _read_configs(path: Path) -> list[dict[str, Any]]:
    if path.is_dir():
        files = sorted(
            (p for p in path.glob("*.json") if p.stem.isdigit()), key=lambda p: int(p.stem)
        )
        if not files:
            raise BadDataError(f"no numbered WebArena config files (0.json ...) in {path}")
        return [_read_json(p) for p in files]
    if not path.exists():
        raise BadDataError(
            f"WebArena config {path} not found: pass config_files/test.raw.json or a folder "
            "of {i}.json files"
        )
    data = _read_json(path)
    configs = data if isinstance(data, list) else [data]
    for c in configs:
        if not isinstance(c, dict) or "intent" not in c or "eval" not in c:
            raise BadDataError(f"{path} is not a WebArena config (needs 'intent' and 'eval')")
    return configs


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BadDataError(f"cannot read WebArena config {path}: {exc}") from exc
