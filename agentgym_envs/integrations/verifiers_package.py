"""The source of a verifiers 0.4 taskset package for one id (no verifiers import here: the
export writes it from any environment).

verifiers' loader imports a taskset by its id (``agentgym-maze-v0`` -> module
``agentgym_maze_v0``) and takes the :class:`verifiers.v1.Taskset` and :class:`verifiers.v1.Env`
subclasses its ``__all__`` exports; the taskset's config type comes from its generic
parameters. :func:`taskset_module_source` writes that module for an id on top of
:mod:`agentgym_envs.integrations.verifiers`.
"""

from __future__ import annotations

from agentgym_envs.integrations import hubs


def module_name(env_id: str) -> str:
    """The taskset package's module for an id: ``AgentGym/Maze-v0`` -> ``agentgym_maze_v0``
    (what ``vf-eval agentgym-maze-v0`` imports)."""
    return hubs.env_slug(env_id).replace("-", "_")


def _class_prefix(env_id: str) -> str:
    """``AgentGym/Maze-v0`` -> ``AgentGymMazeV0``."""
    import re

    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^0-9A-Za-z]+", env_id))


def taskset_module_source(env_id: str) -> str:
    """The source of the taskset package module for ``env_id``: a config whose ``env_id``
    defaults to the id, the taskset on it, and :class:`AgentGymEnv`, exported by ``__all__``
    as verifiers' loader wants them."""
    from agentgym_envs.spec import resolve_id

    env_id = resolve_id(env_id)
    prefix = _class_prefix(env_id)
    return (
        f'"""{env_id} (agentgym-envs) as a verifiers taskset: ``vf-eval '
        f'{hubs.env_slug(env_id)}``."""\n\n'
        "import verifiers.v1 as vf\n\n"
        "from agentgym_envs.integrations.verifiers import (\n"
        "    AgentGymEnv,\n"
        "    AgentGymTask,\n"
        "    AgentGymTaskset,\n"
        "    AgentGymTasksetConfig,\n"
        ")\n\n\n"
        f"class {prefix}Config(AgentGymTasksetConfig):\n"
        f'    """Tasks of {env_id} (``--env.taskset.split``, ``num-tasks``, ``max-turns``, '
        '``seed``, ``env-kwargs``)."""\n\n'
        f'    env_id: str = "{env_id}"\n\n\n'
        f"class {prefix}Taskset(AgentGymTaskset, vf.Taskset[AgentGymTask, {prefix}Config]):\n"
        f'    """The tasks of {env_id}, one per task of the split."""\n\n\n'
        f'__all__ = ["AgentGymEnv", "{prefix}Taskset"]\n'
    )
