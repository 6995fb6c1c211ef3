"""``agentgym agents bench|expert-server``, ``agentgym agent-server``, ``agentgym mcp`` and
``agentgym gateway``.

The main CLI calls :func:`register_cli` with its ``typer.Typer`` app.
"""

from __future__ import annotations

import time
from pathlib import Path

import typer

agents_app = typer.Typer(
    help="Reference agents: benchmark them on any OpenAI-compatible endpoint, the local model "
    "or the expert behind the OpenAI interface.",
    no_args_is_help=True,
)

_AGENT = typer.Option(
    "multistep", "--agent", help="A reference agent, e.g. multistep or multiturn."
)
_ENVS = typer.Option("agenteval", "--envs", help="Env ids (comma-separated), agenteval or all.")
_MODEL_SRC = typer.Option(
    "openai",
    "--model-source",
    help="openai (--base-url), local (SmolLM2 started here: "
    "transformers, or llama.cpp where that extra is installed) or expert (the "
    "family's expert behind an OpenAI-compatible server started here: checks the plumbing).",
)
_BASE_URL = typer.Option(None, "--base-url", help="The endpoint's /v1 root ($OPENAI_BASE_URL).")
_MODEL = typer.Option(None, "--model", help="Model name (default: the endpoint's first).")
_API_KEY = typer.Option(None, "--api-key", help="API key ($OPENAI_API_KEY).")
_LIMIT = typer.Option(None, "--limit", help="Only the first N tasks per env.")
_CONCURRENCY = typer.Option(1, "--concurrency", "-j", help="Episodes in flight.")
_MAX_ROUNDS = typer.Option(None, "--max-rounds", help="Turn cap (default AgentGym's per family).")
_MAX_TOKENS = typer.Option(512, "--max-tokens", help="Completion tokens per model call.")
_OUT = typer.Option(None, "--out", help="Run folder (default bench-runs/agent-<name>-...).")
_RECORD = typer.Option(None, "--record", help="Append finished episodes here (JSONL).")
_GW_OUT = typer.Option(Path("gateway-runs"), "--out", help="Recordings folder.")


@agents_app.command("bench")
def bench(
    agent: str = _AGENT,
    envs: str = _ENVS,
    source: str = _MODEL_SRC,
    base_url: str | None = _BASE_URL,
    model: str | None = _MODEL,
    api_key: str | None = _API_KEY,
    limit: int | None = _LIMIT,
    concurrency: int = _CONCURRENCY,
    max_rounds: int | None = _MAX_ROUNDS,
    max_tokens: int = _MAX_TOKENS,
    out: Path | None = _OUT,
) -> None:
    """Run a reference agent on AgentEval's test splits: `agentgym bench --policy agent:<name>`
    with these options (that command has them all)."""
    from agentgym_envs.benchmarks.cli import bench_app

    argv = ["--policy", f"agent:{agent}", "--envs", envs, "--model-source", source]
    argv += ["--concurrency", str(concurrency), "--max-tokens", str(max_tokens)]
    for flag, value in (
        ("--base-url", base_url),
        ("--model", model),
        ("--api-key", api_key),
        ("--limit", limit),
        ("--max-rounds", max_rounds),
        ("--out", out),
    ):
        if value is not None:
            argv += [flag, str(value)]
    command = typer.main.get_command(bench_app)
    command.main(argv, prog_name="agentgym bench", standalone_mode=False)


@agents_app.command("expert-server")
def expert_server(
    envs: str = _ENVS,
    port: int = typer.Option(8799, "--port", help="TCP port on 127.0.0.1."),
) -> None:
    """Serve the families' experts as an OpenAI-compatible model (Ctrl-C stops)."""
    from agentgym_envs.agents.expert_server import ExpertChatServer
    from agentgym_envs.benchmarks.runner import resolve_envs

    server = ExpertChatServer(resolve_envs(envs), port=port).start()
    typer.echo(f"expert model at {server.base_url} (model name 'expert'); Ctrl-C stops")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def mcp_command(
    env_id: str = typer.Argument(..., help="The env to serve, e.g. Maze-v0."),
    transport: str = typer.Option("stdio", "--transport", help="stdio or http."),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8765, "--port", help="HTTP port (--transport http)."),
    record: Path | None = _RECORD,
    idle_timeout: float = typer.Option(
        1800.0, "--idle-timeout", min=0.001, help="Seconds before an unused episode is closed."
    ),
    max_sessions: int = typer.Option(
        256, "--max-sessions", min=1, help="Most episodes open at once (http)."
    ),
) -> None:
    """Serve an env as an MCP server (reset, act and the family's tools)."""
    from agentgym_envs.integrations.mcp import main

    argv = [env_id, "--transport", transport, "--host", host, "--port", str(port)]
    argv += ["--idle-timeout", str(idle_timeout), "--max-sessions", str(max_sessions)]
    main(argv + (["--record", str(record)] if record else []))


def gateway_command(
    env_id: str = typer.Option(..., "--env", help="The env the harness sessions play."),
    upstream: str = typer.Option(..., "--upstream", help="The real model endpoint's /v1 root."),
    out: Path = _GW_OUT,
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8790, "--port"),
    api_key: str | None = typer.Option(None, "--api-key", help="Key sent upstream."),
    model: str | None = typer.Option(None, "--model", help="Force this model name."),
    session_auth: bool = typer.Option(
        True,
        "--session-auth/--no-session-auth",
        help="Require each session's X-Session-Token (set by its first request) after that.",
    ),
    token_ids: bool = typer.Option(
        False, "--token-ids", help="Ask the upstream (vLLM) for token ids and logprobs."
    ),
    idle_timeout: float = typer.Option(
        3600.0,
        "--idle-timeout",
        min=0.001,
        help="Seconds after which a session no request names expires (written, then dropped).",
    ),
    max_sessions: int = typer.Option(
        256, "--max-sessions", min=1, help="Most sessions open at once (then 429)."
    ),
) -> None:
    """Record any harness: an OpenAI-compatible gateway + the env over MCP / HTTP."""
    from agentgym_envs.integrations.gateway import serve

    typer.echo(
        f"model base URL for the harness: http://{host}:{port}/s/<session>/v1; "
        f"MCP: http://{host}:{port}/mcp?session=<session>; finish: POST /s/<session>/finish"
    )
    serve(
        env_id,
        upstream,
        str(out),
        host=host,
        port=port,
        api_key=api_key,
        model=model,
        session_auth=session_auth,
        token_ids=token_ids,
        idle_timeout=idle_timeout,
        max_sessions=max_sessions,
    )


def agent_server_command(
    agent: str = typer.Argument(
        "multistep", help="multistep, multistep-tools, multiturn or multiturn-user."
    ),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8800, "--port"),
    model_url: str | None = typer.Option(
        None, "--model-url", help="Default model endpoint (/v1 root) for rows naming none."
    ),
    model: str | None = typer.Option(None, "--model", help="Its model name (default: first)."),
    api_key: str | None = typer.Option(None, "--api-key", help="Its API key."),
    concurrency: int = typer.Option(8, "--concurrency", "-j", min=1, help="Episodes at once."),
    episode_timeout: float = typer.Option(
        600.0, "--episode-timeout", help="Wall seconds per episode (then time_limit)."
    ),
    allow_model_url: list[str] = typer.Option(
        [],
        "--allow-model-url",
        help="Another model endpoint rows may choose, as URL or name=URL (repeat it). The "
        "server calls no URL but these and --model-url.",
    ),
    model_timeout: float = typer.Option(
        120.0, "--model-timeout", help="Most seconds one model call may take in all."
    ),
    model_read_timeout: float = typer.Option(
        60.0, "--model-read-timeout", help="Most seconds between two bytes of a model reply."
    ),
    model_connect_timeout: float = typer.Option(
        5.0, "--model-connect-timeout", help="Most seconds to connect to a model endpoint."
    ),
    max_reply_mb: float = typer.Option(
        16.0, "--max-reply-mb", help="Largest model reply read (MB); a longer one fails."
    ),
    max_body_mb: float = typer.Option(
        32.0, "--max-body-mb", help="Largest request body read (MB); a bigger one is a 413."
    ),
    session_auth: bool = typer.Option(
        True,
        "--session-auth/--no-session-auth",
        help="Require the token /seed_session returns on later calls on the session.",
    ),
) -> None:
    """Serve a reference agent over HTTP: POST /run plays a whole episode (Ctrl-C stops)."""
    from agentgym_envs.agents.episodes import ModelLimits, agent_names
    from agentgym_envs.agents.server import serve_agent
    from agentgym_envs.errors import AgentGymError

    if agent not in agent_names():
        raise AgentGymError(f"unknown agent {agent!r}: use one of {', '.join(agent_names())}")
    default = {"base_url": model_url, "model": model, "api_key": api_key} if model_url else None
    limits = ModelLimits(
        connect=model_connect_timeout,
        read=model_read_timeout,
        total=model_timeout,
        reply_bytes=int(max_reply_mb * (1 << 20)),
    )
    typer.echo(f"agent server ({agent}) at http://{host}:{port}: POST /run, /seed_session, /verify")
    serve_agent(
        agent,
        host=host,
        port=port,
        model=default,
        allow_models=list(allow_model_url),
        concurrency=concurrency,
        episode_timeout=episode_timeout,
        limits=limits,
        max_body_bytes=int(max_body_mb * (1 << 20)),
        session_auth=session_auth,
    )


def register_cli(app: typer.Typer) -> None:
    """Add ``agents``, ``agent-server``, ``mcp`` and ``gateway`` to the main ``agentgym``
    app."""
    app.add_typer(agents_app, name="agents")
    app.command("agent-server")(agent_server_command)
    app.command("mcp")(mcp_command)
    app.command("gateway")(gateway_command)


__all__ = ["agents_app", "register_cli"]
