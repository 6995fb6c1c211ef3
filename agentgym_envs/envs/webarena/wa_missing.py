"""Why the WebArena templates that have no instantiator cannot be played yet: the interface
each needs that the sites lack, or for the map's, why the generated city cannot play them
(see :func:`unplayable_reasons`)."""

from __future__ import annotations

#: Template id -> the missing interface (the map's reasons are :data:`.wa_map.UNPLAYABLE`).
MISSING: dict[int, str] = {
    11: "images in posts (re-posting one)",
    84: "creating folders and files in a repository (web IDE)",
    87: "creating repositories with a README",
    88: "creating repositories with a README",
    151: "products for an ailment (search by use, not name)",
    237: "sale prices (special price) on products",
    243: "approving reviews in the admin (review status actions)",
    246: "deleting reviews in the admin",
    252: "configurable product options (adding an option value)",
    256: "creating products in the admin",
    290: "merge-request assignees",
    291: "merge-request reviewers",
    292: "creating projects",
    308: "project pages (a site's title)",
    312: "the user's feed token (access tokens page)",
    327: "issue due dates (and creating an issue with assignee and due date at once)",
    330: "following users",
    331: "the user's profile settings (homepage URL)",
    332: "creating projects with members",
    335: "creating merge requests with reviewers",
    339: "milestones",
    348: "merge-request comments",
    352: "forks",
    354: "starring projects",
    355: "editing and committing files (LICENSE)",
    360: "merge-request review threads",
    361: "the user's status",
    600: "creating groups with members",
    2100: "project templates and creating projects with members",
}


def unplayable_reasons() -> dict[int, str]:
    """Every uninstantiated template id with the reason: the interface it waits for, or why
    the map cannot play it."""
    from agentgym_envs.envs.webarena.wa_map import UNPLAYABLE as MAP_REASONS
    from agentgym_envs.envs.webarena.webarena_tasks import unplayable

    reasons = {**MISSING, **MAP_REASONS}
    return {tid: reasons.get(tid, "not instantiated yet") for tid in unplayable()}
