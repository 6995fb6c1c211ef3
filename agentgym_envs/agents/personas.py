"""Who the simulated user is, per family: what it wants, what it tells the policy, and when.

A :class:`Persona` is written from the env right after its reset. It holds the task's goal
(the user knows it; the policy does not), the environment's first view with the goal taken
out (what the policy sees of the env before the user speaks), the messages a scripted user
sends in order, and the system prompt of an LLM user.

* tool families (Weather, Movie, Academia, Sheet, TODOList): the question asked in parts;
* WebShop: the shopping instruction, revealed when the assistant asks for it;
* BIRD SQL: the question, then a clarification (BIRD's evidence);
* the multi-agent games: the user is the opponent, one move per turn;
* every other family: the task, said at once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: The default stop token: a user message containing it ends the conversation.
STOP_TOKEN = "###STOP###"
HIDDEN = "(the user will tell you)"
TOOL_FAMILIES = ("weather", "movie", "academia", "sheet", "todo")
_DOMAIN = {
    "weather": "weather",
    "movie": "movie",
    "academia": "research papers",
    "sheet": "spreadsheet",
    "todo": "to-do list",
}


@dataclass
class Persona:
    """The simulated user of one episode.

    Attributes:
        family: the env's family.
        goal: the task as the user knows it.
        policy_view: the env's first observation with the goal taken out.
        parts: what a scripted user says, in order (the first is its opening).
        system: the system prompt of an LLM user (its goal, manner and the stop token).
        closing: a scripted user's last message once the task is done (with the stop token).
        opponent: the user is the opponent of a two-player game (moves, not requests).
    """

    family: str
    goal: str
    policy_view: str
    parts: list[str] = field(default_factory=list)
    system: str = ""
    closing: str = ""
    opponent: bool = False


def _system(goal: str, manner: str, stop_token: str) -> str:
    return (
        "You are a user talking to an AI assistant that acts on an environment for you. "
        f"What you want: {goal}\n{manner}\n"
        "Write only what the user says, one short message at a time; never do the task yourself. "
        f"When the assistant has done what you want, or cannot, reply with {stop_token}."
    )


def _sentences(text: str) -> list[str]:
    parts = [p.strip() for p in re.split(r"(?<=[.?!])\s+", text.strip()) if p.strip()]
    return parts or [text.strip()]


def _hide(observation: str, *texts: str) -> str:
    for text in texts:
        if text:
            observation = observation.replace(text, HIDDEN)
    return observation


def _tool_persona(env: Any, observation: str, info: dict[str, Any], stop: str) -> Persona:
    goal = str(info.get("goal") or env.task.goal)
    sentences = _sentences(goal)
    domain = _DOMAIN.get(env.family, env.family)
    if len(sentences) > 1:
        parts = [sentences[0], " ".join(sentences[1:])]
    else:
        parts = [f"I have a {domain} question for you.", goal]
    manner = (
        "Ask your question in parts: first only this: "
        f"{parts[0]!r}; then, when the assistant answers or asks, the rest: {parts[1]!r}."
    )
    return Persona(
        env.family,
        goal,
        _hide(observation, goal),
        parts,
        _system(goal, manner, stop),
        f"Thanks, that answers it. {stop}",
    )


def _webshop_persona(env: Any, observation: str, info: dict[str, Any], stop: str) -> Persona:
    goal = env.task.goal.instruction_text
    parts = ["Hi! I want to buy something in this shop.", f"Here is what I want: {goal}"]
    manner = (
        "Start by saying only that you want to buy something. Reveal the exact instruction "
        "when the assistant asks what you want."
    )
    return Persona(
        "webshop",
        goal,
        _hide(observation, goal),
        parts,
        _system(goal, manner, stop),
        f"Great, thank you for the purchase. {stop}",
    )


def _sql_persona(env: Any, observation: str, info: dict[str, Any], stop: str) -> Persona:
    task = env.task
    clarification = task.evidence or "Answer with one SQL query over this database."
    parts = [task.question, f"To clarify: {clarification}"]
    manner = (
        f"Ask the question first. If the assistant asks, or answers without it, add this "
        f"clarification: {clarification}"
    )
    view = _hide(observation, task.question)
    if task.evidence:
        view = view.replace(f"\nEvidence: {task.evidence}", "")
    return Persona(
        "sql",
        f"{task.question} ({clarification})",
        view,
        parts,
        _system(task.question, manner, stop),
        f"That is what I needed. {stop}",
    )


def _game_persona(env: Any, observation: str, info: dict[str, Any], stop: str) -> Persona:
    game = env.game
    title = getattr(game, "title", env.game_name)
    opening = f"Let's play {title}.\n{observation}"
    system = (
        f"You are the user's opponent in {title}. {game.rules(game.other(env.seat))} "
        "Reply with your move only."
    )
    return Persona(
        "multiagent",
        f"win the game of {title}",
        observation,
        [opening],
        system,
        f"The game is over. {stop}",
        opponent=True,
    )


def _any_persona(env: Any, observation: str, info: dict[str, Any], stop: str) -> Persona:
    parts = [f"Please do this task for me: {observation}"]
    return Persona(
        env.family,
        observation,
        HIDDEN,
        parts,
        _system(observation, "Say the task in your first message.", stop),
        f"Thank you. {stop}",
    )


def persona_for(
    env: Any, observation: str, info: dict[str, Any], stop_token: str = STOP_TOKEN
) -> Persona:
    """The persona of the episode ``env`` was just reset to (``env`` may be wrapped;
    ``observation`` and ``info`` are the bare env's reset result)."""
    base = env.unwrapped
    family = getattr(base, "family", "")
    if family in TOOL_FAMILIES:
        return _tool_persona(base, observation, info, stop_token)
    writer = {"webshop": _webshop_persona, "sql": _sql_persona, "multiagent": _game_persona}
    return writer.get(family, _any_persona)(base, observation, info, stop_token)


__all__ = ["HIDDEN", "STOP_TOKEN", "TOOL_FAMILIES", "Persona", "persona_for"]
