"""Record golden Maze and Wordle transcripts from AgentGym's LMRL-Gym server, over HTTP only.

Start AgentGym's server (one app serves both games, under ``/maze/*`` and ``/wordle/*``)::

    cd agentenv-lmrlgym && PYTHONPATH=$PWD/lmrlgym ../.agvenv/bin/lmrlgym --host 127.0.0.1 --port 36110
    python scripts/golden/record_lmrlgym.py --url http://127.0.0.1:36110

Maze: every start ``game`` 0..24, each a few odd actions (wrong case, punctuation, bare
directions, wall bumps) then a shortest path to the goal planned from the position the server
reports; one run of wall bumps to the 50-step cap and the reply to a step after it; the
resets of items 25 and 26. Wordle: the 25 test seeds (3499..3523) played by a worst-case
planner over the words the server's ``/filtered_vocab`` still lists, with invalid words mixed
in; five train seeds played by "first word still possible"; a lost game of valid guesses; a
game of invalid words only.
Every step records the server's reply and, for Wordle, its ``/filtered_vocab`` afterwards.

Writes ``tests/fixtures/agentgym/maze.json`` and ``wordle.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
from pathlib import Path
from typing import Any

import requests

from agentgym_envs.envs.maze.layouts import DOUBLE_T, DOUBLE_T_GOAL, shortest_path
from agentgym_envs.envs.wordle.expert import lmrl_planner

log = logging.getLogger("record_lmrlgym")
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agentgym"
SOURCE = {"agentgym": "3ef9235", "lmrlgym": "83abeed"}
SERVER = (
    "cd agentenv-lmrlgym && PYTHONPATH=$PWD/lmrlgym ../.agvenv/bin/lmrlgym "
    "--host 127.0.0.1 --port <port> (Python 3.11)"
)
_POSITION = re.compile(r"Your current position is at position (\d+), (\d+)\.")
_DIRECTION = {(-1, 0): "move up", (1, 0): "move down", (0, -1): "move left", (0, 1): "move right"}
#: Odd maze actions tried at the start of game i (i % 5 picks the set); none of them moves.
MAZE_ODD = [
    ["Move left", "move down."],
    ["left", "move  up", ""],
    ["move up\n", "MOVE RIGHT"],
    ["go to the goal"],
    [],
]
#: Invalid Wordle guesses mixed into the test games (k % 6 picks one; k % 3 the position).
WORDLE_INVALID = ["crane", "CRANE", "p a n i c.", "pani", "", "solarr"]


class Server:
    def __init__(self, url: str, game: str) -> None:
        self.base = f"{url.rstrip('/')}/{game}"
        self.http = requests.Session()
        self.id = self.post("create", {})["id"]

    def post(self, path: str, body: dict[str, Any]) -> Any:
        reply = self.http.post(f"{self.base}/{path}", json=body, timeout=30)
        reply.raise_for_status()
        return reply.json()

    def get(self, path: str) -> Any:
        reply = self.http.get(f"{self.base}/{path}", params={"id": self.id}, timeout=30)
        reply.raise_for_status()
        return reply.json()

    def reset(self, body: dict[str, Any]) -> Any:
        return self.post("reset", {"id": self.id, **body})

    def step(self, action: str) -> dict[str, Any]:
        reply = self.post("step", {"id": self.id, "action": action})
        if "error" in reply:
            raise RuntimeError(f"server error on {action!r}: {reply['error']}")
        return reply


def _step_record(action: str, reply: dict[str, Any]) -> dict[str, Any]:
    return {
        "action": action,
        "observation": reply["observation"],
        "reward": float(reply["reward"]),
        "done": bool(reply["done"]),
    }


def _maze_move(observation: str) -> str:
    found = _POSITION.search(observation)
    if found is None:
        raise RuntimeError(f"no position in {observation!r}")
    here = (int(found.group(1)), int(found.group(2)))
    path = shortest_path(DOUBLE_T, here, DOUBLE_T_GOAL)
    (r0, c0), (r1, c1) = path[0], path[1]
    return _DIRECTION[(r1 - r0, c1 - c0)]


def record_maze(url: str) -> dict[str, Any]:
    server = Server(url, "maze")
    episodes = []
    for game in range(25):
        request = {"game": game}
        obs = server.reset(request)["observation"]
        episode: dict[str, Any] = {"item": game, "reset_request": request, "first_observation": obs}
        steps = []
        for action in MAZE_ODD[game % 5]:
            steps.append(_step_record(action, server.step(action)))
        while not steps or not steps[-1]["done"]:
            action = _maze_move(steps[-1]["observation"] if steps else obs)
            steps.append(_step_record(action, server.step(action)))
        episode["steps"] = steps
        episodes.append(episode)
    # The engine cap: bump into a wall until the server gives up, then step once more.
    request = {"game": 0}
    obs = server.reset(request)["observation"]
    steps = []
    while not steps or not steps[-1]["done"]:
        steps.append(_step_record("move up", server.step("move up")))
    after = server.post("step", {"id": server.id, "action": "move right"})
    episodes.append(
        {
            "item": 0,
            "note": "engine cap: wall bumps until the episode ends",
            "reset_request": request,
            "first_observation": obs,
            "steps": steps,
            "after_done_reply": after,
        }
    )
    reset_errors = [
        {"reset_request": {"game": game}, "reply": server.reset({"game": game})}
        for game in (25, 26)
    ]
    return {
        "source": {**SOURCE, "server": SERVER},
        "available_actions": server.get("available_actions"),
        "reset_errors": reset_errors,
        "episodes": episodes,
    }


def _wordle_episode(server: Server, seed: int, policy) -> dict[str, Any]:
    request = {"seed": seed}
    reply = server.reset(request)
    episode: dict[str, Any] = {
        "item": seed,
        "reset_request": request,
        "first_observation": reply["observation"],
    }
    steps: list[dict[str, Any]] = []
    while not steps or not steps[-1]["done"]:
        action = policy(server.get("filtered_vocab"), len(steps))
        record = _step_record(action, server.step(action))
        if not record["done"]:
            record["filtered_vocab"] = server.get("filtered_vocab")
        steps.append(record)
    episode["steps"] = steps
    return episode


def record_wordle(url: str) -> dict[str, Any]:
    server = Server(url, "wordle")
    initial_vocab = server.get("filtered_vocab")  # AgentGym's client asks right after /create
    planner = lmrl_planner(tuple(initial_vocab))
    episodes = []
    for k, seed in enumerate(range(3499, 3524)):
        invalid_at = {k % 3: WORDLE_INVALID[k % 6]}
        if k % 4 == 0:
            invalid_at[3] = WORDLE_INVALID[(k + 1) % 6]

        def expert(words: list[str], turn: int, invalid_at=invalid_at) -> str:
            if turn in invalid_at:
                return invalid_at[turn]
            return " ".join(planner.best(words))

        episodes.append(_wordle_episode(server, seed, expert))
    for seed in range(5):
        episodes.append(_wordle_episode(server, seed, lambda words, turn: " ".join(words[0])))

    # Six valid guesses that are never still possible (after the first): a lost game.
    def loser(words: list[str], turn: int) -> str:
        ruled_out = [w for w in initial_vocab if w not in words]
        return " ".join(ruled_out[turn % len(ruled_out)] if ruled_out else initial_vocab[-1])

    episodes.append(_wordle_episode(server, 11, loser))
    episode = _wordle_episode(server, 7, lambda words, turn: WORDLE_INVALID[turn % 6])
    episode["after_done_reply"] = server.post("step", {"id": server.id, "action": "panic"})
    episodes.append(episode)
    return {
        "source": {**SOURCE, "server": SERVER},
        "initial_filtered_vocab": initial_vocab,
        "episodes": episodes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", required=True, help="AgentGym's LMRL-Gym server, e.g. http://127.0.0.1:36110"
    )
    parser.add_argument(
        "--out", type=Path, default=OUT, help="folder for maze.json and wordle.json"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    args.out.mkdir(parents=True, exist_ok=True)
    for name, record in (("maze", record_maze), ("wordle", record_wordle)):
        data = record(args.url)
        path = args.out / f"{name}.json"
        path.write_text(json.dumps(data, indent=1) + "\n")
        steps = sum(len(e["steps"]) for e in data["episodes"])
        log.info("%s: %d episodes, %d steps -> %s", name, len(data["episodes"]), steps, path)


if __name__ == "__main__":
    main()
