"""AgentGym's clients' exact request shapes against a real server, one test per family.

Each test plays a test task with the family's scripted expert running on a local twin env and
checks that every server reply (observation text, reward, done) equals the local env's.
"""

from __future__ import annotations

import gymnasium as gym
import httpx
import pytest

from agentgym_envs.spec import expert_policy


def twin(env_id: str, task_id: int):
    env = gym.make(f"AgentGym/{env_id}")
    obs, info = env.reset(options={"split": "test", "task_id": task_id})
    return env, obs, info, expert_policy(env)


def item_index(env_id: str, task_id: int) -> int:
    """AgentGym's global item index of test task ``task_id`` (AgentEval's ``<prefix>_<n>``)."""
    env = gym.make(f"AgentGym/{env_id}")
    return env.unwrapped.tasks.agentgym_index("test", task_id)


@pytest.mark.parametrize("task_id", [0, 7])
def test_wordle_family_a(wordle_url, task_id):
    # LMRL-Gym's clients are given a base URL ending in /wordle (one app serves both games).
    with httpx.Client(base_url=wordle_url + "/wordle") as http:
        created = http.post("/create").json()
        assert set(created) == {"id"} and isinstance(created["id"], int)
        sid = created["id"]
        # WordleEnvClient fetches the vocabulary right after /create, for its first prompt.
        vocab = http.get("/filtered_vocab", params={"id": sid}).json()
        assert isinstance(vocab, list) and "shire" in vocab and all(len(w) == 5 for w in vocab)
        # LMRL-Gym's WordleEnvClient: reset {"id", "seed"}, then GET /observation.
        reset = http.post("/reset", json={"id": sid, "seed": item_index("Wordle-v0", task_id)})
        assert reset.status_code == 200 and "error" not in reset.json()
        env, obs, info, expert = twin("Wordle-v0", task_id)
        assert http.get("/observation", params={"id": sid}).json() == obs
        done = False
        while not done:
            action = expert(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            reply = http.post("/step", json={"id": sid, "action": action}).json()
            assert {"observation", "reward", "done"} <= set(reply)
            assert (reply["observation"], reply["reward"], reply["done"]) == (
                obs,
                reward,
                terminated or truncated,
            )
            done = reply["done"]
        assert reply["reward"] == 1.0 and info["success"]
        # A finished env refuses steps until /reset, with AgentGym's error.
        again = http.post("/step", json={"id": sid, "action": "s l a t e"}).json()
        assert again == {"error": f"The task with environment {sid} has finished."}
        assert http.post("/close", json={"id": sid}).json() == {"closed": sid}
        assert "error" in http.post("/step", json={"id": sid, "action": "x"}).json()


@pytest.mark.parametrize("prefix", ["", "/maze"])
def test_maze_family_a(maze_url, prefix):
    with httpx.Client(base_url=maze_url + prefix) as http:
        sid = http.post("/create").json()["id"]
        # MazeEnvClient: reset {"id", "game"}; GET /available_actions is the static move list.
        assert (
            "error"
            not in http.post("/reset", json={"id": sid, "game": item_index("Maze-v0", 3)}).json()
        )
        actions = http.get("/available_actions", params={"id": sid}).json()
        assert {"move up", "move down", "move left", "move right"} <= set(actions)
        env, obs, info, expert = twin("Maze-v0", 3)
        assert http.get("/observation", params={"id": sid}).json() == obs
        steps = 0
        while True:
            action = expert(obs, info)
            obs, reward, _terminated, _truncated, info = env.step(action)
            reply = http.post("/step", json={"id": sid, "action": action}).json()
            assert reply["observation"] == obs and reply["reward"] == reward
            steps += 1
            if reply["done"]:
                break
        assert reply["reward"] == 1.0 and steps <= 15
        # An illegal move is feedback, not an error reply.
        http.post("/reset", json={"id": sid, "game": item_index("Maze-v0", 3)})
        bad = http.post("/step", json={"id": sid, "action": "jump"}).json()
        assert "error" not in bad and bad["done"] is False and bad["reward"] == 0.0


def test_bird_family_b(bird_url):
    with httpx.Client(base_url=bird_url) as http:
        sid = http.post("/create").json()
        assert isinstance(sid, int)  # family B: a bare int
        index = item_index("BIRD-v0", 5)
        reply = http.post("/reset", json={"env_idx": sid, "item_id": index}).json()
        env, obs, info, expert = twin("BIRD-v0", 5)
        assert reply == [obs, None]
        assert http.get("/observation", params={"env_idx": sid}).json() == obs
        action = expert(obs, info)
        local = env.step(action)
        # SqlGymEnvClient sends only the SQL it cut out of the reply's ```sql block.
        sql = action.split("```sql")[-1].split("```")[0].strip()
        step = http.post("/step", json={"env_idx": sid, "action": sql}).json()
        assert set(step) == {"state", "reward", "done", "info"}
        assert (step["state"], step["reward"], step["done"]) == (local[0], 1.0, True)
        assert step["info"]["success"] is True
        # A wrong query scores 0 on a fresh reset.
        http.post("/reset", json={"env_idx": sid, "item_id": index})
        wrong = http.post("/step", json={"env_idx": sid, "action": "SELECT 1"}).json()
        assert wrong["reward"] == 0.0 and wrong["done"] is True
        # Family B sessions are named by env_idx.
        assert "error" in http.post("/step", json={"env_idx": 10_000, "action": "SELECT 1"}).json()


def test_weather_family_c(weather_url):
    with httpx.Client(base_url=weather_url) as http:
        index = item_index("Weather-v0", 2)
        sid = http.post("/create", json={"id": index}).json()
        assert isinstance(sid, int)
        env, obs, info, expert = twin("Weather-v0", 2)
        # create already started the item; reset {"env_idx", "id"} returns the observation string.
        assert http.get("/observation", params={"env_idx": sid}).json() == obs
        assert http.post("/reset", json={"env_idx": sid, "id": index}).json() == obs
        for _ in range(10):
            action = expert(obs, info)
            obs, reward, terminated, _truncated, info = env.step(action)
            reply = http.post("/step", json={"env_idx": sid, "action": action}).json()
            assert (reply["observation"], reply["reward"], reply["done"]) == (
                obs,
                reward,
                terminated,
            )
            if reply["done"]:
                break
        assert reply["done"] and reply["reward"] == 1.0


def test_errors_are_http_200_json(wordle_url):
    with httpx.Client(base_url=wordle_url) as http:
        for method, path, kwargs in [
            ("POST", "/step", {"json": {"id": 424242, "action": "a b c d e"}}),
            ("POST", "/reset", {"json": {"id": 424242, "seed": 0}}),
            ("GET", "/observation", {"params": {"id": 424242}}),
            ("POST", "/close", {"json": {"id": 424242}}),
            ("POST", "/step", {"json": {"action": "a b c d e"}}),
            ("POST", "/step", {"content": b"not json"}),
        ]:
            r = http.request(method, path, **kwargs)
            assert r.status_code == 200
            assert set(r.json()) == {"error"}, (path, r.json())
        sid = http.post("/create").json()["id"]
        r = http.post("/step", json={"id": sid, "action": "a b c d e"}).json()
        assert "reset" in r["error"]
        r = http.post("/reset", json={"id": sid, "seed": 1.5}).json()
        assert "must be an int" in r["error"]
        http.post("/close", json={"id": sid})


def test_textcraft_create_sends_first_observation():
    pytest.importorskip("minecraft_data")
    from tests.server.conftest import running

    with running("TextCraft-v0") as url, httpx.Client(base_url=url) as http:
        # TextCraftEnvClient posts its (null) custom commands/goal and reads "observation".
        created = http.post("/create", json={"minecraft_dir": "x/", "commands": None, "goal": None})
        created = created.json()
        assert isinstance(created["id"], int) and "Goal: craft" in created["observation"]
        sid = created["id"]
        index = item_index("TextCraft-v0", 1)
        reset = http.post("/reset", json={"id": sid, "data_idx": index}).json()
        env, obs, info, expert = twin("TextCraft-v0", 1)
        assert reset["observation"] == obs
        for _ in range(40):
            action = expert(obs, info)
            obs, reward, terminated, _, info = env.step(action)
            reply = http.post("/step", json={"id": sid, "action": action}).json()
            assert (reply["observation"], reply["reward"], reply["done"]) == (
                obs,
                reward,
                terminated,
            )
            if reply["done"]:
                break
        assert reply["done"] and reply["reward"] == 1.0
        assert http.post("/close", json={"id": sid}).json() == {"closed": sid}
        custom = http.post("/create", json={"commands": "craft 1 x using 1 y", "goal": "x"})
        assert "not supported" in custom.json()["error"]


def test_webshop_family_b_available_actions():
    pytest.importorskip("bm25s")
    from tests.server.conftest import running

    with running("WebShop-v0") as url, httpx.Client(base_url=url) as http:
        sid = http.post("/create").json()
        index = item_index("WebShop-v0", 0)
        # WebShopEnvClient: reset {"env_idx", "session_id"}; GET /available_actions.
        obs, extra = http.post("/reset", json={"env_idx": sid, "session_id": index}).json()
        assert extra is None and obs.startswith("WebShop [SEP] Instruction:")
        actions = http.get("/available_actions", params={"env_idx": sid}).json()
        assert actions == {"has_search_bar": True, "clickables": []}
        env, local_obs, info, expert = twin("WebShop-v0", 0)
        assert local_obs == obs
        action = expert(local_obs, info)
        local = env.step(action)
        reply = http.post("/step", json={"env_idx": sid, "action": action}).json()
        assert reply["state"] == local[0] and reply["done"] is False
        after = http.get("/available_actions", params={"env_idx": sid}).json()
        assert after["has_search_bar"] is False and "next >" in after["clickables"]
