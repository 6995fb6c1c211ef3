"""Control characters, NULs and lone surrogates in actions, through ``agentgym serve``.

AgentGym's own servers echo an action's text into the observation (TextCraft's ``Could not
execute <action>``, sqlgym's SQLite error text): control characters and NULs reach the client
as they were sent, and so they do here (parity). A lone surrogate (``"\\ud800"`` in a JSON
body) would break UTF-8: AgentGym's server answers 500; ours carries it as a JSON escape, so
the client decodes the very string it sent.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.server.conftest import running

ODD = "\x00\x01\x1b[31m\x7f\u2028\ud800"


@pytest.fixture(scope="module")
def textcraft_url():
    pytest.importorskip("minecraft_data")
    with running("TextCraft-v0") as url:
        yield url


def _post(url: str, path: str, body: dict) -> dict:
    # "\ud800" cannot be UTF-8: send the body as a client's JSON does, with ASCII escapes
    raw = json.dumps(body, ensure_ascii=True).encode()
    reply = httpx.post(url + path, content=raw, headers={"content-type": "application/json"})
    assert reply.status_code == 200, reply.text[:300]
    return json.loads(reply.content.decode("utf-8"))  # valid UTF-8 and JSON


def test_textcraft_echoes_odd_characters_as_agentgym_does(textcraft_url):
    created = _post(textcraft_url, "/create", {})
    sid = created["id"]
    _post(textcraft_url, "/reset", {"id": sid, "data_idx": 0})
    action = f"craft {ODD}"
    reply = _post(textcraft_url, "/step", {"id": sid, "action": action})
    assert reply["observation"] == f"Could not execute {action}"


def test_bird_echoes_odd_characters_in_sqlite_errors(bird_url):
    sid = httpx.post(bird_url + "/create").json()
    for query, echoed in (
        ("SELECT \x1b\x01", "\x1b"),
        ("SELECT '\x00\x07' FROM", None),
        (f"SELECT {ODD}", None),
    ):
        _post(bird_url, "/reset", {"env_idx": sid, "item_id": 0})
        reply = _post(bird_url, "/step", {"env_idx": sid, "action": query})
        assert reply["done"] is True and reply["reward"] == 0.0
        if echoed is not None:  # sqlite names the token it cannot read, as sqlgym passes on
            assert echoed in reply["state"], reply["state"]
