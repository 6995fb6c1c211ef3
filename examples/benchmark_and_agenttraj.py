"""Benchmark a real local model, then treat its episodes as AgentTraj data.

    pip install "agentgym-envs[local-llm,datasets]"     # builds llama.cpp once (~7 min on 2 cores)
    python examples/benchmark_and_agenttraj.py

1. Starts llama.cpp serving SmolLM2-135M-Instruct on 127.0.0.1 (an OpenAI-compatible server).
2. Runs it on two tasks each of Maze and Wordle (ReAct format, greedy), writing
   ``runs/smollm2/results.jsonl`` (one AgentTraj record per episode) and the summary reports.
3. Runs the scripted expert on the same tasks and compares the two runs (paired bootstrap).
4. Loads the model's episodes back as AgentTraj, prints per-family stats, exports SFT records
   with loss masks, and replays every trajectory through the live envs to check its reward.
"""

from __future__ import annotations

from agentgym_envs.benchmarks import (
    LocalLLMServer,
    compare_runs,
    expert_spec,
    openai_spec,
    run_benchmark,
)
from agentgym_envs.datasets import dataset_stats, load_agenttraj, to_sft
from agentgym_envs.datasets.replay import replay_all

ENVS = "Maze-v0,Wordle-v0"

with LocalLLMServer() as server:
    model = openai_spec(base_url=server.base_url, fmt="react", max_tokens=64)
    run = run_benchmark(ENVS, model, out="runs/smollm2", limit=2, max_rounds=6)
print(run.summary.to_markdown())

expert = run_benchmark(ENVS, expert_spec(), out="runs/expert", limit=2, max_rounds=6)
print(compare_runs("runs/smollm2", "runs/expert", n_boot=2000).to_markdown())

trajs = load_agenttraj("runs/smollm2")
for family, stats in dataset_stats(trajs).items():
    print(
        f"{family}: {stats.records} trajectories, {stats.turns_mean:.1f} turns, success {stats.success_rate:.0%}"
    )
sft = [to_sft(t) for t in trajs]
print(f"{len(sft)} SFT records, {sum(sum(r['loss_mask']) for r in sft)} trained turns")
check = replay_all(trajs)
print(
    f"replay: {check.consistent}/{len(check.reports)} trajectories reach the reward they recorded"
)
