"""The README stays true: its env table is the registry's, its test command is CI's."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env_table():
    spec = importlib.util.spec_from_file_location("env_table", ROOT / "scripts" / "env_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.table()


def test_env_table_matches_registry():
    readme = (ROOT / "README.md").read_text()
    assert _env_table() in readme, (
        "README's env table is stale: paste the output of python scripts/env_table.py"
    )


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    match = re.search(r"<!-- test-command -->\s*```(?:sh|bash)?\n(.+?)\n```", readme, re.S)
    assert match, "README lacks the marked test command block"
    command = match.group(1).strip()
    assert command in (ROOT / ".ci" / "run").read_text()


def test_readme_names_only_commands_and_options_the_cli_has():
    from agentgym_envs.docs_check import cli_errors, cli_mentions

    readme = (ROOT / "README.md").read_text()
    assert any(m.words[:1] == ("bench",) for m in cli_mentions(readme))  # the main job
    assert cli_errors(readme) == []


def test_readme_main_command_uses_an_existing_extra_and_an_embedded_default():
    import tomllib

    readme = (ROOT / "README.md").read_text()
    match = re.search(r"<!-- main-command -->\s*```(?:sh|bash)?\n(.+?)\n```", readme, re.S)
    assert match, "README lacks the marked main command block"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for extra in re.findall(r'pip install -e "\.\[([\w,-]+)\]"', match.group(1)):
        assert set(extra.split(",")) <= set(extras)
    envs = re.search(r"--envs (\S+)", match.group(1)).group(1).split(",")
    assert all(f"`AgentGym/{e}`" in readme for e in envs)  # ids from the table


def test_readme_links_point_at_pages_that_exist():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?!https?:)[^)#]+)\)", readme)
    assert links, "README links into the docs"
    for link in links:
        assert (ROOT / link).is_file(), f"README links to {link}, which does not exist"
    nav = (ROOT / "mkdocs.yml").read_text()
    guides = {f"docs/{g}" for g in re.findall(r":\s*(guides/[\w-]+\.md)", nav)}
    assert guides and guides <= set(links), "README links every guide of the site's nav"
