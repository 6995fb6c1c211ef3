"""Record a differential fuzz from AgentGym's own servers, over HTTP only.

Random and hostile action sequences -- offered actions mixed with the same actions mangled
(case, whitespace, punctuation, quotes, accents, emoji and other Unicode, control characters,
empty, very long) and with plain junk -- are played against AgentGym's servers run locally
(in an AgentGym checkout with a venv of its own, ``.agvenv``, as below), and every reply is
written down. ``tests/server/test_golden_fuzz.py`` sends the same requests to ``agentgym
serve`` and expects the same replies, byte for byte. Item indices are drawn widely too (past
the AgentEval splits, negative where AgentGym's server wraps them)::

    cd agentenv-lmrlgym && PYTHONPATH=$PWD/lmrlgym ../.agvenv/bin/lmrlgym --host 127.0.0.1 --port 36203
    .agvenv/bin/babyai --host 127.0.0.1 --port 36201
    cd agentenv-textcraft && PYTHONHASHSEED=0 ../.agvenv/bin/textcraft --host 127.0.0.1 --port 36202
    python scripts/golden/record_fuzz.py maze --url http://127.0.0.1:36203/maze
    python scripts/golden/record_fuzz.py wordle --url http://127.0.0.1:36203/wordle
    python scripts/golden/record_fuzz.py babyai --url http://127.0.0.1:36201
    python scripts/golden/record_fuzz.py textcraft --url http://127.0.0.1:36202

(AgentGym 3ef9235, LMRL-Gym 911d726, CPython 3.11; ``PYTHONHASHSEED=0`` fixes TextCraft's
goal order.) Writes ``tests/fixtures/agentgym/fuzz_<family>.jsonl.gz``: a header line
(``source``, ``family``, ``seed``, ``episodes``), then one line per episode: ``reset`` (the
request body after the env id), ``first`` (the reset reply's observation), ``steps`` as
``[action, reply]`` pairs, and for Wordle ``vocab`` (``/filtered_vocab`` after the last step).
An episode ends when the server says ``done`` (one more step records the reply to a step after
the end) or after a random number of steps up to the family's budget.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

log = logging.getLogger("record_fuzz")
OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "agentgym"
SOURCE = {"agentgym": "3ef9235", "lmrlgym": "911d726", "python": "3.11"}

# -- hostile text ----------------------------------------------------------------------------
ACCENTS = {"a": "àáâäå", "e": "éèêë", "i": "íìîï", "o": "óòôöø", "u": "úùûü", "c": "ç", "n": "ñ"}
UNICODE_BITS = [
    "\U0001f642", "\U0001f525", "\u2764\ufe0f", "\u4e2d\u6587", "\u0434\u0430", "\u200b",
    "\u00a0", "\u2009", "\u0301", "\ufeff", "\u2019", "\u2014", "\u2026", "\u00bd", "\u00df",
    "\U0001d400", "\uff41", "\u202e", "\u0627\u0644",
]  # fmt: skip
QUOTES = [('"', '"'), ("'", "'"), ("`", "`"), ("\u201c", "\u201d"), ("\u2018", "\u2019"),
          ("\u00ab", "\u00bb"), ("```\n", "\n```"), ("**", "**")]  # fmt: skip
CONTROL = ["\x00", "\x1b", "\r", "\r\n", "\x7f", "\x0b", "\x0c", "\x1f"]
# Homoglyphs that look like ASCII letters (Cyrillic / Greek / fullwidth).
HOMOGLYPH = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441",
             "i": "\u0456", "m": "\uff4d", "t": "\u03c4"}  # fmt: skip


def _case(rng: random.Random, text: str) -> str:
    how = rng.randrange(4)
    if how == 0:
        return text.upper()
    if how == 1:
        return text.title()
    if how == 2:
        return text.capitalize()
    return "".join(c.upper() if rng.random() < 0.5 else c for c in text)


def _space(rng: random.Random, text: str) -> str:
    how = rng.randrange(6)
    pad = rng.choice([" ", "  ", "\t", "\n", " \n", "\u00a0", "\u3000"])
    if how == 0:
        return pad + text
    if how == 1:
        return text + pad
    if how == 2:
        return pad + text + pad
    if how == 3:
        return text.replace(" ", rng.choice(["  ", "\t", "\n", "\u00a0", " \u200b"]))
    if how == 4:
        return text.replace(" ", "")
    return " ".join(text)


def _punct(rng: random.Random, text: str) -> str:
    how = rng.randrange(5)
    mark = rng.choice(list(".!?;:,") + ["...", "\u3002", "!!", " ."])
    if how == 0:
        return text + mark
    if how == 1:
        return rng.choice(["> ", "- ", "* ", "1. ", "Action: ", "action: ", "# "]) + text
    if how == 2:
        return text.replace(" ", rng.choice(["_", "-", ",", ", "]))
    if how == 3:
        return text + rng.choice([" please", " now", " (again)", " # comment", "\nThought: ok"])
    return mark + text


def _quote(rng: random.Random, text: str) -> str:
    left, right = rng.choice(QUOTES)
    return left + text + right


def _unicode(rng: random.Random, text: str) -> str:
    how = rng.randrange(4)
    if how == 0:  # an accent on one letter that has one
        spots = [i for i, c in enumerate(text) if c.lower() in ACCENTS]
        if spots:
            i = rng.choice(spots)
            return text[:i] + rng.choice(ACCENTS[text[i].lower()]) + text[i + 1 :]
    if how == 1:  # a homoglyph
        spots = [i for i, c in enumerate(text) if c in HOMOGLYPH]
        if spots:
            i = rng.choice(spots)
            return text[:i] + HOMOGLYPH[text[i]] + text[i + 1 :]
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(UNICODE_BITS) + text[i:]


def _control(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(CONTROL) + text[i:]


def _long(rng: random.Random, text: str) -> str:
    how = rng.randrange(3)
    if how == 0:
        return (text + " ") * rng.randrange(50, 400)
    if how == 1:
        return text + " " + "a" * rng.randrange(1000, 8000)
    return "".join(rng.choice(string.printable) for _ in range(rng.randrange(300, 1000)))


def junk(rng: random.Random) -> str:
    """Text with no action in it: empty, blanks, random ASCII or random Unicode."""
    how = rng.randrange(6)
    if how == 0:
        return ""
    if how == 1:
        return rng.choice([" ", "\n", "\t", "   ", "\u00a0", "\u200b"])
    if how == 2:
        return "".join(rng.choice(string.printable) for _ in range(rng.randrange(1, 40)))
    if how == 3:
        return "".join(chr(rng.randrange(0x20, 0x2FFF)) for _ in range(rng.randrange(1, 20)))
    if how == 4:
        return rng.choice(UNICODE_BITS) * rng.randrange(1, 6)
    return rng.choice(["None", "null", "0", "-1", "Action:", "[]", "{}", "\\n", "%s", "{0}"])


MANGLERS: list[Callable[[random.Random, str], str]] = [
    _case, _space, _punct, _quote, _unicode, _unicode, _control, _long,
]  # fmt: skip


#: Longest action sent: under the 16,384 characters this package's action space declares (a
#: longer action is refused here as a bound on work, while AgentGym's servers take any length).
MAX_ACTION = 16_000


def fuzz_action(rng: random.Random, offered: list[str]) -> str:
    """An offered action as it is (40%), mangled once or twice (50%), or junk (10%)."""
    roll = rng.random()
    if roll < 0.1 or not offered:
        return junk(rng)
    action = rng.choice(offered)
    if roll < 0.5:
        return action
    for _ in range(1 if rng.random() < 0.7 else 2):
        action = rng.choice(MANGLERS)(rng, action)
    return action[:MAX_ACTION]


# -- servers ---------------------------------------------------------------------------------
class Server:
    """One env of an AgentGym family-A server (``/create``, ``/reset``, ``/step``)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()
        self.id: int | None = None

    def post(self, path: str, body: dict[str, Any]) -> Any:
        reply = self.http.post(f"{self.url}/{path}", json=body, timeout=120)
        reply.raise_for_status()
        return reply.json()

    def get(self, path: str) -> Any:
        reply = self.http.get(f"{self.url}/{path}", params={"id": self.id}, timeout=120)
        reply.raise_for_status()
        return reply.json()

    def create(self) -> None:
        self.id = self.post("create", {})["id"]

    def close(self) -> None:
        self.post("close", {"id": self.id})


_MAZE_MOVES = ["move up", "move down", "move left", "move right"]
_BABYAI_ACTIONS = re.compile(r"Available actions: (\[.*\])\s*$", re.DOTALL)
_TEXTCRAFT_USING = re.compile(r"^craft \d+ .+? using (.+)$")
_COUNT_ITEM = re.compile(r"^(\d+) (.+)$")


def maze_offered(observation: str, state: dict[str, Any]) -> list[str]:
    return _MAZE_MOVES


def wordle_offered(observation: str, state: dict[str, Any]) -> list[str]:
    words = state["vocab"]
    return [" ".join(w) for w in words] + words[:5]


def babyai_offered(observation: str, state: dict[str, Any]) -> list[str]:
    found = _BABYAI_ACTIONS.search(observation)
    if found:
        state["actions"] = json.loads(found.group(1))
    return state.get("actions", ["turn left", "turn right", "move forward"])


def textcraft_offered(observation: str, state: dict[str, Any]) -> list[str]:
    if "commands" not in state:
        lines = observation.splitlines()
        crafts = [line for line in lines if line.startswith("craft ")]
        gets = []
        for line in crafts:
            found = _TEXTCRAFT_USING.match(line)
            for part in found.group(1).split(", ") if found else []:
                count = _COUNT_ITEM.match(part)
                if count:
                    gets.append(f"get {count.group(1)} {count.group(2)}")
        goal = next((ln for ln in lines if ln.startswith("Goal: craft ")), "Goal: craft x.")
        target = goal.removeprefix("Goal: craft ").rstrip(".")
        state["commands"] = crafts + gets + ["inventory", f"get 1 {target}", f"craft 1 {target}"]
    return state["commands"]


def _items(family: str, rng: random.Random) -> int:
    roll = rng.random()
    if family == "maze":  # AgentGym indexes its start list: -26..24 (25 / -1 is the goal)
        return rng.choice([*range(-26, -1), *range(25)])
    if family == "wordle":
        if roll < 0.4:
            return rng.randrange(3499, 3524)
        return rng.choice([rng.randrange(3524), rng.randrange(3524, 10**7), -rng.randrange(10**6)])
    if family == "babyai":
        if roll < 0.4:
            return rng.randrange(90)
        return rng.choice([rng.randrange(90, 10_000), rng.randrange(10_000, 10**7)])
    if roll < 0.4:  # textcraft: every int wraps modulo the 544 goals
        return rng.randrange(544)
    return rng.choice([rng.randrange(544, 10**6), -rng.randrange(1, 10**6)])


#: family -> (reset body key, offered actions, step budget per episode, fresh env per episode)
FAMILIES: dict[str, tuple[str, Callable[[str, dict[str, Any]], list[str]], int, bool]] = {
    "maze": ("game", maze_offered, 15, False),
    "wordle": ("seed", wordle_offered, 8, False),
    "babyai": ("data_idx", babyai_offered, 20, False),
    "textcraft": ("data_idx", textcraft_offered, 20, True),
}


def record(family: str, url: str, episodes: int, seed: int) -> list[dict[str, Any]]:
    key, offered, budget, fresh = FAMILIES[family]
    rng = random.Random(seed)
    server = Server(url)
    if not fresh:
        server.create()
    vocab: list[str] = server.get("filtered_vocab") if family == "wordle" else []
    out = []
    for n in range(episodes):
        if fresh:
            server.create()
        body = {key: _items(family, rng)}
        reply = server.post("reset", {"id": server.id, **body})
        if "error" in reply:
            raise RuntimeError(f"reset {body} failed: {reply['error']!r}")
        first = reply["observation"]
        state: dict[str, Any] = {"vocab": vocab}
        observation = first
        steps = []
        for _ in range(rng.randrange(1, budget + 1)):
            action = fuzz_action(rng, offered(observation, state))
            reply = server.post("step", {"id": server.id, "action": action})
            steps.append([action, reply])
            if "error" in reply or reply.get("done"):
                break
            observation = reply["observation"]
        if steps and steps[-1][1].get("done"):  # and what the server says to a step after it
            action = fuzz_action(rng, offered(observation, state))
            steps.append([action, server.post("step", {"id": server.id, "action": action})])
        episode: dict[str, Any] = {"reset": body, "first": first, "steps": steps}
        if family == "wordle":
            episode["vocab"] = server.get("filtered_vocab")
        out.append(episode)
        if fresh:
            server.close()
        if (n + 1) % 50 == 0:
            log.info("%s: %d episodes", family, n + 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("family", choices=sorted(FAMILIES))
    parser.add_argument("--url", required=True, help="the family's AgentGym server (with /maze)")
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    episodes = record(args.family, args.url, args.episodes, args.seed)
    header = {"source": SOURCE, "family": args.family, "seed": args.seed, "episodes": len(episodes)}
    lines = [json.dumps(header)] + [json.dumps(e) for e in episodes]
    path = args.out / f"fuzz_{args.family}.jsonl.gz"
    args.out.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), mtime=0))
    steps = sum(len(e["steps"]) for e in episodes)
    log.info("%s: %d episodes, %d steps -> %s", args.family, len(episodes), steps, path)


if __name__ == "__main__":
    main()
