"""verl: an agent loop (``AgentLoopBase``) that plays agentgym-envs tasks, registered by name.

verl (``verl==0.9.1``, ``verl/experimental/agent_loop/agent_loop.py``) instantiates the loop
named by a row's ``agent_name`` with ``trainer_config``, ``server_manager``, ``tokenizer``
(and more) and awaits ``run(sampling_params, **row)``; generation is
``await server_manager.generate(request_id=, prompt_ids=, sampling_params=)``, whose output has
``token_ids`` and ``log_probs``. The loop returns ``AgentLoopOutput(prompt_ids, response_ids,
response_mask, response_logprobs, reward_score, num_turns, metrics, extra_fields)``.

:class:`AgentGymAgentLoop` reads the task from the row's ``extra_info`` (``env_id``,
``task_id``, ``split``, ``seed``), prompts with the row's ``raw_prompt`` plus the first
observation, and alternates model replies (mask 1) with observations (mask 0) until the
episode ends, the turn cap (``multi_turn.max_assistant_turns``) or ``response_length``.
A failed environment zeroes the whole ``response_mask`` -- the trajectory drops out of the
loss -- and ``extra_fields["reward_valid"]`` is false.
:func:`register_agent_loop` registers it in verl under ``agentgym``. Without verl installed the
class still runs (with stand-ins for verl's output types), which the tests use.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.integrations.session import EnvSession

try:
    from verl.experimental.agent_loop.agent_loop import AgentLoopBase as _Base
    from verl.experimental.agent_loop.agent_loop import AgentLoopMetrics, AgentLoopOutput
except ImportError:  # pragma: no cover - exercised where verl is absent
    _Base = object

    @dataclass
    class AgentLoopMetrics:  # type: ignore[no-redef]
        """Stand-in for verl's ``AgentLoopMetrics``."""

        generate_sequences: float = 0.0
        tool_calls: float = 0.0

    @dataclass
    class AgentLoopOutput:  # type: ignore[no-redef]
        """Stand-in for verl's ``AgentLoopOutput`` (same fields)."""

        prompt_ids: list[int]
        response_ids: list[int]
        response_mask: list[int]
        response_logprobs: list[float] | None = None
        reward_score: float | None = None
        num_turns: int = 0
        metrics: AgentLoopMetrics = field(default_factory=AgentLoopMetrics)
        extra_fields: dict[str, Any] = field(default_factory=dict)


AGENT_NAME = "agentgym"
#: An environment turn in ChatML (Qwen, SmolLM2); ``{end}`` closes the reply if it was cut.
CHATML_FEEDBACK = "{end}\n<|im_start|>user\n{observation}<|im_end|>\n<|im_start|>assistant\n"


def _get(config: Any, path: str, default: Any) -> Any:
    for name in path.split("."):
        if config is None:
            return default
        config = config.get(name) if isinstance(config, dict) else getattr(config, name, None)
    return default if config is None else config


class AgentGymAgentLoop(_Base):  # type: ignore[misc, valid-type]
    """verl agent loop over agentgym-envs (see the module docstring)."""

    feedback_template: str = CHATML_FEEDBACK
    end_of_turn: str = "<|im_end|>"

    def __init__(
        self,
        trainer_config: Any = None,
        server_manager: Any = None,
        tokenizer: Any = None,
        **kwargs: Any,
    ) -> None:
        if _Base is not object:
            super().__init__(
                trainer_config=trainer_config,
                server_manager=server_manager,
                tokenizer=tokenizer,
                **kwargs,
            )
        config = getattr(trainer_config, "config", trainer_config)
        rollout = _get(config, "actor_rollout_ref.rollout", None)
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.response_length = int(_get(rollout, "response_length", 1024))
        self.max_turns = _get(rollout, "multi_turn.max_assistant_turns", None)

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        info = dict(kwargs.get("extra_info") or {})
        session = EnvSession(str(info["env_id"]), max_turns=self.max_turns)
        obs = session.reset(info.get("task_id"), str(info.get("split", "train")), info.get("seed"))
        messages = [*list(kwargs.get("raw_prompt") or []), {"role": "user", "content": obs}]
        prompt_ids = list(
            self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        )
        request_id = uuid.uuid4().hex
        response_ids: list[int] = []
        mask: list[int] = []
        logprobs: list[float] = []
        turns = 1
        while not session.done and len(response_ids) < self.response_length:
            output = await self.server_manager.generate(
                request_id=request_id,
                prompt_ids=prompt_ids + response_ids,
                sampling_params=sampling_params,
            )
            ids = list(output.token_ids)
            response_ids += ids
            mask += [1] * len(ids)
            logprobs += list(output.log_probs) if output.log_probs else [0.0] * len(ids)
            turns += 1
            reply = self.tokenizer.decode(ids, skip_special_tokens=True)
            obs, _, done = session.step(reply)
            if done:
                break
            end = "" if self.tokenizer.decode(ids[-1:]) == self.end_of_turn else self.end_of_turn
            env_ids = self.tokenizer.encode(
                self.feedback_template.format(end=end, observation=obs), add_special_tokens=False
            )
            response_ids += env_ids
            mask += [0] * len(env_ids)
            logprobs += [0.0] * len(env_ids)
            turns += 1
        response_ids = response_ids[: self.response_length]
        mask, logprobs = mask[: self.response_length], logprobs[: self.response_length]
        result = session.finish()
        session.close()
        if not result.reward_valid:
            mask = [0] * len(mask)
        return AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids,
            response_mask=mask,
            response_logprobs=logprobs,
            reward_score=result.reward if result.reward is not None else 0.0,
            num_turns=turns,
            metrics=AgentLoopMetrics(),
            extra_fields={
                "reward_valid": result.reward_valid,
                "outcome": result.outcome,
                "success": result.success,
                "score": result.score,
            },
        )


def register_agent_loop(name: str = AGENT_NAME) -> type:
    """Register :class:`AgentGymAgentLoop` in verl's agent-loop registry under ``name``."""
    try:
        from verl.experimental.agent_loop.agent_loop import register
    except ImportError as exc:
        from agentgym_envs.errors import MissingExtraError

        raise MissingExtraError('verl is missing: pip install "agentgym-envs[verl]"') from exc
    return register(name)(AgentGymAgentLoop)


def dataset_rows(
    env_id: str, split: str = "train", limit: int | None = None, seed: int | None = 0
) -> list[dict[str, Any]]:
    """verl dataset rows: ``prompt`` (the family's instructions), ``agent_name``,
    ``extra_info`` naming the task."""
    from agentgym_envs.integrations.trl import dataset_rows as trl_rows

    return [
        {
            "prompt": row["prompt"][:1],
            "agent_name": AGENT_NAME,
            "data_source": env_id,
            "extra_info": {
                "env_id": env_id,
                "task_id": row["task_id"],
                "split": split,
                "seed": seed,
            },
        }
        for row in trl_rows(env_id, split, limit=limit, seed=seed, tool_note="")
    ]


__all__ = [
    "AGENT_NAME",
    "AgentGymAgentLoop",
    "AgentLoopOutput",
    "dataset_rows",
    "register_agent_loop",
]
