"""tinker-cookbook: an RL ``Env`` over tokens and a group builder, for agentgym-envs ids.

tinker-cookbook (``tinker_cookbook/rl/types.py``) drives an env with
``await initial_observation() -> (ModelInput, StopCondition)`` and
``await step(action_tokens) -> StepResult(reward, episode_done, next_observation,
next_stop_condition, metrics)``; an ``EnvGroupBuilder`` makes the group of envs GRPO compares
(``make_envs``) and may add group rewards (``compute_group_rewards``). The observations here are
token prompts (``tinker.ModelInput``, ``tinker==0.38.0``) of the whole conversation so far in
ChatML, rendered with the policy's tokenizer; the stop condition is the end-of-turn token.

tinker-cookbook itself (0.6.1) needs ``tml-renderers>=0.4.1``, which no registry here serves,
so :class:`StepResult` is a stand-in with its fields when the cookbook is absent. A failed
environment ends the episode with reward 0 and ``metrics["reward_valid"] = 0.0``; filter those
trajectories out of the batch (the cookbook has no per-trajectory mask).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agentgym_envs.integrations.session import EnvSession

try:
    from tinker_cookbook.rl.types import StepResult
except ImportError:  # pragma: no cover - the cookbook does not install here

    @dataclass
    class StepResult:  # type: ignore[no-redef]
        """Stand-in for ``tinker_cookbook.rl.types.StepResult`` (same fields)."""

        reward: float
        episode_done: bool
        next_observation: Any
        next_stop_condition: list[int] | list[str]
        metrics: dict[str, float] = field(default_factory=dict)


def _model_input(tokens: list[int]) -> Any:
    try:
        import tinker
    except ImportError as exc:
        from agentgym_envs.errors import MissingExtraError

        raise MissingExtraError('tinker is missing: pip install "agentgym-envs[tinker]"') from exc
    return tinker.ModelInput.from_ints(tokens)


class AgentGymTinkerEnv:
    """One episode of an agentgym-envs task as a tinker-cookbook token env."""

    end_of_turn = "<|im_end|>"

    def __init__(
        self,
        env_id: str,
        task_id: int,
        tokenizer: Any,
        *,
        split: str = "train",
        seed: int | None = 0,
        system: str | None = None,
        **session_options: Any,
    ) -> None:
        self.session = EnvSession(env_id, **session_options)
        self.task_id, self.split, self.seed = task_id, split, seed
        self.tokenizer = tokenizer
        self.system = system
        self.tokens: list[int] = []
        self.stop = [tokenizer.convert_tokens_to_ids(self.end_of_turn)]

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer.encode(text, add_special_tokens=False))

    def _user_turn(self, text: str) -> list[int]:
        return self._encode(f"<|im_start|>user\n{text}<|im_end|>\n<|im_start|>assistant\n")

    async def initial_observation(self) -> tuple[Any, list[int]]:
        obs = self.session.reset(self.task_id, self.split, self.seed)
        system = self.system if self.system is not None else self.session.instructions()
        self.tokens = self._encode(f"<|im_start|>system\n{system}<|im_end|>\n") + self._user_turn(
            obs
        )
        return _model_input(self.tokens), self.stop

    async def step(self, action: list[int]) -> StepResult:
        action = list(action)
        reply = self.tokenizer.decode([t for t in action if t not in self.stop])
        obs, _, done = self.session.step(reply)
        self.tokens += action if action[-1:] == self.stop else [*action, *self.stop]
        self.tokens += self._encode("\n")
        if done:
            result = self.session.finish()
            return StepResult(
                reward=result.reward if result.reward is not None else 0.0,
                episode_done=True,
                next_observation=_model_input([]),
                next_stop_condition=self.stop,
                metrics=result.metrics(),
            )
        self.tokens += self._user_turn(obs)
        return StepResult(
            reward=0.0,
            episode_done=False,
            next_observation=_model_input(self.tokens),
            next_stop_condition=self.stop,
            metrics={},
        )


@dataclass
class AgentGymGroupBuilder:
    """``group_size`` envs on one task (GRPO's group); no extra group reward."""

    env_id: str
    task_id: int
    tokenizer: Any
    group_size: int = 4
    split: str = "train"
    options: dict[str, Any] = field(default_factory=dict)

    async def make_envs(self) -> Sequence[AgentGymTinkerEnv]:
        return [
            AgentGymTinkerEnv(
                self.env_id, self.task_id, self.tokenizer, split=self.split, **self.options
            )
            for _ in range(self.group_size)
        ]

    async def compute_group_rewards(
        self, trajectory_group: Sequence[Any], env_group: Sequence[Any] | None = None
    ) -> list[tuple[float, dict[str, float]]]:
        return [(0.0, {}) for _ in trajectory_group]

    def logging_tags(self) -> list[str]:
        return [self.env_id]


__all__ = ["AgentGymGroupBuilder", "AgentGymTinkerEnv", "StepResult"]
