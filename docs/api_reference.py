"""A griffe extension for the API reference (mkdocstrings loads it, see ``mkdocs.yml``).

- Docstrings written with reStructuredText habits (Sphinx roles, definition lists, ``::``
  literal blocks) are rewritten as the Markdown mkdocstrings renders
  (:func:`agentgym_envs.docs.rst_to_markdown`), each role resolved in its object's scope.
- A package whose names load lazily (``__getattr__`` over an ``_EXPORTS`` table, or over
  imports inside it) shows what its ``__all__`` names, not its submodules: static analysis
  sees neither ``__all__ = list(_EXPORTS)`` nor names defined only in ``__getattr__``.
"""

from __future__ import annotations

import ast
import contextlib
from collections.abc import Iterator
from typing import Any

import griffe

from agentgym_envs.docs import rst_to_markdown

LAZY_TABLE = "_EXPORTS"


class ApiReference(griffe.Extension):
    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _walk(pkg):
            if isinstance(obj, griffe.Module):
                _lazy_exports(obj)
            if obj.docstring is not None:
                obj.docstring.value = rst_to_markdown(
                    obj.docstring.value, resolve=lambda name, obj=obj: _resolve(obj, name)
                )


def _walk(obj: griffe.Object) -> Iterator[griffe.Object]:
    yield obj
    for member in list(obj.members.values()):
        if not member.is_alias:
            yield from _walk(member)


def _resolve(obj: griffe.Object, name: str) -> str | None:
    """The path ``name`` means in ``obj``'s docstring (its first part looked up in scope)."""
    head, _, rest = name.partition(".")
    scope = obj if isinstance(obj, griffe.Module | griffe.Class) else obj.parent
    try:
        path = scope.resolve(head)
    except (griffe.NameResolutionError, AttributeError):
        return None
    return f"{path}.{rest}" if rest else path


def _lazy_table(module: griffe.Module) -> dict[str, str]:
    """``{name: submodule}`` from the module's ``_EXPORTS`` literal (empty without one)."""
    table = module.members.get(LAZY_TABLE)
    if table is None or table.is_alias or not isinstance(table, griffe.Attribute):
        return {}
    with contextlib.suppress(ValueError, SyntaxError):
        value = ast.literal_eval(str(table.value))
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            return {k: str(v) for k, v in value.items()}
    return {}


def _lazy_exports(module: griffe.Module) -> None:
    table = _lazy_table(module)
    if table and not module.exports:  # ``__all__ = list(_EXPORTS)``: griffe reads no names
        module.exports = list(table)
    for name in [str(n) for n in module.exports or ()]:
        if name in module.members:
            continue
        target = f"{module.path}.{table[name]}.{name}" if name in table else None
        if target is None:  # a name __getattr__ imports: the submodule that defines it
            target = next(
                (sub.members[name].path for sub in module.modules.values() if name in sub.members),
                None,
            )
        if target is not None:
            module.set_member(name, griffe.Alias(name, target, parent=module))
