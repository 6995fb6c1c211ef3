"""The model endpoints an agent server may call: an allow-list from its configuration.

A ``/run`` row does not bring its own model URL: the server calls only the endpoints it was
started with (``--model-url`` and each ``--allow-model-url [name=]URL``). A row chooses among
them by name (``"model": "judge"``) or by URL (``"model": "http://host:8000/v1"`` or
``{"base_url": ..., "model": ..., "api_key": ...}``, where the row's model name and key are
used with the listed URL); any other URL, and any scheme but ``http``/``https``, is a 400 that
says how to allow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agentgym_envs.agents.episodes import BadRequest

SCHEMES = ("http", "https")


def normalize_url(url: str) -> str:
    """``url`` checked as an ``http(s)`` URL with a host, without its trailing ``/``.

    Raises:
        BadRequest: for another scheme (``file://``, ``ftp://`` ...) or no host.
    """
    text = str(url).strip()
    parts = urlsplit(text)
    if parts.scheme.lower() not in SCHEMES or not parts.hostname:
        raise BadRequest(
            f"model URL {text[:80]!r} is not an http(s) URL with a host: model endpoints are "
            "http://host:port/v1 roots"
        )
    return text.rstrip("/")


@dataclass(frozen=True)
class AllowedModel:
    """One endpoint the server may call."""

    name: str
    base_url: str
    model: str | None = None
    api_key: str | None = None

    def endpoint(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "api_key": self.api_key}


def parse_allowed(spec: str) -> AllowedModel:
    """``name=URL`` or ``URL`` (its name is then the URL) from the command line."""
    name, sep, url = spec.partition("=")
    if not sep or "://" in name:
        name, url = spec, spec
    url = normalize_url(url)
    return AllowedModel(name.strip() or url, url)


class ModelAllowList:
    """The endpoints of a server's configuration, and the row's choice among them.

    Args:
        default: the server's default endpoint (``--model-url``), used when a row names none.
        allowed: more endpoints a row may choose (:class:`AllowedModel`, ``[name=]URL``
            strings or endpoint dicts with an optional ``name``).
    """

    def __init__(
        self, default: dict[str, Any] | None = None, allowed: list[Any] | tuple[Any, ...] = ()
    ) -> None:
        self.entries: list[AllowedModel] = []
        self.default: AllowedModel | None = None
        if default and default.get("base_url"):
            self.default = self._add(
                {"name": default.get("name") or "default", **default}, first=True
            )
        for item in allowed:
            if isinstance(item, AllowedModel):
                self.entries.append(item)
            elif isinstance(item, str):
                self.entries.append(parse_allowed(item))
            else:
                self._add(dict(item))

    def _add(self, item: dict[str, Any], first: bool = False) -> AllowedModel:
        url = normalize_url(item["base_url"])
        entry = AllowedModel(
            str(item.get("name") or url), url, item.get("model"), item.get("api_key")
        )
        self.entries.insert(0, entry) if first else self.entries.append(entry)
        return entry

    def names(self) -> list[str]:
        return [
            e.name if e.name == e.base_url else f"{e.name} ({e.base_url})" for e in self.entries
        ]

    def _find(self, key: str) -> AllowedModel | None:
        for entry in self.entries:
            if key == entry.name:
                return entry
        try:
            url = normalize_url(key)
        except BadRequest:
            if "://" in key:
                raise
            return None
        return next((e for e in self.entries if e.base_url == url), None)

    def resolve(self, value: Any, what: str = "model") -> dict[str, Any] | None:
        """The endpoint a row's ``model`` (or ``user_model``) field chooses (``None``: none
        chosen and no default).

        Raises:
            BadRequest: for a URL or name not in the list, another scheme, or a bad shape.
        """
        if value is None:
            return self.default.endpoint() if self.default and what == "model" else None
        overrides: dict[str, Any] = {}
        if isinstance(value, dict):
            key = value.get("name") or value.get("base_url")
            overrides = {k: value[k] for k in ("model", "api_key") if value.get(k)}
        else:
            key = value
        if not isinstance(key, str) or not key:
            raise BadRequest(
                f"{what} must be a name or URL from this server's allow-list, or "
                "{'base_url': ..., 'model': ..., 'api_key': ...}"
            )
        entry = self._find(key)
        if entry is None:
            listed = ", ".join(self.names()) or "none"
            raise BadRequest(
                f"{what} {key[:80]!r} is not on this agent server's allow-list (it calls only "
                f"the endpoints it was started with: {listed}): choose one of those, or restart "
                f"the server with --allow-model-url {key[:80]}"
            )
        return {**entry.endpoint(), **overrides}


__all__ = ["AllowedModel", "ModelAllowList", "normalize_url", "parse_allowed"]
