"""Record golden BIRD/sqlgym transcripts from AgentGym's sqlgym server, over HTTP only.

AgentGym's server reads a BIRD release folder; serve it our embedded questions in BIRD's
layout (train items from 0, test items from 9428, as AgentGym numbers BIRD):

    python scripts/golden/record_sqlgym.py --export /tmp/bird      # writes the folder, exits
    AGENTENV_SQLGYM_BIRD_PATH=/tmp/bird sqlgym --host 127.0.0.1 --port 36140   # AgentGym's server
    python scripts/golden/record_sqlgym.py --url http://127.0.0.1:36140

Each episode resets an item and sends one SQL action (bare SQL, as AgentGym's client sends
after taking it out of the reply's code fence): the gold query, a wrong one, one that fails,
one with a long result, an empty one. The fixture goes to
``tests/fixtures/agentgym/sqlgym.json``.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

import requests

from agentgym_envs.envs.sql.tasks import BIRD_TRAIN_ITEMS, EmbeddedSQLTasks, export_bird_folder

log = logging.getLogger("record_sqlgym")
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agentgym" / "sqlgym.json"


def _actions(tasks: EmbeddedSQLTasks, split: str, task_id: int, kind: str) -> str:
    task = tasks.get(split, task_id)
    if kind == "gold":
        return task.gold_sql
    from agentgym_envs.envs.sql.schema import tables_record

    first = tables_record(task.db_path, task.db_id)["table_names_original"][0]
    return {
        "wrong": f"SELECT COUNT(*) FROM {first}",
        "long": f"SELECT * FROM {first}",
        "error": "SELECT no_such_column FROM " + first,
        "syntax": "SELEC 1",
        "write": f"DELETE FROM {first}",
        "two": "SELECT 1; SELECT 2",
        "empty": "",
    }[kind]


#: (split, task id, action kind) per episode.
EPISODES = [
    ("test", 0, "gold"),
    ("test", 1, "gold"),
    ("test", 2, "wrong"),
    ("test", 3, "long"),
    ("test", 4, "error"),
    ("test", 5, "syntax"),
    ("test", 6, "write"),
    ("test", 7, "two"),
    ("test", 8, "empty"),
    ("test", 199, "gold"),
    ("train", 0, "gold"),
    ("train", 1, "long"),
]


def record(url: str) -> dict:
    tasks = EmbeddedSQLTasks()
    s = requests.Session()
    env_idx = s.post(f"{url}/create", timeout=60).json()
    episodes = []
    for split, task_id, kind in EPISODES:
        item = task_id if split == "train" else BIRD_TRAIN_ITEMS + task_id
        reset_request = {"env_idx": env_idx, "item_id": item}
        reply = s.post(f"{url}/reset", json=reset_request, timeout=60)
        reply.raise_for_status()
        first = s.get(f"{url}/observation", params={"env_idx": env_idx}, timeout=60).json()
        action = _actions(tasks, split, task_id, kind)
        step = s.post(f"{url}/step", json={"env_idx": env_idx, "action": action}, timeout=60)
        step.raise_for_status()
        data = step.json()
        episodes.append(
            {
                "item": item,
                "reset_request": {"item_id": item},
                "reset_reply": reply.json(),
                "first_observation": first,
                "steps": [
                    {
                        "action": action,
                        "observation": data["state"],
                        "reward": data["reward"],
                        "done": data["done"],
                        "info": data["info"],
                    }
                ],
            }
        )
        log.info("item %d (%s): reward %s", item, kind, data["reward"])
    return {
        "source": {
            "agentgym": "3ef9235",
            "sqlgym": "0.1.2",
            "server": "agentenv-sqlgym (AgentGym 3ef9235) under uvicorn, sqlgym 0.1.2 from PyPI, "
            "AGENTENV_SQLGYM_BIRD_PATH = the embedded questions written by export_bird_folder",
        },
        "episodes": episodes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="AgentGym sqlgym server, e.g. http://127.0.0.1:36140")
    parser.add_argument(
        "--export", help="write the embedded questions as a BIRD folder here and exit"
    )
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.export:
        log.info("BIRD folder written to %s", export_bird_folder(args.export, copy=True))
        return
    if not args.url:
        parser.error("--url is required (or --export)")
    data = record(args.url.rstrip("/"))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    log.info("wrote %d episodes to %s", len(data["episodes"]), args.out)


if __name__ == "__main__":
    main()
