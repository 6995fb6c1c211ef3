"""Episode search on a real PostgreSQL with pgvector, as a non-superuser application role (so
row-level security applies): near neighbours are found, free text finds the right episodes,
and one organisation never sees another's episodes -- through the functions and through the
HTTP router served by uvicorn on 127.0.0.1."""

from __future__ import annotations

import uuid

import pytest

pytest.importorskip("pgvector")
pytest.importorskip("psycopg")
httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")

from fastapi import FastAPI, Request

from agentgym_envs.platform.embeddings import (
    EndpointEmbedder,
    HashingEmbedder,
    WordLlamaEmbedder,
    embedder_from_env,
)
from agentgym_envs.platform.search import (
    EpisodeNotIndexed,
    http_index_episode,
    http_search_episodes,
    http_similar_episodes,
    index_episode,
    search_episodes,
    similar_episodes,
)
from tests.experience.conftest import postgres  # noqa: F401  (the session's PostgreSQL)
from tests.platform.ops_db import ORG_HEADER, app_database, tenant, tenant_dependency
from tests.served import Served

ORG_A, ORG_B = str(uuid.uuid4()), str(uuid.uuid4())

MAZE = [
    ("You are at the start of a maze. Walls to the north.", "move right"),
    ("You moved right. Walls to the east and north.", "move down"),
    ("You moved down. You see the goal to the south.", "move down"),
]
MAZE_TWIN = [
    ("You are at the start of a maze. Walls to the west.", "move right"),
    ("You moved right. Walls to the east and south.", "move up"),
    ("You moved up. You see the goal to the north.", "move up"),
]
SHOP = [
    ("WebShop: find a red cotton t-shirt under 20 dollars", "search[red cotton t-shirt]"),
    ("Results: red cotton tee $15, blue shirt $30", "click[red cotton tee]"),
    ("Item page: red cotton tee, size M", "click[buy now]"),
]
SQL = [
    ("Database schema: employees(id, name, salary). How many employees?", "SELECT COUNT(*)"),
    ("Result: 42", "submit 42"),
]


@pytest.fixture(scope="module")
def engine(postgres):  # noqa: F811
    from sqlalchemy import create_engine

    _, app_url = app_database(postgres)
    eng = create_engine(app_url)
    with tenant(eng, ORG_A) as s:
        index_episode(s, "a-maze", MAZE, env_id="Maze-v0")
        index_episode(s, "a-maze-twin", MAZE_TWIN, env_id="Maze-v0")
        index_episode(s, "a-shop", SHOP, env_id="WebShop-v0")
        index_episode(s, "a-sql", SQL, env_id="BIRD-v0")
    with tenant(eng, ORG_B) as s:
        index_episode(s, "b-maze", MAZE, env_id="Maze-v0")  # the very same episode text
        index_episode(s, "b-shop", SHOP[:2], env_id="WebShop-v0")
    yield eng
    eng.dispose()


def test_an_episode_is_its_own_nearest_and_similar_ones_rank_above_unrelated(engine):
    with tenant(engine, ORG_A) as s:
        mine = similar_episodes(s, "a-maze", k=10, include_self=True)
        others = similar_episodes(s, "a-maze", k=10)
        shop = similar_episodes(s, "a-shop", k=3, include_self=True)
    assert mine[0]["episode_id"] == "a-maze" and mine[0]["distance"] == pytest.approx(0, abs=1e-6)
    assert next(h["episode_id"] for h in others) == "a-maze-twin"
    assert "a-maze" not in [h["episode_id"] for h in others]
    ranked = [h["episode_id"] for h in others]
    assert ranked.index("a-maze-twin") < ranked.index("a-shop")
    assert ranked.index("a-maze-twin") < ranked.index("a-sql")
    assert others[0]["similarity"] > others[-1]["similarity"]
    assert shop[0]["episode_id"] == "a-shop" and shop[0]["env_id"] == "WebShop-v0"


def test_free_text_finds_the_matching_episode(engine):
    with tenant(engine, ORG_A) as s:
        tshirt = search_episodes(s, "buy a red cotton t-shirt", k=2)
        employees = search_episodes(s, "count the employees in the database", k=1)
        maze = search_episodes(s, "maze goal walls", k=2)
    assert tshirt[0]["episode_id"] == "a-shop"
    assert employees[0]["episode_id"] == "a-sql"
    assert {h["episode_id"] for h in maze} == {"a-maze", "a-maze-twin"}


def test_tenant_isolation_is_the_databases(engine):
    from sqlalchemy import text

    with tenant(engine, ORG_B) as s:
        seen = {h["episode_id"] for h in search_episodes(s, "maze red shirt employees", k=50)}
        assert seen == {"b-maze", "b-shop"}
        # B's copy of A's episode finds B's episodes only, though A's twin is identical
        assert {h["episode_id"] for h in similar_episodes(s, "b-maze", k=50)} == {"b-shop"}
        with pytest.raises(EpisodeNotIndexed):  # A's episode does not exist for B
            similar_episodes(s, "a-maze")
        # not even a raw query sees A's rows: row-level security, not a WHERE in our code
        assert s.execute(text("SELECT count(*) FROM episode_embeddings")).scalar() == 2
    # a session that set no organisation sees nothing and can write nothing
    from sqlalchemy.orm import Session

    with Session(engine) as s:
        assert s.execute(text("SELECT count(*) FROM episode_embeddings")).scalar() == 0
        with pytest.raises(Exception, match="null value|violates"):
            index_episode(s, "orphan", MAZE)
        s.rollback()
    # B cannot write a row as A either
    with pytest.raises(Exception, match="row-level security"), tenant(engine, ORG_B) as s:
        s.execute(
            text(
                "INSERT INTO episode_embeddings (org_id, episode_id, model, embedding) "
                "VALUES (CAST(:org AS uuid), 'forged', 'm', '[1,0]')"
            ),
            {"org": ORG_A},
        )


def test_reindexing_replaces_and_bad_input_is_one_line(engine):
    org = str(uuid.uuid4())
    with tenant(engine, org) as s:
        index_episode(s, "e1", MAZE)
        index_episode(s, "e1", SHOP)  # the same episode, new text
        hits = search_episodes(s, "red cotton tee", k=5)
        assert [h["episode_id"] for h in hits] == ["e1"]
        for call, match in (
            (lambda: index_episode(s, "e2", []), "no text"),
            (lambda: search_episodes(s, "  "), "needs a query"),
            (lambda: search_episodes(s, "maze", k=0), "1 to 100"),
        ):
            with pytest.raises(Exception, match=match):
                call()


def test_router_and_client_helpers_over_http(engine):
    from agentgym_envs.platform.search import search_router

    app = FastAPI()
    app.include_router(search_router(tenant_dependency(engine)))
    org = str(uuid.uuid4())
    with Served(app) as url:
        a = httpx.Client(base_url=url, headers={ORG_HEADER: org}, timeout=60)
        b = httpx.Client(base_url=url, headers={ORG_HEADER: ORG_B}, timeout=60)
        assert http_index_episode(a, "h/1", MAZE, env_id="Maze-v0")["model"].startswith("wordllama")
        http_index_episode(a, "h/2", SHOP, env_id="WebShop-v0")
        http_index_episode(a, "h/3", MAZE_TWIN, env_id="Maze-v0")
        near = http_similar_episodes(a, "h/1", k=2)
        assert [h["episode_id"] for h in near] == ["h/3", "h/2"]
        assert http_search_episodes(a, "red cotton t-shirt", k=1)[0]["episode_id"] == "h/2"
        # B: A's episode is a 404 exactly like a missing one, and A's hits never show
        with pytest.raises(EpisodeNotIndexed, match="not indexed"):
            http_similar_episodes(b, "h/1")
        with pytest.raises(EpisodeNotIndexed, match="not indexed"):
            http_similar_episodes(b, "never-was")
        assert not {h["episode_id"] for h in http_search_episodes(b, "maze", k=50)} & {
            "h/1",
            "h/2",
            "h/3",
        }
        bad = a.post("/search/episodes", json={"episode_id": "x"})
        assert bad.status_code == 400 and "no text" in bad.json()["detail"]
        assert a.get("/search/episodes", params={"q": "x", "k": 0}).status_code == 422


def test_hashing_embedder_is_deterministic_and_normalised():
    e = HashingEmbedder()
    one, two = e.embed(["Move right, then down.", "Move right, then down."])
    assert one == two and len(one) == 256
    assert sum(x * x for x in one) == pytest.approx(1.0)
    assert isinstance(embedder_from_env({"AGENTGYM_EMBEDDINGS": "hashing"}), HashingEmbedder)
    with pytest.raises(Exception, match="wordllama or hashing"):
        embedder_from_env({"AGENTGYM_EMBEDDINGS": "bert"})


def test_the_default_is_a_small_model_from_its_package_offline():
    """WordLlama's weights are in its wheel: loaded without a network, normalised, and it
    knows related words that share no letters (which hashing cannot)."""
    pytest.importorskip("wordllama")
    e = embedder_from_env({})
    assert isinstance(e, WordLlamaEmbedder) and e.name == "wordllama-l2-supercat-256"
    shirt, crimson, maze = e.embed(
        ["buy a red cotton t-shirt", "purchase a crimson shirt", "walls to the north, move down"]
    )
    assert len(shirt) == 256 and sum(x * x for x in shirt) == pytest.approx(1.0, abs=1e-4)

    def cos(a, b):
        return sum(x * y for x, y in zip(a, b))

    assert cos(shirt, crimson) > cos(shirt, maze) + 0.1
    # words that share no letters: related ones are nearer than unrelated ones
    buy, purchase, walk = e.embed(["buy", "purchase", "walk"])
    assert cos(buy, purchase) > cos(buy, walk)


def test_endpoint_embedder_over_an_openai_compatible_server():
    """The endpoint embedder speaks OpenAI's /v1/embeddings to a server on 127.0.0.1; a
    server that cannot answer is one clear error."""
    app = FastAPI()
    seen = []

    @app.post("/v1/embeddings")
    async def embeddings(request: Request) -> dict:
        body = await request.json()
        seen.append((request.headers.get("authorization"), body["model"]))
        vecs = HashingEmbedder(16).embed(body["input"])
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vecs)]
        return {"object": "list", "data": data[::-1], "model": body["model"]}

    with Served(app) as url:
        env = {"AGENTGYM_EMBEDDINGS_URL": url + "/v1", "AGENTGYM_EMBEDDINGS_MODEL": "tiny"}
        embedder = embedder_from_env({**env, "AGENTGYM_EMBEDDINGS_KEY": "k1"})
        assert isinstance(embedder, EndpointEmbedder) and embedder.name == "endpoint:tiny"
        vectors = embedder.embed(["alpha", "beta", "alpha"])
        assert vectors[0] == vectors[2] != vectors[1] and len(vectors[0]) == 16
        assert seen == [("Bearer k1", "tiny")]
        with pytest.raises(Exception, match="AGENTGYM_EMBEDDINGS_URL"):
            EndpointEmbedder(url + "/nothing-here", "tiny").embed(["x"])
