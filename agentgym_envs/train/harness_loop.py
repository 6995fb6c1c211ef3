"""Persona B's loop, per harness: teacher episodes in the harness -> the experience store ->
SFT on the harness's own format -> the trained weights served to the same harness -> held-out
success before/after with a p-value, and how often each model calls the harness's tools
validly.

``run(out)`` does, for each harness in ``harnesses`` (Cline and Kilo Code by default):

1. **Teacher episodes** through the real harness on the env's *train* split (tasks
   ``0..train-1``), the model behind the recording gateway being the family's expert in the
   harness's tool-call format (:class:`~agentgym_envs.agents.harness_expert.
   HarnessExpertServer`).
2. **Store.** The episodes are imported as version ``<harness>@teacher``.
3. **Harness-format SFT data**: the judged-successful episodes exported from the store with
   the harness's system prompt, tool schemas and tool calls as recorded
   (:func:`~agentgym_envs.experience.harness_data.export_harness_sft`), checked against the
   schemas they carry.
4. **SFT** of SmolLM2-135M on CPU (:mod:`~agentgym_envs.train.harness_sft`: the model read
   once from the local server's converted cache, a progress line per step with an ETA).
5. **Held-out A/B.** The base and the trained weights are each served by the local server
   (the training template, ``<tool_call>`` blocks read back as tool calls, greedy, at most
   ``reply_tokens`` a reply) and play the *test* split's tasks ``0..heldout-1`` in the same
   harness; both arms go into the store (``smollm2-<harness>@base`` / ``@sft``) and are
   compared paired (exact sign test on success, paired bootstrap on score).

Every phase logs a progress line per episode or step with an ETA, and resumes: episodes
already recorded in a phase's folder are not played again and a saved checkpoint is not
trained again.

The result (JSON-able): ``env``, ``model``, ``settings``, and per harness under
``harnesses``: ``teacher`` (episodes, successes), ``sft`` (rows, rows whose tool calls all
validate, examples, steps, first and last loss, seconds), ``before`` and ``after`` (episodes,
successes, success rate, mean score, outcomes, and the tool-call counts of
:func:`~agentgym_envs.datasets.harness.tool_call_stats`: ``model_calls``, ``tool_calls``,
``valid_tool_calls``, ``text_only``, ``valid_rate``), ``ab`` (success and score rows:
``a``, ``b``, ``diff``, ``low``, ``high``, ``p_value``, ``test``, ``significant``), and
``seconds``; then ``seconds`` and ``load_average`` (before, after) for the whole run.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: The context the arms are served with: a harness's system prompt alone can pass SmolLM2's
#: 8192 positions, and requests must not be refused for it.
SERVED_CONTEXT = 1 << 20


def chat_model(model: Any, tokenizer: Any, name: str, reply_tokens: int = 48) -> Any:
    """``model`` as an arm serves it: the SFT's chat template with the harness's tools,
    ``<tool_call>`` blocks read back as tool calls, greedy, ``reply_tokens`` a reply."""
    from agentgym_envs.benchmarks.hf_server import ChatModel

    return ChatModel.from_loaded(
        model,
        tokenizer,
        name,
        SERVED_CONTEXT,
        tool_format="template",
        max_tokens=reply_tokens,
        temperature=0.0,
    )


def _done(folder: Path) -> list[dict[str, Any]]:
    """The AgentTraj records already written in ``folder``."""
    path = folder / "agenttraj.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def play(
    harness: str,
    env: str,
    tasks: list[int],
    url: str,
    out: Path,
    *,
    split: str,
    timeout: float,
    phase: str,
) -> list[dict[str, Any]]:
    """Play ``tasks`` of ``split`` in ``harness`` against the model at ``url``, skipping the
    tasks ``out`` already holds; a progress line per episode with an ETA. The records."""
    from agentgym_envs.benchmarks.agenteval import agenteval_items
    from agentgym_envs.integrations.harnesses import run_harness

    item_ids = {it.task_id: it.item_id for it in agenteval_items(env, split)}
    have = {r.get("item_id") for r in _done(out)}
    todo = [t for t in tasks if item_ids.get(t) not in have]
    started = time.perf_counter()
    for n, task in enumerate(todo, 1):
        r = run_harness(harness, env, task, url, out=out, split=split, timeout=timeout)
        elapsed = time.perf_counter() - started
        logger.info(
            "[%s %s] task %d (%d/%d): %s reward=%s, %d model calls, %.0fs; ETA %.0fs",
            harness,
            phase,
            task,
            n,
            len(todo),
            r.outcome,
            r.reward,
            r.model_calls,
            r.wall_time,
            elapsed / n * (len(todo) - n),
        )
    return _done(out)


def _arm_summary(records: list[dict[str, Any]], folder: Path) -> dict[str, Any]:
    """Success, score, outcomes and the valid tool-call rate of one arm's episodes."""
    from agentgym_envs.datasets.harness import tool_call_stats

    calls = []
    for path in sorted((folder / "sessions").glob("*.jsonl")):
        calls += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    n = len(records)
    wins = sum(bool(r.get("success")) for r in records)
    return {
        "episodes": n,
        "successes": wins,
        "success_rate": wins / n if n else None,
        "score": sum(float(r.get("score") or 0.0) for r in records) / n if n else None,
        "outcomes": dict(Counter(str(r.get("outcome")) for r in records)),
        **tool_call_stats(calls),
    }


def _ab_row(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    keys = ("a", "b", "diff", "low", "high", "p_value", "test", "significant")
    return {k: row.get(k) for k in keys}


def run(
    out: Path,
    *,
    harnesses: tuple[str, ...] | list[str] = ("cline", "kilocode"),
    env: str = "Wordle-v0",
    train: int = 8,
    heldout: int = 20,
    epochs: int = 2,
    lr: float = 1e-4,
    max_length: int = 1024,
    reply_tokens: int = 48,
    timeout: float = 240.0,
    teacher: str | None = None,
) -> dict[str, Any]:
    """Run the harness loop into folder ``out`` (see the module docstring).

    Args:
        out: the folder for the store, each harness's episodes, SFT data and checkpoint.
        harnesses: the harnesses (installed: ``agentgym harness install NAME``).
        env: the env the harnesses play (a family the harness expert knows: Wordle, Weather,
            Maze, ...).
        train: teacher episodes per harness (train split, tasks ``0..train-1``).
        heldout: held-out tasks per arm (test split, tasks ``0..heldout-1``).
        epochs: SFT passes over the rows.
        lr: the SFT's learning rate (AdamW).
        max_length: tokens per SFT example (the end of a longer conversation is kept).
        reply_tokens: most tokens of one served reply (short keeps CPU episodes short).
        timeout: one episode's deadline in seconds (then ``time_limit``).
        teacher: a teacher ``/v1`` URL instead of the harness expert.
    """
    from agentgym_envs.agents.harness_expert import HarnessExpertServer
    from agentgym_envs.benchmarks.hf_server import build_app
    from agentgym_envs.datasets.harness import row_problems
    from agentgym_envs.experience import import_path, open_store, register_version
    from agentgym_envs.experience.ab import analyse
    from agentgym_envs.experience.harness_data import export_harness_sft
    from agentgym_envs.experience.versions import version_records
    from agentgym_envs.integrations.harnesses import get_harness
    from agentgym_envs.integrations.harnesses.runner import ServedApp
    from agentgym_envs.spec import resolve_id
    from agentgym_envs.train.harness_sft import load_base_model, sft_examples
    from agentgym_envs.train.harness_sft import train as sft_train

    started, load_before = time.perf_counter(), os.getloadavg()
    env_id = resolve_id(env)
    for h in harnesses:
        get_harness(h).require()  # one line with the install command, before any work
    out = Path(out)
    store = open_store(out / "experience.db")
    settings = {
        "train": train,
        "heldout": heldout,
        "epochs": epochs,
        "lr": lr,
        "max_length": max_length,
        "reply_tokens": reply_tokens,
        "timeout": timeout,
    }
    result: dict[str, Any] = {
        "env": env_id,
        "model": "SmolLM2-135M-Instruct",
        "settings": settings,
        "harnesses": {},
    }
    base, tokenizer = load_base_model()
    train_tasks, test_tasks = list(range(train)), list(range(heldout))

    for h in harnesses:
        h_started = time.perf_counter()
        root = out / h
        # 1-2. teacher episodes in the harness, into the store
        teacher_out = root / "teacher"
        if teacher:
            records = play(
                h,
                env_id,
                train_tasks,
                teacher,
                teacher_out,
                split="train",
                timeout=timeout,
                phase="teacher",
            )
        else:
            with HarnessExpertServer([env_id], split="train") as expert:
                records = play(
                    h,
                    env_id,
                    train_tasks,
                    expert.base_url,
                    teacher_out,
                    split="train",
                    timeout=timeout,
                    phase="teacher",
                )
        register_version(store, h, "teacher", model="teacher")
        import_path(store, teacher_out / "agenttraj.jsonl", version=f"{h}@teacher")

        # 3. the harness's own format, from the store's chosen episodes
        rows = export_harness_sft(store, root / "sft-harness.jsonl", versions=[f"{h}@teacher"])
        valid_rows = sum(not row_problems(r) for r in rows)
        logger.info(
            "[%s] %d harness-format SFT rows (%d with every tool call valid)",
            h,
            len(rows),
            valid_rows,
        )

        # 4. SFT, or the checkpoint of an earlier run
        checkpoint = root / "sft-model"
        tuned = copy.deepcopy(base)
        sft: dict[str, Any] = {"rows": len(rows), "valid_rows": valid_rows}
        if (checkpoint / "model.safetensors").is_file():
            from safetensors.torch import load_model

            load_model(tuned, str(checkpoint / "model.safetensors"))
            sft.update(json.loads((checkpoint / "sft.json").read_text()))
            logger.info("[%s] SFT checkpoint reused: %s", h, checkpoint)
        else:
            examples = sft_examples(tokenizer, rows, max_length)
            ran = sft_train(tuned, examples, epochs=epochs, lr=lr)
            sft.update(
                examples=len(examples),
                steps=ran["steps"],
                loss_first=ran["losses"][0] if ran["losses"] else None,
                loss_last=ran["losses"][-1] if ran["losses"] else None,
                seconds=round(ran["seconds"], 1),
            )
            from safetensors.torch import save_model

            checkpoint.mkdir(parents=True, exist_ok=True)
            save_model(tuned, str(checkpoint / "model.safetensors"))
            (checkpoint / "sft.json").write_text(json.dumps(sft))

        # 5. both weights served to the same harness on held-out tasks
        arms = {}
        for arm, model in (("base", base), ("sft", tuned)):
            chat = chat_model(model, tokenizer, f"smollm2-{arm}", reply_tokens)
            folder = root / f"smollm2-{arm}"
            with ServedApp(build_app(chat)) as served:
                try:
                    records = play(
                        h,
                        env_id,
                        test_tasks,
                        f"{served.url}/v1",
                        folder,
                        split="test",
                        timeout=timeout,
                        phase=arm,
                    )
                finally:  # a stopped harness's last request must not run on into the next arm
                    chat.close()
            label = f"smollm2-{h}@{arm}"
            register_version(store, f"smollm2-{h}", arm, model=f"SmolLM2-135M {arm}")
            import_path(store, folder / "agenttraj.jsonl", version=label)
            arms[arm] = _arm_summary(records, folder)
        compared = analyse(
            version_records(store, f"smollm2-{h}@base"),
            version_records(store, f"smollm2-{h}@sft"),
        )
        result["harnesses"][h] = {
            "teacher": {
                "episodes": len(_done(teacher_out)),
                "successes": sum(bool(r.get("success")) for r in _done(teacher_out)),
            },
            "sft": sft,
            "before": arms["base"],
            "after": arms["sft"],
            "ab": {
                "tasks": compared["tasks"],
                "success": _ab_row(compared["success"]),
                "score": _ab_row(compared["score"]),
            },
            "seconds": round(time.perf_counter() - h_started, 1),
        }
        logger.info("[%s] %s", h, json.dumps(result["harnesses"][h]["ab"]))
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["load_average"] = {"before": list(load_before), "after": list(os.getloadavg())}
    return result


__all__ = ["SERVED_CONTEXT", "chat_model", "play", "run"]
