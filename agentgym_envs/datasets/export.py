"""AgentTraj -> training formats: chat messages, SFT records with loss masks, DPO pairs; filters.

AgentGym trains only on ``gpt`` turns whose ``loss`` is ``true`` (the ``"Ok."`` of
``conversation_start`` has ``loss: false``); the SFT export keeps exactly that mask.

A record with ``reward_valid: false`` ended because the environment, not the agent, failed
(``env_error``): :func:`export_trajectories` and :func:`to_dpo_pairs` leave it out of the
training data unless asked to keep it, and say how many they left out. Records without the
field (AgentGym's own, older files) are kept as before.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agentgym_envs.datasets.agenttraj import Trajectory, Turn
from agentgym_envs.wrappers.conversation import Message

logger = logging.getLogger(__name__)

#: The training formats :func:`export_trajectories` writes.
EXPORT_FORMATS = ("chat", "sft", "sft-text", "dpo")


def _chat(turn: Turn) -> dict[str, Any]:
    """An AgentTraj turn as a chat message (the conversation model's conversion)."""
    return Message.from_turn(turn.to_dict()).chat()


def to_chat_messages(
    trajectory: Trajectory,
    *,
    system: str | None = None,
    first_turn_as_system: bool = False,
) -> list[dict[str, str]]:
    """OpenAI chat messages: ``human`` -> ``user``, ``gpt`` -> ``assistant``.

    ``system`` prepends a system message; ``first_turn_as_system`` makes AgentGym's instruction
    turn the system message and drops the ``"Ok."`` reply that follows it.
    """
    turns = list(trajectory.conversations)
    messages: list[dict[str, str]] = []
    if system is not None:
        messages.append({"role": "system", "content": system})
    if first_turn_as_system and trajectory.start == 2:
        messages.append({"role": "system", "content": turns[0].value})
        turns = turns[2:]
    messages.extend(_chat(t) for t in turns)
    return messages


def loss_mask(
    trajectory: Trajectory, *, train_on: Literal["loss", "all_gpt"] = "loss"
) -> list[bool]:
    """Per-turn training mask: ``loss is True`` (AgentGym's rule) or every ``gpt`` turn."""
    if train_on == "all_gpt":
        return [t.role == "gpt" for t in trajectory.conversations]
    if train_on != "loss":
        raise ValueError(f"train_on={train_on!r}: use 'loss' or 'all_gpt'")
    return [t.role == "gpt" and t.loss is True for t in trajectory.conversations]


def to_sft(
    trajectory: Trajectory,
    *,
    train_on: Literal["loss", "all_gpt"] = "loss",
    system: str | None = None,
) -> dict[str, Any]:
    """An SFT record: ``messages`` plus a ``loss_mask`` with one bool per message.

    The mask honours each turn's ``loss`` (a system message, if added, is never trained on).
    """
    messages = to_chat_messages(trajectory, system=system)
    mask = loss_mask(trajectory, train_on=train_on)
    if system is not None:
        mask = [False, *mask]
    record: dict[str, Any] = {
        "item_id": trajectory.item_id,
        "messages": messages,
        "loss_mask": mask,
    }
    if trajectory.reward is not None:
        record["reward"] = trajectory.reward
    if "reward_valid" in trajectory.extra:
        record["reward_valid"] = trajectory.reward_valid
    return record


def to_sft_text(
    trajectory: Trajectory,
    *,
    train_on: Literal["loss", "all_gpt"] = "loss",
    template: Literal["chatml", "llama2"] = "chatml",
) -> dict[str, Any]:
    """The conversation rendered as one training string, with character spans to train on.

    ``segments`` is a list of ``{"text", "loss"}`` pieces whose concatenation is ``text``;
    a tokenizer with offset mapping turns the spans into a token mask. ChatML
    (``<|im_start|>role ... <|im_end|>``) or Llama-2 (``[INST] ... [/INST]``) markup.
    """
    mask = loss_mask(trajectory, train_on=train_on)
    segments: list[dict[str, Any]] = []

    def add(text: str, loss: bool) -> None:
        if segments and segments[-1]["loss"] == loss:
            segments[-1]["text"] += text
        else:
            segments.append({"text": text, "loss": loss})

    for turn, train in zip(trajectory.conversations, mask, strict=True):
        if template == "chatml":
            add(f"<|im_start|>{_chat(turn)['role']}\n", False)
            if turn.role == "gpt":
                add(turn.value + "<|im_end|>", train)
                add("\n", False)
            else:
                add(turn.value + "<|im_end|>\n", False)
        elif template == "llama2":
            if turn.role == "human":
                add(f"<s>[INST] {turn.value} [/INST] ", False)
            else:
                add(f"{turn.value} </s>", train)
        else:
            raise ValueError(f"template={template!r}: use 'chatml' or 'llama2'")
    return {
        "item_id": trajectory.item_id,
        "text": "".join(s["text"] for s in segments),
        "segments": segments,
    }


def _common_prefix(a: Sequence[Turn], b: Sequence[Turn]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n].role == b[n].role and a[n].value == b[n].value:
        n += 1
    # the prompt ends on a human turn so that chosen/rejected both start with a reply
    while n > 0 and a[n - 1].role != "human":
        n -= 1
    return n


def split_invalid(
    trajectories: Iterable[Trajectory],
) -> tuple[list[Trajectory], list[Trajectory]]:
    """The trajectories whose reward may be trained on, and those whose reward is not valid
    (``reward_valid: false``: the environment failed; a record without the field is valid)."""
    valid: list[Trajectory] = []
    invalid: list[Trajectory] = []
    for t in trajectories:
        (valid if t.reward_valid else invalid).append(t)
    return valid, invalid


def _log_dropped(count: int, fmt: str, level: int = logging.WARNING) -> None:
    if count:
        logger.log(
            level,
            "%d trajectories left out of the %s export: their reward is not valid (the "
            "environment failed); keep_invalid=True keeps them",
            count,
            fmt,
        )


def to_dpo_pairs(
    trajectories: Iterable[Trajectory],
    *,
    unlabeled: Literal["success", "skip"] = "success",
    max_pairs_per_item: int | None = None,
    keep_invalid: bool = False,
) -> list[dict[str, Any]]:
    """DPO pairs: per item id, a successful trajectory (chosen) against a failed one (rejected).

    Outcome is ``success``, else ``reward`` (1 or 100 counts as success). Records carrying
    neither are AgentTraj's released trajectories, which are successful ones: ``unlabeled=
    "success"`` (default) counts them as chosen candidates, ``"skip"`` leaves them out. The
    ``prompt`` is the shared opening of the two conversations (up to the last common env
    observation); ``chosen``/``rejected`` are the remaining messages of each. Every failed
    trajectory is paired with a successful one of the same item (round robin). A trajectory
    whose reward is not valid (an env failure is no failure of the agent) is left out, with a
    logged count, unless ``keep_invalid``.
    """
    trajectories, invalid = split_invalid(trajectories)
    if keep_invalid:
        trajectories += invalid
    else:
        _log_dropped(len(invalid), "dpo")
    wins: dict[str, list[Trajectory]] = defaultdict(list)
    losses: dict[str, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        outcome = t.outcome(unlabeled=True if unlabeled == "success" else None)
        if outcome is True:
            wins[t.item_id].append(t)
        elif outcome is False:
            losses[t.item_id].append(t)
    pairs: list[dict[str, Any]] = []
    for item_id in sorted(set(wins) & set(losses)):
        for i, bad in enumerate(losses[item_id]):
            if max_pairs_per_item is not None and i >= max_pairs_per_item:
                break
            good = wins[item_id][i % len(wins[item_id])]
            n = _common_prefix(good.conversations, bad.conversations)
            prompt = to_chat_messages(Trajectory(item_id, good.conversations[:n])) if n else []
            pairs.append(
                {
                    "item_id": item_id,
                    "prompt": prompt,
                    "chosen": [_chat(t) for t in good.conversations[n:]],
                    "rejected": [_chat(t) for t in bad.conversations[n:]],
                    "chosen_reward": good.reward,
                    "rejected_reward": bad.reward,
                }
            )
    return pairs


@dataclass
class Export:
    """What :func:`export_trajectories` made: the ``rows``, how many trajectories went into
    them (``used``) and how many were left out because their reward is not valid
    (``dropped_invalid``)."""

    format: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    used: int = 0
    dropped_invalid: int = 0

    def summary(self) -> str:
        """One line for a log or a CLI: ``12 sft records from 12 trajectories (3 left out:
        reward not valid)``."""
        text = f"{len(self.rows)} {self.format} records from {self.used} trajectories"
        if self.dropped_invalid:
            text += f" ({self.dropped_invalid} left out: reward not valid, the environment failed)"
        return text


def export_trajectories(
    trajectories: Iterable[Trajectory],
    to: str = "sft",
    *,
    keep_invalid: bool = False,
    train_on: Literal["loss", "all_gpt"] = "loss",
    system: str | None = None,
    template: Literal["chatml", "llama2"] = "chatml",
    unlabeled: Literal["success", "skip"] = "success",
    max_pairs_per_item: int | None = None,
) -> Export:
    """``trajectories`` as training rows of one format: ``chat`` (``item_id`` + messages),
    ``sft`` (:func:`to_sft`), ``sft-text`` (:func:`to_sft_text`) or ``dpo``
    (:func:`to_dpo_pairs`).

    A trajectory whose record says ``reward_valid: false`` (the episode ended on an env
    failure) is not training data: it is left out and counted in
    :attr:`Export.dropped_invalid` (and :meth:`Export.summary`, logged at INFO) unless
    ``keep_invalid``. Records without the
    field are kept.
    """
    if to not in EXPORT_FORMATS:
        raise ValueError(f"to={to!r}: use one of {', '.join(EXPORT_FORMATS)}")
    valid, invalid = split_invalid(trajectories)
    if keep_invalid:
        valid += invalid
        invalid = []
    # the count is in the returned summary: the log line is only for who reads logs
    _log_dropped(len(invalid), to, logging.INFO)
    out = Export(to, used=len(valid), dropped_invalid=len(invalid))
    if to == "chat":
        out.rows = [
            {"item_id": t.item_id, "messages": to_chat_messages(t, system=system)} for t in valid
        ]
    elif to == "sft":
        out.rows = [to_sft(t, train_on=train_on, system=system) for t in valid]
    elif to == "sft-text":
        out.rows = [to_sft_text(t, train_on=train_on, template=template) for t in valid]
    else:
        out.rows = to_dpo_pairs(
            valid, unlabeled=unlabeled, max_pairs_per_item=max_pairs_per_item, keep_invalid=True
        )
    return out


def filter_trajectories(
    trajectories: Iterable[Trajectory],
    *,
    families: Iterable[str] | None = None,
    item_ids: Iterable[str] | None = None,
    min_reward: float | None = None,
    max_reward: float | None = None,
    success: bool | None = None,
    min_turns: int | None = None,
    max_turns: int | None = None,
    max_chars: int | None = None,
) -> list[Trajectory]:
    """Keep the trajectories that pass every given test.

    ``families``: canonical prefixes (``maze`` also keeps ``lmrlgym_maze_*``). Reward bounds
    drop records without a reward; ``success`` compares :meth:`Trajectory.outcome` (unlabeled
    records never match). Turns count agent replies after ``conversation_start``.
    """
    from agentgym_envs.datasets.items import canonical_prefix

    fam = {canonical_prefix(f) for f in families} if families is not None else None
    ids = set(item_ids) if item_ids is not None else None
    out = []
    for t in trajectories:
        if fam is not None and t.family not in fam:
            continue
        if ids is not None and t.item_id not in ids:
            continue
        if min_reward is not None and (t.reward is None or t.reward < min_reward):
            continue
        if max_reward is not None and (t.reward is None or t.reward > max_reward):
            continue
        if success is not None and t.outcome() is not success:
            continue
        if min_turns is not None and t.turns < min_turns:
            continue
        if max_turns is not None and t.turns > max_turns:
            continue
        if max_chars is not None and t.chars > max_chars:
            continue
        out.append(t)
    return out


__all__ = [
    "EXPORT_FORMATS",
    "Export",
    "export_trajectories",
    "filter_trajectories",
    "loss_mask",
    "split_invalid",
    "to_chat_messages",
    "to_dpo_pairs",
    "to_sft",
    "to_sft_text",
]
