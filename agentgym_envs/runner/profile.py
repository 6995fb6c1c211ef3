"""Field-runner profiles: one YAML (or TOML) file says which model, which envs, how many
episodes, where results go and where events are sent.

:func:`load_profile` reads and validates a profile with pydantic; any problem is one
:class:`ProfileError` line naming the key (``profile.yaml: max_rounds: Input should be greater
than or equal to 1``). See ``examples/profile.yaml`` for every key, documented.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from pathlib import Path
from typing import Annotated, Any, Literal

import tomllib
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from agentgym_envs.errors import AgentGymError, require

#: AgentGym's field setups: 15 rounds and 300 seconds per episode.
DEFAULT_MAX_ROUNDS = 15
DEFAULT_MAX_SECONDS = 300.0


class ProfileError(AgentGymError, ValueError):
    """A profile that cannot be read or does not validate (one line naming the key)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Endpoint(_Strict):
    """One endpoint of the profile's fallback list: a model, or an agent server that plays
    whole episodes.

    ``base_url`` is an OpenAI-compatible ``/v1`` root (TensorZero
    ``http://host:3000/openai/v1``, Ollama ``http://host:11434/v1``, vLLM
    ``http://host:8000/v1``); ``local: true`` instead starts the bundled llama.cpp server
    (SmolLM2, extra ``local-llm``); ``agent_server`` is the root of an agent server
    (``agentgym agent-server <agent>``): each episode is one ``POST /run`` to it, played by its
    ``agent`` (default: the server's) with the model at ``base_url`` (default: the server's
    ``--model-url``). ``api_key_env`` names the environment variable holding the key (keys
    never go in the profile); ``timeout`` is seconds per request (default 120; for an agent
    server, per episode: 900).
    """

    name: str | None = None
    base_url: str | None = None
    local: bool = False
    agent_server: str | None = None
    agent: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    model: str | None = None
    api_key_env: str | None = None
    timeout: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_target(self) -> Endpoint:
        if self.agent_server is not None:
            self._check_agent_server()
        elif bool(self.base_url) == bool(self.local):
            raise ValueError("give base_url, local: true or agent_server (one of them)")
        elif self.agent or self.options:
            key = "agent" if self.agent else "options"
            raise ValueError(f"{key} is for an agent server: add agent_server: <its url>")
        if self.base_url:
            _check_url("base_url", self.base_url)
        return self

    def _check_agent_server(self) -> None:
        from agentgym_envs.agents.specs import AGENTS

        _check_url("agent_server", str(self.agent_server))
        if self.local:
            raise ValueError(
                "agent_server plays with its own model (or base_url's): drop local: true"
            )
        if self.agent is not None and self.agent not in AGENTS:
            raise ValueError(f"unknown agent {self.agent!r}: use one of {', '.join(AGENTS)}")

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        return "local" if self.local else str(self.agent_server or self.base_url)

    @property
    def request_timeout(self) -> float:
        """Seconds per request: ``timeout``, else 120 (900 per agent-server episode)."""
        return self.timeout or (900.0 if self.agent_server else 120.0)

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None


def _check_url(key: str, url: str) -> None:
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"{key} {url!r} must start with http:// or https://")


class ModelConfig(_Strict):
    """Who plays: ``expert`` / ``random`` (scripted), ``openai`` (the endpoints, in order:
    models or agent servers) or ``local`` (the bundled SmolLM2 server)."""

    policy: Literal["expert", "random", "openai", "local"] = "expert"
    name: str | None = None
    endpoints: list[Endpoint] = Field(default_factory=list)
    format: Literal["react", "tools"] = "react"
    parser: Literal["agentgym", "strict"] = "agentgym"
    prompts: Literal["ours", "agentgym"] = "ours"
    prompts_source: str | None = None
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    max_tokens: int = Field(512, ge=1)
    max_history_turns: int | None = Field(None, ge=1)
    max_retries: int = Field(2, ge=0)

    @model_validator(mode="after")
    def _endpoints_for_openai(self) -> ModelConfig:
        if self.policy == "openai" and not self.endpoints:
            raise ValueError("policy openai needs endpoints (a list of base_url entries)")
        return self


class EnvConfig(_Strict):
    """One env with its own settings (the plain string form takes the profile's)."""

    id: str
    category: Literal["lightweight", "moderate", "heavy"] | None = None
    split: Literal["train", "test"] | None = None
    episodes: int | None = Field(None, ge=1)
    task_ids: list[Annotated[int, Field(ge=0)]] | None = None
    max_rounds: int | None = Field(None, ge=1)
    kwargs: dict[str, Any] = Field(default_factory=dict)


class _SinkBase(_Strict):
    name: str | None = None
    #: Longest wait between two delivery attempts while the sink is down (seconds).
    retry_max_seconds: float = Field(15.0, gt=0)


class JsonlSinkConfig(_SinkBase):
    type: Literal["jsonl"]
    #: Relative paths are inside the output folder.
    path: str = "events.jsonl"


class NatsSinkConfig(_SinkBase):
    type: Literal["nats"]
    servers: list[str] = Field(default_factory=lambda: ["nats://127.0.0.1:4222"], min_length=1)
    subject_prefix: str = ""
    jetstream: bool = False
    stream: str = "AGENTGYM"
    connect_timeout: float = Field(2.0, gt=0)

    @field_validator("subject_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if value and (value.startswith(".") or value.endswith(".") or " " in value):
            raise ValueError(
                f"subject_prefix {value!r}: dot-separated tokens, no leading/trailing dot"
            )
        return value


class WebhookSinkConfig(_SinkBase):
    type: Literal["webhook"]
    url: str
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(10.0, gt=0)


SinkConfig = Annotated[
    JsonlSinkConfig | NatsSinkConfig | WebhookSinkConfig, Field(discriminator="type")
]


class Profile(_Strict):
    """A field-runner profile. Every key has a default; ``examples/profile.yaml`` documents them."""

    name: str = "field"
    node: str = Field(default_factory=socket.gethostname)
    model: ModelConfig = Field(default_factory=ModelConfig)
    envs: list[str | EnvConfig] = Field(default_factory=lambda: ["lightweight"])
    batteries: dict[str, list[str]] = Field(default_factory=dict)
    split: Literal["train", "test"] = "test"
    episodes: int = Field(10, ge=1)
    repeat: int = Field(1, ge=1)
    concurrency: int = Field(1, ge=1)
    #: ``local`` (threads here) or ``ray`` (``concurrency`` env actors on the Ray cluster at
    #: ``ray_address``: ``$RAY_ADDRESS`` or a new local one when unset).
    backend: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    max_rounds: int | Literal["family"] = DEFAULT_MAX_ROUNDS
    max_seconds: float = Field(DEFAULT_MAX_SECONDS, gt=0)
    seed: int = 0
    output: str = "runs/field"
    record: bool = True
    sinks: list[SinkConfig] = Field(default_factory=list)
    #: When the run ends, buffered events are delivered for as long as each sink takes them;
    #: a sink that delivers none for this many seconds is left (its events stay on disk).
    flush_seconds: float = Field(10.0, ge=0)

    @field_validator("backend")
    @classmethod
    def _agent_servers_play_locally(cls, value: str, info: ValidationInfo) -> str:
        model = info.data.get("model")
        if value == "ray" and model is not None and any(e.agent_server for e in model.endpoints):
            raise ValueError(
                "ray plays episodes on env actors; an agent_server endpoint plays them on the "
                "server: use backend: local"
            )
        return value

    @field_validator("max_rounds")
    @classmethod
    def _rounds(cls, value: int | str) -> int | str:
        if isinstance(value, int) and value < 1:
            raise ValueError("use a number >= 1 or 'family'")
        return value

    def digest(self) -> str:
        """A short hash of the settings (what ``field.status`` events carry as ``config``)."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _is_branch(item: Any) -> bool:
    """Whether a pydantic error location item names a union branch, not a key."""
    text = str(item)
    return text in ("str", "int", "float", "bool", "EnvConfig") or text.startswith(
        ("literal[", "function-")
    )


def _key_path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for i, item in enumerate(loc):
        if isinstance(item, int):
            parts.append(f"[{item}]")
        elif _is_branch(item):
            continue
        elif i and isinstance(loc[i - 1], int) and loc[:1] == ("sinks",) and i == 2:
            continue  # the discriminator's tag (sinks[0].nats.url)
        else:
            parts.append(("." if parts else "") + str(item))
    return "".join(parts) or "(top level)"


def _message(err: dict[str, Any]) -> str:
    if err.get("type") == "extra_forbidden":
        return "unknown key (see examples/profile.yaml)"
    return str(err.get("msg", "invalid")).removeprefix("Value error, ")


def validation_message(exc: ValidationError, source: str = "profile") -> str:
    """One line for the first bad key: ``source: key.path: what is wrong``.

    For a key that takes one of several forms (a name or a mapping; a number or ``family``),
    the most specific complaint is kept, or the forms' complaints are joined with ``or``.
    """
    errors = [(_key_path(tuple(e.get("loc", ()))), e) for e in exc.errors()]
    key, _ = errors[0]
    related = [(k, e) for k, e in errors if k == key or k.startswith((key + ".", key + "["))]
    deepest = max(len(k) for k, _ in related)
    if deepest > len(key):
        key, err = next((k, e) for k, e in related if len(k) == deepest)
        return f"{source}: {key}: {_message(err)}"
    messages = list(dict.fromkeys(_message(e) for k, e in related if k == key))
    return f"{source}: {key}: {' or '.join(messages)}"


def parse_profile(data: Any, source: str = "profile") -> Profile:
    """Validate ``data`` (a mapping, as read from a file) into a :class:`Profile`."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProfileError(
            f"{source}: (top level): a profile is a mapping of keys, got {type(data).__name__}"
        )
    try:
        return Profile.model_validate(data)
    except ValidationError as exc:
        raise ProfileError(validation_message(exc, source)) from None


def load_profile(path: str | os.PathLike[str]) -> Profile:
    """Read a YAML (``.yaml``/``.yml``) or TOML (``.toml``) profile and validate it."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ProfileError(f"{p}: no such profile file (see examples/profile.yaml)")
    if p.stat().st_size > MAX_PROFILE_BYTES:
        raise ProfileError(f"{p.name}: over {MAX_PROFILE_BYTES} bytes: is this a profile?")
    text = p.read_text(encoding="utf-8")
    yaml = None if p.suffix.lower() == ".toml" else require("yaml", "field")
    try:
        data = tomllib.loads(text) if yaml is None else yaml.safe_load(text)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ProfileError(f"{p.name}: cannot parse: {first}") from None
    if _too_big(data, MAX_PROFILE_VALUES):
        raise ProfileError(
            f"{p.name}: expands to over {MAX_PROFILE_VALUES} values (YAML anchors and aliases "
            "nested into an alias bomb?): write the values out"
        )
    return parse_profile(data, p.name)


#: Largest profile file read (bytes).
MAX_PROFILE_BYTES = 1 << 20
#: Most values a profile may hold once its YAML aliases are expanded.
MAX_PROFILE_VALUES = 100_000


def _too_big(data: Any, limit: int) -> bool:
    """Whether ``data`` holds more than ``limit`` values counted as if every shared (aliased)
    part were a copy -- as validating and dumping it would; stops counting past ``limit``."""
    stack, count = [data], 0
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


__all__ = [
    "DEFAULT_MAX_ROUNDS",
    "DEFAULT_MAX_SECONDS",
    "Endpoint",
    "EnvConfig",
    "JsonlSinkConfig",
    "ModelConfig",
    "NatsSinkConfig",
    "Profile",
    "ProfileError",
    "WebhookSinkConfig",
    "load_profile",
    "parse_profile",
]
