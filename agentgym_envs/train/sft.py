"""Stage ``sft``: behaviour cloning on the collected episodes with TRL's ``SFTTrainer``.

Each AgentTraj episode becomes one sequence rendered by the model's own chat template -- the
very text the evaluated model is prompted with -- and the loss falls on the model's turns
whose ``loss`` is true (AgentGym's rule: never the instructions, the ``Ok.`` or the
observations). On CPU the cost is the tokens pushed through the network, so only the top
``sft_layers`` decoder layers (and the final norm) are trained: the backward pass stops there;
and the passes run in bfloat16 autocast over float32 weights (twice as fast on CPU).

The trainer saves its state every few steps under ``sft/trainer``; an interrupted stage
resumes from the last one. The finished model is moved whole into ``sft/model``.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from agentgym_envs.train.folder import RunFolder, move_into_place
from agentgym_envs.train.settings import TrainError

logger = logging.getLogger(__name__)

#: Most tokens of one training sequence (longer episodes are cut at the end).
MAX_LENGTH = 2048


def tokenize_episode(tokenizer: Any, messages: list[dict[str, str]], train: list[bool]) -> dict:
    """``input_ids`` of the conversation and ``labels`` (``-100`` outside trained turns).

    Trained turns are found by rendering each prefix of the conversation with the template
    (with and without the turn), so the labels fit whatever template the tokenizer has.
    """

    def ids(msgs: list[dict[str, str]], prompt: bool) -> list[int]:
        out = tokenizer.apply_chat_template(
            msgs, add_generation_prompt=prompt, tokenize=True, return_dict=False
        )
        return list(out["input_ids"] if isinstance(out, dict) else out)

    full = ids(messages, False)
    labels = [-100] * len(full)
    for i, (message, on) in enumerate(zip(messages, train, strict=True)):
        if not on or message["role"] != "assistant" or i == 0:
            continue
        start = len(ids(messages[:i], True))
        end = len(ids(messages[: i + 1], False))
        labels[start:end] = full[start:end]
    return {"input_ids": full[:MAX_LENGTH], "labels": labels[:MAX_LENGTH]}


def episodes_dataset(tokenizer: Any, trajectories: Path):
    """The collected episodes as a tokenized ``datasets.Dataset`` (``input_ids``, ``labels``)."""
    from datasets import Dataset

    from agentgym_envs.datasets.agenttraj import load_agenttraj
    from agentgym_envs.datasets.export import loss_mask, to_chat_messages

    rows = []
    for traj in load_agenttraj(trajectories, errors="raise"):
        rows.append(tokenize_episode(tokenizer, to_chat_messages(traj), loss_mask(traj)))
    return Dataset.from_list(rows)


def freeze_lower_layers(model: Any, trained: int) -> int:
    """Train only the top ``trained`` decoder layers and the final norm; returns the number of
    trainable parameters (``trained <= 0``: train everything)."""
    layers = getattr(getattr(model, "model", None), "layers", None)
    if trained <= 0 or layers is None:
        return sum(p.numel() for p in model.parameters())
    for p in model.parameters():
        p.requires_grad_(False)
    for layer in list(layers)[-trained:]:
        for p in layer.parameters():
            p.requires_grad_(True)
    norm = getattr(model.model, "norm", None)
    if norm is not None:
        for p in norm.parameters():
            p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def last_checkpoint(folder: Path) -> str | None:
    """The trainer's newest ``checkpoint-N`` folder under ``folder``, if any."""
    found = sorted(
        (p for p in folder.glob("checkpoint-*") if (p / "trainer_state.json").is_file()),
        key=lambda p: int(p.name.rsplit("-", 1)[-1]),
    )
    return str(found[-1]) if found else None


def run(folder: RunFolder, start: Path, *, progress: bool = False) -> dict[str, Any]:
    """Behaviour-clone ``start`` (a checkpoint folder) on ``collect``'s episodes (on the GPU
    when :func:`agentgym_envs.train.device.current` has one)."""
    import os

    from agentgym_envs.train import device

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import SFTConfig, SFTTrainer

    from agentgym_envs.train import model as models
    from agentgym_envs.train.collect import TRAJECTORIES

    s = folder.settings
    trajectories = folder.path / "collect" / TRAJECTORIES
    if not trajectories.is_file():
        raise TrainError(
            f"missing {trajectories}: run the collect stage first "
            f"(agentgym train run {folder.path} --stages collect)"
        )
    started = time.perf_counter()
    threads = models.set_threads()
    model, tokenizer = models.load(start)
    trainable = freeze_lower_layers(model, s.sft_layers)
    data = episodes_dataset(tokenizer, trajectories)
    work = folder.stage_dir("sft", "trainer")
    steps_per_epoch = max(1, -(-len(data) // s.sft_batch))
    config = SFTConfig(
        output_dir=str(work),
        num_train_epochs=s.sft_epochs,
        per_device_train_batch_size=s.sft_batch,
        learning_rate=s.sft_lr,
        lr_scheduler_type="constant_with_warmup",
        warmup_steps=min(5, steps_per_epoch),
        max_length=MAX_LENGTH,
        **device.current().trainer_kwargs(),
        bf16=True,
        report_to="none",
        logging_steps=1,
        save_strategy="steps",
        save_steps=max(1, steps_per_epoch // 2),
        save_total_limit=1,
        save_only_model=False,
        seed=s.seed,
        data_seed=s.seed,
        disable_tqdm=not progress,
        dataset_num_proc=None,
        gradient_checkpointing=False,
    )
    trainer = SFTTrainer(model=model, args=config, train_dataset=data, processing_class=tokenizer)
    resume = last_checkpoint(work)
    if resume:
        logger.info("sft: resuming from %s", resume)
    trainer.train(resume_from_checkpoint=resume)
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    partial = folder.path / "sft" / "model.partial"
    models.save(trainer.model, tokenizer, partial)
    move_into_place(partial, folder.checkpoint("sft"))
    (folder.path / "sft" / "loss.json").write_text(json.dumps(losses) + "\n", encoding="utf-8")
    return {
        "episodes": len(data),
        "tokens": int(sum(len(r) for r in data["input_ids"])),
        "steps": trainer.state.global_step,
        "resumed_from": resume,
        "resumed_at_step": int(resume.rsplit("-", 1)[-1]) if resume else 0,
        "loss_first": losses[0] if losses else None,
        "loss_last": losses[-1] if losses else None,
        "trainable_params": trainable,
        "threads": threads,
        "seconds": round(time.perf_counter() - started, 1),
    }


__all__ = ["episodes_dataset", "freeze_lower_layers", "run", "tokenize_episode"]
