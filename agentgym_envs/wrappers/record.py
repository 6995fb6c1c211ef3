"""Record finished episodes as AgentTraj records, one JSON line each.

A record is AgentGym's trajectory format (AgentTraj / its evaluator's output)::

    {"item_id": "wordle_3499",
     "conversations": [{"from": "human", "loss": null, "value": "<instructions>"},
                       {"from": "gpt", "loss": false, "value": "Ok."},
                       {"from": "human", "loss": null, "value": "<first observation>"},
                       {"from": "gpt", "loss": true, "value": "Thought: ...\\nAction: ..."},
                       ...],
     "reward": 1.0, "success": true, "outcome": "success", "reward_valid": true}

``item_id`` is the task's AgentGym item id (``env.unwrapped.item_id``), ``reward`` the env's
final ``info["score"]`` (AgentGym's episode reward is the last step's graded reward, never a
shaped one) and ``success`` its ``info["success"]``; ``outcome`` says why the episode ended
(:data:`~agentgym_envs.core.OUTCOMES`) and ``reward_valid`` whether a trainer may use its reward
(false when the environment failed: an env that raises mid-episode is recorded with outcome
``env_error`` and ``error``, then the exception goes on). Each record is written with one ``write``
of one complete line to a file opened for appending, then flushed (and fsynced if asked), so a
process that dies mid-run loses at most the episode in progress. Before its first write to an
existing file the wrapper cuts off a torn last line (:func:`repair_torn_tail`), so a resumed
recording never glues its first record onto a fragment; :func:`read_trajectories` skips a torn
last line with a warning and refuses a bad line anywhere else.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import gymnasium as gym

from agentgym_envs.core import TextEnv, episode_outcome
from agentgym_envs.errors import BadDataError
from agentgym_envs.wrappers.conversation import Conversation

logger = logging.getLogger(__name__)


class RecordTrajectory(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Append every finished episode (terminated or truncated) to ``path`` as AgentTraj JSONL.

    With ReAct or FunctionCalling inside, the record opens as AgentGym's conversations do: the
    instructions (human), the acknowledgement (gpt, ``loss: false``), then the first turn;
    model turns have ``loss: true``, env turns ``loss: null``; ``prompt_set`` and ``reply_parser``
    say whose prompt it was and how replies were read (from the format wrapper's reset info). An episode abandoned by ``reset()`` before it ended is not
    written. ``self.last_record`` holds the last record written.

    Args:
        path: the JSONL file (created with its parent folders; appended to).
        ack: the model's reply to the instructions; default the prompt set's
            (``info["ack"]``: ours ``"Ok."``, AgentGym's where it reads them).
        fsync: also ``os.fsync`` after each record (survives a machine crash, not just the
            process dying).
    """

    def __init__(
        self,
        env: gym.Env,
        path: str | os.PathLike[str],
        ack: str | None = None,
        fsync: bool = False,
    ) -> None:
        if not isinstance(env.unwrapped, TextEnv):
            raise TypeError(f"RecordTrajectory wraps a TextEnv, got {type(env.unwrapped).__name__}")
        path = Path(path)
        if path.exists() and path.is_dir():
            raise ValueError(f"path {str(path)!r} is a directory: give a .jsonl file path")
        gym.utils.RecordConstructorArgs.__init__(self, path=str(path), ack=ack, fsync=fsync)
        gym.Wrapper.__init__(self, env)
        self.path = path
        self.ack = ack
        self.fsync = bool(fsync)
        self.last_record: dict[str, Any] | None = None
        self.records_written = 0
        self._conversation: Conversation | None = None
        self._item_id = ""
        self._loop: dict[str, str] = {}
        self._repaired = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if self._conversation is not None:
            logger.debug("episode %s abandoned before it ended: not recorded", self._item_id)
        obs, info = self.env.reset(seed=seed, options=options)
        self._item_id = self.env.unwrapped.item_id
        self._loop = {k: info[k] for k in ("prompt_set", "reply_parser") if k in info}
        self._conversation = Conversation.start(obs, info, layout="user", ack=self.ack)
        return obs, info

    def step(self, action: Any):
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except Exception as exc:
            if self._conversation is not None:
                self._record_failure(exc)
            raise
        if self._conversation is None:
            return obs, reward, terminated, truncated, info
        self._conversation.add(action, obs)
        if terminated or truncated:
            outcome = episode_outcome(terminated, truncated, info)
            record = {
                "item_id": self._item_id,
                "conversations": self._conversation.agenttraj(),
                "reward": float(info.get("score", reward)),
                "success": bool(info.get("success", False)),
                "outcome": outcome,
                "reward_valid": bool(info.get("reward_valid", outcome != "env_error")),
            }
            record.update(self._loop)
            self._write(record)
            self._conversation = None
        return obs, reward, terminated, truncated, info

    @property
    def in_progress(self) -> list[dict[str, Any]] | None:
        """The AgentTraj turns of the episode still being played (``None`` when none is)."""
        return None if self._conversation is None else self._conversation.agenttraj()

    def _record_failure(self, exc: BaseException) -> None:
        # The turns so far, marked unusable: a trainer must mask this episode, not score it 0.
        record = {
            "item_id": self._item_id,
            "conversations": self._conversation.agenttraj(),  # type: ignore[union-attr]
            "reward": 0.0,
            "success": False,
            "outcome": "env_error",
            "reward_valid": False,
            "error": f"{type(exc).__name__}: {exc}",
        }
        record.update(self._loop)
        self._conversation = None
        try:
            self._write(record)
        except OSError:
            logger.exception("could not record the failed episode %s", self._item_id)

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self._repaired:
            repair_torn_tail(self.path)
            self._repaired = True
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            if self.fsync:
                os.fsync(fh.fileno())
        self.last_record = record
        self.records_written += 1


def repair_torn_tail(path: str | os.PathLike[str]) -> int:
    """Cut a torn last line (bytes after the final newline: a writer died mid-line) off the
    JSONL file ``path`` so that appending starts on a fresh line; returns the bytes removed.

    A missing or empty file, or one ending in a newline, is left as it is. The cut is logged as
    a warning naming ``file:line``.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if not size:
        return 0
    with open(path, "rb+") as fh:
        block = 1 << 16
        end = size
        cut = 0
        while end > 0:  # find the last newline, reading back from the end
            start = max(0, end - block)
            fh.seek(start)
            chunk = fh.read(end - start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                cut = start + newline + 1
                break
            end = start
        if cut == size:
            return 0
        fh.seek(0)
        line = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b"")) + 1
        fh.truncate(cut)
    logger.warning(
        "%s:%d: torn last line (%d bytes) removed before appending", path, line, size - cut
    )
    return size - cut


def read_trajectories(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of a JSONL file written by :class:`RecordTrajectory`.

    The package's torn-line policy (:func:`~agentgym_envs.datasets.agenttraj.jsonl_lines`): a
    last line cut short (the writer died mid-record) is skipped with a warning naming
    ``file:line``; a bad line anywhere else raises :class:`~agentgym_envs.errors.BadDataError`
    (a ``ValueError``) naming ``file:line``.
    """
    from agentgym_envs.datasets.agenttraj import BadJsonLine, jsonl_lines

    records = []
    for _, record in jsonl_lines(path):
        if isinstance(record, BadJsonLine):
            raise BadDataError(record.message)
        records.append(record)
    return records


__all__ = ["RecordTrajectory", "read_trajectories", "repair_torn_tail"]
