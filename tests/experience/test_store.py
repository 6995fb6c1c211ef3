"""The store: where it lives, its migrations, and that the models match them."""

from __future__ import annotations

import pytest


def test_migrations_create_the_schema_the_models_describe(store):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import inspect

    from agentgym_envs.experience.models import Base

    assert store.revision() == "0001"
    tables = set(inspect(store.engine).get_table_names())
    assert {
        "agent_versions",
        "promotions",
        "ab_tests",
        "runs",
        "episodes",
        "steps",
        "feedback",
    } <= tables
    with store.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diffs == []


def test_opening_twice_keeps_the_data(tmp_path):
    from agentgym_envs.experience import open_store, register_version

    path = tmp_path / "x.db"
    with open_store(path) as s:
        register_version(s, "agent", "1", model="m")
    with open_store(path) as s:
        assert s.revision() == "0001"
        from agentgym_envs.experience import list_versions

        assert [v["label"] for v in list_versions(s)] == ["agent@1"]


def test_default_location_follows_agentgym_home(tmp_path, monkeypatch):
    from agentgym_envs.experience.store import DB_FILE, default_url, open_store

    monkeypatch.delenv("AGENTGYM_EXPERIENCE_URL", raising=False)
    monkeypatch.setenv("AGENTGYM_HOME", str(tmp_path / "home"))
    assert default_url() == f"sqlite:///{tmp_path / 'home' / DB_FILE}"
    with open_store() as s:
        assert s.revision() == "0001"
    assert (tmp_path / "home" / DB_FILE).is_file()


def test_default_location_without_home_is_the_user_data_dir(monkeypatch):
    import platformdirs

    from agentgym_envs.experience.store import data_dir, default_url

    monkeypatch.delenv("AGENTGYM_EXPERIENCE_URL", raising=False)
    monkeypatch.delenv("AGENTGYM_HOME", raising=False)
    assert str(data_dir()) == platformdirs.user_data_dir("agentgym", appauthor=False)
    monkeypatch.setenv("AGENTGYM_EXPERIENCE_URL", "sqlite:////tmp/elsewhere.db")
    assert default_url() == "sqlite:////tmp/elsewhere.db"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("postgresql://u@h:5/db", "postgresql+psycopg://u@h:5/db"),
        ("postgres://u@h/db", "postgresql+psycopg://u@h/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("sqlite:///a.db", "sqlite:///a.db"),
    ],
)
def test_urls_are_normalised(given, expected):
    from agentgym_envs.experience.store import _normalise_url

    assert _normalise_url(given) == expected


def test_a_missing_postgres_server_is_an_error_not_a_hang(tmp_path):
    from sqlalchemy.exc import OperationalError

    from agentgym_envs.experience import open_store
    from tests.experience.conftest import _free_port

    with pytest.raises(OperationalError):
        open_store(f"postgresql://nobody@127.0.0.1:{_free_port()}/none?connect_timeout=5")
