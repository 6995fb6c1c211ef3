"""Why the WebArena templates that have no instantiator cannot be played yet: the interface
each needs that the sites lack, or for the map's, why the generated city cannot play them
(see :func:`unplayable_reasons`)."""

from __future__ import annotations

#: Template id -> the missing interface (the map's reasons are :data:`.wa_map.UNPLAYABLE`);
#: empty since every template of the sites we serve has its interface.
MISSING: dict[int, str] = {}


def unplayable_reasons() -> dict[int, str]:
    """Every uninstantiated template id with the reason: the interface it waits for, or why
    the map cannot play it."""
    from agentgym_envs.envs.webarena.wa_map import UNPLAYABLE as MAP_REASONS
    from agentgym_envs.envs.webarena.webarena_tasks import unplayable

    reasons = {**MISSING, **MAP_REASONS}
    return {tid: reasons.get(tid, "not instantiated yet") for tid in unplayable()}
