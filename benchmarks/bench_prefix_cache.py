"""How long SmolLM2 on CPU takes to answer a harness's real requests, with and without the
served model's prefix (key/value) cache, and with the tools rendered first or after the system
prompt.

A harness sends the same system prompt and tool schemas in every request of every episode
(Cline: ~6,500 tokens, ~4,500 of them tools), and each turn extends the previous request. The
served model (:class:`agentgym_envs.benchmarks.hf_server.ChatModel`, as the harness loop serves
it) keeps the key/value caches of its last requests and computes only the tokens after the
longest prefix a new request shares with one. Cline's system prompt names the episode's own
working directory about 250 tokens in, so with TRL's order (system prompt, then tools) a new
episode shares only those 250 tokens; with the tools first
(:func:`agentgym_envs.train.harness_sft.tools_first`, the harness loop's template) it shares
the tools too.

The requests are the ones the harness sent in recorded episodes (``--sessions``: a folder of
the recording gateway's session files, e.g. a harness loop's ``<out>/cline/teacher/sessions``;
without it ``--episodes`` Wordle train tasks are played in the harness with the expert first).
Each mode replays the first ``--turns`` requests of each of ``--episodes`` episodes in order,
greedy, ``--reply-tokens`` a reply:

* ``none``: the cache emptied before every request (every prompt read whole);
* ``trl``: the cache kept, TRL's template (system prompt, then tools);
* ``tools-first``: the cache kept, the tools first (what the harness loop serves).

It prints, per mode, the seconds of the first request of the first episode, of the first
request of each later episode, and of the later turns (min / median / max), the prompt and
cached tokens, and the load average before and after.

    python benchmarks/bench_prefix_cache.py [--sessions DIR] [--harness cline] \
        [--episodes 3] [--turns 3] [--modes none,trl,tools-first] [--reply-tokens 16]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import time
from pathlib import Path

from agentgym_envs.integrations.trl import tool_chat_template
from agentgym_envs.train.harness_loop import chat_model
from agentgym_envs.train.harness_sft import load_base_model, tools_first

MODES = ("none", "trl", "tools-first")


def recorded(sessions: Path, episodes: int, turns: int) -> list[list[dict]]:
    """The first ``turns`` requests of each of the first ``episodes`` recorded episodes."""
    out = []
    for path in sorted(sessions.glob("*.jsonl"))[:episodes]:
        requests = []
        for line in path.read_text().splitlines():
            entry = json.loads(line) if line.strip() else {}
            if isinstance(entry.get("request"), dict) and entry["request"].get("messages"):
                requests.append(entry["request"])
        out.append(requests[:turns])
    return out


def record(harness: str, env: str, episodes: int, folder: Path) -> Path:
    """Play ``episodes`` train tasks in ``harness`` with the expert; the sessions folder."""
    from agentgym_envs.agents.harness_expert import HarnessExpertServer
    from agentgym_envs.integrations.harnesses import run_harness

    if not (folder / "agenttraj.jsonl").is_file():
        with HarnessExpertServer([env], split="train") as expert:
            for task in range(episodes):
                run_harness(harness, env, task, expert.base_url, out=folder, split="train")
    return folder / "sessions"


def replay(chat, episodes: list[list[dict]], cache: bool, reply_tokens: int) -> list[dict]:
    """Each request answered in order: its kind, seconds, prompt and cached tokens."""
    rows = []
    for e, requests in enumerate(episodes):
        for t, request in enumerate(requests):
            if not cache:
                chat._slots.clear()
            started = time.perf_counter()
            body = {**request, "stream": False, "max_tokens": reply_tokens, "temperature": 0}
            usage = chat.complete(body)["usage"]
            kind = "first" if e == t == 0 else "new episode" if t == 0 else "next turn"
            rows.append(
                {
                    "kind": kind,
                    "seconds": time.perf_counter() - started,
                    "prompt": usage["prompt_tokens"],
                    "cached": usage["prompt_tokens_details"]["cached_tokens"],
                }
            )
            logging.info("%s: %s", kind, rows[-1])
    return rows


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=Path, default=None, help="recorded session files")
    parser.add_argument("--harness", default="cline")
    parser.add_argument("--env", default="Wordle-v0")
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--reply-tokens", type=int, default=16)
    parser.add_argument("--out", type=Path, default=Path("bench-prefix-cache"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    for noisy in ("httpx", "mcp"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - set(MODES):
        parser.error(f"--modes {args.modes!r}: use a comma-separated subset of {','.join(MODES)}")
    sessions = args.sessions or record(
        args.harness, args.env, args.episodes, args.out / f"{args.harness}-teacher"
    )
    if not sessions.is_dir():
        parser.error(f"--sessions {sessions}: no such folder (a harness loop's .../sessions)")
    episodes = recorded(sessions, args.episodes, args.turns)
    if not any(episodes):
        parser.error(f"--sessions {sessions}: no recorded requests in its *.jsonl files")
    model, tokenizer = load_base_model()
    first = tools_first(tool_chat_template())  # what the harness loop serves
    templates = {"none": first, "trl": tool_chat_template(), "tools-first": first}
    print(f"{len(episodes)} episodes x up to {args.turns} requests of {sessions}")
    for mode in modes:
        tokenizer.chat_template = templates[mode]
        load_before = os.getloadavg()
        chat = chat_model(model, tokenizer, f"smollm2-{mode}", args.reply_tokens)
        rows = replay(chat, episodes, cache=mode != "none", reply_tokens=args.reply_tokens)
        chat.close()
        load_after = os.getloadavg()
        print(f"\n{mode}: seconds min / median / max (prompt tokens, cached tokens)")
        for kind in ("first", "new episode", "next turn"):
            some = [r for r in rows if r["kind"] == kind]
            tokens = ", ".join(f"{r['prompt']}/{r['cached']}" for r in some)
            print(f"  {kind:12s} {spread([r['seconds'] for r in some]):24s} ({tokens})")
        print(f"  load average before {load_before}, after {load_after}")


if __name__ == "__main__":
    main()
