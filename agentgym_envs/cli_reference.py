"""The CLI reference page, written from the ``agentgym`` command itself.

:func:`cli_reference` walks every command and sub-command the CLI has (the areas' commands
included, as :func:`agentgym_envs.docs_check.cli_command` registers them) and writes, for each,
its usage line, its help text, and a table of its arguments and options with their defaults.
The docs hook adds the page while the site builds, so it never goes stale.
"""

from __future__ import annotations

import re
from typing import Any

#: Where the page goes in the site.
PAGE = "reference/cli.md"


#: A code span of help text (left as it is).
_CODE = re.compile(r"(`[^`]*`)")


def _clean(text: str | None) -> str:
    """Help text as Markdown: Click's ``\\b`` markers dropped; outside code spans, ``<name>``
    and ``*`` shown as typed (not read as HTML or emphasis)."""
    lines = [line for line in (text or "").splitlines() if line.strip() != "\b"]
    parts = _CODE.split("\n".join(lines).strip())
    for i in range(0, len(parts), 2):  # the text between code spans
        parts[i] = parts[i].replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*")
    return "".join(parts)


def _cell(text: str) -> str:
    return re.sub(r"\s+", " ", _clean(text)).replace("|", "\\|").strip()


def _default(param: Any) -> str:
    default = getattr(param, "default", None)
    if callable(default) or default is None or type(default).__name__ == "Sentinel":
        return ""
    if getattr(param, "is_flag", False) and getattr(param, "secondary_opts", None):
        return f"`{param.opts[0] if default else param.secondary_opts[0]}`"
    if isinstance(default, (list, tuple)):
        return ", ".join(f"`{v}`" for v in default) if default else ""
    if default == "" or (isinstance(default, bool) and not default):
        return ""
    return f"`{default}`"


def _kind(param: Any, ctx: Any) -> str:
    """The value's type as ``--help`` shows it (``integer``, ``text``, a choice)."""
    try:
        shown = param.display_type(ctx)  # Typer's own parameters
    except AttributeError:
        shown = param.type.name  # Click's
    shown = str(shown or "").strip().strip("<>").lower()
    for short, word in (("int", "integer"), ("str", "text"), ("float", "number")):
        if shown.split(" ")[0] == short:
            return word
    return shown


def _row(param: Any, ctx: Any) -> str:
    if param.param_type_name == "argument":
        name = f"`{(param.metavar or param.name).upper()}`"
        kind = "argument" + (" (required)" if param.required else "")
    else:
        name = " / ".join(f"`{o}`" for o in (*param.opts, *param.secondary_opts))
        kind = "flag" if param.is_flag else (_kind(param, ctx) or "value")
        kind += " (required)" if param.required else ""
    return f"| {name} | {kind} | {_default(param)} | {_cell(getattr(param, 'help', '') or '')} |"


def _context(path: tuple[str, ...], command: Any, parents: list[Any]) -> Any:
    try:
        from typer._click import Context  # Typer 0.2x carries its own Click
    except ImportError:  # pragma: no cover - an older Typer on Click
        from click import Context
    ctx = None
    for name, cmd in zip(("agentgym", *path), [*parents, command]):
        ctx = Context(cmd, info_name=name, parent=ctx)
    return ctx


def cli_reference(root: Any | None = None) -> str:
    """The reference page (Markdown) of every command of ``root`` (default: ``agentgym``)."""
    from agentgym_envs.docs_check import cli_command, cli_commands

    root = root or cli_command()
    commands = cli_commands(root)
    out = [
        "# Command-line reference",
        "",
        "Every `agentgym` command, written from the commands themselves while the site builds"
        " (each command's `--help` prints the same). Commands of an area whose extra is not"
        " installed are missing from `agentgym --help` until it is.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for path, command in commands.items():
        anchor = "-".join(("agentgym", *path))
        summary = _cell((command.help or "").split("\n\n")[0])
        out.append(f"| [`agentgym {' '.join(path)}`](#{anchor}) | {summary} |")
    for path, command in commands.items():
        parents = [root] + [commands[path[:i]] for i in range(1, len(path))]
        level = "#" * min(len(path) + 1, 4)
        out += ["", f"{level} `agentgym {' '.join(path)}` {{#{'-'.join(('agentgym', *path))}}}", ""]
        ctx = _context(path, command, parents)
        usage = " ".join(["agentgym", *path, *command.collect_usage_pieces(ctx)])
        out += ["```text", usage, "```", ""]
        help_text = _clean(command.help)
        if help_text:
            out += [help_text, ""]
        subs = [n for n, c in sorted(getattr(command, "commands", {}).items()) if not c.hidden]
        if subs:
            out += ["Commands: " + ", ".join(f"`{n}`" for n in subs) + ".", ""]
        params = [p for p in command.params if not getattr(p, "hidden", False)]
        if params:
            out += ["| argument / option | type | default | meaning |", "|---|---|---|---|"]
            out += [_row(p, ctx) for p in params]
    return "\n".join(out) + "\n"


__all__ = ["PAGE", "cli_reference"]
