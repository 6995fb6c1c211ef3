"""The multi-turn agent: a policy model and a user model take turns, against an environment.

Each user turn, the policy runs a multi-step turn -- model calls and env actions until it
answers the user in plain text or spends ``max_steps_per_turn`` actions -- then the user
speaks: the next part of its request, a clarification, or (in the games) its move. The
conversation ends when the env ends the episode, when the user's message holds the stop token,
or after ``max_turns`` policy turns; the env scores the result.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

import gymnasium as gym

from agentgym_envs.agents.base import AgentStats, EpisodeDeadline, timed_chat
from agentgym_envs.agents.personas import HIDDEN, STOP_TOKEN, Persona, persona_for
from agentgym_envs.agents.users import ChatUser, ScriptedUser
from agentgym_envs.core import episode_outcome
from agentgym_envs.wrappers.function_calling import parse_tool_call

logger = logging.getLogger(__name__)
_ACTION_LINE = re.compile(r"^\s*Action\s*:", re.IGNORECASE | re.MULTILINE)
POLICY_SYSTEM = (
    "You are an assistant acting on an environment for a user. Do what the user asks with the "
    "environment's actions; when you need something from the user, or have finished, reply to "
    "the user in plain text without an action."
)


class MultiTurnAgent:
    """A policy model in a conversation with a simulated user, on one env episode at a time.

    Args:
        client: the policy's :class:`~agentgym_envs.benchmarks.ChatClient` (any
            OpenAI-compatible endpoint).
        user: a :class:`~agentgym_envs.agents.users.ScriptedUser` (default), a
            :class:`~agentgym_envs.agents.users.ChatUser`, or a ``ChatClient`` (made a
            ``ChatUser``; it may be the policy's own client).
        **kwargs: ``fmt`` (``"tools"``, default, or ``"react"``), ``max_turns`` (policy turns,
            default 8), ``max_steps_per_turn`` (env actions per policy turn; default 10, and 1
            in the games: one move per turn), ``stop_token`` (default ``###STOP###``),
            ``max_rounds`` (the env's turn limit, default AgentGym's), ``tag_requests``
            (send the episode's item id as request ``metadata``: lets an
            :class:`~agentgym_envs.agents.ExpertChatServer` know the episode), ``deadline``
            (a ``time.monotonic()`` time: past it the episode ends as ``time_limit``, its
            reward not valid).

    :meth:`run` plays one episode and returns it as an AgentTraj record with ``reward``,
    ``outcome``, ``reward_valid``, the chat ``messages`` and token counts (policy and user).
    """

    format = "tools"

    def __init__(self, client: Any, user: Any = None, **kwargs: Any) -> None:
        options = dict(kwargs)
        self.format = options.pop("fmt", "tools")
        if self.format not in ("react", "tools"):
            raise ValueError(f"format {self.format!r}: use 'react' or 'tools'")
        self.max_turns = _positive(options.pop("max_turns", 8), "max_turns")
        steps = options.pop("max_steps_per_turn", None)
        self.max_steps_per_turn = None if steps is None else _positive(steps, "max_steps_per_turn")
        self.stop_token = str(options.pop("stop_token", STOP_TOKEN))
        self.max_rounds: int | None = options.pop("max_rounds", None)
        self.tag_requests = bool(options.pop("tag_requests", False))
        self.deadline: float | None = options.pop("deadline", None)
        if options:
            raise TypeError(f"unknown MultiTurnAgent options: {', '.join(sorted(options))}")
        self.client = client
        if user is None:
            user = ScriptedUser(self.stop_token)
        elif hasattr(user, "chat"):
            user = ChatUser(user, self.stop_token)
        self.user = user
        self.stats = AgentStats()
        self.usage = self.stats.usage

    # -- one episode -----------------------------------------------------------------------
    def make_env(self, env_id: str) -> gym.Env:
        """``env_id`` in the agent's format; a game's opponent is the user."""
        from agentgym_envs.benchmarks.runner import make_policy_env
        from agentgym_envs.spec import env_info, resolve_id

        env_id = resolve_id(env_id)
        info = env_info(env_id)
        rounds = self.max_rounds or info.max_rounds
        env = make_policy_env(env_id, self.format, max_rounds=rounds)
        if info.family == "multiagent":  # the user is the opponent (set before the reset)
            env.unwrapped.opponent = self.user.move
        return env

    def run(
        self,
        env: str | gym.Env,
        *,
        task_id: int | None = None,
        split: str = "test",
        seed: int | None = 0,
    ) -> dict[str, Any]:
        """Play one episode (``env``: an id, or an env from :meth:`make_env`)."""
        from agentgym_envs.benchmarks.llm import CallDeadlineError, EndpointError

        self.stats = AgentStats()
        self.usage = self.stats.usage
        if hasattr(self.user, "stats"):
            self.user.stats = AgentStats()
        own = isinstance(env, str)
        env = self.make_env(env) if isinstance(env, str) else env
        episode = _Episode(self, env)
        try:
            episode.play(task_id, split, seed)
        except CallDeadlineError as exc:  # the episode's deadline, or only the call's own
            if self.deadline is not None and time.monotonic() >= self.deadline:
                episode.outcome, episode.error = "time_limit", "the episode's deadline passed"
            else:
                episode.fail(f"{type(exc).__name__}: {exc}")
        except EndpointError as exc:
            episode.fail(f"{type(exc).__name__}: {exc}")
        except EpisodeDeadline:
            episode.outcome, episode.error = "time_limit", "the episode's deadline passed"
        finally:
            if own:
                env.close()
        return episode.record()


class _Episode:
    """The state of one conversation: the policy's messages, the env's last step, the end."""

    def __init__(self, agent: MultiTurnAgent, env: gym.Env) -> None:
        self.agent, self.env = agent, env
        self.messages: list[dict[str, Any]] = []
        self.info: dict[str, Any] = {}
        self.tools: list[dict[str, Any]] = []
        self.terminated = self.truncated = False
        self.outcome: str | None = None
        self.error: str | None = None
        self.steps = self.turns = 0
        self.item_id = ""
        self.stopped_by_user = False
        self.t0 = time.perf_counter()
        self.persona: Persona | None = None
        self.format_tools = agent.format == "tools"
        self.episode_key = ""

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def play(self, task_id: int | None, split: str, seed: int | None) -> None:
        options: dict[str, Any] = {"split": split}
        if task_id is not None:
            options["task_id"] = task_id
        obs, info = self.env.reset(seed=seed, options=options)
        self.info, self.tools = info, list(info.get("tools") or [])
        self.item_id = self.env.unwrapped.item_id
        spec = self.env.spec or self.env.unwrapped.spec
        self.episode_key = f"{spec.id if spec else ''}|{info['split']}|{info['task_id']}"
        bare = str(info.get("env_observation", obs))
        self.persona = persona_for(self.env, bare, info, self.agent.stop_token)
        system = f"{POLICY_SYSTEM}\n\n{info.get('instructions') or ''}".strip()
        system += f"\n\nThe environment shows:\n{self.persona.policy_view}"
        self.messages = [{"role": "system", "content": system}]
        self._user(self.agent.user.start(self.persona))
        for turn in range(1, self.agent.max_turns + 1):
            self.turns = turn
            text = self._policy_turn()
            if turn == self.agent.max_turns and not self.done:
                break
            said = self.agent.user.reply(text, {"done": self.done, "info": self.info})
            if said is not None:
                self._user(said)
            if self.done or said is None or self.agent.stop_token in said:
                self.stopped_by_user = not self.done
                return

    def _user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def _ask(self) -> Any:
        if self.agent.deadline is not None and time.monotonic() > self.agent.deadline:
            raise EpisodeDeadline("the episode's deadline passed")
        kwargs: dict[str, Any] = {}
        if self.format_tools:
            kwargs["tools"] = self.tools
        if self.agent.tag_requests:
            kwargs["extra"] = {"metadata": {"agentgym_episode": self.episode_key}}
        return timed_chat(self.agent.client, self.messages, **kwargs)

    def _policy_turn(self) -> str:
        """Model calls and env actions until the policy talks to the user; its text."""
        cap = self.agent.max_steps_per_turn
        if cap is None:
            cap = 1 if self.persona is not None and self.persona.opponent else 10
        for _ in range(cap):
            reply, latency = self._ask()
            action = self._action(reply)
            self.agent.stats.record(latency, reply.usage, "action" if action else "talk")
            if action is None:
                self.messages.append({"role": "assistant", "content": reply.content})
                return reply.content
            self._step(action)
            if self.done:
                break
        return ""

    def _action(self, reply: Any) -> Any:
        """The env action in a reply (``None``: the reply talks to the user)."""
        if self.agent.format == "react":
            return reply.content if _ACTION_LINE.search(reply.content) else None
        message = {"role": "assistant", "content": reply.content, "tool_calls": reply.tool_calls}
        parsed = parse_tool_call(message)
        if not reply.tool_calls:
            return None
        calls = [c.as_openai(f"call_{self.steps}_{i}") for i, c in enumerate(parsed.calls)]
        return {
            "role": "assistant",
            "content": reply.content,
            "tool_calls": calls[:1] or reply.tool_calls[:1],
        }

    def _step(self, action: Any) -> None:
        obs, _, terminated, truncated, info = self.env.step(action)
        goal = self.persona.goal if self.persona is not None else ""
        said = any(goal in str(m["content"]) for m in self.messages if m["role"] == "user")
        if goal and not said:  # the env shows the goal (WebShop's pages): not before the user
            obs = obs.replace(goal, HIDDEN)
        self.steps += 1
        self.info = info
        self.terminated, self.truncated = bool(terminated), bool(truncated) and not terminated
        if isinstance(action, dict):
            call = dict(action["tool_calls"][0])
            call.setdefault("id", f"call_{self.steps}")
            self.messages.append(
                {
                    "role": "assistant",
                    "content": action.get("content") or None,
                    "tool_calls": [call],
                }
            )
            self.messages.append({"role": "tool", "tool_call_id": call["id"], "content": obs})
        else:
            self.messages += [
                {"role": "assistant", "content": action},
                {"role": "user", "content": obs},
            ]

    def fail(self, error: str) -> None:
        logger.warning("multi-turn episode %s failed: %s", self.item_id, error)
        self.error, self.outcome = error, "env_error"

    def _outcome(self) -> str:
        if self.outcome is not None:
            return self.outcome
        if self.done:
            return episode_outcome(self.terminated, self.truncated, self.info) or "failure"
        return "failure" if self.stopped_by_user else "turn_limit"

    def record(self) -> dict[str, Any]:
        from agentgym_envs.wrappers.conversation import Conversation, Message

        conv = Conversation([Message.from_chat(m) for m in self.messages])
        outcome = self._outcome()
        valid = outcome not in ("env_error", "time_limit") and bool(
            self.info.get("reward_valid", True)
        )
        user_stats = getattr(self.agent.user, "stats", None)
        return {
            "item_id": self.item_id,
            "conversations": conv.agenttraj(),
            "messages": [dict(m) for m in self.messages],
            "reward": float(self.info.get("score", 0.0)),
            "success": bool(self.info.get("success", False)) and outcome != "env_error",
            "outcome": outcome,
            "reward_valid": valid,
            "turns": self.steps,
            "user_turns": self.turns,
            "stopped_by_user": self.stopped_by_user,
            "tokens": _tokens(self.agent.stats),
            "turn_stats": self.agent.stats.as_dicts(),
            "user_tokens": _tokens(user_stats) if user_stats is not None else None,
            "wall_time": round(time.perf_counter() - self.t0, 3),
            "error": self.error,
        }


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return value


def _tokens(stats: AgentStats) -> dict[str, int]:
    return {k: v for k, v in stats.usage.items() if k != "calls"}


__all__ = ["POLICY_SYSTEM", "MultiTurnAgent"]
