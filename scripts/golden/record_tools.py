"""Record golden tool-family transcripts from AgentGym's Weather, Movie and Academia servers.

AgentGym's tool servers call live APIs (Open-Meteo, TMDB) or need AgentBoard's private graphs,
so only what they answer without those is recorded: the first observation, the replies to
replies they cannot read or refuse (format errors, a missing ``Action:``, an input ``eval``
rejects, an unknown tool, a missing argument), ``check_valid_actions``, and ``finish`` with
answers written in several ways (the reward shows how the answer is compared). Offline, from
the ``agentenv-tool`` folder of an AgentGym checkout::

    PROJECT_PATH=$PWD/Toolusage PYTHONPATH=$PWD:$PWD/Toolusage/toolusage \\
        python -m uvicorn agentenv_weather:app --host 127.0.0.1 --port 36141   # and movie, academia
    python scripts/golden/record_tools.py --agentgym /path/to/AgentGym \\
        --url weather=http://127.0.0.1:36141 --url movie=http://127.0.0.1:36142 \\
        --url academia=http://127.0.0.1:36143

``--agentgym`` is read for the items' subgoals only (the value each reward compares with), so
the tests can recompute the rewards with our comparison. Writes
``tests/fixtures/agentgym/tools.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

import requests

log = logging.getLogger("record_tools")
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agentgym" / "tools.json"

#: Replies every family refuses the same way, whatever its task.
PROTOCOL = [
    "Thought: I need more information first.",
    'Thought: x\n\nAction: finish with Action Input: {\n  "answer": 1\n}',
    "Thought: x\n\nAction: finish with Action Input: {}\nObservation: 1",
    "Thought: x\n\nfinish with Action Input: {}",
    'Thought: x\n\nAction: finish with Action Input: {"answer": true}',
    "Thought: x\n\nAction: fly_to_moon with Action Input: {}",
    "Action: [finish] with Action Input: {}",
    "Thought: x\n\nAction: check_valid_actions with Action Input: {}",
]
#: A tool with a required argument, called without it (AgentGym: KeyError).
NEEDS_ARGUMENT = {
    "weather": "get_historical_temp",
    "movie": "get_movie_details",
    "academia": "paperNodeCheck",
}
#: (item, finish answers to try) per family.
FINISHES = {
    "weather": [
        (0, [18.5, "18.5", 18.50, 18.49, "18.5 degrees Celsius"]),
        (60, [[21.4, 6.9, 15.0]]),
    ],
    "movie": [
        (0, ["Tucson, Arizona, USA", "tucson, arizona, usa"]),
        (119, [["Philippa Boyens", "Peter Jackson"], "Peter Jackson, Philippa Boyens"]),
    ],
    "academia": [
        (0, [2, "2", 2.0]),
        (19, [["Sandeep Silwal_3", "Ali Vakilian", "Justin Y. Chen"]]),
    ],
}


def _subgoals(agentgym: Path, family: str) -> list:
    path = agentgym / "agentenv-tool" / "Toolusage" / "data" / f"{family}.jsonl"
    return [
        json.loads(line)["subgoals"]
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _episode(s: requests.Session, url: str, item: int, actions: list[str]) -> dict:
    env_idx = s.post(f"{url}/create", json={"id": item}, timeout=60).json()
    reset = s.post(f"{url}/reset", json={"env_idx": env_idx, "id": item}, timeout=60)
    reset.raise_for_status()
    steps = []
    for action in actions:
        r = s.post(f"{url}/step", json={"env_idx": env_idx, "action": action}, timeout=60)
        r.raise_for_status()
        data = r.json()
        steps.append(
            {
                "action": action,
                "observation": data["observation"],
                "reward": data["reward"],
                "done": data["done"],
            }
        )
    return {
        "item": item,
        "reset_request": {"id": item},
        "first_observation": reset.json(),
        "steps": steps,
    }


def record(urls: dict[str, str], agentgym: Path) -> dict:
    s = requests.Session()
    families = {}
    for family, url in urls.items():
        subgoals = _subgoals(agentgym, family)
        needs = NEEDS_ARGUMENT[family]
        protocol = [*PROTOCOL, f"Thought: x\n\nAction: {needs} with Action Input: {{}}"]
        episodes = [{"kind": "protocol", **_episode(s, url, 0, protocol)}]
        for item, answers in FINISHES[family]:
            for answer in answers:
                action = f"Thought: done.\n\nAction: finish with Action Input: {json.dumps({'answer': answer})}"
                ep = _episode(s, url, item, [action])
                episodes.append(
                    {"kind": "finish", "answer": answer, "subgoals": subgoals[item], **ep}
                )
                log.info(
                    "%s item %d finish %r: reward %s",
                    family,
                    item,
                    answer,
                    ep["steps"][0]["reward"],
                )
        families[family] = episodes
    return {
        "source": {
            "agentgym": "3ef9235",
            "server": "agentenv-tool servers (AgentGym 3ef9235) under uvicorn, offline: no API was "
            "called; PROJECT_PATH=agentenv-tool/Toolusage",
        },
        "families": families,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", action="append", required=True, help="family=URL (weather, movie, academia)"
    )
    parser.add_argument(
        "--agentgym", required=True, help="an AgentGym checkout (for the items' subgoals)"
    )
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    urls = dict(u.split("=", 1) for u in args.url)
    unknown = set(urls) - set(FINISHES)
    if unknown:
        parser.error(f"unknown families {sorted(unknown)}: use weather, movie, academia")
    data = record({k: v.rstrip("/") for k, v in urls.items()}, Path(args.agentgym))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    log.info("wrote %s", args.out)


if __name__ == "__main__":
    main()
