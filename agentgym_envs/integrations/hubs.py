"""What every ecosystem adapter (ORS, OpenEnv, verifiers, NeMo Gym) shares: tasks, prompt, end.

An adapter serves one registered id. Its tasks are the id's ``(split, task_id)`` pairs, each a
JSON row :func:`task_rows` writes; an episode is an
:class:`~agentgym_envs.integrations.session.EnvSession` reset to that row, its prompt is the
family's instructions followed by the first observation (:func:`prompt_text`), each action is
one text step, and :func:`end_metadata` is what the ecosystem gets when the episode ends
(``score``, ``success``, ``outcome``, ``reward_valid``). The single action tool that the
tool-shaped ecosystems show the model is described by :func:`action_tool_description`.
"""

from __future__ import annotations

from typing import Any

from agentgym_envs.integrations.session import EnvSession

#: The one tool a tool-shaped ecosystem (ORS, NeMo Gym) shows the model: a text action.
ACTION_TOOL = "act"
#: The name of that tool's only argument.
ACTION_ARG = "action"


def react_env(env_id: str, max_turns: int | None, env_kwargs: dict[str, Any]) -> Any:
    """The id as the text-reply ecosystems (verifiers, NeMo Gym's ``gymnasium_agent``) play
    it: each reply read as AgentGym's client reads it (ReAct, ``parser="agentgym"``), a turn
    limit (default AgentGym's max rounds), no wall clock, no chat history."""
    from agentgym_envs.wrappers import make_llm_env

    return make_llm_env(
        env_id,
        "react",
        max_rounds=max_turns,
        max_seconds=None,
        history=False,
        env_kwargs=env_kwargs,
    )


def env_slug(env_id: str) -> str:
    """``AgentGym/Maze-v0`` -> ``agentgym-maze-v0``: a name safe as a package, route or class."""
    from agentgym_envs.spec import resolve_id

    return resolve_id(env_id).replace("/", "-").replace("_", "-").lower()


def splits(env_id: str) -> dict[str, int]:
    """The id's splits and their sizes (``{"train": n, "test": m}``), empty splits left out."""
    from agentgym_envs.spec import env_info

    return {name: size for name, size in env_info(env_id).splits.items() if size}


def task_rows(
    env_id: str, split: str, limit: int | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """One JSON row per task of ``split``: ``{"env_id", "split", "task_id", "seed"}``."""
    from agentgym_envs.spec import resolve_id

    check_task(env_id, None, split)
    size = splits(env_id)[split]
    count = size if limit is None else min(limit, size)
    env_id = resolve_id(env_id)
    return [{"env_id": env_id, "split": split, "task_id": i, "seed": seed} for i in range(count)]


def check_task(env_id: str, task_id: Any, split: str) -> None:
    """Raise a one-line :class:`~agentgym_envs.errors.BadTaskError` unless ``split`` has task
    ``task_id`` (``None`` draws one): a request naming no task is the caller's error, not the
    environment's."""
    from agentgym_envs.errors import BadTaskError

    sizes = splits(env_id)
    if not isinstance(split, str) or split not in sizes:
        raise BadTaskError(f"{env_id} has no split {split!r}: use one of {sorted(sizes)}")
    if task_id is None:
        return
    if isinstance(task_id, bool) or not isinstance(task_id, int) or not 0 <= task_id < sizes[split]:
        raise BadTaskError(
            f"{env_id} has no task {task_id!r} in split {split!r}: use 0..{sizes[split] - 1}"
        )


def check_seed(seed: Any) -> None:
    """Raise :class:`~agentgym_envs.errors.BadTaskError` unless ``seed`` is an int or ``None``."""
    from agentgym_envs.errors import BadTaskError

    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise BadTaskError(f"seed must be an integer, got {seed!r}")


def start(session: EnvSession, row: dict[str, Any]) -> str:
    """Reset ``session`` to the task of ``row``; returns the first observation."""
    return session.reset(int(row["task_id"]), str(row.get("split", "test")), row.get("seed", 0))


def prompt_text(session: EnvSession, first_observation: str) -> str:
    """The family's instructions, a blank line, then the task's first observation."""
    instructions = session.instructions().strip()
    return f"{instructions}\n\n{first_observation}" if instructions else first_observation


def end_metadata(session: EnvSession) -> dict[str, Any]:
    """What an ecosystem gets about the episode so far (final values once ``done``)."""
    info = session.info
    out: dict[str, Any] = {
        "task_id": info.get("task_id"),
        "split": info.get("split"),
        "turns": session.turns,
        "done": session.done,
    }
    if session.done:
        out.update(
            score=float(info.get("score", 0.0)),
            success=bool(info.get("success", False)),
            outcome=session.outcome,
            reward_valid=session.reward_valid,
        )
        if session.error:
            out["error"] = session.error
    return out


def action_tool_description(env_id: str) -> str:
    """The action tool's description: what it does and where the grammar is."""
    from agentgym_envs.spec import resolve_id

    return (
        f"Send one action to the {resolve_id(env_id)} environment, written exactly as the "
        "instructions in the prompt describe; returns the environment's next observation."
    )
