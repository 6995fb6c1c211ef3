"""A real LangGraph graph playing envs through EnvToolkit, with a chat model behind an
OpenAI-compatible endpoint (the expert server) and a scripted model sending bad calls."""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph")

from langchain_core.messages import AIMessage, ToolMessage

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.benchmarks import ChatClient
from agentgym_envs.integrations.langgraph import EnvToolkit, build_graph, chat_node

ENVS = ["AgentGym/Maze-v0", "AgentGym/BabyAI-v0"]


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer(ENVS) as server:
        yield server


@pytest.mark.parametrize(("env_id", "task_id"), [(ENVS[0], 5), (ENVS[1], 7)])
def test_graph_plays_a_full_episode_to_success(expert, env_id, task_id):
    toolkit = EnvToolkit(env_id)
    graph = build_graph(toolkit, chat_node(ChatClient(expert.base_url), toolkit))
    state = graph.invoke(
        {"messages": [("user", toolkit.reset(task_id=task_id))]}, {"recursion_limit": 200}
    )
    assert toolkit.done and toolkit.result()["success"]
    messages = state["messages"]
    assert isinstance(messages[-1], ToolMessage)  # the graph ended on the env's last answer
    record = toolkit.record(messages)
    assert record["success"] and record["item_id"].split("_")[0] in ("maze", "babyai")
    gpt = [t for t in record["conversations"] if t["from"] == "gpt"]
    assert len(gpt) == toolkit.result()["steps"]
    assert toolkit.record()["conversations"][1]["value"] == "Ok."  # the env's view


def test_bad_calls_are_tool_errors_and_the_graph_goes_on():
    toolkit = EnvToolkit(ENVS[0])
    script = iter(
        [
            [{"name": "move", "args": {"direction": 5}, "id": "a"}],  # breaks the schema
            [{"name": "move", "args": {"direction": "sideways"}, "id": "b"}],  # env rejects
            [{"name": "act", "args": {"action": "move right"}, "id": "c"}],
            [],
        ]
    )

    def scripted(state):
        return {"messages": [AIMessage(content="", tool_calls=next(script))]}

    graph = build_graph(toolkit, scripted)
    state = graph.invoke({"messages": [("user", toolkit.reset(task_id=0))]})
    answers = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert len(answers) == 3
    assert (
        "Invalid tool call" in answers[0].content and "must be of type string" in answers[0].content
    )
    assert "Invalid tool call" in answers[1].content
    assert "position 1, 2" in answers[2].content
    assert toolkit.result()["steps"] == 3 and not toolkit.done  # every call is a turn
