"""Persona B's loop, per harness: teacher episodes in the harness -> the experience store ->
SFT on the harness's own format -> the trained weights served to the same harness -> held-out
success before/after with a p-value, and how often each model calls the harness's tools
validly.

``run(out)`` does, for each harness in ``harnesses`` (Cline and Kilo Code by default) and the
family ``env`` (any family the harness expert plays: Wordle, TextCraft, BabyAI, Weather, ...):

1. **Teacher episodes** through the real harness on the env's *train* split (tasks
   ``0..train-1``), the model behind the recording gateway being the family's expert in the
   harness's tool-call format (:class:`~agentgym_envs.agents.harness_expert.
   HarnessExpertServer`): with ``teacher_tool="family"`` it calls the family's own tools
   (``get``, ``craft``, ``guess`` ...), with ``"act"`` the harness's ``act`` tool with the
   action in the env's text grammar (:class:`TextActTeacher`; TextCraft's crafting commands
   are then copied from the observation as they stand).
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
   compared paired (exact sign test on success, paired bootstrap on score; and per held-out
   item, :func:`paired`: Wilson intervals and exact McNemar p-values for success and for the
   episodes with at least one valid tool call).

Serving a harness on CPU is bounded by its prompt (Cline's first request is ~6,500 tokens):
the template renders the tools before the system prompt
(:func:`~agentgym_envs.train.harness_sft.tools_first`), so the served model's prefix cache
holds what every request of every episode shares, and :func:`warm` computes that prefix from
a recorded teacher request before the first held-out episode.

Every phase logs a progress line per episode or step with an ETA, and resumes: episodes
already recorded in a phase's folder are not played again and a saved checkpoint is not
trained again. ``arms=("base",)`` and ``arms=("sft",)`` play one arm each (two processes on
the same ``out``); a later call with both arms compares them without playing again.

The result (JSON-able): ``env``, ``model``, ``settings``, and per harness under
``harnesses``: ``teacher`` (episodes, successes, ``episode_seconds``), ``first_request``
(:func:`prompt_size` of the harness's first recorded request), ``env``, ``sft`` (rows, rows
whose tool calls all validate, examples, steps, first and last loss, seconds), ``before`` and
``after`` (episodes, ``episode_seconds`` -- total, min, median, max --, successes, success
rate, mean score, outcomes, the tool-call counts of
:func:`~agentgym_envs.datasets.harness.tool_call_stats`: ``model_calls``, ``tool_calls``,
``valid_tool_calls``, ``text_only``, ``valid_rate``, and ``episodes_by_item``), ``paired``
(:func:`paired`), ``ab`` (success and score rows: ``a``, ``b``, ``diff``, ``low``, ``high``,
``p_value``, ``test``, ``significant``), and ``seconds``; then ``seconds`` and
``load_average`` (before, after) for the whole call.
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

from agentgym_envs.agents.harness_expert import HarnessExpertServer

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


def _todo(env: str, tasks: list[int], out: Path, split: str) -> list[int]:
    """The ``tasks`` of ``split`` whose episode ``out`` does not hold yet."""
    from agentgym_envs.benchmarks.agenteval import agenteval_items

    item_ids = {it.task_id: it.item_id for it in agenteval_items(env, split)}
    have = {r.get("item_id") for r in _done(out)}
    return [t for t in tasks if item_ids.get(t) not in have]


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
    max_calls: int | None = None,
) -> list[dict[str, Any]]:
    """Play ``tasks`` of ``split`` in ``harness`` against the model at ``url``, skipping the
    tasks ``out`` already holds, each episode ending after ``max_calls`` model calls
    (``turn_limit``; ``None``: only ``timeout``); a progress line per episode with an ETA.
    The records."""
    from agentgym_envs.integrations.harnesses import run_harness

    todo = _todo(env, tasks, out, split)
    started = time.perf_counter()
    for n, task in enumerate(todo, 1):
        r = run_harness(
            harness, env, task, url, out=out, split=split, timeout=timeout, max_calls=max_calls
        )
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


#: How the teacher calls the env: the family's own tools, or ``act`` with the action as text.
TEACHER_TOOLS = ("family", "act")


class TextActTeacher(HarnessExpertServer):
    """The harness expert playing through the harness's ``act`` tool only: each action is
    one call of ``act`` with the action as the env's text grammar spells it (``get 9
    emerald``, ``craft 1 emerald block using 9 emerald``: the form the observation shows),
    not the family's structured tools."""

    def _mapping(self, env: Any, messages: list[dict[str, Any]]) -> dict[str, str]:
        return {k: v for k, v in super()._mapping(env, messages).items() if v == "act"}


def teacher_server(env_id: str, teacher_tool: str = "family") -> HarnessExpertServer:
    """The harness expert on ``env_id``'s train split, calling the family's own tools
    (``"family"``) or ``act`` with the action in the env's text grammar (``"act"``,
    :class:`TextActTeacher`); a context manager with ``base_url``."""
    if teacher_tool not in TEACHER_TOOLS:
        raise ValueError(f"teacher_tool={teacher_tool!r}: use one of {', '.join(TEACHER_TOOLS)}")
    cls = TextActTeacher if teacher_tool == "act" else HarnessExpertServer
    return cls([env_id], split="train")


def first_request(sessions: Path) -> dict[str, Any] | None:
    """The first request with tool schemas the gateway recorded in ``sessions`` (a harness's
    first agent turn: a side request such as OpenCode's title generator carries none), or
    ``None`` when nothing is recorded."""
    for path in sorted(sessions.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line) if line.strip() else {}
            request = entry.get("request")
            if isinstance(request, dict) and request.get("messages") and request.get("tools"):
                return request
    return None


def prompt_size(request: dict[str, Any], tokenizer: Any) -> dict[str, int]:
    """How big ``request`` is for the served model: ``chars`` (its JSON), ``tools`` (schemas),
    ``tool_chars``, ``system_chars`` and ``tokens`` (rendered with ``tokenizer``'s template,
    as :func:`chat_model` serves it) -- what a CPU pays before the first reply of an
    episode."""
    from agentgym_envs.benchmarks.hf_server import chat_messages

    tools = request.get("tools") or None
    system = [m for m in request["messages"] if m.get("role") in ("system", "developer")]
    text = tokenizer.apply_chat_template(
        chat_messages(request["messages"]), tools=tools, tokenize=False, add_generation_prompt=True
    )
    return {
        "chars": len(json.dumps(request)),
        "tools": len(tools or []),
        "tool_chars": len(json.dumps(tools or [])),
        "system_chars": sum(len(json.dumps(m.get("content"))) for m in system),
        "tokens": len(tokenizer(text)["input_ids"]),
    }


def warm(chat: Any, sessions: Path) -> float:
    """Compute the prefix every request of a harness shares (its tool schemas and system
    prompt) into ``chat``'s key/value cache before any held-out episode, by answering the
    first request the gateway recorded in ``sessions`` (:func:`first_request`, a teacher's,
    train split) with one token; the seconds it took (``0`` when nothing is recorded).
    Without it the first held-out episode pays for the whole prompt (minutes on a busy CPU)
    and may run out of time for that reason alone."""
    request = first_request(sessions)
    if request is None:
        return 0.0
    started = time.perf_counter()
    chat.complete({**request, "stream": False, "max_tokens": 1})
    return time.perf_counter() - started


def _episode_calls(folder: Path, record: dict[str, Any]) -> list[dict[str, Any]]:
    """The gateway's entries of one episode (its session's file)."""
    path = folder / "sessions" / f"{record.get('session')}.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _arm_summary(records: list[dict[str, Any]], folder: Path) -> dict[str, Any]:
    """Success, score, outcomes and the valid tool-call rate of one arm's episodes, and per
    held-out item (``episodes_by_item``): success, score, answered model calls and valid
    tool calls."""
    from agentgym_envs.datasets.harness import tool_call_stats

    calls: list[dict[str, Any]] = []
    by_item = {}
    for r in records:
        mine = _episode_calls(folder, r)
        calls += mine
        stats = tool_call_stats(mine)
        by_item[str(r.get("item_id"))] = {
            "success": bool(r.get("success")),
            "score": float(r.get("score") or 0.0),
            "outcome": str(r.get("outcome")),
            "model_calls": stats["model_calls"],
            "valid_tool_calls": stats["valid_tool_calls"],
        }
    n = len(records)
    wins = sum(bool(r.get("success")) for r in records)
    walls = [float(r.get("wall_time") or 0.0) for r in records]
    return {
        "episodes": n,
        "episode_seconds": _spread(walls),
        "successes": wins,
        "success_rate": wins / n if n else None,
        "score": sum(float(r.get("score") or 0.0) for r in records) / n if n else None,
        "outcomes": dict(Counter(str(r.get("outcome")) for r in records)),
        **tool_call_stats(calls),
        "episodes_by_item": by_item,
    }


def _spread(values: list[float]) -> dict[str, float] | None:
    """Total, min, median and max of ``values`` (seconds), or ``None`` when empty."""
    import statistics

    if not values:
        return None
    return {
        "total": round(sum(values), 1),
        "min": round(min(values), 1),
        "median": round(statistics.median(values), 1),
        "max": round(max(values), 1),
    }


def paired(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Both arms on the held-out items they both played: success (Wilson 95% intervals, exact
    McNemar p-value), mean score (bootstrap 95% intervals), and the episodes in which the model
    made at least one valid tool call (the first milestone: Wilson intervals, McNemar)."""
    from agentgym_envs.train.stats import mcnemar, summary, wilson

    a, b = before["episodes_by_item"], after["episodes_by_item"]
    items = sorted(set(a) & set(b))
    out: dict[str, Any] = {"items": len(items)}
    for arm, eps in (("before", a), ("after", b)):
        rows = [eps[i] for i in items]
        out[arm] = summary([r["success"] for r in rows], [r["score"] for r in rows])
        called = sum(r["valid_tool_calls"] > 0 for r in rows)
        out[arm]["valid_call_episodes"] = called
        out[arm]["valid_call_rate"] = called / len(rows) if rows else None
        out[arm]["valid_call_ci"] = list(wilson(called, len(rows)))
    out["success_p"] = mcnemar([a[i]["success"] for i in items], [b[i]["success"] for i in items])
    out["valid_call_p"] = mcnemar(
        [a[i]["valid_tool_calls"] > 0 for i in items],
        [b[i]["valid_tool_calls"] > 0 for i in items],
    )
    out["test"] = "exact McNemar (paired by held-out item)"
    return out


def _ab_row(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    keys = ("a", "b", "diff", "low", "high", "p_value", "test", "significant")
    return {k: row.get(k) for k in keys}


def _teach(
    h: str,
    env_id: str,
    train_tasks: list[int],
    teacher: str | None,
    root: Path,
    store: Any,
    base: Any,
    tokenizer: Any,
    *,
    timeout: float,
    max_length: int,
    epochs: int,
    lr: float,
    teacher_tool: str = "family",
    sft_layers: int | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Teacher episodes of harness ``h`` into the store (a teacher URL's or the expert's,
    :func:`teacher_server`), its harness-format SFT rows, and the SFT of a copy of ``base``
    on them (or the checkpoint of an earlier run): the trained model and the SFT's summary."""
    from contextlib import nullcontext

    from agentgym_envs.datasets.harness import row_problems
    from agentgym_envs.experience import import_path, register_version
    from agentgym_envs.experience.harness_data import export_harness_sft
    from agentgym_envs.train.harness_sft import sft_examples
    from agentgym_envs.train.harness_sft import train as sft_train

    # 1-2. teacher episodes in the harness, into the store
    teacher_out = root / "teacher"
    server = nullcontext() if teacher else teacher_server(env_id, teacher_tool)
    with server as expert:
        url = teacher or expert.base_url
        play(
            h,
            env_id,
            train_tasks,
            url,
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
        ran = sft_train(tuned, examples, epochs=epochs, lr=lr, layers=sft_layers)
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

    return tuned, sft


def prompt_sizes(
    harnesses: list[str], out: Path, *, env: str = "Wordle-v0", timeout: float = 240.0
) -> dict[str, dict[str, Any]]:
    """How big each harness's first request is (:func:`prompt_size`), measured on one episode
    of the env's *train* task 0 played by the expert through the recording gateway into
    ``out/<harness>`` (resumed): how to choose the harness whose prompt a CPU can serve. A
    harness whose episode fails or records no request gets ``error`` instead."""
    from agentgym_envs.integrations.harnesses import get_harness
    from agentgym_envs.spec import resolve_id
    from agentgym_envs.train.harness_sft import load_base_model

    env_id = resolve_id(env)
    _, tokenizer = load_base_model()
    sizes: dict[str, dict[str, Any]] = {}
    with HarnessExpertServer([env_id], split="train") as expert:
        for h in harnesses:
            get_harness(h).require()
            folder = Path(out) / h
            records = play(
                h,
                env_id,
                [0],
                expert.base_url,
                folder,
                split="train",
                timeout=timeout,
                phase="prompt size",
            )
            request = first_request(folder / "sessions")
            if request is None:
                outcome = records[0].get("outcome") if records else "no episode"
                sizes[h] = {"error": f"no request with tools recorded ({outcome})"}
                continue
            sizes[h] = {**prompt_size(request, tokenizer), "outcome": records[0].get("outcome")}
    return sizes


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
    arms: tuple[str, ...] | list[str] = ("base", "sft"),
    heldout_tasks: list[int] | None = None,
    teacher_tool: str = "family",
    max_calls: int | None = None,
    sft_layers: int | None = None,
    train_tasks: list[int] | None = None,
) -> dict[str, Any]:
    """Run the harness loop into folder ``out`` (see the module docstring).

    Args:
        out: the folder for the store, each harness's episodes, SFT data and checkpoint.
        harnesses: the harnesses (installed: ``agentgym harness install NAME``).
        env: the family the harnesses play (any the harness expert knows: Wordle,
            TextCraft, BabyAI, Weather, Maze, ...; its train split teaches, its test split
            is held out).
        train: teacher episodes per harness (train split, tasks ``0..train-1``).
        heldout: held-out tasks per arm (test split, tasks ``0..heldout-1``).
        epochs: SFT passes over the rows.
        lr: the SFT's learning rate (AdamW).
        max_length: tokens per SFT example (the end of a longer conversation is kept).
        reply_tokens: most tokens of one served reply (short keeps CPU episodes short).
        timeout: one episode's deadline in seconds (then ``time_limit``).
        teacher: a teacher ``/v1`` URL instead of the harness expert.
        arms: the arms this call plays (``("base",)`` needs no teacher episodes or SFT, so
            it can run in a process of its own while another plays the teacher and trains);
            the store, the A/B and the harness's entry of the result come only from a call
            with both (which resumes what the others played and trained).
        heldout_tasks: the test split's task ids to play instead of ``0..heldout-1``.
        teacher_tool: how the expert teacher acts: ``"family"`` (the family's own tools) or
            ``"act"`` (the ``act`` tool, the action in the env's text grammar).
        max_calls: the most model calls of one held-out episode (then ``turn_limit``;
            ``None``: only ``timeout``); the teacher's episodes are not capped.
        sft_layers: train only the last ``sft_layers`` decoder layers (``None``: all).
        train_tasks: the train split's task ids the teacher plays instead of
            ``0..train-1`` (a split ordered by difficulty, as TextCraft's is by depth, wants
            ids spread over it).
    """
    from agentgym_envs.benchmarks.hf_server import build_app
    from agentgym_envs.experience import import_path, open_store, register_version
    from agentgym_envs.experience.ab import analyse
    from agentgym_envs.experience.versions import version_records
    from agentgym_envs.integrations.harnesses import get_harness
    from agentgym_envs.integrations.harnesses.runner import ServedApp
    from agentgym_envs.spec import resolve_id
    from agentgym_envs.train.harness_sft import load_base_model

    started, load_before = time.perf_counter(), os.getloadavg()
    if not arms or set(arms) - {"base", "sft"}:
        raise ValueError(f"arms={list(arms)!r}: use base, sft or both")
    if teacher_tool not in TEACHER_TOOLS:
        raise ValueError(f"teacher_tool={teacher_tool!r}: use one of {', '.join(TEACHER_TOOLS)}")
    env_id = resolve_id(env)
    for h in harnesses:
        get_harness(h).require()  # one line with the install command, before any work
    out = Path(out)
    train_tasks = list(train_tasks) if train_tasks is not None else list(range(train))
    test_tasks = list(heldout_tasks) if heldout_tasks is not None else list(range(heldout))
    store = open_store(out / "experience.db")
    settings = {
        "train": train,
        "heldout": heldout,
        "epochs": epochs,
        "lr": lr,
        "max_length": max_length,
        "reply_tokens": reply_tokens,
        "timeout": timeout,
        "heldout_tasks": test_tasks,
        "train_tasks": train_tasks,
        "teacher_tool": teacher_tool,
        "max_calls": max_calls,
        "sft_layers": sft_layers,
    }
    result: dict[str, Any] = {
        "env": env_id,
        "model": "SmolLM2-135M-Instruct",
        "settings": settings,
        "harnesses": {},
    }
    base, tokenizer = load_base_model()

    for h in harnesses:
        h_started = time.perf_counter()
        root = out / h
        tuned, sft, teacher_out = base, {}, root / "teacher"
        if "sft" in arms:
            tuned, sft = _teach(
                h,
                env_id,
                train_tasks,
                teacher,
                root,
                store,
                base,
                tokenizer,
                timeout=timeout,
                max_length=max_length,
                epochs=epochs,
                lr=lr,
                teacher_tool=teacher_tool,
                sft_layers=sft_layers,
            )
        # 5. both weights served to the same harness on held-out tasks
        played = {}
        for arm, model in (("base", base), ("sft", tuned)):
            if arm not in arms:
                continue
            chat = chat_model(model, tokenizer, f"smollm2-{arm}", reply_tokens)
            folder = root / f"smollm2-{arm}"
            if _todo(env_id, test_tasks, folder, "test"):
                took = warm(chat, teacher_out / "sessions")
                logger.info("[%s %s] shared prefix computed in %.0fs", h, arm, took)
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
                        max_calls=max_calls,
                    )
                finally:  # a stopped harness's last request must not run on into the next arm
                    chat.close()
            played[arm] = _arm_summary(records, folder)
        if set(played) != {"base", "sft"}:
            continue  # a partial call: the call with both arms compares them
        for arm in played:
            register_version(store, f"smollm2-{h}", arm, model=f"SmolLM2-135M {arm}")
            folder = root / f"smollm2-{arm}"
            import_path(store, folder / "agenttraj.jsonl", version=f"smollm2-{h}@{arm}")
        request = first_request(teacher_out / "sessions")
        size = prompt_size(request, tokenizer) if request else None
        compared = analyse(
            version_records(store, f"smollm2-{h}@base"),
            version_records(store, f"smollm2-{h}@sft"),
        )
        result["harnesses"][h] = {
            "env": env_id,
            "teacher": {
                "episodes": len(_done(teacher_out)),
                "successes": sum(bool(r.get("success")) for r in _done(teacher_out)),
                "episode_seconds": _spread(
                    [float(r.get("wall_time") or 0.0) for r in _done(teacher_out)]
                ),
            },
            "first_request": size,
            "sft": sft,
            "before": played["base"],
            "after": played["sft"],
            "paired": paired(played["base"], played["sft"]),
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


__all__ = [
    "SERVED_CONTEXT",
    "TEACHER_TOOLS",
    "TextActTeacher",
    "chat_model",
    "first_request",
    "paired",
    "play",
    "prompt_size",
    "prompt_sizes",
    "run",
    "teacher_server",
    "warm",
]
