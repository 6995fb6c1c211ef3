"""The docs and the CLI agree: every command has a page, and no page names a command or an
option the CLI does not have (the build fails on one); the docs-test markers are well formed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agentgym_envs.docs_check import (
    cli_command,
    cli_commands,
    cli_errors,
    cli_mentions,
    code_blocks,
    commands_named,
    leaf_commands,
)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Every page anywhere under docs/ (other areas add theirs in folders of their own).
PAGES = sorted(DOCS.rglob("*.md"))


@pytest.fixture(scope="module")
def cli():
    return cli_command()


def test_the_command_list_includes_sub_apps(cli):
    paths = cli_commands(cli)
    leaves = leaf_commands(cli)
    assert ("experience", "versions", "promote") in leaves  # two levels of sub-apps
    assert ("bench",) in leaves and ("bench", "compare") in leaves  # a group that runs itself
    assert ("experience",) in paths and ("experience",) not in leaves


def test_every_command_has_a_page(cli):
    named: set[tuple[str, ...]] = set()
    for page in PAGES:
        named |= commands_named(page.read_text("utf-8"), cli)
    missing = [" ".join(("agentgym", *p)) for p in leaf_commands(cli) if p not in named]
    assert not missing, f"no page under docs/ mentions: {', '.join(missing)}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_pages_name_only_real_commands_and_options(page, cli):
    assert cli_errors(page.read_text("utf-8"), cli) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_docs_test_markers_are_well_formed(page):
    parsed = code_blocks(page.read_text("utf-8"))
    assert parsed.errors == []
    for block in parsed.blocks:
        if block.action == "skip":
            assert block.reason


def test_unknown_commands_and_options_are_found(cli):
    text = (
        "Run `agentgym bench --envs Maze-v0 --bogus 3` or `agentgym nosuch`.\n\n"
        "```sh\n"
        "agentgym experience versions promote a@1 --author me \\\n"
        "    --nope   # --commented-out is fine\n"
        "agentgym serve Maze-v0 --port 8000 && agentgym doctor --json\n"
        "pip install agentgym-envs; python -m agentgym_envs.cli list\n"
        "```\n"
    )
    errors = cli_errors(text, cli)
    assert len(errors) == 4, errors
    assert "`agentgym bench --bogus`: no such option" in errors[2]
    assert "`agentgym nosuch`: no such command" in errors[-1]
    assert any("promote --nope" in e for e in errors)
    assert any("doctor --json" in e for e in errors)
    words = [m.words[:1] for m in cli_mentions(text)]
    assert ("serve",) in words and ("doctor",) in words


def test_markers_that_are_wrong_are_reported():
    text = (
        "<!-- docs-test: skip -->\n```python\nx = 1\n```\n\n"
        "<!-- docs-test: runn -->\n```sh\nls\n```\n\n"
        "<!-- docs-test: run -->\n```yaml\na: 1\n```\n\n"
        "<!-- docs-test: run -->\n\nSome text.\n\n```sh\nls\n```\n"
    )
    errors = code_blocks(text).errors
    assert len(errors) == 4, errors
    assert "say why the block is skipped" in errors[0]
    assert "unknown docs-test marker 'runn'" in errors[1]
    assert "cannot run" in errors[2]
    assert "just before a block" in errors[3]


def test_default_and_marked_blocks():
    text = (
        "```python\na = 1\n```\n\n```sh\nrm -rf /\n```\n\n"
        "<!-- docs-test: run -->\n```bash\necho hi\n```\n\n"
        "<!-- docs-test: skip (needs a GPU) -->\n```python\nimport torch\n```\n\n"
        "<!-- docs-test: file p.yaml -->\n```yaml\nname: x\n```\n\n"
        "<!-- docs-test: server 8000 agentgym serve Maze-v0 --port 8000 -->\n"
    )
    page = code_blocks(text)
    assert [b.action for b in page.blocks] == ["run", None, "run", "skip", "file"]
    assert page.blocks[3].reason == "needs a GPU" and page.blocks[4].path == "p.yaml"
    assert [(s.port, s.command) for s in page.servers] == [
        (8000, "agentgym serve Maze-v0 --port 8000")
    ]
    assert [b.code for b in page.runnable] == ["a = 1", "echo hi", "name: x"]


def test_the_build_fails_on_a_page_naming_a_missing_option(tmp_path):
    """The site's own page check (``docs/hooks.py``), one page that names an option nobody has:
    ``agentgym docs`` (strict) fails and says which."""
    pytest.importorskip("mkdocs", reason='needs the docs extra: pip install "agentgym-envs[docs]"')
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nRun `agentgym serve Maze-v0 --turbo`.\n")
    hook = tmp_path / "check_hook.py"  # the site's page check alone (no family pages to build)
    hook.write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('site_hooks', {str(DOCS / 'hooks.py')!r})\n"
        "site = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(site)\n"
        "on_page_markdown = site.on_page_markdown\n"
    )
    config = tmp_path / "mkdocs.yml"
    config.write_text(f"site_name: t\nhooks:\n  - {hook}\nnav:\n  - Home: index.md\n")
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "docs", "--config", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert "agentgym serve --turbo`: no such option" in done.stderr
    (docs / "index.md").write_text("# Home\n\nRun `agentgym serve Maze-v0 --port 8000`.\n")
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "docs", "--config", str(config)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_stale_or_missing_package_name_is_refused():
    from agentgym_envs.docs_check import name_errors

    page = (
        "Collect with `agentgym_envs.rollout.ray_backend.ray_collect(...)`.\n"
        "\n"
        "```python\n"
        "from agentgym_envs.rollout.nowhere import collect\n"
        "```\n"
        "See agentgym_envs.rollout.collect_later and agentgym_envs.nomodule.\n"
    )
    errors = name_errors(page)
    assert len(errors) == 4, errors
    assert errors[0].startswith("line 1: `agentgym_envs.rollout.ray_backend` is kept only")
    assert "`agentgym_envs.rollout.ray`" in errors[0]  # the mend: where it lives now
    assert "line 4:" in errors[1] and "line 6:" in errors[2] and "no `nomodule`" in errors[3]
    current = (
        "`agentgym_envs.rollout.ray.ray_collect`, `agentgym_envs.rollout.collect`, "
        "`agentgym_envs.paths.cache_root()`, `agentgym_envs.core.TextEnv.reset`."
    )
    assert name_errors(current) == []


def test_every_page_names_only_current_package_names():
    from agentgym_envs.docs_check import name_errors

    for page in [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]:
        assert name_errors(page.read_text(encoding="utf-8")) == [], page


def test_a_stated_default_the_cli_does_not_have_is_refused():
    from agentgym_envs.docs_check import default_errors

    page = (
        "`--max-reasks` re-asks (default 7) and `--timeout` (default 600 s) is the deadline.\n"
        "```sh\n`--max-reasks` (default 9)\n```\n"
    )
    assert default_errors(page) == [
        "line 1: `--max-reasks` is said to default to 7; the CLI's default is 2"
    ]  # the block is not prose; 600 s is the harness's real default
    for page in [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]:
        assert default_errors(page.read_text(encoding="utf-8")) == [], page
