"""The ``webarena`` task set: WebArena's own intent templates, instantiated on the sites'
data.

WebArena's 812 task configs ship in the ``libwebarena`` package (``webarena/test.raw.json``);
this module reads that file from the user's installation at run time (nothing of it is in
this package) and groups it by ``intent_template_id``: 190 templates with their sites, intent
text, eval types and task counts. Each template id we can play has an instantiator (the
``wa_*`` modules, registered with :func:`instantiator`) that draws parameters from the sites'
database and computes the reference answers there; the intent is WebArena's template text
filled with those parameters, the eval types are WebArena's for that template.

Shares: every site gets :data:`SCALE` times its WebArena task count, drawn from its
templates in turn; templates WebArena answers "N/A" on some instances get unachievable
instances too (graded as WebArena grades them: ``fuzzy_match`` "N/A"). The first instance of
every template is a test task; the rest are train tasks. The map's templates play on the map
site's generated city (:mod:`.wa_map`); its cross-site ones (wikipedia + map) read the wiki's
articles about that city (:mod:`.wa_mapwiki`), but for the one whose fixed text names real
places (:data:`.wa_map.UNPLAYABLE`).
"""

from __future__ import annotations

import importlib.resources
import json
import logging
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from agentgym_envs.core import TaskSource
from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import family_record

logger = logging.getLogger(__name__)

#: Tasks per WebArena task on the sites we serve (684 there -> about 1,500 here).
SCALE = 2.2
#: Sites we serve.
SERVED = frozenset({"shopping", "shopping_admin", "reddit", "gitlab", "wikipedia", "map"})
RAW_HINT = (
    "pip install --no-deps libwebarena (its webarena/test.raw.json holds WebArena's task "
    "configs; --no-deps because its own pins conflict with agentgym-envs[train])"
)

#: One instance: (instantiation dict, eval dict, expert plan).
Instance = tuple[dict[str, Any], dict[str, Any], list[list[Any]]]
Instantiator = Callable[[sqlite3.Connection], Iterator[Instance]]
INSTANTIATORS: dict[int, Instantiator] = {}


def instantiator(*template_ids: int) -> Callable[[Instantiator], Instantiator]:
    """Register ``fn(db) -> instances`` for WebArena's ``template_ids``."""

    def add(fn: Instantiator) -> Instantiator:
        for tid in template_ids:
            INSTANTIATORS[tid] = fn
        return fn

    return add


@dataclass(frozen=True)
class WebArenaTemplate:
    """One of WebArena's intent templates, as its configs describe it."""

    id: int
    sites: tuple[str, ...]
    intent_template: str
    eval_types: tuple[str, ...]
    answer_kinds: tuple[str, ...]
    start_url: str
    require_login: bool
    count: int
    unachievable: int

    @property
    def site_key(self) -> str:
        """The site its share counts under: the site, or ``multi`` for several."""
        return self.sites[0] if len(self.sites) == 1 else "multi"

    @property
    def needs_map(self) -> bool:
        return "map" in self.sites


@lru_cache(maxsize=1)
def raw_configs() -> tuple[dict[str, Any], ...]:
    """WebArena's 812 configs, read from the installed ``libwebarena``."""
    try:
        resource = importlib.resources.files("webarena") / "test.raw.json"
        text = resource.read_text()
    except (ModuleNotFoundError, FileNotFoundError, OSError) as exc:
        raise BadDataError(f"the webarena task set needs WebArena's configs: {RAW_HINT}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadDataError(f"webarena/test.raw.json is not JSON ({exc}): {RAW_HINT}") from exc
    return tuple(data)


@lru_cache(maxsize=1)
def catalog() -> dict[int, WebArenaTemplate]:
    """WebArena's templates by id."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for config in raw_configs():
        groups.setdefault(int(config["intent_template_id"]), []).append(config)
    out = {}
    for tid, configs in sorted(groups.items()):
        first = configs[0]
        kinds: list[str] = []
        for c in configs:
            for kind in c["eval"].get("reference_answers") or {}:
                if kind not in kinds:
                    kinds.append(kind)
        out[tid] = WebArenaTemplate(
            id=tid,
            sites=tuple(first["sites"]),
            intent_template=first["intent_template"],
            eval_types=tuple(first["eval"]["eval_types"]),
            answer_kinds=tuple(kinds),
            start_url=first["start_url"],
            require_login=bool(first.get("require_login")),
            count=len(configs),
            unachievable=sum(
                1
                for c in configs
                if (c["eval"].get("reference_answers") or {}).get("fuzzy_match") == "N/A"
            ),
        )
    return out


def site_shares() -> dict[str, int]:
    """WebArena's task counts by site key (``multi`` for several sites)."""
    counts: Counter[str] = Counter()
    for t in catalog().values():
        counts[t.site_key] += t.count
    return dict(counts)


def needs_map_site() -> list[int]:
    """Template ids whose tasks need WebArena's map site."""
    return [t.id for t in catalog().values() if t.needs_map]


def unplayable() -> list[int]:
    """Template ids that have no instantiator (the map's say why in
    :data:`.wa_map.UNPLAYABLE`)."""
    _load_instantiators()
    return [t.id for t in catalog().values() if t.id not in INSTANTIATORS]


def fill(text: str, values: dict[str, Any]) -> str:
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", str(value))
    return text


def build_config(t: WebArenaTemplate, inst: Instance) -> dict[str, Any]:
    """The WebArena config of one instance of ``t``."""
    values, ev, plan = inst
    ev = {
        "eval_types": list(ev.get("eval_types") or t.eval_types),
        "reference_answers": ev.get("reference_answers"),
        "reference_url": ev.get("reference_url", ""),
        "program_html": ev.get("program_html", []),
        "string_note": ev.get("string_note", ""),
        "reference_answer_raw_annotation": ev.get("reference_answer_raw_annotation", ""),
    }
    if "url_match" in ev["eval_types"]:
        ev["url_note"] = "GOLD in PRED"
    login = t.require_login
    return {
        "sites": list(t.sites),
        "require_login": login,
        "storage_state": f"./.auth/{'.'.join(t.sites)}_state.json" if login else None,
        "start_url": values.pop("__start__", t.start_url.split(" |AND| ")[0]),
        "geolocation": None,
        "intent_template": t.intent_template,
        "instantiation_dict": values,
        "intent": fill(t.intent_template, values),
        "require_reset": False,
        "eval": ev,
        "intent_template_id": t.id,
        "agentgym_solution": plan,
        "agentgym_task_set": "webarena",
    }


def _load_instantiators() -> None:
    from agentgym_envs.envs.webarena import (  # noqa: F401
        wa_admin,
        wa_admin_write,
        wa_code,
        wa_forum,
        wa_map,
        wa_mapwiki,
        wa_shop,
    )


def instantiate(db: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every served site's tasks, :data:`SCALE` times its WebArena count, drawn from its
    templates in turn; each template's first instance is marked as a test task."""
    _load_instantiators()
    pools: dict[str, list[list[dict[str, Any]]]] = {}
    for t in catalog().values():
        fn = INSTANTIATORS.get(t.id)
        if fn is None:
            continue
        configs = [build_config(t, inst) for inst in fn(db)]
        if not configs:
            logger.warning("WebArena template %d has no instance on this data", t.id)
            continue
        configs[0]["agentgym_test"] = True
        pools.setdefault(t.site_key, []).append(configs)
    out: list[dict[str, Any]] = []
    for site, count in site_shares().items():
        if site not in pools:
            continue
        target, chosen, depth = round(count * SCALE), [], 0
        site_pools = pools[site]
        while len(chosen) < target and any(depth < len(p) for p in site_pools):
            for pool in site_pools:
                if depth < len(pool) and len(chosen) < target:
                    chosen.append(pool[depth])
            depth += 1
        out.extend(chosen)
    return out


@lru_cache(maxsize=1)
def webarena_configs() -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    """``(train, test)`` configs of the ``webarena`` task set; built once per process."""
    from agentgym_envs.envs.webarena.tasks import split_instances

    return split_instances(instantiate)


class WebArenaTemplateTasks(TaskSource):
    """The ``webarena`` task set: WebArena's templates on the sites' data (see the module)."""

    item_prefix = family_record("webarena").item_prefix

    def __init__(self) -> None:
        self._train, self._test = webarena_configs()

    def size(self, split: str) -> int:
        return len(self._test if split == "test" else self._train)

    def _load(self, split: str, task_id: int):
        from agentgym_envs.envs.webarena.tasks import WebArenaTask

        configs = self._test if split == "test" else self._train
        return WebArenaTask(task_id, split, config=configs[task_id])

    def __reduce__(self):
        return (WebArenaTemplateTasks, ())
