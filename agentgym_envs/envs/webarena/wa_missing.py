"""Why the WebArena templates that have no instantiator cannot be played yet: the interface
each needs that the sites lack, or for the map's, why the generated city cannot play them
(see :func:`unplayable_reasons`)."""

from __future__ import annotations

#: Template id -> the missing interface (the map's reasons are :data:`.wa_map.UNPLAYABLE`).
MISSING: dict[int, str] = {
    87: "a README written from the wiki's articles (lists the wiki does not hold)",
    237: "sale prices (special price) on products",
    243: "approving reviews in the admin (review status actions)",
    246: "deleting reviews in the admin",
    252: "configurable product options (adding an option value)",
    256: "creating products in the admin",
}


def unplayable_reasons() -> dict[int, str]:
    """Every uninstantiated template id with the reason: the interface it waits for, or why
    the map cannot play it."""
    from agentgym_envs.envs.webarena.wa_map import UNPLAYABLE as MAP_REASONS
    from agentgym_envs.envs.webarena.webarena_tasks import unplayable

    reasons = {**MISSING, **MAP_REASONS}
    return {tid: reasons.get(tid, "not instantiated yet") for tid in unplayable()}
