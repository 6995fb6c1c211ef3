"""The experience loop in one script: episodes into the store -> feedback (the env's and a
person's) -> training data exported from the store -> a new version registered with its parent
-> A/B against the current version on held-out items -> promoted when significantly better; a
deliberately worse version (trained further on the judged-failed episodes) deployed, losing and
rolled back.

    pip install "agentgym-envs[experience,trl,local-llm]"
    python examples/experience_loop.py [--out experience-demo]     # SmolLM2-135M on TextCraft
    python examples/experience_loop.py --learner table             # seconds: a lookup table
    python examples/experience_loop.py --serve                     # then open the dashboard

The default behaviour-clones SmolLM2-135M with the training pipeline's ``sft`` stage (minutes
on a CPU; see docs/guides/learning-loops.md for measured times); the loop is
:func:`agentgym_envs.train.experience_loop.run`, which documents every step. A second run into
the same ``--out`` resumes.
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
    parser.add_argument("--learner", default="sft", choices=sorted(experience_loop.DEFAULTS))
    parser.add_argument("--env", default=None, help="default: TextCraft-v0 (sft), Maze-v0")
    parser.add_argument("--heldout-items", type=int, default=None, help="default 50 (sft)")
    parser.add_argument("--serve", action="store_true", help="open the dashboard afterwards")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    result = experience_loop.run(
        args.out, learner=args.learner, env=args.env, heldout_items=args.heldout_items
    )
    for c in result["candidates"]:
        ab = c["ab"]
        print(
            f"{c['version']} (parent {c['parent']}; trained on {c['trained_on']}):\n"
            f"  {ab['control']} {ab['successes_control']}/{ab['tasks']} "
            f"[{ab['ci_control'][0]:.2f}, {ab['ci_control'][1]:.2f}] -> {c['version']} "
            f"{ab['successes_challenger']}/{ab['tasks']} "
            f"[{ab['ci_challenger'][0]:.2f}, {ab['ci_challenger'][1]:.2f}] held-out, "
            f"McNemar p={ab['p_value']:.2g} -> {c['decision']}"
        )
    print(f"current version: {result['current']} ({result['seconds']:.0f} s)")
    (args.out / "result.json").write_text(json.dumps(result, indent=2))
    if args.serve:
        from agentgym_envs.experience import open_store
        from agentgym_envs.experience.dashboard import serve

        print("dashboard at http://127.0.0.1:8765/ (Ctrl-C stops)")
        serve(open_store(args.out / "experience.db"), port=8765)


if __name__ == "__main__":
    main()
