"""Rollout throughput of each trainer adapter, with the expert as the model.

Each adapter is driven the way its trainer drives it (see tests/integrations/test_adapters.py)
for ``--episodes`` episodes per family; the "model" is the family's expert playing its own copy
of the task, so the figures measure the adapter and the env, not generation. Prints episodes/s
per adapter and family.

``--ecosystems ors openenv verifiers nemo-gym`` adds the ecosystem adapters (#30), each played
by its own client inside its own venv (``benchmarks/ecosystem_rollouts.py``) on the expert's
actions, against the in-process ``session`` baseline of the same episodes in the same run
(verifiers' row is verifiers 0.4's episode loop, ``Env.run_slot``, against the expert chat
server, one ``null`` chat harness process per turn; NeMo Gym's is its ``gym eval run`` command per id through its simple agent, the
expert chat server as the model, its servers started once outside the timing, and its
``(in-process)`` row the same collection code called in-process, without the command's
start-up).

    python benchmarks/bench_integrations.py --episodes 20
    python benchmarks/bench_integrations.py --adapters --ecosystems ors openenv verifiers nemo-gym
"""

from __future__ import annotations

import argparse
import asyncio
import time
from types import SimpleNamespace

import agentgym_envs

FAMILIES = ("AgentGym/Maze-v0", "AgentGym/Weather-v0", "AgentGym/BIRD-v0")


class Expert:
    def __init__(self, env_id: str, task_id: int) -> None:
        self.env = agentgym_envs.make(env_id)
        self.obs, self.info = self.env.reset(seed=0, options={"split": "test", "task_id": task_id})
        self.policy = agentgym_envs.expert_policy(self.env)
        self.done = False

    def reply(self) -> str:
        action = self.policy(self.obs, self.info)
        self.obs, _, terminated, truncated, self.info = self.env.step(action)
        self.done = terminated or truncated
        return action


def n_tasks(env_id: str) -> int:
    return agentgym_envs.make(env_id).unwrapped.tasks.size("test")


def run_session(env_id: str, task_id: int, _tok) -> float:
    from agentgym_envs.integrations.session import EnvSession

    session, model = EnvSession(env_id), Expert(env_id, task_id)
    session.reset(task_id, "test", 0)
    while not session.done:
        session.step(model.reply())
    return session.finish().reward or 0.0


_TRL = {}


def run_trl(env_id: str, task_id: int, _tok) -> float:
    from agentgym_envs.integrations.trl import environment_class

    if env_id not in _TRL:
        _TRL[env_id] = environment_class(env_id)()
    env, model = _TRL[env_id], Expert(env_id, task_id)
    env.reset(task_id=task_id, split="test", seed=0)
    while not model.done:
        env.act(model.reply())
    return env.get_reward() or 0.0


def run_verl(env_id: str, task_id: int, tok) -> float:
    from agentgym_envs.integrations.verl import AgentGymAgentLoop

    model = Expert(env_id, task_id)

    class Server:
        async def generate(self, *, request_id, prompt_ids, sampling_params, **_):
            ids = tok.encode(model.reply() + "<|im_end|>", add_special_tokens=False)
            return SimpleNamespace(token_ids=ids, log_probs=None)

    config = SimpleNamespace(config={"actor_rollout_ref": {"rollout": {"response_length": 8192}}})
    loop = AgentGymAgentLoop(trainer_config=config, server_manager=Server(), tokenizer=tok)
    info = {"env_id": env_id, "task_id": task_id, "split": "test", "seed": 0}
    return asyncio.run(loop.run({}, raw_prompt=[], extra_info=info)).reward_score


def run_openrlhf(env_id: str, task_id: int, _tok) -> float:
    from agentgym_envs.integrations.openrlhf import AgentInstance, make_label

    async def go() -> float:
        agent, model = AgentInstance(), Expert(env_id, task_id)
        label = make_label(env_id, task_id, "test")
        text = (await agent.reset({"observation": "", "label": label}))["observation"]
        total, done = 0.0, False
        while not done:
            action = model.reply() + "<|im_end|>"
            out = await agent.step(
                {"observation_text": text, "action_text": action, "label": label}
            )
            total += out["rewards"].item()
            text += action + out["environment_feedback"]
            done = out["done"]
        return total

    return asyncio.run(go())


def run_skyrl(env_id: str, task_id: int, _tok) -> float:
    from agentgym_envs.integrations.skyrl import AgentGymTextEnv

    env = AgentGymTextEnv(
        {}, {"extra_info": {"env_id": env_id, "task_id": task_id, "split": "test", "seed": 0}}
    )
    model = Expert(env_id, task_id)
    env.init([])
    out, total = {"done": False}, 0.0
    while not out["done"]:
        out = env.step(model.reply())
        total += out["reward"]
    env.close()
    return total


ADAPTERS = {
    "session": run_session,
    "trl": run_trl,
    "verl": run_verl,
    "openrlhf": run_openrlhf,
    "skyrl": run_skyrl,
}


ECOSYSTEM_FAMILIES = ("AgentGym/Weather-v0", "AgentGym/Maze-v0", "AgentGym/ALFWorld-v0")
ECOSYSTEM_EXTRAS = {
    "ors": "openreward",
    "openenv": "openenv",
    "verifiers": "verifiers",
    "nemo-gym": "nemo-gym",
}


def expert_episode(env_id: str, task_id: int) -> dict:
    """The expert's actions on a test task (played outside the timed part)."""
    model, actions = Expert(env_id, task_id), []
    while not model.done:
        actions.append(model.reply())
    return {"task_id": task_id, "split": "test", "actions": actions}


def run_ecosystems(names: list[str], episodes: int) -> None:
    import json
    import subprocess

    from agentgym_envs.integrations.session import EnvSession
    from agentgym_envs.integrations.venvs import ecosystem_env, ecosystem_python

    plan = {
        env_id: [expert_episode(env_id, i % n_tasks(env_id)) for i in range(episodes)]
        for env_id in ECOSYSTEM_FAMILIES
    }
    print(f"{'ecosystem':21} {'env':22} {'episodes/s':>10} {'mean reward':>12} {'vs session':>10}")
    baseline = {}
    for env_id, eps in plan.items():
        t0, rewards = time.perf_counter(), []
        for ep in eps:
            session = EnvSession(env_id)
            session.reset(ep["task_id"], "test", 0)
            for action in ep["actions"]:
                session.step(action)
            rewards.append(session.finish().score)
        baseline[env_id] = len(eps) / (time.perf_counter() - t0)
        mean = sum(rewards) / len(rewards)
        print(f"{'session':21} {env_id:22} {baseline[env_id]:10.1f} {mean:12.2f} {1.0:10.2f}")
    script = __file__.replace("bench_integrations.py", "ecosystem_rollouts.py")
    for name in names:
        python = ecosystem_python(ECOSYSTEM_EXTRAS[name])
        job = json.dumps({"ecosystem": name, "families": plan})
        done = subprocess.run(
            [str(python), script, job], capture_output=True, text=True, env=ecosystem_env()
        )
        if done.returncode != 0:
            print(f"{name:21} failed: {done.stderr.strip().splitlines()[-1]}")
            continue
        rows = json.loads(done.stdout.strip().splitlines()[-1])
        for env_id, row in rows.items():
            rate = row["episodes"] / row["seconds"]
            mean = sum(row["rewards"]) / max(len(row["rewards"]), 1)
            ratio = rate / baseline[env_id]
            print(f"{name:21} {env_id:22} {rate:10.1f} {mean:12.2f} {ratio:10.3f}")
            if row.get("inside_seconds"):  # the ecosystem's collection code, in-process
                rate = row["episodes"] / row["inside_seconds"]
                ratio = rate / baseline[env_id]
                label = f"{name} (in-process)"
                print(f"{label:21} {env_id:22} {rate:10.1f} {mean:12.2f} {ratio:10.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--adapters", nargs="*", default=list(ADAPTERS))
    parser.add_argument("--ecosystems", nargs="*", default=[], choices=list(ECOSYSTEM_EXTRAS))
    args = parser.parse_args()
    if args.ecosystems:
        run_ecosystems(args.ecosystems, args.episodes)
    tok = None
    if "verl" in args.adapters:
        from transformers import AutoTokenizer

        from agentgym_envs.benchmarks.local_llm import smollm2_path

        path = smollm2_path()
        tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    print(f"{'adapter':10} {'env':22} {'episodes/s':>10} {'mean reward':>12}")
    for name in args.adapters:
        for env_id in FAMILIES:
            n = n_tasks(env_id)
            rewards = []
            t0 = time.perf_counter()
            for i in range(args.episodes):
                rewards.append(ADAPTERS[name](env_id, i % n, tok))
            rate = args.episodes / (time.perf_counter() - t0)
            print(f"{name:10} {env_id:22} {rate:10.1f} {sum(rewards) / len(rewards):12.2f}")


if __name__ == "__main__":
    main()
