"""Which envs a field run plays: names and batteries resolved against the registry, each env's
category (lightweight / moderate / heavy) and its system needs (Java, Chromium, data paths).

The env list comes from :data:`agentgym_envs.spec.ENV_INFO`; the categories are read from the
family records (``category``, ``system_needs``, ``data_variables``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentgym_envs.browser import chromium_path
from agentgym_envs.errors import UnknownEnvError, unknown_name
from agentgym_envs.spec import ENV_INFO, FAMILIES, Category, EnvInfo, resolve_id

CATEGORY_NAMES: tuple[Category, ...] = ("lightweight", "moderate", "heavy")

_INSTALL_HINTS = {
    "java": "apt-get install default-jre-headless",
    "chromium": "apt-get install chromium-headless-shell",
}

#: Batteries every profile has: the categories, ``all`` and ``agenteval``.
BUILTIN_BATTERIES = (*CATEGORY_NAMES, "all", "agenteval")


def family_category(family: str) -> Category:
    """The category of ``family`` (its record's; unknown families count as moderate)."""
    record = FAMILIES.get(family)
    return record.category if record is not None else "moderate"


def battery_ids(name: str) -> list[str]:
    """The ids a built-in battery names: AgentGym's ids (not our variations) of the families in
    the category; ``all``: every AgentGym id; ``agenteval``: one id per AgentEval family."""
    if name == "agenteval":
        from agentgym_envs.benchmarks import agenteval_env_ids

        return list(agenteval_env_ids(installed_only=False))
    ids = [i for i, info in ENV_INFO.items() if not info.ours]
    if name == "all":
        return ids
    return [i for i in ids if family_category(ENV_INFO[i].family) == name]


def resolve_name(name: str) -> str:
    """A registered id for ``name``: an id (``AgentGym/BabyAI-v0``), a short id
    (``BabyAI-v0``), or a family's name as AgentGym writes it (``BabyAI``, ``textcraft``)."""
    try:
        return resolve_id(name)
    except UnknownEnvError:
        pass
    lowered = name.strip().lower()
    for candidate in (f"{name}-v0",):
        try:
            return resolve_id(candidate)
        except UnknownEnvError:
            pass
    for family in FAMILIES.values():
        if lowered in (family.name.lower(), family.display_name.lower(), family.item_prefix):
            ids = [
                i for i, info in ENV_INFO.items() if info.family == family.name and not info.ours
            ]
            if ids:
                return ids[0]
    known = [i.split("/", 1)[-1].removesuffix("-v0") for i in ENV_INFO]
    raise UnknownEnvError(unknown_name("env", name, [*known, *BUILTIN_BATTERIES]))


def expand(names: Iterable[str], batteries: Mapping[str, Sequence[str]] | None = None) -> list[str]:
    """Env ids for ``names`` (ids, short names, family names, battery names), in order, once."""
    batteries = batteries or {}
    out: list[str] = []
    seen_batteries: set[str] = set()

    def add(name: str) -> None:
        name = name.strip()
        if not name:
            return
        if name in batteries:
            if name in seen_batteries:
                raise UnknownEnvError(f"battery {name!r} names itself")
            seen_batteries.add(name)
            for member in batteries[name]:
                add(member)
        elif name in BUILTIN_BATTERIES:
            out.extend(battery_ids(name))
        else:
            out.append(resolve_name(name))

    for name in names:
        for part in name.split(","):
            add(part)
    return list(dict.fromkeys(out))


def find_program(name: str) -> str | None:
    """Path of a system program a family needs (``java``, ``chromium``), or ``None``."""
    if name == "java":
        try:
            from agentgym_envs.envs.sciworld.java import find_java

            found = find_java()
            return str(found) if found else None
        except ImportError:
            return shutil.which("java")
    if name == "chromium":
        return chromium_path()
    return shutil.which(name)


@dataclass
class Health:
    """Static health of one env: extra installed, system programs, data paths."""

    env_id: str
    category: Category
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        if self.problems:
            return "; ".join(self.problems)
        return "ok" + (f" ({'; '.join(self.notes)})" if self.notes else "")


def env_health(
    env_id: str, kwargs: Mapping[str, Any] | None = None, category: Category | None = None
) -> Health:
    """Check what ``env_id`` needs before any env is made."""
    info: EnvInfo = ENV_INFO[resolve_id(env_id)]
    health = Health(info.id, category or family_category(info.family))
    record = info.record
    if not record.registered:
        health.problems.append(f"{record.display_name} is not available in this installation")
    elif not info.installed:
        health.problems.append(f'extra missing: pip install "agentgym-envs[{info.extra}]"')
    for program, required in record.system_needs:
        path = find_program(program)
        if path:
            health.notes.append(f"{program}: {path}")
        elif required:
            health.problems.append(f"{program} not found: {_INSTALL_HINTS.get(program, program)}")
        else:
            health.notes.append(f"{program} not found (only its browser mode needs it)")
    paths = {k: v for k, v in (kwargs or {}).items() if k.endswith("_path") and v}
    for var in record.data_variables:
        if os.environ.get(var):
            paths[f"${var}"] = os.environ[var]
    for key, value in paths.items():
        if not Path(str(value)).expanduser().exists():
            health.problems.append(f"{key}: {value} does not exist")
        else:
            health.notes.append(f"{key}: {value}")
    return health


__all__ = [
    "BUILTIN_BATTERIES",
    "CATEGORY_NAMES",
    "Category",
    "Health",
    "battery_ids",
    "env_health",
    "expand",
    "family_category",
    "find_program",
    "resolve_name",
]
