"""MkDocs hooks: the family pages, generated from the registry while the site builds."""

from __future__ import annotations

from mkdocs.structure.files import File, Files

from agentgym_envs.docs import FAMILY_DIR, family_pages
from agentgym_envs.spec import FAMILIES

ENVIRONMENTS = "Environments"


def on_config(config):
    """Replace the ``Environments`` nav entry by the overview and one entry per family."""
    section = [{"Overview": f"{FAMILY_DIR}/index.md"}]
    section += [{f.display_name: f"{FAMILY_DIR}/{f.name}.md"} for f in FAMILIES.values()]
    config.nav = [
        {ENVIRONMENTS: section} if isinstance(e, dict) and ENVIRONMENTS in e else e
        for e in config.nav
    ]
    return config


def on_files(files: Files, config) -> Files:
    for path, text in family_pages().items():
        files.append(File.generated(config, path, content=text))
    return files
