"""Each trainer adapter driven the way its trainer drives it, on three families of different
shapes (Maze, a tool family, BIRD), with the expert as the model; and an env that breaks
mid-rollout reaches each trainer as an invalid reward, not 0."""

from __future__ import annotations

import asyncio
import inspect
import math
from types import SimpleNamespace

import pytest

from agentgym_envs.integrations.session import EnvSession
from tests.integrations.conftest import FAMILIES, ExpertModel, breaking_maze

# -- shared session -----------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", FAMILIES)
def test_session_plays_the_expert_to_success(env_id: str) -> None:
    session = EnvSession(env_id)
    model = ExpertModel(env_id, FAMILIES[env_id])
    session.reset(FAMILIES[env_id], "test", 0)
    while not session.done:
        session.step(model.reply())
    result = session.finish()
    assert (result.outcome, result.reward_valid, result.success, result.reward) == (
        "success",
        True,
        True,
        1.0,
    )


def test_session_turns_an_env_crash_into_an_invalid_reward() -> None:
    session = EnvSession(breaking_maze)
    session.reset(0, "test", 0)
    session.step("move right")
    obs, reward, done = session.step("move right")
    assert done and reward == 0.0 and "simulator process died" in obs
    result = session.finish()
    assert result.outcome == "env_error" and result.reward_valid is False
    assert result.reward is None and result.metrics()["reward_valid"] == 0.0
    # the broken env is dropped; the next episode gets a fresh one
    session.reset(0, "test", 0)
    assert not session.done and session.step("move right")[2] is False


def test_turn_limit_outcome() -> None:
    session = EnvSession("AgentGym/Maze-v0", max_turns=2)
    session.reset(0, "test", 0)
    session.step("move left")
    session.step("move left")
    result = session.finish()
    assert result.outcome == "turn_limit" and result.reward == 0.0 and result.reward_valid


# -- TRL ------------------------------------------------------------------------------------


def _trl_probe(instance):
    """What GRPOTrainer does with an environment instance: reset + public methods as tools."""
    members = inspect.getmembers(type(instance), predicate=inspect.isfunction)
    names = [n for n, _ in members]
    assert "reset" in names
    return [getattr(instance, n) for n in names if n not in ("reset", "get_reward") and n[0] != "_"]


@pytest.mark.parametrize("env_id", FAMILIES)
def test_trl_environment_factory(env_id: str) -> None:
    pytest.importorskip("datasets")
    from agentgym_envs.integrations.trl import build_dataset, environment_class

    task_id = FAMILIES[env_id]
    data = build_dataset(env_id, "test", limit=task_id + 1)
    row = data[task_id]
    assert row["prompt"][0]["role"] == "system" and "act" in row["prompt"][0]["content"]
    factory = environment_class(env_id)
    env = factory()
    tools = _trl_probe(env)
    assert [t.__name__ for t in tools] == ["act"]
    transformers = pytest.importorskip("transformers")
    schema = transformers.utils.get_json_schema(tools[0])
    assert schema["function"]["parameters"]["required"] == ["action"]
    first = env.reset(**row)
    model = ExpertModel(env_id, task_id)
    assert first == model.env.unwrapped._last_observation or first
    while not model.done:
        env.act(model.reply())
    assert "episode has ended (success)" in env.act("anything")
    assert env.get_reward() == 1.0
    assert factory.results[-1].outcome == "success"


def test_trl_routes_rows_by_environment_column() -> None:
    pytest.importorskip("datasets")
    from agentgym_envs.integrations.trl import trl_spec

    spec = trl_spec(["AgentGym/Maze-v0", "AgentGym/BIRD-v0"], "test", limit=2)
    assert sorted(set(spec.train_dataset["environment"])) == [
        "AgentGym/BIRD-v0",
        "AgentGym/Maze-v0",
    ]
    for row in spec.train_dataset:
        env = spec.environment_factory[row["environment"]]()
        obs = env.reset(**{k: v for k, v in row.items() if k != "environment"})
        assert ("goal is at position" in obs) == (row["environment"] == "AgentGym/Maze-v0")


def test_trl_env_error_is_an_unscorable_rollout() -> None:
    from agentgym_envs.integrations.trl import AgentGymEnv, success_reward

    class Broken(AgentGymEnv):
        env_factory = staticmethod(breaking_maze)
        results = []

    env = Broken()
    env.reset(task_id=0, split="test")
    env.act("move right")
    assert "Environment error" in env.act("move right")
    assert env.get_reward() is None  # TRL: None -> NaN -> no advantage, out of the baseline
    assert success_reward([env]) == [None]
    assert Broken.results[-1].outcome == "env_error"


# -- verl -----------------------------------------------------------------------------------


class ExpertServer:
    """verl's ``server_manager``: ``await generate(request_id=, prompt_ids=, sampling_params=)``
    returning an object with ``token_ids`` and ``log_probs``; the tokens are the expert's reply."""

    def __init__(self, model: ExpertModel, tokenizer) -> None:
        self.model, self.tokenizer, self.calls = model, tokenizer, []

    async def generate(self, *, request_id, prompt_ids, sampling_params, **_):
        self.calls.append((request_id, len(prompt_ids)))
        text = self.model.reply() + "<|im_end|>"
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        return SimpleNamespace(token_ids=ids, log_probs=[-0.5] * len(ids), stop_reason="completed")


def _verl_config(response_length: int = 4096):
    rollout = {"response_length": response_length, "multi_turn": {"max_assistant_turns": None}}
    return SimpleNamespace(config={"actor_rollout_ref": {"rollout": rollout}})


@pytest.mark.parametrize("env_id", FAMILIES)
def test_verl_agent_loop(env_id: str, tokenizer) -> None:
    from agentgym_envs.integrations.verl import AgentGymAgentLoop, dataset_rows

    row = dataset_rows(env_id, "test", limit=1)[0]
    server = ExpertServer(ExpertModel(env_id, 0), tokenizer)
    loop = AgentGymAgentLoop(
        trainer_config=_verl_config(), server_manager=server, tokenizer=tokenizer
    )
    out = asyncio.run(loop.run({"temperature": 1.0}, raw_prompt=row["prompt"], **row))
    assert out.reward_score == 1.0 and out.extra_fields["reward_valid"] is True
    assert len(out.response_ids) == len(out.response_mask) == len(out.response_logprobs)
    # model tokens are trained on, the env's are not
    model_tokens = [t for t, m in zip(out.response_ids, out.response_mask) if m]
    replies = tokenizer.decode(model_tokens)
    assert replies.count("<|im_end|>") == len(server.calls)
    env_tokens = [t for t, m in zip(out.response_ids, out.response_mask) if not m]
    assert ("<|im_start|>user" in tokenizer.decode(env_tokens)) == (len(server.calls) > 1)
    assert len({rid for rid, _ in server.calls}) == 1  # one sticky request id per trajectory
    assert out.num_turns == 2 * len(server.calls)


def test_verl_env_error_masks_the_trajectory(tokenizer) -> None:
    from agentgym_envs.integrations import verl as adapter

    class Loop(adapter.AgentGymAgentLoop):
        async def run(self, sampling_params, **kwargs):
            original = adapter.EnvSession
            adapter.EnvSession = lambda env_id, **kw: original(breaking_maze, **kw)
            try:
                return await super().run(sampling_params, **kwargs)
            finally:
                adapter.EnvSession = original

    server = ExpertServer(ExpertModel("AgentGym/Maze-v0", 0), tokenizer)
    loop = Loop(trainer_config=_verl_config(), server_manager=server, tokenizer=tokenizer)
    row = adapter.dataset_rows("AgentGym/Maze-v0", "test", limit=1)[0]
    out = asyncio.run(loop.run({}, raw_prompt=row["prompt"], **row))
    assert out.extra_fields["reward_valid"] is False and out.extra_fields["outcome"] == "env_error"
    assert out.response_ids and not any(out.response_mask)


# -- OpenRLHF -------------------------------------------------------------------------------


async def _openrlhf_execute(instance, prompt: str, label: str, model: ExpertModel):
    """MultiTurnAgentExecutor.execute's calls, without vLLM: reset, then step per generation."""
    reset = await instance.reset({"observation": prompt, "label": label})
    observation_text = reset["observation"]
    total, scores, done, steps = 0.0, 0.0, False, []
    while not done:
        action_text = model.reply() + "<|im_end|>"
        result = await instance.step(
            {
                "observation_text": observation_text,
                "action_text": action_text,
                "label": label,
                "sampling_params": None,
            }
        )
        total += result["rewards"].item()
        scores = result.get("scores", total)
        observation_text = observation_text + action_text + result["environment_feedback"]
        done = result["done"]
        steps.append(result)
    return observation_text, total, scores, steps


@pytest.mark.parametrize("env_id", FAMILIES)
def test_openrlhf_agent_instance(env_id: str) -> None:
    pytest.importorskip("torch")
    from agentgym_envs.integrations.openrlhf import AgentInstance, dataset_rows

    row = dataset_rows(env_id, "test", limit=1)[0]
    text, total, scores, steps = asyncio.run(
        _openrlhf_execute(AgentInstance(), row["prompt"], row["label"], ExpertModel(env_id, 0))
    )
    assert total == 1.0 and scores.item() == 1.0
    assert steps[-1]["extra_logs"]["reward_valid"].item() == 1.0
    assert text.startswith(row["prompt"]) and text.count("<|im_start|>assistant\n") == len(steps)
    assert "<|im_end|><|im_end|>" not in text


def test_openrlhf_env_error_is_flagged_not_scored() -> None:
    pytest.importorskip("torch")
    from agentgym_envs.integrations import openrlhf as adapter

    class Broken(adapter.AgentInstance):
        async def reset(self, states, **kwargs):
            out = await super().reset(states, **kwargs)
            self.session = EnvSession(breaking_maze)
            self.session.reset(0, "test", 0)
            return out

    label = adapter.make_label("AgentGym/Maze-v0", 0, "test")
    _, total, scores, steps = asyncio.run(
        _openrlhf_execute(Broken(), "", label, ExpertModel("AgentGym/Maze-v0", 0))
    )
    assert len(steps) == 2 and total == 0.0 and math.isnan(scores.item())
    assert steps[-1]["extra_logs"]["reward_valid"].item() == 0.0


# -- SkyRL ----------------------------------------------------------------------------------


@pytest.mark.parametrize("env_id", FAMILIES)
def test_skyrl_env_through_skyrl_gym(env_id: str) -> None:
    skyrl_gym = pytest.importorskip("skyrl_gym")
    from agentgym_envs.integrations.skyrl import (
        ENV_CLASS,
        AgentGymTextEnv,
        dataset_rows,
        register_envs,
    )

    register_envs()
    row = dataset_rows(env_id, "test", limit=1)[0]
    env = skyrl_gym.make(row["env_class"], env_config={}, extras=row)
    assert isinstance(env, AgentGymTextEnv) and row["env_class"] == ENV_CLASS
    chat, meta = env.init(row["prompt"])
    assert chat[0]["role"] == "system" and chat[-1]["role"] == "user" and meta["env_id"] == env_id
    model = ExpertModel(env_id, 0)
    rewards, out = [], {"done": False}
    while not out["done"]:
        out = env.step(model.reply())
        rewards.append(out["reward"])
        assert (
            out["observations"] == [] if out["done"] else out["observations"][0]["role"] == "user"
        )
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0
    assert out["metadata"]["outcome"] == "success" and out["metadata"]["reward_valid"]
    metrics = env.get_metrics()
    assert metrics["success"] == 1.0 and metrics["outcome/success"] == 1.0
    agg = AgentGymTextEnv.aggregate_metrics([metrics, {**metrics, "success": 0.0}])
    assert agg["success"] == 0.5
    env.close()


def test_skyrl_env_error_is_flagged() -> None:
    pytest.importorskip("skyrl_gym")
    from agentgym_envs.integrations.skyrl import AgentGymTextEnv

    env = AgentGymTextEnv({}, {"extra_info": {"env_id": "AgentGym/Maze-v0", "task_id": 0}})
    env.session = EnvSession(breaking_maze)
    env.init([])
    env.step("move right")
    out = env.step("move right")
    assert out["done"] and out["metadata"]["reward_valid"] is False
    assert env.get_metrics()["reward_valid"] == 0.0


# -- tinker-cookbook ------------------------------------------------------------------------


async def _tinker_rollout(env, model: ExpertModel, tokenizer):
    """tinker-cookbook's do_single_rollout: initial_observation, then step per sampled action."""
    obs, stop = await env.initial_observation()
    results = []
    while True:
        tokens = tokenizer.encode(model.reply(), add_special_tokens=False) + list(stop)
        assert obs.length > 0
        result = await env.step(tokens)
        results.append(result)
        if result.episode_done:
            return results
        obs, stop = result.next_observation, result.next_stop_condition


@pytest.mark.parametrize("env_id", FAMILIES)
def test_tinker_env_group(env_id: str, tokenizer) -> None:
    pytest.importorskip("tinker")
    from agentgym_envs.integrations.tinker import AgentGymGroupBuilder

    builder = AgentGymGroupBuilder(env_id, 0, tokenizer, group_size=2, split="test")
    envs = asyncio.run(builder.make_envs())
    for env in envs:
        results = asyncio.run(_tinker_rollout(env, ExpertModel(env_id, 0), tokenizer))
        assert [r.reward for r in results][-1] == 1.0 and sum(r.reward for r in results) == 1.0
        assert results[-1].metrics["outcome/success"] == 1.0
        if len(results) > 1:  # the next prompt holds the whole conversation so far
            text = tokenizer.decode(results[-2].next_observation.to_ints())
            assert text.count("<|im_start|>assistant") == len(results)  # one open turn


def test_tinker_env_error_is_flagged(tokenizer) -> None:
    pytest.importorskip("tinker")
    from agentgym_envs.integrations.tinker import AgentGymTinkerEnv

    env = AgentGymTinkerEnv("AgentGym/Maze-v0", 0, tokenizer, split="test")
    env.session = EnvSession(breaking_maze)
    results = asyncio.run(_tinker_rollout(env, ExpertModel("AgentGym/Maze-v0", 0), tokenizer))
    assert len(results) == 2 and results[-1].reward == 0.0
    assert results[-1].metrics["reward_valid"] == 0.0
