"""How often SmolLM2 calls a harness's tools validly, before and after the harness loop's SFT,
on the harness's own held-out requests (teacher-forced replay).

The harness loop (``agentgym_envs.train.harness_loop``) serves each model to the real harness;
on a busy 2-core machine a 135M model on CPU may not answer the harness's first request
(Cline's is 6,500 tokens) before the harness's own request timeout, and then no model call is
measured. This script measures the same milestone without that limit: the harness plays
``--tasks`` held-out (test split) tasks with the expert as its model, through the recording
gateway, and every request it sent is then answered by the base and by the trained weights
(one model call each, greedy, ``--reply-tokens`` a reply, the served template). It prints,
per model, the answered calls, those that called the harness's tools with arguments valid
against their schemas, and those answered in text, with the time and the load average.

    python benchmarks/bench_harness_tool_calls.py --checkpoint harness-loop/cline/sft-model \
        [--harness cline] [--env Wordle-v0] [--tasks 3] [--out bench-tool-calls]
"""

from __future__ import annotations

import argparse
import copy
import json
import logging
import os
import time
from pathlib import Path

from agentgym_envs.agents.harness_expert import HarnessExpertServer
from agentgym_envs.datasets.harness import tool_call_stats
from agentgym_envs.integrations.harnesses import run_harness
from agentgym_envs.train.harness_loop import chat_model
from agentgym_envs.train.harness_sft import load_base_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True, help="the loop's sft-model/")
    parser.add_argument("--harness", default="cline")
    parser.add_argument("--env", default="Wordle-v0")
    parser.add_argument("--tasks", type=int, default=3, help="held-out test tasks 0..N-1")
    parser.add_argument("--reply-tokens", type=int, default=32)
    parser.add_argument("--models", default="base,sft", help="which of base,sft to ask")
    parser.add_argument("--out", type=Path, default=Path("bench-tool-calls"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    for noisy in ("httpx", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    started, load_before = time.perf_counter(), os.getloadavg()

    folder = args.out / f"{args.harness}-teacher"
    if not (folder / "agenttraj.jsonl").is_file():
        with HarnessExpertServer([args.env]) as expert:
            for task in range(args.tasks):
                run_harness(args.harness, args.env, task, expert.base_url, out=folder)
    requests = []
    for path in sorted((folder / "sessions").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if isinstance(entry.get("request"), dict) and entry.get("finish_reason"):
                requests.append(entry["request"])

    from safetensors.torch import load_model

    base, tokenizer = load_base_model()
    tuned = copy.deepcopy(base)
    load_model(tuned, str(args.checkpoint / "model.safetensors"))
    result = {"harness": args.harness, "env": args.env, "tasks": args.tasks, "models": {}}
    for name, model in (("base", base), ("sft", tuned)):
        if name not in args.models.split(","):
            continue
        chat = chat_model(model, tokenizer, f"smollm2-{name}", args.reply_tokens)
        calls, times = [], []
        for n, request in enumerate(requests, 1):
            t0 = time.perf_counter()
            reply = chat.complete({**request, "stream": False})
            times.append(time.perf_counter() - t0)
            choice = reply["choices"][0]
            calls.append(
                {
                    "request": request,
                    "response": choice["message"],
                    "finish_reason": choice["finish_reason"],
                }
            )
            logging.info(
                "%s %d/%d: %.0fs, %s", name, n, len(requests), times[-1], choice["message"]
            )
        stats = tool_call_stats(calls)
        stats["seconds"] = [round(min(times), 1), round(sorted(times)[len(times) // 2], 1)]
        stats["seconds"].append(round(max(times), 1))
        stats["replies"] = [c["response"] for c in calls]
        result["models"][name] = stats
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["load_average"] = {"before": list(load_before), "after": list(os.getloadavg())}
    (args.out / "result.json").write_text(json.dumps(result, indent=2))
    for name, s in result["models"].items():
        print(
            f"{name}: {s['valid_tool_calls']}/{s['model_calls']} model calls called the "
            f"harness's tools validly, {s['text_only']} answered in text; seconds per call "
            f"min/median/max {s['seconds']}"
        )
    print(f"load average {result['load_average']}, {result['seconds']} s")


if __name__ == "__main__":
    main()
