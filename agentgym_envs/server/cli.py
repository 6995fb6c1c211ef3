"""``agentgym serve``: run one env id as an AgentGym-protocol HTTP server."""

from __future__ import annotations

import typer

from agentgym_envs.server.deadline import REQUEST_TIMEOUT

_LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def register_cli(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(
        env_id: str = typer.Argument(..., help="Registered env id, e.g. Wordle-v0."),
        host: str = typer.Option("127.0.0.1", "--host", help="Interface to bind."),
        port: int = typer.Option(8000, "--port", min=1, max=65535, help="TCP port."),
        max_sessions: int = typer.Option(256, "--max-sessions", min=1, help="Most live sessions."),
        idle_timeout: float | None = typer.Option(
            3600.0,
            "--idle-timeout",
            min=0.0,
            help="Evict sessions idle this many seconds (0: never).",
        ),
        request_timeout: float = typer.Option(
            REQUEST_TIMEOUT,
            "--request-timeout",
            min=0.0,
            help="Answer a request still running after this many seconds with HTTP 504 and "
            "mark its session broken (0: no limit).",
        ),
        max_per_client: int | None = typer.Option(
            None,
            "--max-sessions-per-client",
            min=1,
            help="Most live sessions one client address may hold (default: half of "
            "--max-sessions).",
        ),
        session_auth: bool = typer.Option(
            False,
            "--session-auth/--no-session-auth",
            help="Require the token /create returns (X-Session-Token header) on every later "
            "request on a session. Off by default: AgentGym's own clients send none.",
        ),
        log_level: str = typer.Option("info", "--log-level", help="uvicorn log level."),
        access_log: bool = typer.Option(
            False, "--access-log/--no-access-log", help="Log every request (costs per step)."
        ),
    ) -> None:
        """Serve ENV_ID over AgentGym's HTTP protocol (its agentenv clients work unchanged)."""
        if log_level.lower() not in _LOG_LEVELS:
            raise typer.BadParameter(
                f"{log_level!r} is not one of {', '.join(_LOG_LEVELS)}", param_hint="--log-level"
            )
        from agentgym_envs.server.app import create_app
        from agentgym_envs.serving import check_bindable, serve_app

        check_bindable(host, port)  # before the env's data is loaded

        web = create_app(
            env_id,
            max_sessions=max_sessions,
            idle_timeout=idle_timeout or None,
            request_timeout=request_timeout or None,
            max_sessions_per_client=max_per_client,
            session_auth=session_auth,
        )
        serve_app(web, host, port, log_level=log_level.lower(), access_log=access_log)
