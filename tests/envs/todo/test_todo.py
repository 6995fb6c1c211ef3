"""TODOList: the SQLite account, the Todoist-style tools, state grading and isolation."""

import pickle

import gymnasium as gym

import agentgym_envs  # noqa: F401
from agentgym_envs.envs.todo.tasks import expected_state
from agentgym_envs.envs.todo.tools import TODO_TOOLS
from agentgym_envs.envs.todo.world import (
    ACCOUNT,
    PROJECT_IDS,
    TodoBackend,
    initial_state,
    task_id,
)
from agentgym_envs.tools import action_text


def make(task_id_=0):
    env = gym.make("AgentGym/TODOList-v0").unwrapped
    env.reset(seed=0, options={"split": "test", "task_id": task_id_})
    return env


def call(env, tool, **args):
    return env.step(action_text(tool, args))


def op_task(env, kind):
    i = next(i for i in range(20) if env.tasks.get("test", i).kind == kind)
    env.reset(options={"split": "test", "task_id": i})
    return env.task


def test_starting_account_is_agentgyms():
    b = TodoBackend("2015-06-01")
    assert [p["name"] for p in b.projects()] == [name for name, _ in ACCOUNT]
    assert len(b.tasks()) == 15
    assert b.state() == initial_state() == expected_state(())
    first = b.tasks(PROJECT_IDS[0])[0]
    assert (
        first["content"] == "Solve algebra equations"
        and first["due_date"] == "2015-06-01"
        and first["priority"] == 1
    )


def test_tools_reply_like_todoist():
    env = make()
    obs, *_ = call(env, "get_tasks", project_id=PROJECT_IDS[1])
    assert (
        "'content': 'Attend soccer practice', 'is_completed': False, 'priority': 4, 'due_date': '2015-06-12'"
        in obs
    )
    obs, *_ = call(env, "get_task_duration", task_id=task_id(0, 1))
    assert "'duration': '90(minute)'" in obs
    obs, *_ = call(env, "get_task_description", task_id=task_id(0, 0))
    assert "- Place: Study room" in obs
    obs, *_ = call(env, "complete_task", task_id=task_id(0, 0))
    assert "'message': 'Complete task successfully.'" in obs
    obs, *_ = call(env, "get_tasks", project_id=PROJECT_IDS[0])
    assert "Solve algebra equations" not in obs  # completed tasks leave the active list
    obs, *_ = call(env, "complete_task", task_id=task_id(0, 0))
    assert f"Task {task_id(0, 0)} is not exists." in obs
    obs, *_ = call(env, "update_project", project_id=PROJECT_IDS[2], is_favorite="True")
    assert "'is_favorite': True" in obs and "Update the project successfully." in obs
    obs, *_ = call(env, "get_tasks", project_id="999")
    assert "Project 999 is not exists." in obs
    *_, info = call(env, "update_task", task_id=task_id(1, 1), due_date="next week")
    assert "expected format" in info["error"]


def test_every_tool_names_a_missing_argument():
    env = make()
    for name, tool in TODO_TOOLS.items():
        if tool.argument_names:
            *_, info = call(env, name)
            assert f"missing argument '{tool.argument_names[0]}'" in info["error"]


def test_operation_needs_the_right_final_state():
    env = gym.make("AgentGym/TODOList-v0").unwrapped
    task = op_task(env, "complete")
    *_, info = call(env, "finish", answer="done")  # claims done, changed nothing
    assert info["score"] == 0.0 and not info["success"] and info["state_ok"] is False
    task = op_task(env, "complete")
    for step in task.plan:
        *_, info = env.step(step.action())
    assert info["success"] and info["score"] == 1.0 and info["state_ok"]


def test_an_extra_change_fails_a_question():
    env = make(0)  # a question: the account must stay as it is
    call(env, "delete_task", task_id=task_id(4, 0))
    *_, info = call(env, "finish", answer=env.task.answer)
    assert not info["success"] and info["score"] == 0.0


def test_episodes_are_isolated():
    env = gym.make("AgentGym/TODOList-v0").unwrapped
    env.reset(options={"split": "test", "task_id": 0})
    call(env, "delete_task", task_id=task_id(0, 0))
    env.reset(options={"split": "test", "task_id": 0})
    obs, *_ = call(env, "get_tasks", project_id=PROJECT_IDS[0])
    assert "Solve algebra equations" in obs
    other = gym.make("AgentGym/TODOList-v0").unwrapped
    other.reset(options={"split": "test", "task_id": 0})
    call(env, "delete_task", task_id=task_id(0, 0))
    assert len(other.backend.tasks()) == 15


def test_pickled_env_keeps_the_database():
    env = make()
    call(env, "complete_task", task_id=task_id(3, 2))
    clone = pickle.loads(pickle.dumps(env))
    assert clone.backend.state() == env.backend.state()
    assert len(clone.backend.tasks()) == 14


def test_partial_progress_and_wrong_answer():
    env = make(2)  # place: projects, tasks, description, finish
    *_, info = env.step(env.task.plan[0].action())
    assert 0 < info["progress"] < 1 and info["score"] == 0
    *_, info = call(env, "finish", answer="On the moon")
    assert not info["success"]


def test_train_tasks_mostly_get_generated_accounts():
    import random

    from agentgym_envs.envs.todo.accounts import generate_account

    env = gym.make("AgentGym/TODOList-v0").unwrapped
    accounts = {env.tasks.get("train", i).account for i in range(40)}
    assert len(accounts) > 20 and all(
        env.tasks.get("test", i).account == ACCOUNT for i in range(20)
    )
    for seed in range(50):
        account = generate_account(random.Random(seed))
        contents = [t.content for _, ts in account for t in ts]
        assert len(contents) == len(set(contents)) and 4 <= len(account) <= 6
        assert any(len(ts) >= 3 for _, ts in account)
        b = TodoBackend("2015-06-01", account=account)
        assert b.state() == expected_state((), account)
