"""The scripted expert's episode on one test task of an env, for the WebArena task tests."""

from __future__ import annotations

from agentgym_envs.envs.webarena.expert import WebArenaExpert


def play_expert(
    env, task_id: int, plan: list[list] | None = None, *, steps: int = 40, no_errors: bool = False
) -> dict:
    """The expert's episode on test task ``task_id`` (its own plan, or ``plan``): the last
    step's info. ``no_errors``: every step must act without an error."""
    obs, info = env.reset(options={"split": "test", "task_id": task_id})
    config = env.task.config
    own = config["agentgym_solution"]
    if plan is not None:
        config["agentgym_solution"] = plan  # the shared config: restored below
    try:
        expert = WebArenaExpert(env)
        for _ in range(steps):
            obs, _, terminated, _, info = env.step(expert(obs, info))
            assert not (no_errors and info.get("error")), info.get("error")
            if terminated:
                return info
    finally:
        config["agentgym_solution"] = own
    raise AssertionError("the expert did not stop")
