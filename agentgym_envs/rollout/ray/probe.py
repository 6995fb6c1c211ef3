"""The pre-flight probe: what one node of a cluster has, asked on that node.

:func:`node_report` runs as a Ray task pinned to a node; it imports nothing heavy (an env's
extra is looked up, not imported).
"""

from __future__ import annotations

import platform
from typing import Any

from agentgym_envs.runner.catalog import find_program


def env_problems(env_id: str) -> list[str]:
    """Why this machine cannot play ``env_id`` (empty when it can)."""
    from agentgym_envs.spec import env_info

    info = env_info(env_id)
    problems = []
    if not info.installed:
        problems.append(f'its extra is missing: pip install "agentgym-envs[{info.extra}]"')
    for program, required in info.record.system_needs:
        if required and not find_program(program):
            problems.append(f"{program} is not installed")
    return problems


def node_report(env_ids: list[str]) -> dict[str, Any]:
    """Versions on this node, and per env id what it lacks."""
    import ray

    import agentgym_envs

    return {
        "versions": {
            "ray": ray.__version__,
            "python": platform.python_version(),
            "agentgym_envs": agentgym_envs.__version__,
        },
        "problems": {env_id: env_problems(env_id) for env_id in env_ids},
    }


__all__ = ["env_problems", "find_program", "node_report"]
