"""Simulated users for the multi-turn agent: a deterministic scripted user, an LLM user on any
OpenAI-compatible endpoint, and the game opponent either one plays.

A user has :meth:`~ScriptedUser.start` (the persona of the episode; returns the opening
message), :meth:`~ScriptedUser.reply` (the policy's text and the env's state in, the next
message out, ``None`` to stop) and, for the games, :meth:`~ScriptedUser.move` (one move from
its seat when the env asks the opponent).
"""

from __future__ import annotations

import logging
import random
import re
from typing import Any

from agentgym_envs.agents.base import AgentStats, timed_chat
from agentgym_envs.agents.personas import STOP_TOKEN, Persona

logger = logging.getLogger(__name__)
_ACTION = re.compile(r"Action\s*:\s*(.+)", re.IGNORECASE)


def move_text(reply: str) -> str:
    """The move in a reply: what follows its last ``Action:``, else the reply."""
    found = _ACTION.findall(reply or "")
    return (found[-1] if found else reply or "").strip()


class ScriptedUser:
    """A deterministic user: says the persona's parts in order, then asks the assistant to
    finish; once the env has ended the episode, thanks it with the stop token. As a game's
    opponent it plays the env's built-in player (``opponent``: ``"scripted"`` or
    ``"expert"``).
    """

    def __init__(self, stop_token: str = STOP_TOKEN, opponent: str = "scripted") -> None:
        self.stop_token = stop_token
        self.opponent = opponent
        self.persona: Persona | None = None
        self.stats = AgentStats()
        self.said: list[str] = []
        self.last_move = ""

    def start(self, persona: Persona) -> str:
        self.persona, self.said, self.last_move = persona, [], ""
        return self._say(persona.parts[0])

    def _say(self, text: str) -> str:
        self.said.append(text)
        return text

    def reply(self, policy_text: str, state: dict[str, Any]) -> str | None:
        persona = self.persona
        assert persona is not None, "call start() first"
        if state.get("done"):
            return self._say(persona.closing)
        if persona.opponent:
            move = state.get("info", {}).get("opponent_move") or self.last_move
            return self._say(f"I played {move}. Your move." if move else "Your move.")
        if len(self.said) < len(persona.parts):
            return self._say(persona.parts[len(self.said)])
        return self._say("Please go on and finish the task.")

    def move(self, game: Any, player: str, rng: random.Random) -> str:
        from agentgym_envs.multiagent.policies import resolve_policy

        self.last_move = resolve_policy(self.opponent)(game, player, rng)
        return self.last_move


class ChatUser:
    """A user played by a chat model: the persona's system prompt, then the conversation seen
    from the user's side (its own messages as ``assistant``, the policy's as ``user``). As a
    game's opponent the model gets the rules for its seat and the position, and replies with
    a move (re-asked once on an illegal move, then a random legal one is played and logged).

    Args:
        client: a :class:`~agentgym_envs.benchmarks.ChatClient` (may be the policy's).
        stop_token: a reply containing it ends the conversation.

    The user has no tools of its own: in the games its move is its action on the env (the
    env asks the opponent for one); elsewhere it only talks.
    """

    def __init__(self, client: Any, stop_token: str = STOP_TOKEN) -> None:
        self.client = client
        self.stop_token = stop_token
        self.persona: Persona | None = None
        self.stats = AgentStats()
        self.history: list[dict[str, Any]] = []
        self.last_move = ""

    def _ask(self, messages: list[dict[str, Any]]) -> str:
        reply, latency = timed_chat(self.client, messages)
        self.stats.record(latency, reply.usage, "user")
        return reply.content.strip()

    def start(self, persona: Persona) -> str:
        self.persona, self.last_move = persona, ""
        if persona.opponent:
            self.history = []
            return persona.parts[0]
        self.history = [{"role": "user", "content": "Hello! How can I help you today?"}]
        return self._turn()

    def _turn(self) -> str:
        assert self.persona is not None
        text = self._ask([{"role": "system", "content": self.persona.system}, *self.history])
        self.history.append({"role": "assistant", "content": text})
        return text

    def reply(self, policy_text: str, state: dict[str, Any]) -> str | None:
        persona = self.persona
        assert persona is not None, "call start() first"
        if persona.opponent:
            if state.get("done"):
                return persona.closing
            return f"I played {self.last_move}. Your move." if self.last_move else "Your move."
        if state.get("done"):
            return persona.closing
        self.history.append({"role": "user", "content": policy_text or "(the assistant acted)"})
        return self._turn()

    def move(self, game: Any, player: str, rng: random.Random) -> str:
        # the opponent may move first: at the env's reset, before the persona is written
        system = f"You are the user's opponent. {game.rules(player)} Reply with your move only."
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": game.observation(player)},
        ]
        for _ in range(2):
            text = move_text(self._ask(messages))
            _, error = game.parse(player, text)
            if error is None:
                self.last_move = text
                return text
            messages += [
                {"role": "assistant", "content": text},
                {"role": "user", "content": f"Illegal move: {error}. Reply with your move only."},
            ]
        logger.warning("the user model gave no legal move; playing a random one")
        self.last_move = game.random_move(rng)
        return self.last_move


__all__ = ["ChatUser", "ScriptedUser", "move_text"]
