"""The documentation site: family pages from the registry and a real reset, the strict build."""

from __future__ import annotations

import html
import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import agentgym_envs
from agentgym_envs.docs import (
    FAMILY_DIR,
    PARITY_SHORT,
    PARITY_TEXT,
    Example,
    build_site,
    docstring_markdown,
    family_index,
    family_page,
    find_config,
    rst_to_markdown,
)
from agentgym_envs.errors import AgentGymError
from agentgym_envs.spec import ENV_INFO, FAMILIES

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("mkdocs", reason='the docs need their extra: pip install "agentgym-envs[docs]"')


def test_index_lists_every_id_with_its_registry_facts():
    page = family_index()
    for info in ENV_INFO.values():
        row = next(line for line in page.splitlines() if f"`{info.id}`" in line)
        family = FAMILIES[info.family]
        assert f"]({family.name}.md)" in row
        assert f"{info.splits['train']} / {info.splits['test']}" in row
        assert f"| {info.max_rounds} |" in row
        assert f"| {PARITY_SHORT[info.parity]} |" in row
    for text in PARITY_TEXT.values():
        assert text in page  # the legend under the table


def test_family_page_shows_a_real_reset_and_the_expert_steps():
    page = family_page(FAMILIES["maze"])
    for info in (i for i in ENV_INFO.values() if i.family == "maze"):
        env = gym.make(info.id)
        obs, _ = env.reset(seed=0, options={"split": "test", "task_id": 0})
        expert = agentgym_envs.expert_policy(env)
        action = expert(obs, {})
        step_obs = env.step(action)[0]
        env.close()
        section = page.split(f"### `{info.id}`", 1)[1]
        assert obs in section
        assert f"```text\n{action}\n```" in section
        assert step_obs in section
        assert info.description in page
    for heading in ("Description", "Action Space", "Rewards", "Episode End", "Version History"):
        assert f"\n### {heading}\n" in page
    assert "``" not in page.split("## Reference", 1)[1]  # RST literals became Markdown


def test_stand_in_and_unregistered_families_say_so():
    stand_in = next(f for f in FAMILIES.values() if f.stand_in and f.registered)
    page = family_page(stand_in, play=lambda env_id: Example(env_id, 0, "test", "obs", [], []))
    assert '!!! note "Stand-in data"' in page
    assert PARITY_TEXT["stand-in"] in page
    for family in FAMILIES.values():
        if not any(i.family == family.name for i in ENV_INFO.values()):
            assert "No ids are registered" in family_page(family)


def test_tool_family_pages_include_the_text_they_leave_to_tool_env():
    import inspect

    from agentgym_envs.tools.env import ToolEnv

    shared = inspect.getdoc(ToolEnv).splitlines()
    no_play = lambda env_id: Example(env_id, 0, "test", "obs", [], [])
    for name in ("weather", "movie", "academia", "todo", "sheet"):
        page = family_page(FAMILIES[name], play=no_play)
        section = page.split("## Reference: `agentgym_envs.tools.env.ToolEnv`", 1)[1]
        assert shared[2] in section  # "What every tool family ... shares, stated here once:"
        assert 'answer_match="lenient"' in section and "``" not in section
        assert '- `parser`: `"agentgym"` (refuse' in section  # Args: as a Markdown list
    assert "tools.env.ToolEnv" not in family_page(FAMILIES["maze"], play=no_play)


def test_a_failing_reset_still_writes_the_page():
    def broken(env_id):
        raise RuntimeError("no engine here")

    page = family_page(FAMILIES["wordle"], play=broken)
    assert "No example: the reset failed here (RuntimeError)" in page
    assert "## Reference" in page


def test_docstring_markdown_moves_headings_and_converts_literals():
    class Documented:
        """Summary line.

        ## Description
        Uses ``a`` and :class:`~pkg.Thing`, keeps ```` ```sql ```` fences.
        """

    text = docstring_markdown(Documented, level=3)
    assert text.startswith("### Description")
    assert "Uses `a` and `pkg.Thing`" in text
    assert "Summary line" not in text


def test_docstring_markdown_survives_unindented_lines():
    class Escaped:
        pass

    # a "\n" escape in a non-raw docstring leaves a line without the docstring's indent
    Escaped.__doc__ = (
        "Summary.\n\n    ## Rewards\n    1 on success, shown as ``a\nb``.\n    More.\n"
    )
    text = docstring_markdown(Escaped)
    assert text.startswith("### Rewards\n1 on success")
    assert "\nMore." in text


def test_strict_build_fails_on_a_broken_link(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Home\n\n[gone](missing.md)\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nnav:\n  - Home: index.md\n")
    with pytest.raises(AgentGymError, match="did not build"):
        build_site(tmp_path / "site", config, strict=True)
    assert build_site(tmp_path / "site", config, strict=False).joinpath("index.html").is_file()
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "docs", "--config", str(config)],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "missing.md" in done.stderr  # the warning itself, not only the count


def test_find_config_walks_up_to_the_checkout():
    assert find_config(ROOT / "docs") == ROOT / "mkdocs.yml"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The real site, built once by ``agentgym docs`` (strict) for this module's tests."""
    out = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", "docs", "--out", str(out)],
        check=False,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_agentgym_docs_builds_the_site_with_warnings_as_errors(site):
    out = site
    guides = sorted(p.stem for p in (ROOT / "docs" / "guides").glob("*.md"))
    for page in guides:
        assert (out / "guides" / f"{page}.html").is_file()
        assert f'href="guides/{page}.html"' in (out / "index.html").read_text()  # in the sidebar
    for book in (ROOT / "examples" / "notebooks").glob("*.ipynb"):
        assert (out / "notebooks" / f"{book.stem}.html").is_file()  # rendered
    assert (out / "search" / "search_index.json").is_file()  # Material's search
    assert (out / "search" / "search_index.js").is_file()  # ... and its file:// copy
    for family in FAMILIES.values():
        assert (out / FAMILY_DIR / f"{family.name}.html").is_file()
    maze = (out / FAMILY_DIR / "maze.html").read_text()
    env = gym.make("AgentGym/Maze-v0")
    obs, _ = env.reset(seed=0, options={"split": "test", "task_id": 0})
    assert obs in maze
    nav = (out / "index.html").read_text()
    for family in FAMILIES.values():
        assert f"{FAMILY_DIR}/{family.name}.html" in nav
    api = (out / "api" / "wrappers.html").read_text()
    assert re.search(r'id="agentgym_envs\.wrappers\.make_llm_env"', api)
    # a definition list in a module docstring, and a role resolved to a link on the page
    assert "<dt><code>parse_react(text: str) -&gt; ParsedReply</code></dt>" in api
    assert 'href="#agentgym_envs.wrappers.react.parse_react"><code>parse_react</code></a>' in api
    for page in sorted(out.rglob("*.html")):
        assert not rst_leftovers(page.read_text(encoding="utf-8")), page.relative_to(out)
    for package in ("benchmarks", "server", "experience"):
        public = importlib.import_module(f"agentgym_envs.{package}").__all__
        text = (out / "api" / f"{package}.html").read_text(encoding="utf-8")
        ids = re.findall(rf'<h\d id="agentgym_envs\.{package}\.(\w+)"', text)
        assert sorted(ids) == sorted(public)  # the real public API, each name once
        assert re.findall(r'doc-module-name">(\w+)<', text) == [package]  # no submodules


def test_the_site_loads_nothing_from_the_network(site):
    """Opened from disk with no network, every script and stylesheet is the site's own."""
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', text)
        assert not [u for u in remote if not u.startswith("https://github.com")], page


def _file_path(url: str) -> Path:
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(url)
    assert parts.scheme == "file", url
    return Path(unquote(parts.path))


def test_the_built_site_works_from_disk_in_chromium(site):
    """Opened from file:// (no server): every sidebar link is a page of the site (not a folder
    listing), links followed by clicking open their pages, search finds and opens pages, the
    families table fits without scrolling sideways, and no script fails."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (extra webshop)")
    from agentgym_envs.browser import CHROMIUM_ARGS, chromium_path

    exe = chromium_path()
    if exe is None:
        pytest.skip("needs Chromium: apt-get install -y chromium-headless-shell")
    home = (site / "index.html").as_uri()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=list(CHROMIUM_ARGS))
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.set_default_timeout(60_000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(home)
            links = page.eval_on_selector_all(
                "nav.md-nav--primary a.md-nav__link[href]", "els => els.map(e => e.href)"
            )
            pages = sorted({u.split("#")[0] for u in links})
            assert len(pages) > 40, pages
            for url in pages:
                path = _file_path(url)
                assert path.suffix == ".html" and path.is_file(), url
            for name, target in (
                ("Quickstart", "guides/quickstart.html"),
                ("Troubleshooting and FAQ", "guides/troubleshooting.html"),
                ("Command line", "reference/cli.html"),
            ):
                page.goto(home)
                page.locator("nav.md-nav--primary").get_by_role("link", name=name).first.click()
                page.wait_for_load_state()
                assert page.url == (site / target).as_uri(), page.url
                assert page.locator("article h1").count() == 1
            # from a page one folder down, the relative links still resolve
            page.locator("nav.md-nav--primary").get_by_role("link", name="Home").first.click()
            page.wait_for_load_state()
            assert page.url == home
            page.keyboard.press("/")
            page.keyboard.type("webarena")
            first = page.locator(".md-search-result__item a").first
            first.wait_for()
            assert page.locator(".md-search-result__item").count() >= 1
            first.click()
            page.wait_for_load_state()
            assert _file_path(page.url.split("#")[0]).is_file()
            assert "webarena" in page.locator("article").inner_text().lower()
            page.goto((site / FAMILY_DIR / "index.html").as_uri())
            overflow = page.eval_on_selector_all(
                "article .md-typeset__scrollwrap, article table",
                "els => els.map(e => e.scrollWidth - e.clientWidth)",
            )
            assert overflow and max(overflow) <= 1, overflow  # no sideways scroll
            assert errors == []
        finally:
            browser.close()


def test_the_cli_reference_page_has_every_command(site):
    from agentgym_envs.docs_check import cli_commands

    text = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    for path, command in cli_commands().items():
        anchor = "-".join(("agentgym", *path))
        assert f'id="{anchor}"' in text, anchor
        for param in command.params:
            for opt in getattr(param, "opts", ()):
                if opt.startswith("--") and not getattr(param, "hidden", False):
                    assert f"<code>{opt}</code>" in text, (path, opt)


RAW_ROLE = re.compile(r":(?:class|func|meth|mod|data|attr|exc|obj):(?=[`~\w])")
RST_LITERAL = re.compile(r"(?<!`)``[^`\n]+``(?!`)")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def rst_leftovers(page: str) -> list[str]:
    """reStructuredText a rendered page shows as it was written: a raw Sphinx role, RST markup
    in a code block (an indented definition), a definition run into its term's paragraph, a
    ``::`` literal-block marker."""
    found = [f"raw role: {m}" for m in RAW_ROLE.findall(_text(page))]
    # the site's own text (API reference, family reference sections), not example output
    docs = page.split('id="reference-', 1)[-1] if "doc-contents" not in page else page
    for block in re.findall(r"<pre>(.*?)</pre>", docs, re.DOTALL):
        code = _text(block)
        if RST_LITERAL.search(code) or RAW_ROLE.search(code):
            found.append(f"RST rendered as code: {code[:80]!r}")
    for para in re.findall(r"<p>(.*?)</p>", page, re.DOTALL):
        text = _text(para).strip()
        if re.search(r"\n {4,}\S", text):
            found.append(f"definition run into a paragraph: {text[:80]!r}")
        if text == ":" or text.endswith("::"):
            found.append(f"literal-block marker: {text[-40:]!r}")
    return found


def test_rst_leftovers_catches_what_rst_docstrings_rendered_as():
    definition_as_code = (
        "<p><code>parse_react(text)</code>\n    Pure function; <code>ParsedReply</code> is:</p>\n"
        '<div class="highlight"><pre><span></span><code>* ``action: str`` -- the action;\n'
        "* ``error`` -- :data:`NO_ACTION`\n</code></pre></div>"
    )
    assert len(rst_leftovers(definition_as_code)) == 3
    assert rst_leftovers("<p>The reply :func:<code>parse_react</code> reads back.</p>")
    assert rst_leftovers("<p>Each step's reward becomes::</p>")
    assert rst_leftovers("<p>:</p>")
    rendered = (
        "<dl><dt><code>parse_react(text)</code></dt><dd>Pure function</dd></dl>\n"
        '<div class="highlight"><pre><code>Action: ```sql\nSELECT 1\n```</code></pre></div>'
        '<p>Calls <a href="#x"><code>parse_react</code></a>,\nthen\n  <code>b</code>.</p>'
    )
    assert rst_leftovers(rendered) == []


def test_rst_to_markdown_roles_become_optional_cross_references():
    text = "See :class:`~agentgym_envs.core.TextEnv`, :func:`parse_react` and :mod:`pkg.mod`."
    resolved = {"parse_react": "agentgym_envs.wrappers.react.parse_react"}
    out = rst_to_markdown(text, resolve=resolved.get)
    assert out == (
        'See <autoref identifier="agentgym_envs.core.TextEnv" optional><code>TextEnv</code>'
        '</autoref>, <autoref identifier="agentgym_envs.wrappers.react.parse_react" optional>'
        '<code>parse_react</code></autoref> and <autoref identifier="pkg.mod" optional>'
        "<code>pkg.mod</code></autoref>."
    )


def test_rst_to_markdown_definition_lists_and_literal_blocks():
    text = (
        "Summary.\n"
        "\n"
        "``first(x)``\n"
        "    What it does:\n"
        "\n"
        "    * a point;\n"
        "``second`` (no blank line before it, as RST allows)\n"
        "    More.\n"
        "\n"
        "Use it like this::\n"
        "\n"
        "    first(1)\n"
        "\n"
        "::\n"
        "\n"
        '    {"a": 1}\n'
        "\n"
        "Args:\n"
        "    x: a value.\n"
        "        More about x.\n"
        "\n"
        "* an item\n"
        "    continued\n"
    )
    assert rst_to_markdown(text) == (
        "Summary.\n"
        "\n"
        "``first(x)``\n"
        ":   What it does:\n"
        "\n"
        "    * a point;\n"
        "\n"
        "``second`` (no blank line before it, as RST allows)\n"
        ":   More.\n"
        "\n"
        "Use it like this:\n"
        "\n"
        "```python\n"
        "first(1)\n"
        "```\n"
        "\n"
        "```json\n"
        '{"a": 1}\n'
        "```\n"
        "\n"
        "Args:\n"
        "    x: a value.\n"
        "        More about x.\n"
        "\n"
        "* an item\n"
        "    continued"
    )


def test_api_reference_extension_lists_what_all_names():
    griffe = pytest.importorskip("griffe")
    extension = griffe.load_extensions(f"{ROOT / 'docs' / 'api_reference.py'}:ApiReference")
    pkg = griffe.load("agentgym_envs", search_paths=[str(ROOT)], extensions=extension)
    for name in ("benchmarks", "server", "experience"):
        module = pkg.modules[name]
        public = importlib.import_module(f"agentgym_envs.{name}").__all__
        assert [str(n) for n in module.exports] == public
        for export in public:
            member = module.members[export]
            assert member.is_public
            assert member.final_target.name == export  # the object defined in a submodule
        objects = [n for n, m in module.members.items() if m.is_public and not m.is_module]
        assert sorted(objects) == sorted(public)
    react = pkg.modules["wrappers"].modules["react"].docstring.value
    assert ":func:" not in react and ":data:" not in react
    assert "\n:   Pure function" in react


def test_a_family_of_ours_does_not_claim_an_agentgym_client():
    import dataclasses

    ours = dataclasses.replace(FAMILIES["maze"], name="ours_only", agentgym_client=None, wire=None)
    page = family_page(ours)
    assert "not an AgentGym family" in page
    assert "AgentGym's client" not in page and "AgentGym's max rounds" not in page
    assert "- **max rounds**: 15" in page
    assert "- **`agentgym serve`**: not served" in page
    maze = family_page(
        FAMILIES["maze"], play=lambda env_id: Example(env_id, 0, "test", "o", [], [])
    )
    assert "- **AgentGym's client**: `agentenv.envs.lmrlgym.MazeEnvClient`" in maze
    assert "- **AgentGym's max rounds**: 15" in maze


def test_every_wire_kind_is_described():
    import typing

    from agentgym_envs.docs import WIRE_TEXT
    from agentgym_envs.spec import Wire

    kinds = typing.get_args(typing.get_type_hints(Wire)["kind"])
    assert kinds and set(kinds) <= set(WIRE_TEXT)


def test_notebooks_open_with_a_command_an_extra_installs():
    import shutil

    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert any(dep.startswith("jupyterlab") for dep in extras["notebooks"])
    assert "notebooks" in extras["all"][0]
    page = (ROOT / "docs" / "notebooks.md").read_text()
    assert 'pip install -e ".[notebooks]"' in page and "jupyter lab examples/notebooks" in page
    if importlib.util.find_spec("jupyterlab") is None:
        pytest.skip('jupyterlab is not installed: pip install -e ".[notebooks]"')
    jupyter = shutil.which("jupyter") or pytest.fail("jupyterlab installed without `jupyter`")
    done = subprocess.run(
        [jupyter, "lab", "--version"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip()[0].isdigit(), done.stderr


def test_notebook_pages_show_every_cell():
    import json

    from agentgym_envs.docs import notebook_pages

    folder = ROOT / "examples" / "notebooks"
    pages = notebook_pages(folder)
    assert len(pages) == len(list(folder.glob("*.ipynb")))
    for book in folder.glob("*.ipynb"):
        title, text = pages[f"notebooks/{book.stem}.md"]
        assert title and text.startswith("# ")
        assert f"jupyter lab examples/notebooks/{book.name}" in text
        for cell in json.loads(book.read_text())["cells"]:
            for line in "".join(cell["source"]).splitlines():
                assert line in text


def test_notebook_pages_show_the_recorded_outputs_of_the_current_code():
    """Each notebook has its outputs recorded (scripts/notebook_outputs.py), every record
    belongs to a code cell the notebook still has, and the page shows it under that cell."""
    import json

    from agentgym_envs.docs import notebook_pages
    from agentgym_envs.notebook_outputs import recorded, source_key

    folder = ROOT / "examples" / "notebooks"
    pages = notebook_pages(folder)
    for book in sorted(folder.glob("*.ipynb")):
        outputs = recorded(book)
        assert outputs, f"{book.name}: run python scripts/notebook_outputs.py {book.stem}"
        cells = json.loads(book.read_text())["cells"]
        keys = {source_key("".join(c["source"])) for c in cells if c["cell_type"] == "code"}
        stale = set(outputs) - keys
        assert not stale, f"{book.name} changed: python scripts/notebook_outputs.py {book.stem}"
        _, text = pages[f"notebooks/{book.stem}.md"]
        for shown in outputs.values():
            for item in shown:
                if "text" in item:
                    assert item["text"].strip().splitlines()[0] in text
                else:
                    assert "![output](data:image/png;base64," in text


def test_the_nav_takes_in_pages_other_areas_add(tmp_path):
    """Pages under docs/agent-server/ join "Agents and agent servers" (index first), guides the
    nav does not list yet join "Guides", and the generated sections are expanded."""
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("site_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    docs = tmp_path / "docs"
    for page in ("agent-server/multi-step-agent.md", "agent-server/index.md", "guides/a.md"):
        (docs / page).parent.mkdir(parents=True, exist_ok=True)
        (docs / page).write_text("# A page\n")
    (docs / "guides" / "scale-out.md").write_text("# Scale-out\n")
    nav = [
        {"Guides": [{"A": "guides/a.md"}]},
        {"Environments": "families/index.md"},
        {"Agents and agent servers": [{"Agents API": "api/agents.md"}]},
        {"Notebooks": "notebooks.md"},
    ]
    config = hooks.on_config(SimpleNamespace(docs_dir=str(docs), nav=nav))
    sections = {next(iter(e)): next(iter(e.values())) for e in config.nav}
    assert sections["Guides"] == [{"A": "guides/a.md"}, "guides/scale-out.md"]
    assert sections["Agents and agent servers"] == [
        "agent-server/index.md",
        "agent-server/multi-step-agent.md",
        {"Agents API": "api/agents.md"},
    ]
    assert sections["Environments"][0] == {"Overview": "families/index.md"}
    assert {"Maze": "families/maze.md"} in sections["Environments"]
    assert {"Overview": "notebooks.md"} in sections["Notebooks"] and len(sections["Notebooks"]) > 1
