"""MkDocs hooks: generated pages (families, notebooks, the CLI reference), the nav sections others fill, and the
checks that make a page naming a missing command, or a bad docs-test marker, fail the build."""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.structure.files import File, Files

from agentgym_envs import cli_reference
from agentgym_envs.docs import FAMILY_DIR, family_pages, notebook_pages
from agentgym_envs.docs_check import (
    cli_command,
    cli_errors,
    code_blocks,
    default_errors,
    name_errors,
)
from agentgym_envs.spec import FAMILIES

#: Counted by MkDocs: under ``strict`` a warning fails the build.
log = logging.getLogger("mkdocs.hooks.agentgym")

ENVIRONMENTS = "Environments"
GUIDES = "Guides"
NOTEBOOKS = "Notebooks"
#: Pages under ``docs/agent-server/`` join this section, ``index.md`` first.
AGENTS = "Agents and agent servers"
AGENT_DIR = "agent-server"
NOTEBOOK_DIR = "notebooks"
#: The notebooks the site renders (relative to the checkout).
NOTEBOOK_SOURCE = Path(__file__).resolve().parent.parent / "examples" / "notebooks"

_cli = None


def _listed(nav) -> set[str]:
    found: set[str] = set()
    for entry in nav or []:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            found |= _listed(value)
        elif isinstance(value, str):
            found.add(value)
    return found


def _section(docs: Path, folder: str, listed: set[str], first: str = "index.md") -> list[str]:
    """Pages under ``docs/folder`` the nav does not list yet (``first`` leading)."""
    pages = sorted(p.relative_to(docs).as_posix() for p in (docs / folder).rglob("*.md"))
    pages = [p for p in pages if p not in listed]
    return sorted(pages, key=lambda p: (not p.endswith(f"/{first}"), p))


def on_config(config):
    """Expand the generated sections, and add the pages other areas write to theirs."""
    docs = Path(config.docs_dir)
    listed = _listed(config.nav)
    families = [{"Overview": f"{FAMILY_DIR}/index.md"}]
    families += [{f.display_name: f"{FAMILY_DIR}/{f.name}.md"} for f in FAMILIES.values()]
    notebooks = [{"Overview": "notebooks.md"}]
    notebooks += [{title: path} for path, (title, _) in notebook_pages(NOTEBOOK_SOURCE).items()]
    extra = {
        ENVIRONMENTS: families,
        NOTEBOOKS: notebooks,
        GUIDES: None,  # guides not in the nav yet (scale-out, ecosystems): appended
        AGENTS: None,  # docs/agent-server/: before what the section lists today
    }
    nav = []
    for entry in config.nav:
        name = next(iter(entry)) if isinstance(entry, dict) else None
        if name == GUIDES:
            entry = {name: entry[name] + _section(docs, "guides", listed)}
        elif name == AGENTS:
            entry = {name: _section(docs, AGENT_DIR, listed) + entry[name]}
        elif name in extra:
            entry = {name: extra[name]}
        nav.append(entry)
    config.nav = nav
    return config


def on_files(files: Files, config) -> Files:
    """Add the family pages, the notebooks and the CLI reference, written while the site
    builds."""
    files.append(File.generated(config, cli_reference.PAGE, content=cli_reference.cli_reference()))
    for path, text in family_pages().items():
        files.append(File.generated(config, path, content=text))
    for path, (_, text) in notebook_pages(NOTEBOOK_SOURCE).items():
        files.append(File.generated(config, path, content=text))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Warn (strict: fail) on a docs-test marker mistake, a command or option the CLI does not
    have, a stale name of the package, or a number default the CLI does not have."""
    global _cli
    where = page.file.src_uri
    if not page.file.generated_by:
        for error in code_blocks(markdown).errors:
            log.warning("%s: %s", where, error)
    _cli = _cli or cli_command()
    problems = cli_errors(markdown, _cli) + name_errors(markdown) + default_errors(markdown, _cli)
    for error in problems:
        log.warning("%s: %s", where, error)
    return markdown
