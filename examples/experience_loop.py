"""The experience loop in one script: episodes into the store -> feedback (the env's and a
person's) -> training data -> a new version registered with its parent -> A/B against the
current version -> promoted when significantly better; a deliberately worse version (trained on
the same data with its actions shuffled) deployed, checked and rolled back.

    pip install "agentgym-envs[experience]"
    python examples/experience_loop.py [--out experience-demo]   # --serve: open the dashboard

It runs in seconds (Maze-v0, a behaviour-cloning table as the learner, held-out start cells);
the loop is :func:`agentgym_envs.train.experience_loop.run`, which documents every step.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from agentgym_envs.train import experience_loop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("experience-demo"))
    parser.add_argument("--env", default="Maze-v0")
    parser.add_argument("--serve", action="store_true", help="open the dashboard afterwards")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    result = experience_loop.run(args.out, env=args.env)
    for c in result["candidates"]:
        ab = c["ab"]
        print(
            f"{c['version']} (parent {c['parent']}, trained on {c['trained_on']}): success "
            f"{ab['success_challenger']:.2f} vs {ab['control']} {ab['success_control']:.2f} on "
            f"{ab['tasks']} held-out tasks, p={ab['p_value']:.2g} -> {c['decision']}"
        )
    print(f"current version: {result['current']}")
    (args.out / "result.json").write_text(json.dumps(result, indent=2))
    if args.serve:
        from agentgym_envs.experience import open_store
        from agentgym_envs.experience.dashboard import serve

        print("dashboard at http://127.0.0.1:8765/ (Ctrl-C stops)")
        serve(open_store(args.out / "experience.db"), port=8765)


if __name__ == "__main__":
    main()
