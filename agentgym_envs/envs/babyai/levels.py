"""AgentGym's 40 BabyAI levels and how a task index names one of them.

AgentGym's server builds item ``i`` as level ``LEVELS[i % 40]`` reset with seed ``i // 40``.
The list below is AgentGym's, in its order. AgentGym pins minigrid < 2.5 (2.3.1);
:func:`make_level` builds each level as that version defines it on today's minigrid.
"""

from __future__ import annotations

import importlib
import logging

from agentgym_envs.errors import require

logger = logging.getLogger(__name__)

#: AgentGym's level list (``agentenv-babyai``), index 0 here is its level 1.
LEVELS: tuple[str, ...] = (
    "BabyAI-GoToRedBallGrey-v0",
    "BabyAI-GoToRedBall-v0",
    "BabyAI-GoToRedBallNoDists-v0",
    "BabyAI-GoToObjS6-v0",
    "BabyAI-GoToLocalS8N7-v0",
    "BabyAI-GoToObjMazeS7-v0",
    "BabyAI-GoToImpUnlock-v0",
    "BabyAI-GoToSeqS5R2-v0",
    "BabyAI-GoToRedBlueBall-v0",
    "BabyAI-GoToDoor-v0",
    "BabyAI-GoToObjDoor-v0",
    "BabyAI-Open-v0",
    "BabyAI-OpenRedDoor-v0",
    "BabyAI-OpenDoorLoc-v0",
    "BabyAI-OpenRedBlueDoorsDebug-v0",
    "BabyAI-OpenDoorsOrderN4Debug-v0",
    "BabyAI-Pickup-v0",
    "BabyAI-UnblockPickup-v0",
    "BabyAI-PickupLoc-v0",
    "BabyAI-PickupDistDebug-v0",
    "BabyAI-PickupAbove-v0",
    "BabyAI-PutNextLocalS6N4-v0",
    "BabyAI-PutNextS7N4Carrying-v0",
    "BabyAI-Unlock-v0",
    "BabyAI-UnlockLocalDist-v0",
    "BabyAI-KeyInBox-v0",
    "BabyAI-UnlockPickupDist-v0",
    "BabyAI-BlockedUnlockPickup-v0",
    "BabyAI-UnlockToUnlock-v0",
    "BabyAI-ActionObjDoor-v0",
    "BabyAI-FindObjS7-v0",
    "BabyAI-KeyCorridorS6R3-v0",
    "BabyAI-OneRoomS20-v0",
    "BabyAI-MoveTwoAcrossS8N9-v0",
    "BabyAI-SynthS5R2-v0",
    "BabyAI-SynthLoc-v0",
    "BabyAI-SynthSeq-v0",
    "BabyAI-MiniBossLevel-v0",
    "BabyAI-BossLevel-v0",
    "BabyAI-BossLevelNoUnlock-v0",
)
N_LEVELS = len(LEVELS)


def level_and_seed(index: int) -> tuple[str, int]:
    """AgentGym's mapping of a global item index to ``(level id, seed)``."""
    return LEVELS[index % N_LEVELS], index // N_LEVELS


def _quiet_minigrid() -> None:
    """Send minigrid's level-generation ``print`` calls ("Sampling rejected: ...") to logging.

    minigrid prints from module-level code while sampling a level; shadowing ``print`` in
    those modules keeps stdout clean without redirecting the process's stdout (which would be
    unsafe with threads).
    """
    import minigrid.core.mission as mission_mod
    import minigrid.envs.babyai.core.roomgrid_level as level_mod

    def _log(*args, **kwargs) -> None:  # same signature as print
        logger.debug(" ".join(str(a) for a in args))

    for mod in (level_mod, mission_mod):
        if getattr(mod, "print", None) is not _log:
            mod.print = _log


_ready = False

#: Levels whose parameters minigrid changed after 2.3 (the version AgentGym pins): the level
#: AgentGym plays, as (entry point, keyword arguments). minigrid 2.3's GoToObjS6-v0 had a
#: room size of 4; minigrid 3 renamed it -v1 with room size 6 (Minigrid PR #391).
MINIGRID_23_LEVELS: dict[str, tuple[str, dict]] = {
    "BabyAI-GoToObjS6-v0": ("minigrid.envs.babyai:GoToObj", {"room_size": 4}),
}


def make_level(level_id: str):
    """An unwrapped minigrid BabyAI env for ``level_id`` as minigrid 2.3 defined it."""
    global _ready
    gym = require("gymnasium", "babyai")
    require("minigrid", "babyai")
    if not _ready:
        _quiet_minigrid()
        _ready = True
    if level_id in MINIGRID_23_LEVELS:
        entry, kwargs = MINIGRID_23_LEVELS[level_id]
        module, _, name = entry.partition(":")
        return getattr(importlib.import_module(module), name)(**kwargs)
    if level_id not in gym.registry:
        raise ValueError(
            f"minigrid has no level {level_id!r}: upgrade minigrid (pip install -U minigrid)"
        )
    return gym.make(level_id, disable_env_checker=True).unwrapped


def reset_level(mg, seed: int) -> dict:
    """Reset ``mg`` with ``seed`` as AgentGym's server does; minigrid's observation.

    AgentGym builds a fresh level per reset and resets it twice with the same seed (once in
    its env's constructor, once in the server's reset). In minigrid 2.3 a ``LevelGen`` level
    never forgot its locked room between missions (newer minigrid clears it), and a stale
    room changes which objects and agent cells are drawn after a rejected sample; so for
    those levels the locked room is carried over as minigrid 2.3 carried it.
    """
    if "locked_room" not in vars(mg):
        return mg.reset(seed=seed)[0]
    mg.locked_room = None  # a fresh level
    mg.gen_mission = _KeepLockedRoom(mg)
    try:
        mg.reset(seed=seed)
        return mg.reset(seed=seed)[0]
    finally:
        del mg.gen_mission


class _KeepLockedRoom:
    """``LevelGen.gen_mission`` as minigrid 2.3 ran it: the locked room of the previous
    mission stays until a new one is added.

    Newer minigrid clears ``locked_room`` first thing, then draws whether to add one; the
    first draw is intercepted to put the old room back in between.
    """

    def __init__(self, mg) -> None:
        self.mg = mg

    def __call__(self) -> None:
        mg = self.mg
        mg._rand_float = _RestoreBeforeDraw(mg, mg.locked_room)
        try:
            type(mg).gen_mission(mg)
        finally:
            vars(mg).pop("_rand_float", None)


class _RestoreBeforeDraw:
    def __init__(self, mg, room) -> None:
        self.mg, self.room = mg, room

    def __call__(self, low: float, high: float) -> float:
        mg = self.mg
        del mg._rand_float
        mg.locked_room = self.room
        return mg._rand_float(low, high)
