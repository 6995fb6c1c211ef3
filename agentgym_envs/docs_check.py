"""What the documentation's text promises, checked: its code blocks and its ``agentgym`` commands.

Two jobs, both used by the docs test and by ``docs/hooks.py`` while the site builds (a
problem is a warning there, so the strict build fails):

* :func:`code_blocks` reads a page's fenced code blocks with their ``docs-test`` markers.
  A ``python`` block runs by default; a shell block runs only when the line just before it is
  ``<!-- docs-test: run -->``; ``<!-- docs-test: skip (reason) -->`` skips a block (the reason
  is required); ``<!-- docs-test: file NAME -->`` writes the block to ``NAME`` in the page's
  working folder before the blocks that follow it run. A page-level
  ``<!-- docs-test: server PORT COMMAND -->`` starts ``COMMAND`` before the page's blocks run,
  on a free port that replaces ``PORT`` in the command and in every block.
* :func:`cli_mentions` finds ``agentgym <command> [--option]`` in a page's shell blocks and
  inline code, and :func:`cli_errors` says which name a command or an option the real CLI
  (``agentgym_envs.cli.app``, sub-apps included) does not have.
* :func:`name_errors` finds the package's dotted names (``agentgym_envs.rollout.collect``)
  anywhere in a page and says which one does not exist, or names a module kept only for older
  imports (one with a ``MOVED_TO``: the page should name where its contents live now).
* :func:`default_errors` finds number defaults the prose states for an option
  (``"`--max-reasks` re-asks (default 2)"``) and says which one no command has.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

#: Languages of blocks that run by default.
PYTHON = frozenset({"python", "py", "python3"})
#: Languages of blocks that run when marked ``run``.
SHELL = frozenset({"sh", "bash", "shell", "console"})

MARKER = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)[^\n]*$")


@dataclass
class Block:
    """One fenced code block of a page and what the docs test does with it."""

    lang: str
    code: str
    line: int
    #: ``run``, ``skip`` or ``file``; ``None`` for a block that never runs (text, yaml, ...).
    action: str | None
    reason: str = ""
    #: The file a ``file`` block is written to.
    path: str = ""


@dataclass
class Server:
    """A page-level ``<!-- docs-test: server PORT COMMAND -->`` directive."""

    port: int
    command: str
    line: int


@dataclass
class Page:
    """A page's blocks in order, its servers, and the marker mistakes found while reading."""

    blocks: list[Block] = field(default_factory=list)
    servers: list[Server] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def runnable(self) -> list[Block]:
        """The blocks the docs test runs or writes, in page order."""
        return [b for b in self.blocks if b.action in ("run", "file")]


def _marker(text: str) -> tuple[str, str] | None:
    match = MARKER.match(text.strip())
    if not match:
        return None
    body = match.group(1)
    verb, _, rest = body.partition(" ")
    return verb, rest.strip()


def code_blocks(markdown: str) -> Page:
    """Read ``markdown``'s fenced code blocks and ``docs-test`` markers (see the module)."""
    page = Page()
    lines = markdown.splitlines()
    pending: tuple[str, str, int] | None = None
    i = 0
    while i < len(lines):
        text = lines[i]
        marker = _marker(text)
        if marker:
            verb, rest = marker
            if verb == "server":
                port, _, command = rest.partition(" ")
                if not port.isdigit() or not command.strip():
                    page.errors.append(
                        f"line {i + 1}: write the server marker as "
                        "<!-- docs-test: server PORT COMMAND -->"
                    )
                else:
                    page.servers.append(Server(int(port), command.strip(), i + 1))
            elif verb in ("run", "skip", "file"):
                pending = (verb, rest, i + 1)
            else:
                page.errors.append(
                    f"line {i + 1}: unknown docs-test marker {verb!r}: "
                    "use run, skip (reason), file NAME or server PORT COMMAND"
                )
            i += 1
            continue
        fence = FENCE.match(text)
        if not fence:
            if text.strip() and pending:
                page.errors.append(
                    f"line {pending[2]}: a docs-test marker must be the line just before a block"
                )
                pending = None
            i += 1
            continue
        start, mark, lang = i, fence.group("fence"), fence.group("lang").lower()
        indent = len(fence.group("indent"))
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(mark):
            body.append(lines[i][indent:] if lines[i][:indent].isspace() else lines[i])
            i += 1
        i += 1
        block = Block(lang, "\n".join(body), start + 1, "run" if lang in PYTHON else None)
        if pending:
            verb, rest, at = pending
            pending = None
            if verb == "skip":
                reason = rest.strip()
                if not (reason.startswith("(") and reason.endswith(")") and reason[1:-1].strip()):
                    page.errors.append(
                        f"line {at}: say why the block is skipped: <!-- docs-test: skip (reason) -->"
                    )
                block.action, block.reason = "skip", reason[1:-1].strip()
            elif verb == "file":
                if not rest:
                    page.errors.append(f"line {at}: name the file: <!-- docs-test: file NAME -->")
                block.action, block.path = "file", rest
            elif lang in PYTHON | SHELL:
                block.action = "run"
            else:
                page.errors.append(
                    f"line {at}: a {lang or 'plain'} block cannot run: mark python or shell blocks"
                )
        page.blocks.append(block)
    return page


# --- agentgym commands named in the text ------------------------------------------------------

#: ``agentgym`` followed by its words, in a shell line or an inline code span.
COMMAND = re.compile(r"(?<![\w./-])agentgym(?![\w.-])((?:[ \t]+[^\s`]+)*)")
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
#: Where one shell command ends and the next begins.
SEPARATOR = re.compile(r"\s*(?:&&|\|\||;|\||\$\(|`)\s*")
#: Shell tokens that end a command.
ENDS = {"&&", "||", "|", ";", "&", ">", ">>", "2>", "2>&1", "<", ")"}


@dataclass(frozen=True)
class Mention:
    """``agentgym <path> [options]`` as a page writes it."""

    words: tuple[str, ...]
    line: int

    @property
    def text(self) -> str:
        """The mention as written."""
        return " ".join(("agentgym", *self.words))


def _tokens(rest: str) -> list[str]:
    try:
        tokens = shlex.split(rest, comments=True)
    except ValueError:  # an unbalanced quote in prose: split on spaces
        tokens = rest.split()
    out = []
    for token in tokens:
        if token in ENDS or token.startswith(("#", ">", "|")):
            break
        out.append(token)
    return out


def cli_mentions(markdown: str) -> list[Mention]:
    """Every ``agentgym ...`` in ``markdown``'s shell blocks (comments cut, ``\\`` lines
    joined) and inline code spans."""
    found: list[Mention] = []
    page = code_blocks(markdown)
    for block in page.blocks:
        if block.lang not in SHELL and block.lang != "":
            continue
        joined = block.code.replace("\\\n", " ")
        for offset, line in enumerate(joined.splitlines()):
            for command in SEPARATOR.split(line.split(" #", 1)[0]):
                for match in COMMAND.finditer(command):
                    found.append(Mention(tuple(_tokens(match.group(1))), block.line + 1 + offset))
    prose = _outside_blocks(markdown)
    for number, line in enumerate(prose.splitlines(), 1):
        for span in INLINE.finditer(line):
            for command in SEPARATOR.split(span.group(1)):
                for match in COMMAND.finditer(command):
                    found.append(Mention(tuple(_tokens(match.group(1))), number))
    return found


def _outside_blocks(markdown: str) -> str:
    """``markdown`` with the lines of fenced blocks blanked (line numbers kept)."""
    out, mark = [], None
    for line in markdown.splitlines():
        fence = FENCE.match(line)
        if mark is None and fence:
            mark = fence.group("fence")
            out.append("")
        elif mark is not None:
            if line.strip().startswith(mark):
                mark = None
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def cli_command() -> Any:
    """The ``agentgym`` command as Click sees it (every area's commands registered)."""
    import typer

    from agentgym_envs.cli import app

    return typer.main.get_command(app)


def cli_commands(root: Any | None = None) -> dict[tuple[str, ...], Any]:
    """Every command the CLI has, by its path (``("experience", "versions", "promote")``);
    groups included."""
    root = root or cli_command()
    found: dict[tuple[str, ...], Any] = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            if getattr(sub, "hidden", False):
                continue
            found[(*path, name)] = sub
            walk(sub, (*path, name))

    walk(root, ())
    return found


def leaf_commands(root: Any | None = None) -> list[tuple[str, ...]]:
    """The commands a user runs: every command without subcommands, and every group that does
    something without one (``agentgym bench``)."""
    commands = cli_commands(root)
    return [
        path
        for path, command in commands.items()
        if not getattr(command, "commands", None)
        or getattr(command, "invoke_without_command", False)
    ]


def _options(command: Any) -> set[str]:
    names = {"--help"}
    for param in getattr(command, "params", ()):
        names.update(getattr(param, "opts", ()))
        names.update(getattr(param, "secondary_opts", ()))
    return names


def resolve(mention: Mention, root: Any) -> tuple[tuple[str, ...], list[str]]:
    """The command path ``mention`` names and the problems in it (an unknown command or
    option), as one-line messages that say the mend."""
    command, path, problems = root, [], []
    words = list(mention.words)
    while words and getattr(command, "commands", None):
        word = words[0]
        if word.startswith("-"):
            break
        if word in command.commands:
            command = command.commands[word]
            path.append(words.pop(0))
            continue
        if path and getattr(command, "invoke_without_command", False):
            break  # a group that runs on its own takes arguments (none here take words)
        known = ", ".join(sorted(command.commands))
        where = " ".join(["agentgym", *path])
        problems.append(f"`{where} {word}`: no such command (commands: {known})")
        return tuple(path), problems
    if not path:
        return (), problems  # `agentgym --help`, `agentgym` alone
    options = _options(command)
    for word in words:
        if word.startswith("--") and len(word) > 2:
            name = word.split("=", 1)[0]
            if name not in options:
                where = " ".join(["agentgym", *path])
                problems.append(
                    f"`{where} {name}`: no such option (see {where} --help: "
                    f"{', '.join(sorted(o for o in options - {'--help'} if o.startswith('-'))) or 'none'})"
                )
    return tuple(path), problems


def cli_errors(markdown: str, root: Any | None = None) -> list[str]:
    """One message per ``agentgym`` command or option ``markdown`` names that does not exist."""
    root = root or cli_command()
    errors = []
    for mention in cli_mentions(markdown):
        _, problems = resolve(mention, root)
        errors += [f"line {mention.line}: {p}" for p in problems]
    return errors


def commands_named(markdown: str, root: Any | None = None) -> set[tuple[str, ...]]:
    """The command paths ``markdown`` names (only those that exist), with their parents."""
    root = root or cli_command()
    named = set()
    for mention in cli_mentions(markdown):
        path, problems = resolve(mention, root)
        if not problems:
            named.update(path[:i] for i in range(1, len(path) + 1))
    return named


# --- the package's dotted names in the text -----------------------------------------------------

#: A dotted name of the package as a page writes it.
DOTTED = re.compile(r"(?<![\w.])agentgym_envs(?:\.[A-Za-z_]\w*)+")


def name_problem(name: str) -> str | None:
    """Why ``name`` (``agentgym_envs.x.y``) is stale, or ``None`` when it exists and is current.
    A name under a module whose extra is not installed here is not judged."""
    import importlib

    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        module_name = ".".join(parts[:end])
        try:
            obj = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and not exc.name.startswith("agentgym_envs"):
                return None  # an extra this machine lacks: not judged here
            continue
        except ImportError:
            return None
        moved = getattr(obj, "MOVED_TO", None)
        if moved:
            return f"`{module_name}` is kept only for older imports: name `{moved}`"
        for attr in parts[end:]:
            if not hasattr(obj, attr):
                if isinstance(obj, type) or callable(obj):
                    return None  # an instance attribute of a class, or a call's result
                return f"`{name}`: `{'.'.join(parts[:end])}` has no `{attr}`"
            obj = getattr(obj, attr)
            end += 1
        return None
    return f"`{name}`: no such module"


def name_errors(markdown: str) -> list[str]:
    """One message per stale dotted name of the package in ``markdown`` (see :func:`name_problem`)."""
    errors, seen = [], set()
    for number, line in enumerate(markdown.splitlines(), 1):
        for name in DOTTED.findall(line):
            if name in seen:
                continue
            seen.add(name)
            problem = name_problem(name)
            if problem:
                errors.append(f"line {number}: {problem}")
    return errors


# --- defaults the text states -------------------------------------------------------------------

#: "`--option` ... (default 256" as prose writes a number default.
STATED_DEFAULT = re.compile(
    r"`(--[a-z][\w-]*)`[^.()`\n]{0,40}\(default:?\s+`?(-?\d+(?:\.\d+)?)`?\s*(?:s\b)?[,;)]"
)


def default_errors(markdown: str, root: Any | None = None) -> list[str]:
    """One message per number default ``markdown`` states for an option (``"`--max-reasks`
    re-asks (default 2)"``) that no command with that option has."""
    root = root or cli_command()
    defaults: dict[str, set[str]] = {}
    for command in cli_commands(root).values():
        for param in getattr(command, "params", ()):
            default = getattr(param, "default", None)
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                for opt in getattr(param, "opts", ()):
                    defaults.setdefault(opt, set()).add(f"{float(default):g}")
    errors = []
    for number, line in enumerate(_outside_blocks(markdown).splitlines(), 1):
        for option, value in STATED_DEFAULT.findall(line):
            known = defaults.get(option)
            if known and f"{float(value):g}" not in known:
                errors.append(
                    f"line {number}: `{option}` is said to default to {value}; the CLI's "
                    f"default is {' or '.join(sorted(known))}"
                )
    return errors
