"""The env contract (DESIGN.md), checked on every registered id."""

from __future__ import annotations

import shutil

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs.spec import ENV_INFO
from agentgym_envs.testing import contract

IDS = sorted(ENV_INFO)

#: Ids whose expert is walked over every test task by a test of their own (the same env class
#: and expert; minutes of Chromium each): the contract plays every ``n``-th task through
#: ``gym.make`` and ``run_episode`` instead of repeating that pass.
EXPERT_EVERY_TASK_ELSEWHERE = {
    # tests/envs/webarena/test_webarena_task_set.py::
    #   test_expert_walks_from_the_start_page_and_solves_every_test_task[webarena]
    "AgentGym/WebArenaTemplates-v0": 15,
}


def _needs_extra(env_id: str) -> None:
    info = ENV_INFO[env_id]
    if not info.installed:
        pytest.skip(f'{env_id} needs pip install "agentgym-envs[{info.extra}]"')
    for program, required in info.record.system_needs:
        if required and shutil.which(program) is None:
            pytest.skip(f"{env_id} needs {program} on this machine")


@pytest.mark.parametrize("env_id", IDS)
def test_api_and_bad_actions(env_id):
    _needs_extra(env_id)
    contract.check_api(env_id)


@pytest.mark.parametrize("env_id", IDS)
def test_same_seed_and_task_same_transcript(env_id):
    _needs_extra(env_id)
    contract.check_determinism(env_id)


@pytest.mark.parametrize("env_id", IDS)
def test_pickles(env_id):
    _needs_extra(env_id)
    contract.check_pickle(env_id)


@pytest.mark.parametrize("env_id", IDS)
def test_expert_solves_every_test_task_and_random_scores_lower(env_id):
    _needs_extra(env_id)
    env = gym.make(env_id).unwrapped
    unsolvable = env.unsolvable_test_tasks
    env.close()
    solvable = [t for t in range(ENV_INFO[env_id].splits["test"]) if t not in set(unsolvable)]
    every = EXPERT_EVERY_TASK_ELSEWHERE.get(env_id, 1)
    report = contract.check_expert_and_random(env_id, expert_tasks=solvable[::every])
    assert all(report.expert_successes)
    assert len(unsolvable) <= 0.1 * ENV_INFO[env_id].splits["test"]
    assert len(report.expert_scores) == len(solvable[::every])


@pytest.mark.parametrize("env_id", IDS)
def test_registry_matches_env(env_id):
    _needs_extra(env_id)
    env = gym.make(env_id)
    assert env.unwrapped.tasks.splits() == ENV_INFO[env_id].splits
    assert env.unwrapped.family == ENV_INFO[env_id].family
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_bad_task_id_is_one_line_error(env_id):
    _needs_extra(env_id)
    env = gym.make(env_id)
    n = ENV_INFO[env_id].splits["test"]
    with pytest.raises(ValueError, match=r"use 0\.\.") as err:
        env.reset(options={"split": "test", "task_id": n})
    assert "\n" not in str(err.value)
    env.close()


def test_make_with_module_prefix_registers_without_import():
    env = gym.make("agentgym_envs:AgentGym/Wordle-v0")
    assert isinstance(env.unwrapped, agentgym_envs.TextEnv)


def test_unknown_id_suggests_close_match():
    with pytest.raises(agentgym_envs.errors.UnknownEnvError, match="Wordle-v0"):
        agentgym_envs.make("AgentGym/Wordel-v0")
