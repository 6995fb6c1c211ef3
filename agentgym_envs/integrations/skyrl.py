"""SkyRL: a ``skyrl_gym`` ``BaseTextEnv`` over any agentgym-envs id, and its registration.

SkyRL (``skyrl-gym==0.4.0``) builds an env per trajectory with
``skyrl_gym.make(env_class, env_config=..., extras=row)``, where the dataset row carries
``env_class``, ``reward_spec`` and ``extra_info``; then ``init(prompt) -> (chat, metadata)``,
``step(action_text) -> {"observations", "reward", "done", "metadata"}`` per turn,
``get_metrics()`` at the end and ``close()``. :class:`AgentGymTextEnv` reads ``env_id``,
``task_id``, ``split``, ``seed`` from ``extras["extra_info"]`` (or ``extras`` itself).

The reward is given on the last step (AgentGym's final reward); a failed environment ends the
episode with reward 0 and ``metadata["reward_valid"] = False`` (also in ``get_metrics``) so the
run can drop the trajectory; :func:`register_envs` registers ``agentgym`` in SkyRL's registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentgym_envs.integrations.session import EnvSession

try:  # the real base class when skyrl-gym is installed, so SkyRL's checks see its own type
    from skyrl_gym.envs.base_text_env import BaseTextEnv as _Base
except ImportError:  # pragma: no cover - exercised where skyrl-gym is absent
    _Base = object

#: The name registered in ``skyrl_gym``'s registry (a row's ``env_class``).
ENV_CLASS = "agentgym"


def _field(extras: Mapping[str, Any], name: str, default: Any = None) -> Any:
    info = extras.get("extra_info") or {}
    return info.get(name, extras.get(name, default))


class AgentGymTextEnv(_Base):  # type: ignore[misc, valid-type]
    """A SkyRL text env playing one agentgym-envs task (see the module docstring)."""

    def __init__(self, env_config: Any = None, extras: Mapping[str, Any] | None = None) -> None:
        if _Base is not object:
            super().__init__()
        extras = dict(extras or {})
        config = dict(env_config or {})
        self.env_id = str(_field(extras, "env_id") or config.get("env_id") or "")
        if not self.env_id:
            raise ValueError("no env id: put 'env_id' in the row's extra_info or in env_config")
        self.task_id = _field(extras, "task_id")
        self.split = str(_field(extras, "split", "train"))
        self.seed = _field(extras, "seed")
        self.max_turns = int(_field(extras, "max_turns", config.get("max_turns", 0)) or 0)
        options = {k: config[k] for k in ("reward", "max_tokens", "env_kwargs") if k in config}
        if self.max_turns:
            options["max_turns"] = self.max_turns
        self.session = EnvSession(self.env_id, **options)
        self.turns = 0

    def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """The prompt with the task's first observation as a user message appended."""
        obs = self.session.reset(self.task_id, self.split, self.seed)
        chat = [*list(prompt or []), {"role": "user", "content": obs}]
        return chat, {"env_id": self.env_id, "task_id": self.task_id, "split": self.split}

    def step(self, action: str) -> dict[str, Any]:
        self.turns += 1
        obs, _, done = self.session.step(action)
        metadata: dict[str, Any] = {"turn": self.turns}
        if done:
            result = self.session.finish()
            metadata.update(
                outcome=result.outcome,
                reward_valid=result.reward_valid,
                success=result.success,
                score=result.score,
            )
            return {
                "observations": [],
                "reward": result.reward if result.reward is not None else 0.0,
                "done": True,
                "metadata": metadata,
                "postprocessed_action": None,
            }
        return {
            "observations": [{"role": "user", "content": obs}],
            "reward": 0.0,
            "done": False,
            "metadata": metadata,
            "postprocessed_action": None,
        }

    def get_metrics(self) -> dict[str, Any]:
        return self.session.finish().metrics()

    @staticmethod
    def aggregate_metrics(metrics: list[dict[str, Any]]) -> dict[str, Any]:
        """Means of the numeric metrics; outcome shares over all episodes."""
        keys = {k for m in metrics for k in m}
        n = max(len(metrics), 1)
        return {k: sum(float(m.get(k, 0.0)) for m in metrics) / n for k in sorted(keys)}

    def close(self) -> None:
        self.session.close()


def dataset_rows(
    env_id: str, split: str = "train", limit: int | None = None, seed: int | None = 0
) -> list[dict[str, Any]]:
    """SkyRL dataset rows (``prompt``, ``env_class``, ``reward_spec``, ``extra_info``) for an id;
    the prompt is the family's instructions as a system message."""
    from agentgym_envs.integrations.trl import dataset_rows as trl_rows

    rows = []
    for row in trl_rows(env_id, split, limit=limit, seed=seed, tool_note=""):
        rows.append(
            {
                "prompt": row["prompt"][:1],
                "env_class": ENV_CLASS,
                "reward_spec": {"method": "env", "ground_truth": None},
                "extra_info": {
                    "env_id": env_id,
                    "task_id": row["task_id"],
                    "split": split,
                    "seed": seed,
                },
            }
        )
    return rows


def register_envs(name: str = ENV_CLASS) -> None:
    """Register :class:`AgentGymTextEnv` in ``skyrl_gym`` under ``name`` (idempotent)."""
    try:
        import skyrl_gym
        from skyrl_gym.envs import register
    except ImportError as exc:
        from agentgym_envs.errors import MissingExtraError

        raise MissingExtraError('skyrl-gym is missing: pip install "agentgym-envs[skyrl]"') from exc
    if name not in skyrl_gym.envs.registration.registry:
        register(id=name, entry_point=f"{__name__}:AgentGymTextEnv")


__all__ = ["ENV_CLASS", "AgentGymTextEnv", "dataset_rows", "register_envs"]
