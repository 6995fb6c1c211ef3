"""Synthetic scenarios: new tasks from the families' own generators, and augmented trajectories.

:func:`generate_scenarios` draws scenarios for one env id, all seeded:

* **parameter ranges** -- env constructor arguments drawn from ranges or choices (e.g. the
  size of a generated maze: ``{"rows": (3, 7), "cols": (3, 7)}`` for ``MazeRandom-v0``);
* **rare configurations** -- tasks drawn with weight ``1 / frequency`` of a task attribute
  (``rare_by="level"`` for BabyAI, ``"depth"`` for TextCraft), so the rare kinds show up;
* **perturbed observations** -- the agent sees text with typos, case changes, extra
  whitespace or a distracting sentence (:class:`PerturbObservations`); the env's state and
  reward are untouched, so the task stays checkable.

Each scenario can be checked (``verify=True``): the family's expert must still solve it.

:func:`augment_trajectories` paraphrases the instruction turn of stored or recorded
trajectories. Only the instructions change -- never an observation or an action -- and each
variant is replayed through its live env (:func:`agentgym_envs.datasets.replay`) to show the
env still reaches the recorded verdict; variants that do not are dropped.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import gymnasium as gym
import numpy as np

from agentgym_envs.errors import AgentGymError

logger = logging.getLogger(__name__)

PERTURBATIONS = ("typos", "case", "whitespace", "distractor")
_DISTRACTORS = (
    "A notice on the wall says the cafeteria closes early today.",
    "Somewhere far away, a dog barks twice.",
    "Note: this message is unrelated to your task.",
    "The weather outside is mild and cloudy.",
)
_WORD = re.compile(r"[A-Za-z]{4,}")


class PerturbObservations(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Perturb the observation text the agent sees; the env underneath is unchanged.

    ``kinds``: any of ``typos`` (swap two inner letters of a share ``rate`` of the words of 4+
    letters), ``case`` (upper-case a share ``rate`` of the words), ``whitespace`` (double
    spaces and blank lines), ``distractor`` (append an unrelated sentence). The perturbation
    draws from its own generator, seeded by ``seed`` and each reset's seed, so a scenario
    replays identically.
    """

    def __init__(
        self, env: gym.Env, kinds: Sequence[str] = ("typos",), rate: float = 0.1, seed: int = 0
    ) -> None:
        bad = [k for k in kinds if k not in PERTURBATIONS]
        if bad:
            raise AgentGymError(f"unknown perturbation {bad[0]!r}: use {', '.join(PERTURBATIONS)}")
        if not 0 <= rate <= 1:
            raise AgentGymError(f"perturbation rate {rate}: use a share between 0 and 1")
        gym.utils.RecordConstructorArgs.__init__(self, kinds=tuple(kinds), rate=rate, seed=seed)
        gym.Wrapper.__init__(self, env)
        self.kinds, self.rate, self.seed = tuple(kinds), float(rate), int(seed)
        self._rng = np.random.default_rng(seed)

    def perturb(self, text: str) -> str:
        rng = self._rng
        if "typos" in self.kinds:

            def typo(m: re.Match) -> str:
                w = m.group(0)
                if rng.random() >= self.rate:
                    return w
                i = int(rng.integers(1, len(w) - 2))
                return w[:i] + w[i + 1] + w[i] + w[i + 2 :]

            text = _WORD.sub(typo, text)
        if "case" in self.kinds:
            text = _WORD.sub(
                lambda m: m.group(0).upper() if rng.random() < self.rate else m.group(0), text
            )
        if "whitespace" in self.kinds:
            text = re.sub(r" ", lambda m: "  " if rng.random() < self.rate else " ", text)
            text = text.replace("\n", "\n\n") if rng.random() < 0.5 else text
        if "distractor" in self.kinds:
            text = f"{text}\n{_DISTRACTORS[int(rng.integers(len(_DISTRACTORS)))]}"
        return text

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self._rng = np.random.default_rng([self.seed, 0 if seed is None else int(seed)])
        obs, info = self.env.reset(seed=seed, options=options)
        return self.perturb(obs), {**info, "perturbed": list(self.kinds)}

    def step(self, action: Any):
        obs, reward, terminated, truncated, info = self.env.step(action)
        return self.perturb(obs), reward, terminated, truncated, info


@dataclass(frozen=True)
class Scenario:
    """One generated scenario: an env id with constructor arguments, a task, a seed, and an
    optional observation perturbation."""

    env_id: str
    split: str
    task_id: int
    seed: int
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    perturb: dict[str, Any] | None = None
    tags: tuple[str, ...] = ()

    def make(self) -> gym.Env:
        """The env of this scenario (perturbation wrapper included)."""
        env = gym.make(self.env_id, **self.env_kwargs)
        if self.perturb:
            env = PerturbObservations(env, **self.perturb)
        return env

    def reset(self, env: gym.Env):
        return env.reset(seed=self.seed, options={"split": self.split, "task_id": self.task_id})

    def to_dict(self) -> dict[str, Any]:
        return {
            "env_id": self.env_id,
            "split": self.split,
            "task_id": self.task_id,
            "seed": self.seed,
            "env_kwargs": dict(self.env_kwargs),
            "perturb": self.perturb,
            "tags": list(self.tags),
        }


def _draw(rng: np.random.Generator, spec: Any) -> Any:
    if isinstance(spec, tuple) and len(spec) == 2:
        lo, hi = spec
        if isinstance(lo, int) and isinstance(hi, int):
            return int(rng.integers(lo, hi + 1))
        return float(rng.uniform(float(lo), float(hi)))
    if isinstance(spec, (list, tuple)) and spec:
        return spec[int(rng.integers(len(spec)))]
    return spec


def _attribute(task: Any, name: str) -> Any:
    value = getattr(task, name, None)
    if value is None:
        raise AgentGymError(
            f"tasks of this env have no attribute {name!r} to find rare ones by: "
            f"use one of {', '.join(k for k in vars(task) if not k.startswith('_'))}"
        )
    return value


def solves(scenario: Scenario, max_turns: int = 200) -> bool:
    """Whether the family's expert solves ``scenario`` (the scenario is well-formed)."""
    from agentgym_envs import expert_policy
    from agentgym_envs.rollout import run_episode

    env = gym.make(scenario.env_id, **scenario.env_kwargs)
    try:
        ep = run_episode(
            env,
            expert_policy(env),
            task_id=scenario.task_id,
            split=scenario.split,
            seed=scenario.seed,
            max_turns=max_turns,
        )
        return bool(ep.success)
    finally:
        env.close()


def generate_scenarios(
    env_id: str,
    n: int,
    *,
    seed: int = 0,
    split: str = "train",
    params: Mapping[str, Any] | None = None,
    rare_by: str | None = None,
    perturb: Sequence[str] | None = None,
    perturb_rate: float = 0.1,
    pool: int = 2000,
    verify: bool = False,
) -> list[Scenario]:
    """``n`` seeded scenarios of ``env_id`` (see the module docstring).

    ``params``: constructor argument -> ``(low, high)`` (ints inclusive, floats uniform) or a
    list of choices. ``rare_by``: a task attribute; tasks are drawn from (at most ``pool`` of)
    the split with weight 1 / frequency of their value. ``perturb``: perturbation kinds.
    ``verify``: keep only scenarios the expert solves (draws more until ``n`` or 10 n tries).
    """
    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    if n < 1:
        raise AgentGymError(f"n={n}: ask for one or more scenarios")
    rng = np.random.default_rng(seed)
    params = dict(params or {})
    out: list[Scenario] = []
    tries = 0
    envs: dict[str, gym.Env] = {}
    try:
        while len(out) < n and tries < 10 * n:
            tries += 1
            sc = _draw_scenario(
                rng,
                envs,
                env_id,
                split,
                params,
                rare_by=rare_by,
                pool=pool,
                perturb=perturb,
                perturb_rate=perturb_rate,
            )
            if verify and not solves(sc):
                logger.info("scenario %s is not solved by the expert: dropped", sc.to_dict())
                continue
            out.append(sc)
    finally:
        for env in envs.values():
            env.close()
    if len(out) < n:
        logger.warning("only %d of %d scenarios passed verification", len(out), n)
    return out


def _draw_scenario(
    rng: np.random.Generator,
    envs: dict[str, gym.Env],
    env_id: str,
    split: str,
    params: Mapping[str, Any],
    *,
    rare_by: str | None,
    pool: int,
    perturb: Sequence[str] | None,
    perturb_rate: float,
) -> Scenario:
    """One scenario: constructor arguments, a task (rare ones favoured with ``rare_by``), a
    perturbation, a seed -- drawn from ``rng`` in that order."""
    kwargs = {k: _draw(rng, v) for k, v in params.items()}
    source = _env(envs, env_id, kwargs).unwrapped.tasks
    size = source.size(split)
    if size == 0:
        raise AgentGymError(f"{env_id} has no {split!r} tasks: use split='train' or 'test'")
    tags: list[str] = [f"{k}={v}" for k, v in kwargs.items()]
    if rare_by:
        task_id, tag = _rare_task(rng, source, split, size, rare_by, pool)
        tags.append(tag)
    else:
        task_id = int(rng.integers(size))
    spec = None
    if perturb:
        spec = {
            "kinds": list(perturb),
            "rate": perturb_rate,
            "seed": int(rng.integers(2**31)),
        }
        tags.append("perturbed: " + "+".join(perturb))
    return Scenario(env_id, split, task_id, int(rng.integers(2**31)), kwargs, spec, tuple(tags))


def _env(envs: dict[str, gym.Env], env_id: str, kwargs: dict[str, Any]) -> gym.Env:
    """The env made with ``kwargs`` (one per distinct set of arguments, kept in ``envs``)."""
    key = repr(sorted(kwargs.items()))
    if key not in envs:
        try:
            envs[key] = gym.make(env_id, **kwargs)
        except TypeError as exc:
            raise AgentGymError(
                f"{env_id} does not take these arguments ({exc}): check params"
            ) from None
    return envs[key]


def _rare_task(
    rng: np.random.Generator, source, split: str, size: int, rare_by: str, pool: int
) -> tuple[int, str]:
    """A task drawn from (at most ``pool`` of) the split with weight 1 / frequency of its
    ``rare_by`` value, and the tag that says so."""
    ids = rng.choice(size, size=min(pool, size), replace=False)
    values = [_attribute(source.get(split, int(i)), rare_by) for i in ids]
    counts = Counter(values)
    w = np.array([1.0 / counts[v] for v in values])
    j = int(rng.choice(len(ids), p=w / w.sum()))
    return int(ids[j]), f"rare {rare_by}={values[j]} ({counts[values[j]]}/{len(ids)})"


# -- trajectory augmentation ------------------------------------------------------------------
#: Meaning-keeping rewrites of instruction prose: (pattern, alternatives).
_PARAPHRASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\bYou are\b", ("You're", "Consider that you are")),
    (r"\byou are\b", ("you're",)),
    (r"\bmust\b", ("have to", "need to")),
    (r"\bcan\b", ("are able to", "may")),
    (r"\bEach turn\b", ("Every turn", "On each turn")),
    (r"\beach turn\b", ("every turn",)),
    (r"\bPlease\b", ("Kindly",)),
    (r"\bthe following\b", ("these", "the below")),
    (r"\bshould\b", ("ought to",)),
    (r"\breach\b", ("get to", "arrive at")),
    (r"\bin order to\b", ("to",)),
    (r"\bfinish\b", ("complete",)),
    (r"\bGiven\b", ("With",)),
)
#: Lines that carry a format the parser relies on are never rewritten.
_PROTECTED = re.compile(r"Action|Thought|\[|\]|`|\{|\}|:\s*$")


def paraphrase(text: str, rng: np.random.Generator) -> str:
    """A seeded paraphrase of instruction prose (format lines are kept as they are)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _PROTECTED.search(line):
            continue
        for pattern, alternatives in _PARAPHRASES:
            if rng.random() < 0.8:
                line = re.sub(
                    pattern, lambda _m, a=alternatives: a[int(rng.integers(len(a)))], line
                )
        lines[i] = line
    return "\n".join(lines)


def augment_trajectories(
    trajectories: Iterable[Any], *, variants: int = 1, seed: int = 0, verify: bool = True
) -> list[Any]:
    """Paraphrased-instruction variants of AgentTraj trajectories (see the module docstring).

    Only trajectories that open with AgentGym's ``conversation_start`` have instructions to
    paraphrase; others are skipped. Each variant keeps ``reward``/``success`` and records
    ``augmented: "paraphrase"`` and ``source_item`` in ``extra``. ``verify``: replay each
    variant and keep it only if the env reaches the recorded verdict.
    """
    from agentgym_envs.datasets.agenttraj import Turn

    rng = np.random.default_rng(seed)
    out = []
    replayer = None
    if verify:
        from agentgym_envs.datasets.replay import Replayer

        replayer = Replayer()
    try:
        for t in trajectories:
            if t.start != 2:
                continue
            first = t.conversations[0]
            seen = {first.value}
            for _ in range(variants):
                text = paraphrase(first.value, rng)
                if text in seen:
                    continue
                seen.add(text)
                turns = [Turn(first.role, text, first.loss), *t.conversations[1:]]
                extra = {**t.extra, "augmented": "paraphrase", "source_item": t.item_id}
                variant = replace(t, conversations=turns, extra=extra)
                if replayer is not None:
                    report = replayer.replay(variant)
                    if not report.consistent:
                        logger.info(
                            "paraphrased %s no longer replays to its verdict: dropped", t.item_id
                        )
                        continue
                out.append(variant)
    finally:
        if replayer is not None:
            replayer.close()
    return out


__all__ = [
    "PERTURBATIONS",
    "PerturbObservations",
    "Scenario",
    "augment_trajectories",
    "generate_scenarios",
    "paraphrase",
    "solves",
]
