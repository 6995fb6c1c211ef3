"""The documentation site: one page per family generated from the registry, and the build.

The site's sources are ``mkdocs.yml`` and ``docs/`` in a checkout of the project (MkDocs with
the Material theme, the API reference by mkdocstrings). The family pages are not committed:
``docs/hooks.py`` calls :func:`family_pages` while MkDocs builds, so every page states what the
registry says now -- ids, extra, split sizes, max rounds, reward, parity with AgentGym -- with the
env class's docstring and an observation and actions taken from a real reset of each installed
id. The example notebooks become pages too (:func:`notebook_pages`). ``agentgym docs`` (or
:func:`build_site`) builds the site; it needs the ``docs`` extra. What the pages' text promises
(their code blocks, the ``agentgym`` commands they name) is checked by
:mod:`agentgym_envs.docs_check`.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentgym_envs.errors import AgentGymError
from agentgym_envs.spec import ENV_INFO, FAMILIES, EnvInfo, Family, load_callable

logger = logging.getLogger(__name__)

#: Folder of the generated family pages inside the site.
FAMILY_DIR = "families"
#: Characters of an example observation shown before it is cut.
MAX_OBSERVATION_CHARS = 1500
#: Expert steps shown after the first observation.
EXAMPLE_STEPS = 2

PARITY_TEXT = {
    "agentgym": "identical to AgentGym",
    "stand-in": "stand-in data (a loader plays AgentGym's data)",
    "ours": "ours (not in AgentGym)",
}
#: The same, short enough for the overview table (explained under it).
PARITY_SHORT = {"agentgym": "AgentGym", "stand-in": "stand-in", "ours": "ours"}
REPLY_PARSER_TEXT = {
    "single_action": "the one `Action:` line (more than one is an error)",
    "last_action": "the text after the last `Action:`",
    "between_actions": "the text after the first `Action:`, up to a second one",
    "sql_block": "the last sql code block, else the whole reply",
    "raw": "the whole reply, parsed by the env",
}
FIRST_TURN_TEXT = {
    "observation": "the first observation as it is",
    "rules_then_observation": "the family's rules text, then the first observation",
    "vocab_in_rules": "the rules text with the word list inlined",
    "actions_line": "the first observation with an `AVAILABLE ACTIONS:` line appended",
}
WIRE_TEXT = {
    "A": '"id" sessions (`/create` returns `{"id": n}`)',
    "B": '"env_idx" sessions (`/reset` returns `[observation, None]`, `/step` a `state`)',
    "C": "tool-server sessions (`/create` names the item)",
    "D": '"env_idx" sessions with gymnasium-style step replies (WebArena\'s server)',
}


@dataclass
class Example:
    """What a real reset of an id showed: the first observation and a few expert steps."""

    env_id: str
    task_id: int
    split: str
    observation: str
    available_actions: list[str]
    steps: list[tuple[str, str, float]]

    @classmethod
    def play(cls, env_id: str, task_id: int = 0, split: str = "test", steps: int = EXAMPLE_STEPS):
        """Reset ``env_id`` on ``task_id`` with seed 0 and let its expert play ``steps`` steps."""
        import gymnasium as gym

        from agentgym_envs.spec import expert_policy

        # some engines (minigrid) print to stdout while they build a task
        with contextlib.redirect_stdout(io.StringIO()):
            env = gym.make(env_id)
            try:
                obs, info = env.reset(seed=0, options={"split": split, "task_id": task_id})
                example = cls(env_id, info["task_id"], info["split"], obs, [], [])
                example.available_actions = list(info.get("available_actions") or [])
                act = expert_policy(env)
                for _ in range(steps):
                    action = act(obs, info)
                    obs, reward, terminated, truncated, info = env.step(action)
                    example.steps.append((action, obs, float(reward)))
                    if terminated or truncated:
                        break
            finally:
                env.close()
        return example


def env_class(family: Family) -> type | None:
    """The env class of ``family`` (``None`` where it cannot be imported here)."""
    if not family.entry_point:
        return None
    try:
        return load_callable(family.entry_point)
    except ImportError as exc:
        logger.info("cannot import %s: %s", family.entry_point, exc)
        return None


def docstring_markdown(obj: Any, level: int = 3) -> str:
    """``obj``'s docstring as Markdown: ````x```` becomes ```x```, ``## Section`` headings move
    to ``level``. The first line (the summary) is dropped: pages state it separately."""
    doc = inspect.getdoc(obj) or ""
    lines = doc.splitlines()
    rest = lines[1:]
    # A docstring with a "\n" escape in a non-raw string has unindented lines, which leave
    # getdoc's text indented: take the headings' indent off every line.
    indents = [len(x) - len(x.lstrip()) for x in rest if x.lstrip().startswith("## ")]
    margin = min(indents, default=0)
    body = "\n".join(x[min(margin, len(x) - len(x.lstrip())) :] for x in rest).strip("\n")
    body = re.sub(r"(?<!`)``(?!`)(.+?)(?<!`)``(?!`)", r"`\1`", body, flags=re.DOTALL)
    body = re.sub(r"^## ", "#" * level + " ", body, flags=re.MULTILINE)
    body = re.sub(r":(?:class|func|meth|data|attr|mod):`~?([^`]+)`", r"`\1`", body)
    return _args_list(body)


#: A Sphinx cross-reference role: ``:class:`~pkg.mod.Name```.
SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")
_LIST_ITEM = re.compile(r"([*+-]|\d+[.)])\s")


def rst_to_markdown(text: str, resolve: Callable[[str], str | None] | None = None) -> str:
    """A docstring's reStructuredText habits, in the Markdown mkdocstrings renders.

    - a Sphinx role (``:class:`~a.B```) becomes a cross-reference to what ``resolve`` names
      for its target (else the target as written), a link where the site documents it and
      plain code where it does not; ``~`` shows the last name only, as in Sphinx;
    - a definition list (a line, then a more indented block) becomes a Markdown one
      (``def_list``), where it would otherwise run into one paragraph or read as code;
    - a literal block (a paragraph ending in ``::``) becomes a fenced code block.

    Lines that end in a colon do not start a definition: they are Google-style sections.
    """
    lines = _literal_blocks(text.splitlines())
    lines = _definition_lists(lines)
    return SPHINX_ROLE.sub(lambda m: _crossref(m, resolve), "\n".join(lines))


def _crossref(match: re.Match, resolve: Callable[[str], str | None] | None) -> str:
    short, target = match.groups()
    target = target.strip().removesuffix("()")
    title = target.rsplit(".", 1)[-1] if short else target
    identifier = (resolve(target) if resolve else None) or target
    # optional: a link where the site renders the target, plain code (no warning) elsewhere
    return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _block(lines: list[str], start: int, base: int) -> int:
    """The end of the block that starts at ``start`` and is indented deeper than ``base``."""
    end = start
    for i in range(start, len(lines)):
        if lines[i].strip() and _indent(lines[i]) <= base:
            break
        if lines[i].strip():
            end = i + 1
    return end


def _dedent(lines: list[str]) -> list[str]:
    margin = min((_indent(x) for x in lines if x.strip()), default=0)
    return [x[margin:] for x in lines]


def _code_language(code: str) -> str:
    with contextlib.suppress(ValueError):
        json.loads(code)
        return "json"
    try:
        ast.parse(code)
    except SyntaxError:
        return "text"
    return "python"


def _next_text(lines: list[str], i: int) -> int | None:
    return next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)


def _literal_blocks(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = _next_text(lines, i) if line.rstrip().endswith("::") else None
        if nxt is None or _indent(lines[nxt]) <= _indent(line):
            out.append(line)
            i += 1
            continue
        base = _indent(line)
        # "text::" keeps one colon, "text ::" and a lone "::" lose both
        intro = line.rstrip()[:-2]
        if intro.strip():
            out += [intro.rstrip() if intro.endswith(" ") else intro + ":", ""]
        end = _block(lines, nxt, base)
        code = _dedent(lines[nxt:end])
        pad = " " * base
        fence = "```" + _code_language("\n".join(code))
        out += [pad + fence, *(pad + x if x else "" for x in code), pad + "```"]
        i = end
    return out


def _starts_definition(lines: list[str], i: int) -> bool:
    term = lines[i]
    # after a blank line, or right after the previous definition (RST needs no blank line)
    follows = i > 0 and (not lines[i - 1].strip() or _indent(lines[i - 1]) > 0)
    if not follows or not term.strip() or _indent(term):
        return False
    if i + 1 >= len(lines) or not lines[i + 1].strip() or not _indent(lines[i + 1]):
        return False
    stripped = term.strip()
    return not (
        stripped.endswith(":")
        or _LIST_ITEM.match(stripped)
        or stripped.startswith(("#", ">>>", "```", "|", "..", ":"))
    )


def _definition_lists(lines: list[str]) -> list[str]:
    out: list[str] = []
    fenced = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):
            fenced = not fenced
        if fenced or not _starts_definition(lines, i):
            out.append(line)
            i += 1
            continue
        end = _block(lines, i + 1, 0)
        body = _dedent(lines[i + 1 : end])
        if out and out[-1].strip():
            out.append("")
        out += [line, ":   " + body[0], *("    " + x if x else "" for x in body[1:])]
        i = end
    return out


def _args_list(body: str) -> str:
    """A Google-style ``Args:`` section as a Markdown list (indented, it would read as one
    run-on paragraph)."""
    out: list[str] = []
    in_args = False
    for line in body.splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:"):
            out += ["Arguments:", ""]
            in_args = True
        elif in_args and line.startswith("    "):
            if not line.startswith("     ") and re.match(r"\w+( \([^)]*\))?: ", stripped):
                name, text = stripped.split(": ", 1)
                out.append(f"- `{name}`: {text}")
            else:  # the item's text goes on
                out[-1] += " " + stripped
        else:
            in_args = False
            out.append(line)
    return "\n".join(out)


def shared_bases(cls: type) -> list[type]:
    """The base classes ``cls``'s docstring refers to (a tool env's ``ToolEnv``): the text
    that the docstring leaves to them belongs on the family's page too."""
    doc = inspect.getdoc(cls) or ""
    return [b for b in cls.__mro__[1:] if f"{b.__module__}.{b.__qualname__}" in doc]


def summary_line(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    return doc.splitlines()[0].strip() if doc else ""


def _fence(text: str, lang: str = "text") -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _cut(text: str, limit: int = MAX_OBSERVATION_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f"\n... ({len(text) - limit} more characters)"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _ids_table(infos: list[EnvInfo]) -> list[str]:
    lines = [
        "| id | train / test tasks | max rounds | reward | AgentGym parity | what it is |",
        "|---|---|---|---|---|---|",
    ]
    for i in infos:
        lines.append(
            f"| `{i.id}` | {i.splits.get('train', 0)} / {i.splits.get('test', 0)} "
            f"| {i.max_rounds} | {i.reward} | {PARITY_TEXT[i.parity]} | {_cell(i.description)} |"
        )
    return lines


def _facts(family: Family) -> list[str]:
    rows = [("item ids", ", ".join(f"`{p}_<n>`" for p in family.prefixes))]
    if family.extra:
        rows.append(("install", f'`pip install "agentgym-envs[{family.extra}]"`'))
    scale = f" (a perfect score is {family.score_scale:g})" if family.score_scale != 1 else ""
    rows.append(("reward", family.reward + scale))
    if family.agentgym_client:
        module, cls = family.agentgym_client
        rows.append(("AgentGym's max rounds", str(family.max_rounds)))
        if family.agenteval_file:
            rows.append(("AgentEval", f"`{family.agenteval_file}`, {family.agenteval_size} items"))
        rows.append(
            ("reply read as AgentGym's client does", REPLY_PARSER_TEXT[family.reply_parser])
        )
        rows.append(("first human turn", FIRST_TURN_TEXT[family.first_turn]))
        rows.append(("AgentGym's client", f"`agentenv.envs.{module}.{cls}`"))
    else:  # a family of ours: there is no AgentGym client to follow
        rows.append(("AgentGym", "not an AgentGym family (an addition of this package)"))
        rows.append(("max rounds", str(family.max_rounds)))
        rows.append(("replies read as", REPLY_PARSER_TEXT[family.reply_parser]))
    if family.scaling_inter:
        rounds, interval = family.scaling_inter
        fixed = f"; fixed baseline {family.fixed_rounds}" if family.fixed_rounds else ""
        rows.append(
            (
                "ScalingInter-RL",
                f"rounds {list(rounds)}, {interval} training steps per stage{fixed}",
            )
        )
    if family.wire:
        wire = family.wire
        served = WIRE_TEXT.get(wire.kind, f"wire kind {wire.kind!r}")
        served += f", item index in `{wire.index_key}`"
        if wire.url_prefix:
            served += f", also under `{wire.url_prefix}`"
        if wire.get_endpoints:
            served += "; also " + ", ".join(f"`/{e}`" for e in wire.get_endpoints)
        rows.append(("`agentgym serve`", served))
    else:
        rows.append(("`agentgym serve`", "not served"))
    return [f"- **{k}**: {v}" for k, v in rows]


def _example_section(info: EnvInfo, play: Callable[[str], Example]) -> list[str]:
    title = f"### `{info.id}`"
    if not info.installed:
        return [
            title,
            "",
            f'Not installed where these docs were built: `pip install "agentgym-envs[{info.extra}]"`.',
        ]
    try:
        ex = play(info.id)
    except Exception as exc:
        logger.warning("no example for %s: %s: %s", info.id, type(exc).__name__, exc)
        return [title, "", f"No example: the reset failed here ({type(exc).__name__})."]
    out = [
        title,
        "",
        f'`env.reset(seed=0, options={{"split": "{ex.split}", "task_id": {ex.task_id}}})`:',
        "",
        _fence(_cut(ex.observation)),
    ]
    if ex.available_actions:
        shown = ex.available_actions[:12]
        more = len(ex.available_actions) - len(shown)
        out += [
            "",
            f'`info["available_actions"]` ({len(ex.available_actions)}): '
            + ", ".join(f"`{_cell(a)}`" for a in shown)
            + (f", ... (+{more})" if more > 0 else ""),
        ]
    for n, (action, obs, reward) in enumerate(ex.steps, 1):
        out += [
            "",
            f"Expert action {n}, reward {reward:g}:",
            "",
            _fence(action),
            "",
            _fence(_cut(obs)),
        ]
    return out


def family_page(family: Family, play: Callable[[str], Example] = Example.play) -> str:
    """The Markdown page of ``family``: facts from its record, its ids, its env class's
    docstring, and examples from a real reset of each installed id (``play``)."""
    infos = [i for i in ENV_INFO.values() if i.family == family.name]
    cls = env_class(family) if infos else None
    lines = [f"# {family.display_name}", ""]
    if cls is not None and summary_line(cls):
        lines += [summary_line(cls), ""]
    if family.stand_in:
        lines += [
            '!!! note "Stand-in data"',
            f"    {family.stand_in[0].upper()}{family.stand_in[1:]}.",
            "",
        ]
    lines += _facts(family) + [""]
    if infos:
        lines += ["## Ids", ""] + _ids_table(infos) + [""]
        lines += [
            "```python",
            "import gymnasium as gym",
            "import agentgym_envs  # registers the ids",
            "",
            f'env = gym.make("{infos[0].id}")',
            'obs, info = env.reset(seed=0, options={"split": "test", "task_id": 0})',
            "```",
            "",
            "## Examples",
            "",
            (
                "Taken from a real reset when these docs were built; the actions are the "
                "family's expert's (`agentgym_envs.expert_policy(env)`)."
            ),
            "",
        ]
        for info in infos:
            lines += _example_section(info, play) + [""]
    else:
        lines += ["No ids are registered for this family in this installation.", ""]
    if cls is not None:
        lines += [
            f"## Reference: `{cls.__module__}.{cls.__qualname__}`",
            "",
            docstring_markdown(cls),
            "",
        ]
        for base in shared_bases(cls):
            lines += [
                f"## Reference: `{base.__module__}.{base.__qualname__}`",
                "",
                f"`{cls.__qualname__}` leaves these to its base class, which every family built "
                "on it shares.",
                "",
                docstring_markdown(base),
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def family_index() -> str:
    """The families' overview page: one row per id, linking each family's page."""
    lines = [
        "# Environments",
        "",
        (
            "One page per AgentGym task family, generated from the registry when the site is "
            "built (`agentgym_envs.spec.FAMILIES` and `ENV_INFO`). `agentgym list` prints the "
            "same table for your installation."
        ),
        "",
        "| id (its family's page) | extra | train / test | rounds | reward | parity |",
        "|---|---|---|---|---|---|",
    ]
    for i in ENV_INFO.values():
        family = FAMILIES[i.family]
        lines.append(
            f"| [`{i.id}`]({family.name}.md) | `{i.extra}` "
            f"| {i.splits.get('train', 0)} / {i.splits.get('test', 0)} | {i.max_rounds} "
            f"| {i.reward} | {PARITY_SHORT[i.parity]} |"
        )
    lines += [
        "",
        "**rounds**: AgentGym's max rounds (the default turn limit). **parity**: "
        + "; ".join(f"*{PARITY_SHORT[k]}*: {v}" for k, v in PARITY_TEXT.items())
        + ".",
    ]
    unregistered = [
        f for f in FAMILIES.values() if not any(i.family == f.name for i in ENV_INFO.values())
    ]
    if unregistered:
        lines += [
            "",
            "Known to the registry without ids here: "
            + ", ".join(f"[{f.display_name}]({f.name}.md)" for f in unregistered)
            + ".",
        ]
    return "\n".join(lines) + "\n"


def family_pages(play: Callable[[str], Example] = Example.play) -> dict[str, str]:
    """Every generated page, by its path in the site: the index and one page per family."""
    pages = {f"{FAMILY_DIR}/index.md": family_index()}
    for family in FAMILIES.values():
        pages[f"{FAMILY_DIR}/{family.name}.md"] = family_page(family, play)
    return pages


def notebook_pages(folder: str | Path) -> dict[str, tuple[str, str]]:
    """The example notebooks in ``folder`` as site pages: ``{path: (title, markdown)}``.

    Markdown cells stay as they are and code cells become Python blocks, each followed by what
    it printed and drew when the notebook last ran (:mod:`agentgym_envs.notebook_outputs`: the
    notebooks themselves are stored without outputs).
    """
    from agentgym_envs.notebook_outputs import as_markdown, recorded, source_key

    pages = {}
    for path in sorted(Path(folder).glob("*.ipynb")):
        book = json.loads(path.read_text(encoding="utf-8"))
        outputs = recorded(path)
        parts, title = [], path.stem
        for cell in book.get("cells", []):
            source = "".join(cell.get("source", [])).strip("\n")
            if not source:
                continue
            if cell.get("cell_type") == "markdown":
                if title == path.stem and source.startswith("# "):
                    title = source.splitlines()[0][2:].strip()
                parts.append(source)
            elif cell.get("cell_type") == "code":
                parts.append(_fence(source, "python"))
                shown = outputs.get(source_key(source))
                if shown:
                    parts.append(as_markdown(shown))
        run = (
            f"*Notebook `examples/notebooks/{path.name}`: open it with `jupyter lab "
            f'examples/notebooks/{path.name}` after `pip install -e ".[notebooks]"`.*'
        )
        text = "\n\n".join(parts) + "\n"
        if text.startswith("# "):  # the run line goes after the title
            head, _, rest = text.partition("\n")
            text = f"{head}\n\n{run}\n{rest}"
        else:
            text = f"# {title}\n\n{run}\n\n{text}"
        short = title.split(":", 1)[0].strip()
        pages[f"notebooks/{path.stem}.md"] = (short, text)
    return pages


def find_config(start: str | Path | None = None) -> Path:
    """``mkdocs.yml`` in ``start`` (default: the working directory) or a folder above it, else
    the one of the checkout this package is installed from."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents, Path(__file__).resolve().parent.parent):
        candidate = folder / "mkdocs.yml"
        if candidate.is_file():
            return candidate
    raise AgentGymError(
        "mkdocs.yml not found: run agentgym docs inside a checkout of agentgym-envs"
    )


def build_site(
    site_dir: str | Path = "site", config_file: str | Path | None = None, strict: bool = True
) -> Path:
    """Build the documentation site into ``site_dir`` (warnings are errors when ``strict``)."""
    try:
        from mkdocs.commands.build import build
        from mkdocs.config import load_config
        from mkdocs.exceptions import MkDocsException
    except ImportError:
        raise AgentGymError(
            'the docs need their extra: pip install "agentgym-envs[docs]"'
        ) from None
    config_path = Path(config_file) if config_file else find_config()
    site = Path(site_dir).resolve()
    try:
        config = load_config(str(config_path), site_dir=str(site), strict=strict)
        build(config)
    except MkDocsException as exc:
        raise AgentGymError(f"the docs did not build: {exc}") from None
    return site


def register_cli(app: Any) -> None:
    """Add ``agentgym docs`` to the main CLI."""
    import typer

    out_option = typer.Option(Path("site"), "--out", "-o", help="Folder to write the site to.")
    config_option = typer.Option(None, "--config", help="mkdocs.yml (default: the checkout's).")
    strict_option = typer.Option(True, "--strict/--no-strict", help="Warnings are errors.")

    @app.command("docs")
    def docs_command(
        out: Path = out_option,
        config: Path | None = config_option,
        strict: bool = strict_option,
    ) -> None:
        """Build the documentation site (family pages from the registry; needs the docs extra)."""
        # MkDocs counts its warnings with a handler of its own: show them too
        shown = logging.StreamHandler()
        shown.setLevel(logging.WARNING)
        shown.setFormatter(logging.Formatter("%(levelname)s - %(message)s"))
        mkdocs_log = logging.getLogger("mkdocs")
        mkdocs_log.addHandler(shown)
        try:
            site = build_site(out, config, strict=strict)
        finally:
            mkdocs_log.removeHandler(shown)
        typer.echo(f"site written to {site} (open {site / 'index.html'})")
