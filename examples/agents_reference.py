"""The reference agents on any OpenAI-compatible endpoint, one episode each, as AgentTraj.

The multi-step agent in ReAct text and with several tool calls per turn and a scratchpad, and
the multi-turn agent (the scripted user tells it the task). Without ``--base-url`` the
family's expert answers behind a local OpenAI-compatible server (the plumbing check: every
agent must then solve the task); with ``--local`` SmolLM2 on llama.cpp
answers (``pip install "agentgym-envs[local-llm]"``). Prints each record's outcome, token
counts and per-turn latency.

Run: ``python examples/agents_reference.py [--env Maze-v0] [--task 3] [--base-url URL | --local]``
"""

from __future__ import annotations

import argparse
import contextlib
import json

from agentgym_envs.agents import ExpertChatServer, MultiStepAgent, MultiTurnAgent, run_agent
from agentgym_envs.benchmarks import ChatClient, LocalLLMServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="AgentGym/Maze-v0")
    parser.add_argument("--task", type=int, default=3)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--local", action="store_true")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        if args.local:
            base_url = stack.enter_context(LocalLLMServer()).base_url
        elif args.base_url:
            base_url = args.base_url
        else:
            base_url = stack.enter_context(ExpertChatServer([args.env])).base_url
        client = ChatClient(base_url)
        scratchpad = {"parallel_calls": True, "scratchpad": True, "max_reasks": 2}
        multiturn = MultiTurnAgent(client, tag_requests=not (args.local or args.base_url))
        for agent in (
            MultiStepAgent(client),
            MultiStepAgent(client, "tools", **scratchpad),
            multiturn,
        ):
            record = run_agent(args.env, agent, task_id=args.task)
            latency = [round(t["latency"], 3) for t in record["turn_stats"]]
            print(
                f"{type(agent).__name__}: {record['item_id']} success={record['success']} "
                f"turns={record['turns']} tokens={record['tokens']} latency={latency}"
            )
            print(json.dumps(record["conversations"][-2:], indent=1)[:600])


if __name__ == "__main__":
    main()
