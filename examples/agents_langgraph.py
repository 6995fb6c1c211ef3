"""A LangGraph agent <-> tools graph playing an env, its model any OpenAI-compatible endpoint.

``EnvToolkit`` gives the env's tools as LangChain tools (and the ToolNode / routing);
``chat_node`` is the model node. Without ``--base-url`` the family's expert answers behind a
local OpenAI-compatible server. Needs ``pip install "agentgym-envs[langgraph]"``.

Run: ``python examples/agents_langgraph.py [--env BabyAI-v0] [--task 7] [--base-url URL]``
"""

from __future__ import annotations

import argparse
import contextlib

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.benchmarks import ChatClient
from agentgym_envs.integrations.langgraph import EnvToolkit, build_graph, chat_node


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="AgentGym/BabyAI-v0")
    parser.add_argument("--task", type=int, default=7)
    parser.add_argument("--base-url", default=None)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        base_url = args.base_url or stack.enter_context(ExpertChatServer([args.env])).base_url
        toolkit = EnvToolkit(args.env)
        graph = build_graph(toolkit, chat_node(ChatClient(base_url), toolkit))
        state = graph.invoke(
            {"messages": [("user", toolkit.reset(task_id=args.task))]}, {"recursion_limit": 200}
        )
        record = toolkit.record(state["messages"])
        print(f"{record['item_id']}: success={record['success']} steps={record['steps']}")


if __name__ == "__main__":
    main()
