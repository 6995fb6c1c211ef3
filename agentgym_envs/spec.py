"""The registry's records: one :class:`Family` per AgentGym task family, one :class:`EnvInfo`
per registered id.

``registration.py`` declares every family once (item-id prefixes and AgentGym's aliases, extra,
expert, AgentEval file and size, score scale, wire protocol, curriculum presets, reply parser,
prompt source) and then its ids, which carry only what differs between ids of one family (split
sizes, description, constructor arguments). Every other layer reads family facts from here:
:func:`family_record`, :func:`family_for_prefix`, :func:`env_info`.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import gymnasium as gym

from agentgym_envs.errors import UnknownEnvError, unknown_name

NAMESPACE = "AgentGym"
#: AgentGym's max rounds where a family has none of its own.
DEFAULT_MAX_ROUNDS = 15

RewardKind = Literal["binary", "graded"]
#: How AgentGym's client for a family turns a model reply into the action it sends:
#: ``single_action`` (BabyAI, TextCraft: the one ``Action:`` line, more than one is an error),
#: ``last_action`` (ALFWorld, WebShop, SciWorld: text after the last ``Action:``),
#: ``between_actions`` (Maze, Wordle: text after the first ``Action:``, up to a second one),
#: ``sql_block`` (SQLGym: the last sql code block, else the whole reply),
#: ``raw`` (tool families and WebArena: the whole reply, parsed by the server).
ReplyParser = Literal["single_action", "last_action", "between_actions", "sql_block", "raw"]
#: What AgentGym's client makes of the env's first observation for the first human turn:
#: ``observation`` (as it is), ``rules_then_observation`` (Maze: its rules text, then the
#: observation), ``vocab_in_rules`` (Wordle: its rules text with the word list inlined),
#: ``actions_line`` (ALFWorld: ``AVAILABLE ACTIONS:`` and the admissible commands appended).
#: How heavy one env is to run: pure Python and quick, an index or engine to build, or a JVM or a
#: browser per env (AgentGym's own servers split the same way).
Category = Literal["lightweight", "moderate", "heavy"]
FirstTurn = Literal["observation", "rules_then_observation", "vocab_in_rules", "actions_line"]


@dataclass(frozen=True)
class Wire:
    """How AgentGym's HTTP server for a family speaks.

    Attributes:
        kind: ``"A"`` ("id" sessions), ``"B"`` ("env_idx" sessions, ``[obs, None]`` resets,
            ``state`` replies), ``"C"`` (tool servers: ``/create`` names the item) or ``"D"``
            (WebArena's Quart server: ``env_idx`` sessions, gymnasium-style step replies).
        index_key: the ``/reset`` key AgentGym's client sends the item index in.
        step_extras: keys beyond observation/reward/done in step replies
            (``"score"``, ``"available_actions"``).
        create_starts_item: ``/create`` also resets to item ``data_idx = id`` and returns the
            first observation (TextCraft).
        url_prefix: the path the family lives under in AgentGym's app (LMRL-Gym's ``/maze``).
        get_endpoints: family-specific GET endpoints AgentGym's server has (``filtered_vocab``,
            ``commands``, ``goal``, ...), answered from the env's public attribute of that name.
        finished_error: a step, ``/observation`` or family GET endpoint after the episode
            ended is refused with ``{"error": "The task with environment N has finished."}``
            (else the env's feedback is sent), as LMRL-Gym's servers do.
    """

    kind: Literal["A", "B", "C", "D"]
    index_key: str
    step_extras: tuple[str, ...] = ()
    create_starts_item: bool = False
    url_prefix: str = ""
    get_endpoints: tuple[str, ...] = ()
    finished_error: bool = False


@dataclass(frozen=True)
class Family:
    """Every fact about one AgentGym task family, declared once in ``registration.py``.

    Attributes:
        name: the registry's key (``"wordle"``, ``"sql"``); envs carry it as ``env.family``.
        display_name: how AgentGym's papers name it (``"BIRD (SQLGym)"``).
        item_prefix: our canonical AgentGym item-id prefix (``"sqlgym"`` in ``sqlgym_12``).
        agentgym_prefixes: other prefixes AgentGym's files use for it (``"lmrlgym_maze"``).
        extra: the ``pip install "agentgym-envs[<extra>]"`` that provides it.
        requires: modules that extra installs (the family is usable when all import).
        expert: ``"module:callable"`` taking the unwrapped env, returning a policy.
        entry_point: ``"module:Class"`` of its env (ids may override).
        reward: ``"binary"`` or ``"graded"`` (AgentGym's partial scores).
        max_rounds: AgentGym's turn budget (ids may override).
        agenteval_file / agenteval_size: AgentEval's test file and its size.
        score_scale: what a perfect score is (SciWorld reports 0..100).
        wire: AgentGym's HTTP protocol for it, ``None`` where we do not serve it.
        scaling_inter: AgentGym-RL's ScalingInter-RL schedule ``(rounds per stage, steps per
            stage)``; ``fixed_rounds``: its fixed-horizon baseline.
        reply_parser: how AgentGym's client reads a reply (see :data:`ReplyParser`).
        first_turn: how AgentGym's client writes the first human turn (see :data:`FirstTurn`).
        agentgym_client: AgentGym's client module and class (``("babyai", "BabyAIEnvClient")``
            in ``agentenv/agentenv/envs/``), where its prompt (``conversation_start``) lives.
        stand_in: where the embedded task source is a stand-in for AgentGym's data, one line
            saying so and naming the loader and the data it needs; ``None`` where the embedded
            source plays AgentGym's own items.
        category: ``lightweight`` / ``moderate`` / ``heavy`` (see :data:`Category`).
        system_needs: programs it needs on the machine, ``(program, required)``; not required
            means only a mode of it does (WebShop's browser mode).
        data_variables: environment variables naming the user's own data for it.
        memory_mb: what one env of it holds in memory (its JVM, its browser), reserved per
            env actor on a Ray cluster; 0 for envs too small to count.
        registered: whether this installation registers ids for it.
    """

    name: str
    display_name: str
    item_prefix: str
    agentgym_prefixes: tuple[str, ...] = ()
    extra: str = ""
    requires: tuple[str, ...] = ()
    expert: str = ""
    entry_point: str = ""
    reward: RewardKind = "binary"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    agenteval_file: str | None = None
    agenteval_size: int | None = None
    score_scale: float = 1.0
    wire: Wire | None = None
    scaling_inter: tuple[tuple[int, ...], int] | None = None
    fixed_rounds: int | None = None
    reply_parser: ReplyParser = "last_action"
    first_turn: FirstTurn = "observation"
    agentgym_client: tuple[str, str] | None = None
    stand_in: str | None = None
    category: Category = "lightweight"
    system_needs: tuple[tuple[str, bool], ...] = ()
    data_variables: tuple[str, ...] = ()
    memory_mb: int = 0
    registered: bool = True

    @property
    def prefixes(self) -> tuple[str, ...]:
        """Every item-id prefix that names this family, canonical first."""
        return (self.item_prefix, *self.agentgym_prefixes)

    @property
    def installed(self) -> bool:
        """Whether every module the family's extra provides can be imported."""
        return self.registered and all(
            importlib.util.find_spec(m) is not None for m in self.requires
        )


@dataclass(frozen=True)
class EnvInfo:
    """One registered id: its family and what differs between ids of that family."""

    id: str
    family: str
    splits: dict[str, int]
    description: str
    max_rounds: int
    item_prefix: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    #: ``True`` for our own variations of a family (not in AgentGym).
    ours: bool = False
    #: Modules this id needs beyond its family's extra (e.g. a data package).
    extra_requires: tuple[str, ...] = ()
    #: The extra that installs them (default: the family's).
    own_extra: str = ""

    @property
    def parity(self) -> str:
        """``"agentgym"`` (plays AgentGym's items by default), ``"stand-in"`` (the family's
        embedded data stands in for AgentGym's; a loader plays the real data) or ``"ours"``."""
        if self.ours:
            return "ours"
        return "stand-in" if self.record.stand_in else "agentgym"

    @property
    def record(self) -> Family:
        """The :class:`Family` this id belongs to."""
        return FAMILIES[self.family]

    @property
    def extra(self) -> str:
        return self.own_extra or self.record.extra

    @property
    def requires(self) -> tuple[str, ...]:
        return self.record.requires

    @property
    def reward(self) -> RewardKind:
        return self.record.reward

    @property
    def expert(self) -> str:
        return self.record.expert

    @property
    def installed(self) -> bool:
        return self.record.installed and all(
            importlib.util.find_spec(m) is not None for m in self.extra_requires
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "family": self.family,
            "extra": self.extra,
            "installed": self.installed,
            "splits": dict(self.splits),
            "max_rounds": self.max_rounds,
            "reward": self.reward,
            "description": self.description,
            "item_prefix": self.item_prefix,
            "parity": self.parity,
        }


FAMILIES: dict[str, Family] = {}
ENV_INFO: dict[str, EnvInfo] = {}
_PREFIXES: dict[str, Family] = {}


def register_family(family: Family) -> Family:
    """Record ``family``; a second record under the same name or prefix is an error."""
    if family.name in FAMILIES:
        raise ValueError(f"family {family.name!r} is already registered")
    for prefix in family.prefixes:
        if prefix in _PREFIXES:
            raise ValueError(f"item prefix {prefix!r} already names {_PREFIXES[prefix].name!r}")
    FAMILIES[family.name] = family
    for prefix in family.prefixes:
        _PREFIXES[prefix] = family
    return family


def register_env(
    family: Family,
    name: str,
    *,
    splits: dict[str, int],
    description: str,
    entry_point: str | None = None,
    max_rounds: int | None = None,
    item_prefix: str | None = None,
    max_episode_steps: int | None = None,
    kwargs: dict[str, Any] | None = None,
    ours: bool = False,
    extra_requires: tuple[str, ...] = (),
    extra: str = "",
) -> EnvInfo:
    """Register ``AgentGym/<name>`` with gymnasium as an id of ``family``.

    ``entry_point``, ``max_rounds`` and ``item_prefix`` default to the family's;
    ``max_episode_steps`` is the engine's own cap (turn limits are wrappers); ``ours`` marks a
    variation of ours that AgentGym does not have; ``extra_requires`` names modules the id
    needs beyond the family's extra (it counts as not installed without them), ``extra`` the
    extra that installs them.
    """
    if FAMILIES.get(family.name) is not family:
        raise ValueError(f"register family {family.name!r} before its ids")
    env_id = f"{NAMESPACE}/{name}"
    gym.register(
        id=env_id,
        entry_point=entry_point or family.entry_point,
        max_episode_steps=max_episode_steps,
        kwargs=dict(kwargs or {}),
        order_enforce=True,
    )
    info = EnvInfo(
        id=env_id,
        family=family.name,
        splits=dict(splits),
        description=description,
        max_rounds=max_rounds or family.max_rounds,
        item_prefix=item_prefix or family.item_prefix,
        kwargs=dict(kwargs or {}),
        ours=ours,
        extra_requires=tuple(extra_requires),
        own_extra=extra,
    )
    ENV_INFO[env_id] = info
    return info


def family_record(name: str) -> Family:
    """The :class:`Family` called ``name`` (``"wordle"``); unknown names suggest a close one."""
    if name in FAMILIES:
        return FAMILIES[name]
    raise UnknownEnvError(unknown_name("family", str(name), FAMILIES))


def family_for_prefix(prefix: str) -> Family | None:
    """The family an item-id prefix names (``lmrlgym_maze`` -> Maze), ``None`` if none does."""
    return _PREFIXES.get(prefix) or _PREFIXES.get(prefix.lower())


def resolve_id(env_id: str) -> str:
    """The registered id for ``env_id`` (``Wordle-v0`` and ``agentgym_envs:`` prefixes accepted).

    Unknown ids raise :class:`UnknownEnvError` suggesting the closest registered one.
    """
    name = env_id.split(":", 1)[-1]
    if name in ENV_INFO:
        return name
    if f"{NAMESPACE}/{name}" in ENV_INFO:
        return f"{NAMESPACE}/{name}"
    lowered = {k.lower(): k for k in ENV_INFO}
    for candidate in (name.lower(), f"{NAMESPACE}/{name}".lower()):
        if candidate in lowered:
            return lowered[candidate]
    raise UnknownEnvError(
        unknown_name(
            "env id",
            env_id,
            ENV_INFO,
            compare=lambda text: text.split(":", 1)[-1].split("/", 1)[-1],
            otherwise=f"none of the {len(ENV_INFO)} ids is close; `agentgym list` shows them",
        )
    )


def env_info(env_id: str) -> EnvInfo:
    return ENV_INFO[resolve_id(env_id)]


def info_for(env: gym.Env) -> EnvInfo | None:
    """The registry record of a (possibly wrapped) env made by ``gymnasium.make``."""
    spec = getattr(env, "spec", None) or getattr(env.unwrapped, "spec", None)
    if spec is not None and spec.id in ENV_INFO:
        return ENV_INFO[spec.id]
    family = getattr(env.unwrapped, "family", "")
    matches = [i for i in ENV_INFO.values() if i.family == family]
    return matches[0] if matches else None


def load_callable(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def expert_policy(env: gym.Env) -> Callable[[str, dict[str, Any]], str]:
    """The scripted expert of ``env``'s family, bound to ``env``.

    The returned policy maps ``(observation, info)`` to an action; it follows the env across
    resets (call it with each new observation).
    """
    base = env.unwrapped
    family = FAMILIES.get(getattr(base, "family", None) or "")
    if family is None or not family.expert:
        experts = {name: f for name, f in FAMILIES.items() if f.expert}
        raise UnknownEnvError(unknown_name("family", str(getattr(base, "family", None)), experts))
    return load_callable(family.expert)(base)
