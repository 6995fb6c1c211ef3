"""Build the sites' data once and cache it: the seeded database, the git repositories and the
wiki, under ``$AGENTGYM_ENVS_CACHE/webarena/v<N>`` (else ``$XDG_CACHE_HOME/agentgym-envs/...``,
``~/.cache`` when unset). A file lock makes concurrent processes (pytest-xdist workers, vector
envs) build it once; ``build.json`` records the build time and the disk size."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from agentgym_envs import paths
from agentgym_envs.envs.webarena.sites import data, repos
from agentgym_envs.locks import file_lock

logger = logging.getLogger(__name__)

GENERATOR_VERSION = 13
CACHE_ENV = paths.CACHE_ENV


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """``cache_dir``, else ``$AGENTGYM_ENVS_CACHE/webarena``, else the XDG cache folder; plus a
    generator-version folder."""
    base = Path(cache_dir).expanduser().resolve() if cache_dir is not None else None
    return (base or paths.cache_root("webarena")) / f"v{GENERATOR_VERSION}"


@dataclass(frozen=True)
class Built:
    """Where the built data is, and what building it cost."""

    root: Path
    seed_db: Path
    wiki_db: Path
    repos: Path
    seconds: float
    bytes: int


def _du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def build_wiki(path: Path) -> Path:
    """The encyclopedia (SearchQA's generated world, and the map city's articles from
    :mod:`.citywiki`) as an SQLite database with a full-text index: one article per title,
    its passages as paragraphs."""
    from agentgym_envs.envs.searchqa.world import build_world
    from agentgym_envs.envs.webarena.sites.citywiki import city_world

    world = build_world()
    articles: dict[str, list[str]] = {}
    for passage in world.passages:
        articles.setdefault(passage.title, []).append(passage.text)
    for title, body in city_world().articles():
        if title in articles:
            raise ValueError(f"the city's article {title!r} has the title of another article")
        articles[title] = [body]
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp)
    try:
        conn.execute("CREATE TABLE articles (id INTEGER PRIMARY KEY, title TEXT UNIQUE, body TEXT)")
        conn.executemany(
            "INSERT INTO articles (title, body) VALUES (?,?)",
            [(t, "\n\n".join(texts)) for t, texts in sorted(articles.items())],
        )
        conn.execute(
            "CREATE VIRTUAL TABLE articles_fts USING fts5(title, body, content=articles,"
            " content_rowid=id)"
        )
        conn.execute(
            "INSERT INTO articles_fts(rowid, title, body) SELECT id, title, body FROM articles"
        )
        conn.execute(
            "CREATE TABLE facts (id INTEGER PRIMARY KEY, question TEXT, answer TEXT, title TEXT)"
        )
        conn.executemany(
            "INSERT INTO facts (question, answer, title) VALUES (?,?,?)", _facts(world)
        )
        conn.commit()
    finally:
        conn.close()
    tmp.replace(path)
    return path


def _facts(world) -> list[tuple[str, str, str]]:
    """(question, answer, article) of the world's single-hop questions: the article is the
    one whose text states the answer (the tasks' expert opens it)."""
    texts = [(p.title, p.text) for p in world.passages]
    out = []
    for q in world.questions:
        if len(q.hops) != 1 or q.kind != "chain":
            continue
        pattern = re.compile(q.hops[0].pattern)
        for title, text in texts:
            if q.answers[0] in text and (m := pattern.search(text)) and m.group(1) == q.answers[0]:
                out.append((q.question, q.answers[0], title))
                break
        if len(out) >= 200:
            break
    return out


def build(cache_dir: str | os.PathLike[str] | None = None) -> Built:
    """The cached data (built now if missing; one process builds, the others wait)."""
    root = cache_root(cache_dir)
    root.mkdir(parents=True, exist_ok=True)
    manifest = root / "build.json"
    with file_lock(root / "build.lock"):
        if not manifest.exists():
            _build_into(root, manifest)
        facts = json.loads(manifest.read_text())
    return Built(
        root,
        root / "seed.db",
        root / "wiki.db",
        root / "repos",
        float(facts["seconds"]),
        int(facts["bytes"]),
    )


def _build_into(root: Path, manifest: Path) -> None:
    t0 = time.perf_counter()
    staging = root / "repos.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    shutil.rmtree(root / "repos", ignore_errors=True)
    commits = repos.build_repos(staging, data.project_plan(), data.code_user_names())
    t_repos = time.perf_counter() - t0
    data.seed_database(root / "seed.tmp", commits)
    (root / "seed.tmp").replace(root / "seed.db")
    t_db = time.perf_counter() - t0 - t_repos
    build_wiki(root / "wiki.db")
    staging.replace(root / "repos")
    seconds = time.perf_counter() - t0
    facts = {
        "seconds": round(seconds, 2),
        "repos_seconds": round(t_repos, 2),
        "db_seconds": round(t_db, 2),
        "bytes": _du(root),
        "db_bytes": (root / "seed.db").stat().st_size,
    }
    manifest.write_text(json.dumps(facts, indent=1))
    logger.info("built the WebArena sites' data in %.1f s (%s)", seconds, facts)
