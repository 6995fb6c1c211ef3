"""AgentGym's three wire protocols, one adapter each, configured by a family's ``Wire`` record.

* ``A`` ("id"): BabyAI, TextCraft, SciWorld, ALFWorld, Maze, Wordle. ``/create`` -> ``{"id": n}``
  (TextCraft: with the first observation of item ``n``); ``/reset`` ``{"id", <index key>}`` ->
  ``{"observation", "reward", "done", ...}``; ``/step`` ``{"id", "action"}`` -> ``{"observation",
  "reward", "done"}`` plus the record's ``step_extras`` (``score``: BabyAI, SciWorld;
  ``available_actions``: ALFWorld).
* ``B`` ("env_idx"): WebShop, SQLGym. ``/create`` -> bare int; ``/reset`` ``{"env_idx",
  <index key>}`` -> ``[observation, null]``; ``/step`` ``{"env_idx", "action"}`` -> ``{"state",
  "reward", "done", "info"}``; ``/available_actions`` -> ``{"has_search_bar", "clickables"}``.
* ``C`` (tools): Weather, Movie, Academia, Sheet, TODO. ``/create`` body ``{"id": item}`` -> int
  (the env starts on that item); ``/reset`` ``{"env_idx", "id"}`` -> observation string;
  ``/step`` ``{"env_idx", "action"}`` -> ``{"observation", "reward", "done"}``.

Rewards are sent as AgentGym's servers send them: where that differs from the Gymnasium env's
reward (which sums to the episode score), the env puts the wire value in
``info["agentgym_reward"]`` (and ``info["agentgym_score"]`` for a ``score`` extra), and those
win; the tool servers (C) send the running reward, the tool envs' ``score``, at every step.
AgentGym's clients score an episode by its last reward.

Two replies are reshaped for what AgentGym's clients rebuild themselves: SciWorld's client shows
``task_description + "\\n" + observation`` after ``/reset``, so an env that reports its
``task_description`` in the reset ``info`` has it split off the observation; ALFWorld's client
appends ``"\\nAVAILABLE ACTIONS: a,b"`` to every observation, so a family with an
``available_actions`` extra has that suffix taken off.

Every family also accepts two extension keys on ``/reset``, ``split`` and ``task_id``, which
address a task directly (used by :class:`~agentgym_envs.server.client.RemoteTextEnv`), and adds
an ``info`` object to step replies; AgentGym's clients ignore both.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from agentgym_envs.spec import FAMILIES, Wire

#: Request keys that may carry an item index when the record's own key is absent.
_INDEX_FALLBACKS = ("data_idx", "game", "seed", "item_id", "session_id", "id")


class Protocol:
    """How one family speaks on the wire: request keys and reply shapes (see the module doc).

    Args:
        wire: the family's :class:`~agentgym_envs.spec.Wire` record.
    """

    kind: ClassVar[str] = ""
    #: Request key (body and query) naming the session.
    session_key: ClassVar[str] = ""

    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        keys = (wire.index_key, *_INDEX_FALLBACKS)
        #: Request keys that may carry AgentGym's item index on ``/reset`` (first present wins).
        self.index_keys: tuple[str, ...] = tuple(
            k for i, k in enumerate(keys) if k != self.session_key and k not in keys[:i]
        )

    # -- what the env says, as AgentGym's server says it ------------------------------------
    @staticmethod
    def reward(reward: float, info: dict[str, Any]) -> float:
        return float(info.get("agentgym_reward", reward))

    @staticmethod
    def score(info: dict[str, Any]) -> float:
        return float(info.get("agentgym_score", info.get("score", 0.0)))

    def observation(self, observation: str, info: dict[str, Any]) -> str:
        """The observation AgentGym's server would send (the client adds what it adds)."""
        if "available_actions" in self.wire.step_extras:
            suffix = "\nAVAILABLE ACTIONS: " + ",".join(info.get("available_actions") or [])
            observation = observation.removesuffix(suffix)
        return observation

    # -- replies ----------------------------------------------------------------------------
    def create_item(self, ordinal: int, body: dict[str, Any], size: int) -> Any:
        """The item ``/create`` starts a new session on (``None``: none); ``ordinal``: the
        session's place in creation order (ids are random); ``size``: items."""
        return None

    def create_reply(self, sid: int, observation: str | None = None) -> Any:
        return sid

    def reset_reply(self, sid: int, observation: str, info: dict[str, Any]) -> Any:
        raise NotImplementedError

    def step_reply(self, observation: str, reward: float, done: bool, info: dict[str, Any]) -> Any:
        return {
            "observation": self.observation(observation, info),
            "reward": self.reward(reward, info),
            "done": done,
            "info": info,
        }

    def actions_reply(self, actions: list[str] | None) -> Any:
        return list(actions or [])

    def close_reply(self, sid: int) -> Any:
        return {"closed": int(sid)}


class IdProtocol(Protocol):
    """Family A: sessions named ``id``; dict replies with the record's step extras."""

    kind = "A"
    session_key = "id"

    def create_item(self, ordinal: int, body: dict[str, Any], size: int) -> Any:
        if not self.wire.create_starts_item:
            return None
        # AgentGym's TextCraft server starts its n-th env on item ``data_idx = n``; custom
        # commands/goal are not supported here.
        custom = [k for k in ("commands", "goal") if body.get(k) is not None]
        if custom:
            raise ValueError(f"custom {' and '.join(custom)} are not supported: use /reset")
        return ordinal % size

    def create_reply(self, sid: int, observation: str | None = None) -> Any:
        reply: dict[str, Any] = {"id": sid}
        if observation is not None:
            reply.update(observation=observation, done=False, reward=0)
        return reply

    def _extras(self, reply: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        if "score" in self.wire.step_extras:
            reply["score"] = self.score(info)
        if "available_actions" in self.wire.step_extras:
            reply["available_actions"] = list(info.get("available_actions") or [])
        return reply

    def reset_reply(self, sid: int, observation: str, info: dict[str, Any]) -> Any:
        observation = self.observation(observation, info)
        reply: dict[str, Any] = {"id": sid}
        description = info.get("task_description")
        if isinstance(description, str) and observation.startswith(description + "\n"):
            reply["task_description"] = description
            observation = observation[len(description) + 1 :]
        # SciWorld's server replies with the reward of its reset's ``look around``
        reply.update(observation=observation, reward=self.reward(0.0, info), done=False)
        self._extras(reply, info)
        reply["info"] = info
        return reply

    def step_reply(self, observation: str, reward: float, done: bool, info: dict[str, Any]) -> Any:
        reply = super().step_reply(observation, reward, done, info)
        info = reply.pop("info")
        self._extras(reply, info)
        reply["info"] = info
        return reply


class EnvIdxProtocol(Protocol):
    """Family B: sessions named ``env_idx``; bare-int create, ``[obs, null]`` reset, ``state``."""

    kind = "B"
    session_key = "env_idx"

    def reset_reply(self, sid: int, observation: str, info: dict[str, Any]) -> Any:
        return [self.observation(observation, info), None]

    def step_reply(self, observation: str, reward: float, done: bool, info: dict[str, Any]) -> Any:
        reply = super().step_reply(observation, reward, done, info)
        return {"state": reply.pop("observation"), **reply}

    def actions_reply(self, actions: list[str] | None) -> Any:
        # WebShop's shape: a search bar flag and the clickable values.
        actions = list(actions or [])
        return {
            "has_search_bar": any(a.startswith("search[") for a in actions),
            "clickables": [a[len("click[") : -1] for a in actions if a.startswith("click[")],
        }


class ToolProtocol(Protocol):
    """Family C: ``/create`` names the item; ``/reset`` replies with the observation string."""

    kind = "C"
    session_key = "env_idx"

    def create_item(self, ordinal: int, body: dict[str, Any], size: int) -> Any:
        return body.get("id", 0)

    def reset_reply(self, sid: int, observation: str, info: dict[str, Any]) -> Any:
        return self.observation(observation, info)

    @staticmethod
    def reward(reward: float, info: dict[str, Any]) -> float:
        # AgentGym's tool servers send the env's running reward at every step (Sheet: the best
        # cell-match share so far; Weather: 1 once any subgoal is met), which is the tool envs'
        # ``score``; the Gymnasium step reward is its increase.
        return float(info.get("agentgym_reward", info.get("score", reward)))


class WebArenaProtocol(Protocol):
    """Family D (WebArena): ``/create`` -> ``{"env_idx"}``; ``/reset {"env_idx", "seed", "idx"}``
    -> ``{"observation"}`` (the tab line and tree only; ``/observation`` has the full templated
    text); ``/step`` -> ``{"observation", "reward", "terminated", "truncated", "info"}``;
    ``/close`` -> ``"closed"``."""

    kind = "D"
    session_key = "env_idx"

    def create_reply(self, sid: int, observation: str | None = None) -> Any:
        return {"env_idx": sid}

    def reset_reply(self, sid: int, observation: str, info: dict[str, Any]) -> Any:
        return {"observation": info.get("agentgym_reset_observation", observation)}

    def step_reply(self, observation: str, reward: float, done: bool, info: dict[str, Any]) -> Any:
        reply = super().step_reply(observation, reward, done, info)
        return {
            "observation": reply["observation"],
            "reward": reply["reward"],
            "terminated": done,
            "truncated": False,
            "info": info,
        }

    def close_reply(self, sid: int) -> Any:
        return "closed"


_ADAPTERS: dict[str, type[Protocol]] = {
    "A": IdProtocol,
    "B": EnvIdxProtocol,
    "C": ToolProtocol,
    "D": WebArenaProtocol,
}


def protocol_for(family: str) -> Protocol:
    """The wire adapter of a registry family name (``wordle``, ``sql``, ``weather`` ...)."""
    record = FAMILIES.get(family)
    if record is None or record.wire is None:
        raise ValueError(f"family {family!r} has no AgentGym wire protocol")
    return _ADAPTERS[record.wire.kind](record.wire)


def error(message: str) -> dict[str, str]:
    """AgentGym's error reply (sent with HTTP 200)."""
    return {"error": message}


def jsonable(value: Any) -> Any:
    """``value`` made JSON-safe: numpy scalars/arrays to Python, sets sorted, non-finite floats
    to ``None``, anything else unknown to its ``str``."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [jsonable(v) for v in sorted(value, key=str)]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "tolist"):  # numpy scalar or array
        return jsonable(value.tolist())
    return str(value)
