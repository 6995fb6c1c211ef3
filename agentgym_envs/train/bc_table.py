"""A behaviour-cloning policy that fits on a laptop: observation -> the action taken there.

Trained from SFT records (``messages`` + ``loss_mask``, as
:func:`~agentgym_envs.experience.training.export_training` writes them): each trained
assistant turn's action (the text after ``Action:``, else the whole reply) is counted under the
observation it answered; the policy plays the most frequent action of an observation it has
seen and a random action elsewhere. On a family whose held-out tasks pass through states the
training tasks visited (Maze's double-T maze from other start cells) it generalises; it is the
experience loop's cheap learner, not a language model. A table is a JSON file (``save`` /
``load``), so a version's weights are a path in its config.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np


def _action(reply: str) -> str:
    _, sep, tail = reply.rpartition("Action:")
    return (tail if sep else reply).strip()


def fit(records: Iterable[dict[str, Any]], *, shuffle_seed: int | None = None) -> dict[str, str]:
    """The table of ``records``; with ``shuffle_seed``, the actions are shuffled across
    observations first (a deliberately broken learner: same data, labels scrambled)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for rec in records:
        messages, mask = rec.get("messages") or [], rec.get("loss_mask") or []
        for i, (m, train) in enumerate(zip(messages, mask, strict=False)):
            if not train or m.get("role") != "assistant" or i == 0:
                continue
            prev = messages[i - 1]
            if prev.get("role") != "user":
                continue
            counts[str(prev.get("content", "")).strip()][_action(str(m.get("content", "")))] += 1
    table = {obs: c.most_common(1)[0][0] for obs, c in sorted(counts.items())}
    if shuffle_seed is not None:
        actions = list(table.values())
        random.Random(shuffle_seed).shuffle(actions)
        table = dict(zip(table, actions, strict=True))
    return table


def save(table: dict[str, str], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1, sort_keys=True), encoding="utf-8")
    return path


def load(path: Path) -> dict[str, str]:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def table_spec(table: dict[str, str], name: str, path: Path | None = None):
    """The table as a benchmark :class:`~agentgym_envs.benchmarks.policies.PolicySpec` (plain
    env actions; unseen observations get the env's random action, seeded per episode)."""
    from agentgym_envs.benchmarks.policies import PolicySpec

    def factory(env: Any, seed: int):
        rng = np.random.default_rng(seed)
        base = env.unwrapped

        def act(observation: str, info: dict[str, Any]) -> str:
            found = table.get(str(observation).strip())
            return found if found is not None else base.random_action(rng)

        return act

    config = {"states": len(table), "table": str(path) if path else None}
    return PolicySpec(name, "plain", factory, config)


__all__ = ["fit", "load", "save", "table_spec"]
