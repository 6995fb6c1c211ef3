"""An env as LangGraph tools and nodes (``pip install "agentgym-envs[langgraph]"``).

:class:`EnvToolkit` holds one episode at a time. Its :attr:`~EnvToolkit.tools` are LangChain
``StructuredTool``s -- the family's own tools (their JSON schemas are the env's) and ``act``
(one action in the family's text grammar) -- that step the episode and return the observation;
:meth:`~EnvToolkit.tool_node` is LangGraph's ``ToolNode`` over them and
:meth:`~EnvToolkit.route` the edge that ends the graph when the episode ends.
:func:`chat_node` is a model node over any OpenAI-compatible endpoint, and :func:`build_graph`
wires the usual agent <-> tools loop::

    toolkit = EnvToolkit("Maze-v0")
    graph = build_graph(toolkit, chat_node(ChatClient("http://127.0.0.1:8000/v1"), toolkit))
    state = graph.invoke({"messages": [("user", toolkit.reset(task_id=3))]})
    record = toolkit.record(state["messages"])   # AgentTraj, scored by the env

A call after the episode ended, or arguments the env rejects, come back as the tool's text
result (``Invalid tool call: ...`` / ``Error: ...``), so the graph sees them and goes on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agentgym_envs.errors import require
from agentgym_envs.integrations.mcp import EpisodeTools


class EnvToolkit(EpisodeTools):
    """One env episode at a time, as LangChain tools (see the module docstring).

    Args:
        env_id: a registered id.
        act_tool: also offer ``act`` (text actions) next to the family's tools.
    """

    def __init__(self, env_id: str, *, act_tool: bool = True) -> None:
        require("langchain_core", "langgraph")
        super().__init__(env_id, act_tool=act_tool)
        self.tools = [self._tool(t) for t in self.specs]

    def record(self, messages: list[Any] | None = None) -> dict[str, Any]:
        """The episode as an AgentTraj record, scored by the env. With the graph's
        ``messages`` the conversation is the graph's own (its prompts and turn structure);
        without, the env's view of it."""
        if messages is None:
            return super().record()
        from langchain_core.messages import convert_to_openai_messages

        return super().record(convert_to_openai_messages(messages))

    def _tool(self, spec: dict[str, Any]) -> Any:
        from langchain_core.tools import StructuredTool

        name = spec["name"]

        def run(**arguments: Any) -> str:
            return self.call(name, arguments)

        return StructuredTool.from_function(
            func=run,
            name=name,
            description=spec["description"] or name,
            args_schema=spec["inputSchema"],
        )

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools in OpenAI's ``tools`` format (for a chat endpoint)."""
        return [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t["description"],
                    "parameters": t["inputSchema"],
                },
            }
            for t in self.specs
        ]

    def tool_node(self) -> Any:
        """LangGraph's ``ToolNode`` over :attr:`tools`."""
        from langgraph.prebuilt import ToolNode

        return ToolNode(self.tools)

    def route(self, state: dict[str, Any]) -> str:
        """``"tools"`` when the last message calls tools and the episode goes on, else END."""
        from langgraph.graph import END

        messages = state["messages"]
        if self.done or not messages or not getattr(messages[-1], "tool_calls", None):
            return END
        return "tools"

    def after_tools(self, state: dict[str, Any]) -> str:
        """END once the episode has ended, else back to ``"agent"``."""
        from langgraph.graph import END

        return END if self.done else "agent"


def chat_node(client: Any, toolkit: EnvToolkit) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A model node: the graph's messages to an OpenAI-compatible endpoint
    (:class:`~agentgym_envs.benchmarks.ChatClient`) with the toolkit's tools, the reply back
    as an ``AIMessage`` (tool calls included)."""
    from langchain_core.messages import AIMessage, convert_to_openai_messages

    tools = toolkit.openai_tools()

    def node(state: dict[str, Any]) -> dict[str, Any]:
        reply = client.chat(convert_to_openai_messages(state["messages"]), tools=tools)
        calls, invalid = [], []
        for call in reply.tool_calls:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
                calls.append(
                    {
                        "name": fn.get("name"),
                        "args": args,
                        "id": call.get("id"),
                        "type": "tool_call",
                    }
                )
            except ValueError as exc:
                invalid.append(
                    {
                        "name": fn.get("name"),
                        "args": fn.get("arguments"),
                        "id": call.get("id"),
                        "error": str(exc),
                        "type": "invalid_tool_call",
                    }
                )
        message = AIMessage(
            content=reply.content,
            tool_calls=calls,
            invalid_tool_calls=invalid,
            usage_metadata=_usage(reply.usage),
        )
        return {"messages": [message]}

    return node


def _usage(usage: dict[str, int]) -> Any:
    if not usage:
        return None
    prompt, completion = usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0)
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": usage.get("total_tokens", prompt + completion),
    }


def build_graph(toolkit: EnvToolkit, model: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """A compiled ``StateGraph`` over ``MessagesState``: ``agent`` (``model``) -> ``tools``
    (the toolkit's ``ToolNode``) -> ``agent`` ..., until the episode ends (right after the
    env's last answer) or the model stops calling tools."""
    require("langgraph", "langgraph")
    from langgraph.graph import START, MessagesState, StateGraph

    graph = StateGraph(MessagesState)
    graph.add_node("agent", model)
    graph.add_node("tools", toolkit.tool_node())
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", toolkit.route)
    graph.add_conditional_edges("tools", toolkit.after_tools)
    return graph.compile()


__all__ = ["EnvToolkit", "build_graph", "chat_node"]
