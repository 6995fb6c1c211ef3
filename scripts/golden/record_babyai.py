"""Record golden BabyAI transcripts from AgentGym's own BabyAI server, over HTTP only.

    .agvenv/bin/babyai --host 127.0.0.1 --port 36120      # in an AgentGym checkout (3ef9235)
    python scripts/golden/record_babyai.py --url http://127.0.0.1:36120

Writes ``tests/fixtures/agentgym/babyai.json`` (gzipped to ``.json.gz`` when over 300 kB):

* first observations of the 90 test items (0-89) and 30 more: ``1000 + 43 * j`` for
  ``j = 0..27`` (28 different levels, seeds 25-55) and 155, 156;
* full transcripts of items 0-39 (every level once, seed 0): the actions of this package's
  expert, played on our env in lockstep, sent to AgentGym's server, with AgentGym's replies
  recorded. Every fourth transcript starts with refused and odd actions (empty, unknown,
  ``check``, upper case, the first refusal the view offers). An episode whose expert opens
  a box or closes an open door (``toggle`` that AgentGym does not offer) is played with
  ``toggle_any=False`` and says so in ``env_kwargs``;
* full transcripts of items 40-79 (every level once, seed 1) under 25 actions drawn from the
  offered list (``random.Random(item)``), which exercise macros, drops and door actions.

The replies are AgentGym's; our env is only used to choose the actions. The script logs how
many first observations and transcripts our env reproduces byte for byte.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
from pathlib import Path
from typing import Any

import requests

from agentgym_envs.envs.babyai.env import BabyAIEnv
from agentgym_envs.envs.babyai.expert import BabyAIExpert

logger = logging.getLogger("record_babyai")

#: 90 test items and 30 more: 28 spread over levels and seeds, and 155, 156 (SynthLoc and
#: SynthSeq, seed 3), where minigrid 2.3's locked-room carry-over changes the mission.
FIRST_ONLY = list(range(90)) + [1000 + 43 * j for j in range(28)] + [155, 156]
TRANSCRIPTS = list(range(40))
RANDOM = list(range(40, 80))
MAX_STEPS = 40
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agentgym" / "babyai.json"


class Server:
    """One env of AgentGym's BabyAI server."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()
        self.id = self._post("create", {})["id"]

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = self.http.post(f"{self.url}/{path}", json=body, timeout=120)
        reply.raise_for_status()
        data = reply.json()
        if isinstance(data, dict) and "error" in data:
            raise RuntimeError(f"{path}: {data['error']}")
        return data

    def reset(self, item: int) -> dict[str, Any]:
        return self._post("reset", {"id": self.id, "data_idx": item})

    def step(self, action: str) -> dict[str, Any]:
        return self._post("step", {"id": self.id, "action": action})


def odd_actions(env: BabyAIEnv) -> list[str]:
    view = env._view
    refused = sorted(view.errors)[:1] if view is not None else []
    return [
        "",
        "fly to the moon",
        "Check available actions",
        "  TURN LEFT ",
        *refused,
        "turn right",
    ]


def record_episode(
    server: Server, env: BabyAIEnv, item: int, odd: bool, rand: bool = False
) -> dict[str, Any]:
    split, task_id = env.tasks.locate(item)
    expert = BabyAIExpert(env)
    rng = random.Random(item)
    reply = server.reset(item)
    obs, info = env.reset(seed=0, options={"split": split, "task_id": task_id})
    episode: dict[str, Any] = {
        "item": item,
        "reset_request": {"data_idx": item},
        "first_observation": reply["observation"],
        "env_kwargs": {} if env.toggle_any else {"toggle_any": False},
        "steps": [],
    }
    queue = odd_actions(env) if odd else []
    for _ in range(25 if rand else MAX_STEPS):
        if rand:
            action = rng.choice(env.available_actions())
        else:
            action = queue.pop(0) if queue else expert(obs, info)
        if (
            env.toggle_any
            and action.strip().lower() == "toggle"
            and "toggle" not in env.available_actions()
        ):
            raise _UsesToggleAny
        reply = server.step(action)
        obs, _, terminated, _, info = env.step(action)
        episode["steps"].append(
            {
                "action": action,
                "observation": reply["observation"],
                "reward": reply["reward"],
                "score": reply["score"],
                "done": reply["done"],
            }
        )
        if reply["done"] or terminated:
            break
    return episode


class _UsesToggleAny(Exception):
    pass


def replay_matches(episode: dict[str, Any]) -> tuple[bool, bool]:
    """(first observation identical, whole transcript identical) on a fresh env of ours."""
    env = BabyAIEnv(**episode["env_kwargs"])
    split, task_id = env.tasks.locate(episode["item"])
    obs, info = env.reset(seed=0, options={"split": split, "task_id": task_id})
    first = obs == episode["first_observation"]
    same = first
    for step in episode["steps"]:
        obs, reward, terminated, _, info = env.step(step["action"])
        same = same and (obs, reward, info["score"], terminated) == (
            step["observation"],
            step["reward"],
            step["score"],
            step["done"],
        )
    env.close()
    return first, same


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", required=True, help="AgentGym BabyAI server, e.g. http://127.0.0.1:36120"
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    server = Server(args.url)
    episodes = []
    for item in sorted(set(FIRST_ONLY) | set(TRANSCRIPTS) | set(RANDOM)):
        if item in RANDOM:
            episodes.append(record_episode(server, BabyAIEnv(), item, False, rand=True))
            continue
        if item not in TRANSCRIPTS:
            reply = server.reset(item)
            episodes.append(
                {
                    "item": item,
                    "reset_request": {"data_idx": item},
                    "first_observation": reply["observation"],
                    "env_kwargs": {},
                    "steps": [],
                }
            )
            continue
        odd = item % 4 == 1
        try:
            episode = record_episode(server, BabyAIEnv(), item, odd)
        except _UsesToggleAny:
            episode = record_episode(server, BabyAIEnv(toggle_any=False), item, odd)
        episodes.append(episode)
    data = {
        "source": {
            "agentgym": "3ef9235",
            "server": "agentenv-babyai: babyai --host 127.0.0.1 --port 36120 (Python 3.11, "
            "minigrid 2.3.1, gymnasium 0.29.1)",
            "first_observations": "items 0-89, 1000 + 43*j for j = 0..27, 155, 156",
            "transcripts": "items 0-39: this package's expert, odd actions first when item % 4 == 1; "
            "items 40-79: 25 actions drawn from the offered list with random.Random(item)",
        },
        "episodes": episodes,
    }
    firsts = [replay_matches(e) for e in episodes]
    n_first = sum(1 for e, (f, _) in zip(episodes, firsts) if f and e["item"] in FIRST_ONLY)
    n_trans = sum(1 for e, (_, s) in zip(episodes, firsts) if s and e["steps"])
    logger.info("first observations identical: %d of %d", n_first, len(FIRST_ONLY))
    logger.info("transcripts identical: %d of %d", n_trans, len(TRANSCRIPTS) + len(RANDOM))
    text = json.dumps(data, indent=1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if len(text) > 300_000:
        out = args.out.with_suffix(".json.gz")
        with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
            f.write(text.encode("utf-8"))
    else:
        out = args.out
        out.write_text(text)
    logger.info(
        "wrote %s (%d episodes, %d steps)",
        out,
        len(episodes),
        sum(len(e["steps"]) for e in episodes),
    )


if __name__ == "__main__":
    main()
