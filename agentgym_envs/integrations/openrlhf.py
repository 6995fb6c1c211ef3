"""OpenRLHF: an ``AgentInstance`` for ``MultiTurnAgentExecutor`` (``--train.agent_func_path``).

OpenRLHF (``openrlhf==0.11.2``, ``openrlhf/utils/agent.py``) builds one instance per prompt and
calls ``await reset({"observation": prompt, "label": label})`` -- the returned
``"observation"`` is the text the model continues -- then, after each generation,
``await step({"observation_text", "action_text", "label", "sampling_params"})``, reading
``rewards`` (a tensor: ``.item()``), ``scores``, ``environment_feedback`` (text appended to the
context, so it carries the chat template's tokens), ``done``, ``sampling_params`` and
``extra_logs``.

The row's ``label`` names the task: ``"<env_id>|<split>|<task_id>"`` (:func:`make_label`).
The point this file is loaded from needs the names OpenRLHF looks for: ``AgentInstance``
(and ``AgentExecutor``, built on OpenRLHF's ``MultiTurnAgentExecutor`` when it is installed).

A failed environment ends the episode at once with reward 0 and
``extra_logs["reward_valid"] = 0``: OpenRLHF's agent interface has no per-sample mask, so
filter on that log (or on ``scores``, which is NaN then) rather than train on it.
"""

from __future__ import annotations

import math
from typing import Any

from agentgym_envs.integrations.session import EnvSession

try:
    from openrlhf.utils.agent import AgentInstanceBase as _Base
    from openrlhf.utils.agent import MultiTurnAgentExecutor as _Executor
except ImportError:  # pragma: no cover - exercised where openrlhf is absent
    _Base, _Executor = object, None

#: The chat-template text of an environment turn (ChatML: Qwen, SmolLM2); ``{end}`` is the
#: end-of-turn token when the model's reply did not already end with it.
CHATML_FEEDBACK = "{end}\n<|im_start|>user\n{observation}<|im_end|>\n<|im_start|>assistant\n"
CHATML_END = "<|im_end|>"


def make_label(env_id: str, task_id: int, split: str = "train") -> str:
    """The ``label`` of a dataset row that names a task."""
    return f"{env_id}|{split}|{int(task_id)}"


def parse_label(label: str) -> tuple[str, str, int]:
    env_id, split, task_id = str(label).rsplit("|", 2)
    return env_id, split, int(task_id)


def _tensor(value: float) -> Any:
    try:
        import torch

        return torch.tensor(value)
    except ImportError:  # pragma: no cover - OpenRLHF always has torch
        return value


class AgentInstance(_Base):  # type: ignore[misc, valid-type]
    """One OpenRLHF episode over an agentgym-envs task (see the module docstring).

    Class attributes: ``feedback_template`` (the chat-template text wrapped around each
    observation), ``session_options`` (for :class:`EnvSession`).
    """

    feedback_template: str = CHATML_FEEDBACK
    end_of_turn: str = CHATML_END
    session_options: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.session: EnvSession | None = None

    async def reset(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        env_id, split, task_id = parse_label(states["label"])
        self.session = EnvSession(env_id, **self.session_options)
        obs = self.session.reset(task_id, split)
        # the prompt ends inside an open user turn (dataset_rows): the observation closes it
        closing = self.feedback_template.split("{observation}", 1)[1]
        return {"observation": f"{states['observation']}{obs}{closing}"}

    async def step(self, states: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        assert self.session is not None, "reset() first"
        # the executor decodes with special tokens: the reply may end with end-of-turn
        action = states["action_text"].split(self.end_of_turn, 1)[0]
        obs, _, done = self.session.step(action)
        if done:
            result = self.session.finish()
            reward = result.reward if result.reward is not None else 0.0
            return {
                "rewards": _tensor(reward),
                "scores": _tensor(reward if result.reward_valid else math.nan),
                "environment_feedback": "",
                "done": True,
                "sampling_params": states.get("sampling_params"),
                "extra_logs": {
                    "reward_valid": _tensor(float(result.reward_valid)),
                    "success": _tensor(float(result.success)),
                    "turns": _tensor(float(result.turns)),
                },
            }
        return {
            "rewards": _tensor(0.0),
            "scores": _tensor(0.0),
            "environment_feedback": self.feedback_template.format(
                observation=obs,
                end="" if states["action_text"].endswith(self.end_of_turn) else self.end_of_turn,
            ),
            "done": False,
            "sampling_params": states.get("sampling_params"),
            "extra_logs": {},
        }


def dataset_rows(
    env_id: str, split: str = "train", limit: int | None = None, seed: int | None = 0
) -> list[dict[str, str]]:
    """Prompt rows (``prompt``, ``label``) for OpenRLHF, rendered in ChatML without its chat
    template step: the family's instructions as the system turn and an open user turn that
    :meth:`AgentInstance.reset` fills with the first observation."""
    from agentgym_envs.integrations.trl import dataset_rows as trl_rows

    rows = []
    for row in trl_rows(env_id, split, limit=limit, seed=seed, tool_note=""):
        system = row["prompt"][0]["content"]
        rows.append(
            {
                "prompt": f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n",
                "label": make_label(env_id, row["task_id"], split),
            }
        )
    return rows


if _Executor is not None:

    class AgentExecutor(_Executor):  # type: ignore[misc, valid-type]
        """OpenRLHF's multi-turn executor over :class:`AgentInstance`."""

        def __init__(self) -> None:
            super().__init__(AgentInstance)


__all__ = [
    "CHATML_END",
    "CHATML_FEEDBACK",
    "AgentInstance",
    "dataset_rows",
    "make_label",
    "parse_label",
]
