"""Record golden TextCraft transcripts from AgentGym's own TextCraft server, over HTTP only.

    cd agentenv-textcraft && PYTHONHASHSEED=0 ../.agvenv/bin/textcraft --host 127.0.0.1 --port 36130
    python scripts/golden/record_textcraft.py --url http://127.0.0.1:36130

(in an AgentGym checkout at 3ef9235; the server must run from ``agentenv-textcraft``, and
``PYTHONHASHSEED=0`` fixes the order of its crafting commands). Writes
``tests/fixtures/agentgym/textcraft.json`` (gzipped to ``.json.gz`` when over 200 kB); for a
server on CPython 3.10 or older (AgentGym's README sets up 3.9), pass ``--python 3.9.18``: its
string hash differs, and the file is ``textcraft_siphash24.json``:

* first observations of 150 items: the 100 test items of ``AgentGym/TextCraft-v0``, 46 train
  items spread over the goal order, and items 544, 545, 1000 and 2000 (indices wrap around);
* full transcripts of the 100 test items, each on a fresh server env (``/create``, then
  ``/reset`` to the item, as AgentGym's client does): a few refused and odd actions (the
  inventory when empty, ``get`` of the goal and of an ingredient group, a shown crafting
  command that names a group, a craft with a missing count, a capitalised command, a leading
  space, trailing words, ``get 0``), then this package's expert's actions, played on our env
  in lockstep, with an ``inventory`` and crafts with wrong ingredients, a group as the output
  and an item named twice mixed in, until the goal is made.

The replies are AgentGym's; our env only chooses the actions. The script logs how many first
observations and transcripts our env reproduces byte for byte.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
from pathlib import Path
from typing import Any

import requests

from agentgym_envs.envs.textcraft.env import TextCraftEnv
from agentgym_envs.envs.textcraft.expert import TextCraftExpert

logger = logging.getLogger("record_textcraft")

MAX_STEPS = 80
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agentgym" / "textcraft.json"


class Server:
    """One env of AgentGym's TextCraft server."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()
        created = self._post("create", {})
        self.id = created["id"]
        self.created_observation = created["observation"]

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        reply = self.http.post(f"{self.url}/{path}", json=body, timeout=120)
        reply.raise_for_status()
        data = reply.json()
        if isinstance(data, dict) and "error" in data:
            raise RuntimeError(f"{path}: {data['error']}")
        return data

    def reset(self, index: int) -> str:
        return self._post("reset", {"id": self.id, "data_idx": index})["observation"]

    def step(self, action: str) -> dict[str, Any]:
        return self._post("step", {"id": self.id, "action": action})

    def close(self) -> None:
        self._post("close", {"id": self.id})


def odd_actions(env: TextCraftEnv) -> list[str]:
    """Refused and odd actions for the start of an episode."""
    task = env.task
    goal = task.goal_name  # type: ignore[union-attr]
    first = task.commands[0]  # type: ignore[union-attr]
    ingredient = first.split(" using ", 1)[1].split(", ")[0]
    return [
        "inventory",
        f"get 1 {goal}",
        "get 1 planks",
        first,
        f"get {ingredient}",
        f"craft 1 {goal} using {ingredient.split(' ', 1)[1]}",
        f"Craft {first[6:]}",
        " inventory",
        "inventory please",
        f"get 0 {ingredient.split(' ', 1)[1]}",
    ]


def items(env: TextCraftEnv) -> tuple[list[int], list[int]]:
    tasks = env.tasks
    test = [tasks.agentgym_index("test", t) for t in range(tasks.size("test"))]
    n_train = tasks.size("train")
    train = [tasks.agentgym_index("train", (k * n_train) // 46) for k in range(46)]
    return test + train + [544, 545, 1000, 2000], test


def transcript(server: Server, env: TextCraftEnv, index: int) -> dict[str, Any]:
    split, task_id = env.tasks.locate(index)
    obs, info = env.reset(options={"split": split, "task_id": task_id})
    expert = TextCraftExpert(env)
    first = server.reset(index)
    episode: dict[str, Any] = {
        "item": index,
        "reset_request": {"data_idx": index},
        "first_observation": first,
    }
    steps, same = [], first == obs
    queue = odd_actions(env)
    wrong_craft_done = inventory_done = False
    for turn in range(MAX_STEPS):
        if queue:
            action = queue.pop(0)
        elif not wrong_craft_done and env.game and env.game.inventory:
            held = next(iter(env.game.inventory)).removeprefix("minecraft:").replace("_", " ")
            goal = env.task.goal_name  # type: ignore[union-attr]
            # wrong ingredients, a group as the output, an item named twice
            queue = [
                f"craft 1 {goal} using 1 {held}",
                f"craft 1 planks using 1 {held}",
                f"craft 1 {goal} using 1 {held}, 1 {held}",
            ]
            action = queue.pop(0)
            wrong_craft_done = True
        elif not inventory_done and turn >= 12:
            action, inventory_done = "inventory", True
        else:
            action = expert(obs, info)
        reply = server.step(action)
        obs, reward, terminated, _, info = env.step(action)
        same = same and (reply["observation"], float(reply["reward"]), reply["done"]) == (
            obs,
            reward,
            terminated,
        )
        steps.append({"action": action, **reply})
        if reply["done"]:
            break
    episode["steps"] = steps
    return episode, same


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", required=True, help="AgentGym TextCraft server, e.g. http://127.0.0.1:36130"
    )
    parser.add_argument("--out", type=Path, default=None, help=f"default: {OUT}")
    parser.add_argument(
        "--python",
        default="3.11.7",
        help="the CPython version running the server; 3.4-3.10 hash strings with SipHash-2-4 "
        "and are recorded to textcraft_siphash24.json(.gz)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    legacy_hash = tuple(int(p) for p in args.python.split(".")[:2]) < (3, 11)
    string_hash = "siphash24" if legacy_hash else "siphash13"
    env = TextCraftEnv(string_hash=string_hash)
    out: Path = args.out or (OUT.with_name("textcraft_siphash24.json") if legacy_hash else OUT)
    first_items, transcript_items = items(env)
    episodes: list[dict[str, Any]] = []
    server = Server(args.url)
    first_same = 0
    for index in first_items:
        if index in transcript_items:
            continue
        observation = server.reset(index)
        split, task_id = env.tasks.locate(index)
        first_same += env.reset(options={"split": split, "task_id": task_id})[0] == observation
        episodes.append(
            {
                "item": index,
                "reset_request": {"data_idx": index},
                "first_observation": observation,
                "steps": [],
            }
        )
    server.close()
    transcripts_same = 0
    for index in transcript_items:
        server = Server(args.url)  # a fresh env per episode, as AgentGym's client makes
        episode, same = transcript(server, env, index)
        server.close()
        first_same += (
            episode["first_observation"] == env.tasks.get(*env.tasks.locate(index)).instruction()
        )
        transcripts_same += same
        if not episode["steps"][-1]["done"]:
            logger.warning("item %d: the goal was not made in %d steps", index, MAX_STEPS)
        episodes.append(episode)
    logger.info("first observations identical: %d of %d", first_same, len(first_items))
    logger.info("transcripts identical: %d of %d", transcripts_same, len(transcript_items))

    data = {
        "source": {
            "agentgym": "3ef9235",
            "server": "cd agentenv-textcraft && PYTHONHASHSEED=0 textcraft --host 127.0.0.1 "
            f"(AgentGym 3ef9235, CPython {args.python}, 64-bit Linux)",
            "string_hash": string_hash,
        },
        "episodes": episodes,
    }
    text = json.dumps(data, indent=1)
    out.parent.mkdir(parents=True, exist_ok=True)
    if len(text) > 200_000:
        out = out.with_suffix(".json.gz")
        out.write_bytes(gzip.compress(text.encode(), mtime=0))
    else:
        out.write_text(text)
    logger.info("wrote %s (%d episodes)", out, len(episodes))


if __name__ == "__main__":
    main()
