"""The family's expert answering in a harness's own tool-call format (the plumbing proof).

A pre-built harness (Cline, Kilo Code, OpenHands, Hermes Agent, OpenClaw, Qwen Code, OpenCode,
Pi, Claude Code, Codex CLI) offers the env's MCP tools to its model under names of its own
(``agentgym__move``, ``agentgym_act``, ``mcp__agentgym__act`` ...) among its built-in tools,
and ends its run when the model answers
without a tool call or calls its completion tool. :class:`HarnessExpertServer` is
:class:`~agentgym_envs.agents.expert_server.ExpertChatServer` for that: it reads the episode
back from the harness's conversation (its calls of the env's tools, whatever their prefix;
calls of the harness's own tools are not env actions), and answers with the expert's next
action as a call of the env tool the harness offers -- the family's own tool where one makes
that action, else ``act`` -- and, once the episode is over, with the harness's completion
tool or a plain answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentgym_envs.agents.expert_server import (
    ExpertChatServer,
    _as_tool_call,
    _call,
    _text,
)

#: The MCP server name the harness runner gives our env (its tools' prefix in a harness).
MCP_NAME = "agentgym"

#: Harness tools that end a run, and the argument that carries the final answer.
COMPLETION_TOOLS = {"attempt_completion": "result", "finish": "message", "task_complete": "summary"}
#: Harness tools that call another tool by name: name -> (its name key, its arguments key).
CALL_BY_NAME = {"tool_call": ("id", "args"), "use_mcp_tool": ("tool_name", "arguments")}
#: What the expert says when the episode is over.
DONE_TEXT = "The episode is over."
_SEPARATORS = ("__", "_", ".", "-", "/", ":")


def env_tool_names(offered: list[str], env_tools: set[str]) -> dict[str, str]:
    """Which of a harness's tool names stand for which env tool: ``{"agentgym__move": "move"}``.

    A harness prefixes the MCP server's tools with its name (``agentgym``) and a separator;
    a harness that does not gets the bare names, used only when no name carries the prefix
    (so a harness's own ``finish`` is not the env's)."""
    out: dict[str, str] = {}
    for name in offered:
        found = [
            t
            for t in env_tools
            if any(name.endswith(sep + t) for sep in _SEPARATORS)
            and MCP_NAME in name[: -len(t)].lower()
        ]
        if found:
            out[name] = max(found, key=len)
    if not out:
        out = {name: name for name in offered if name in env_tools}
    return out


def _plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with list contents (content parts) joined into text."""
    return [
        {**m, "content": _text(m)} if isinstance(m.get("content"), list) else m for m in messages
    ]


class HarnessExpertServer(ExpertChatServer):
    """:class:`ExpertChatServer` answering with the harness's own names for the env's tools.

    Args:
        env_ids: the env ids whose test tasks the conversations are about.
        **kwargs: as for :class:`ExpertChatServer`.
    """

    _offered: list[str] = []  # the tool names of the request being answered
    _seen: list[str] = []  # env tool names the harness showed in its tool results (searches)

    def _env_tools(self, env: Any) -> set[str]:
        names = {"act"}
        for tool in env.unwrapped.tool_schemas():
            names.add(tool.get("function", tool)["name"])
        return names

    def _mapping(self, env: Any, messages: list[dict[str, Any]]) -> dict[str, str]:
        called = [_unwrap(c)[0] for m in messages for c in m.get("tool_calls") or []]
        return env_tool_names([*self._offered, *self._seen, *called], self._env_tools(env))

    def _actions(self, env: Any, messages: list[dict[str, Any]], start: int) -> list[Any]:
        """Per call of an env tool after the first observation: its action and the texts
        that came back (tool results, later user messages)."""
        mapping = self._mapping(env, messages)
        turns: list[Any] = []
        for message in messages[start + 1 :]:
            if message.get("role") != "assistant":
                if turns:
                    turns[-1][1] += _text(message)
                continue
            for call in message.get("tool_calls") or []:
                name, args = _unwrap(call)
                base = mapping.get(name)
                if base is None:
                    continue  # one of the harness's own tools
                try:
                    if base == "act":
                        action = str(args.get("action", ""))
                    else:
                        action = env.unwrapped.action_from_tool_call(base, args)
                except (ValueError, KeyError, TypeError, AttributeError):
                    action = None
                turns.append([action, ""])
        return turns

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = _plain([m for m in body.get("messages") or [] if isinstance(m, dict)])
        tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
        # every request is answered on the server's one worker thread: this is not shared
        self._offered = [t.get("function", t).get("name") or "" for t in tools]
        self._seen = [
            name
            for m in messages
            if m.get("role") == "tool"
            for name in re.findall(rf"[\w.:-]*{MCP_NAME}[\w.:-]*", _text(m))
        ]
        shadow = self._shadow(messages)
        if shadow is None or (shadow.next == "" and shadow.actions):
            env_tools = self._env_tools(shadow.env) if shadow is not None else set()
            env_names = set(env_tool_names(self._offered, env_tools))
            message = _finish(tools, env_names)
        else:
            mapping = self._mapping(shadow.env, messages)
            message = _move(shadow, self._offered, mapping)
        self.requests += 1
        for call in message.get("tool_calls") or []:
            call["id"] = f"call_{self.requests}_{call['id'][5:]}"  # unique within a run
        return self._payload(messages, message)


def _unwrap(call: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool a call names and its arguments, through a harness's call-by-name tool
    (OpenClaw's ``tool_call``, Cline's ``use_mcp_tool``)."""
    fn = call.get("function") or {}
    name = fn.get("name") or ""
    try:
        args = json.loads(fn.get("arguments") or "{}")
    except ValueError:
        return name, {}
    if not isinstance(args, dict):
        return name, {}
    if name in CALL_BY_NAME:
        key, inner = CALL_BY_NAME[name]
        value = args.get(inner) or {}
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                value = {}
        return str(args.get(key, "")), value if isinstance(value, dict) else {}
    return name, args


def _move(shadow: Any, offered: list[str], mapping: dict[str, str]) -> dict[str, Any]:
    """The expert's next action as a call of the harness's name for an env tool: offered
    directly, or found by the harness's tool search and called through its call-by-name
    tool (a search first when nothing was found yet)."""
    action = shadow.next
    names: dict[str, str] = {}  # env tool -> the harness's name for it
    for name, base in mapping.items():
        if name in offered:
            names[base] = name
        else:
            names.setdefault(base, name)
    schemas = {
        fn["name"]: fn for fn in (t.get("function", t) for t in shadow.env.unwrapped.tool_schemas())
    }
    family = [
        {"type": "function", "function": schemas[base]}
        for base in names
        if base in schemas and base != "act"
    ]
    call = _as_tool_call(shadow.env, action, family) if family else None
    if call is None and "act" in names:
        call = _call("act", action, {"action": action})
    if call is None:
        if "tool_search" in offered:
            return _tool_message(_call("tool_search", "", {"query": MCP_NAME}))
        return {"role": "assistant", "content": f"Action: {action}"}
    name = names[call["function"]["name"]]
    if name not in offered:  # found by a search: call it by name
        wrapper = next((w for w in CALL_BY_NAME if w in offered), None)
        if wrapper is not None:
            key, inner = CALL_BY_NAME[wrapper]
            args = json.loads(call["function"]["arguments"])
            return _tool_message(_call(wrapper, action, {key: name, inner: args}))
    call["function"]["name"] = name
    return _tool_message(call)


def _tool_message(call: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def _finish(tools: list[dict[str, Any]], env_names: set[str]) -> dict[str, Any]:
    """The harness's completion tool, if it offers one, else a plain answer."""
    for tool in tools:
        fn = tool.get("function", tool)
        if fn.get("name") in env_names:
            continue  # the env's own ``finish`` is not the harness's
        arg = COMPLETION_TOOLS.get(fn.get("name"))
        if arg is not None:
            props = (fn.get("parameters") or {}).get("properties") or {}
            args = {arg: DONE_TEXT} if arg in props or not props else {}
            for name in (fn.get("parameters") or {}).get("required") or []:
                args.setdefault(name, DONE_TEXT)
            return {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call(fn["name"], "", args)],
            }
    return {"role": "assistant", "content": DONE_TEXT}


__all__ = ["COMPLETION_TOOLS", "DONE_TEXT", "MCP_NAME", "HarnessExpertServer", "env_tool_names"]
