"""The hubs attacked (#42.4): the OpenEnv and ORS servers, each in its own venv with its own
package (``drivers/hub_attacks.py``), sent bad task ids and splits, bodies no client library
sends (raw sockets), WebSocket frames that are not messages, and more sessions than the cap.
Every bad input is a 4xx in the hub's own error shape; no session ends over a bad frame."""

from __future__ import annotations

import pytest

from tests.integrations.ecosystems import ecosystem, run_driver

ENV = "AgentGym/Maze-v0"


def _is_413(big: dict) -> None:
    for how in ("declared", "chunked"):
        assert big[how]["head"].startswith("HTTP/1.1 413"), big[how]
    assert big["declared"]["sent"] < (64 << 20) // 2


@pytest.fixture(scope="module")
def openenv():
    return run_driver(ecosystem("openenv"), "hub_attacks", {"hub": "openenv", "env_id": ENV})


@pytest.fixture(scope="module")
def ors():
    job = {"hub": "ors", "env_id": ENV, "cap": 4}
    return run_driver(ecosystem("openreward"), "hub_attacks", job)


def test_openenv_reset_with_a_bad_task_is_a_422_in_openenvs_shape(openenv):
    says = {
        "task_big": "has no task 1000000",
        "task_neg": "has no task -1",
        "task_str": "has no task '3'",
        "task_float": "has no task 1.5",
        "split_bad": "has no split 'nope'",
        "split_list": "has no split ['test']",
        "split_null": "has no split None",
        "seed_str": "valid integer",  # OpenEnv's own request model says this one
    }
    for key, text in says.items():
        answer = openenv["reset"][key]
        assert answer["status"] == 422 and text in str(answer["body"]["detail"]), (key, answer)
    assert openenv["good"]["status"] == 200
    assert openenv["deep"]["status"] == 400 and "nested deeper" in openenv["deep"]["body"]["detail"]
    _is_413(openenv["big"])


def test_openenv_websocket_bad_frames_get_an_error_and_the_session_goes_on(openenv):
    frames = openenv["ws"]
    assert [f["frame"] for f in frames][-1] == "final-step"
    for frame in frames[:-1]:
        answer = frame["answer"]
        assert answer["type"] == "error" and answer["data"]["code"] in (
            "VALIDATION_ERROR",
            "INVALID_JSON",
        ), frame
        assert frame["then"] == "observation", frame  # the next reset on the same connection
    assert frames[-1]["then"] == "observation"


def test_ors_bad_tasks_are_400_at_session_creation(ors):
    for key in (
        "task_missing",
        "task_null",
        "task_str",
        "task_big",
        "task_neg",
        "split_bad",
        "split_null",
        "index_neg",
        "index_big",
    ):
        answer = ors["create"][key]
        assert answer["status"] == 400 and answer["body"]["detail"], (key, answer)
    assert "no task_id" in ors["create"]["task_missing"]["body"]["detail"]
    assert "not a task" in ors["create"]["index_neg"]["body"]["detail"]  # never task 24
    assert ors["index_0"]["status"] == 200
    # a tool call naming a refused session: the SDK's 404, not a 500
    assert ors["act_on_refused"]["status"] == 404
    for key, error in ors["sdk"].items():  # the SDK client gets the 400, not a 500
        assert error is not None and "500" not in error["message"], (key, error)
    assert ors["deep"]["status"] == 400
    _is_413(ors["big"])


def test_ors_sessions_past_the_cap_are_busy_without_a_thread(ors):
    assert ors["held"] == [200] * 4
    assert all(e["status"] == 503 and "busy" in e["body"]["detail"] for e in ors["extra"])
    assert ors["threads_added"] <= 4  # no session thread for a refused one (16 asked for)
    assert ors["after_delete"] == 200
