"""``agentgym platform``: migrate the database, create organisations, serve the platform, run\nits training workers."""

from __future__ import annotations

import os
from typing import Annotated

import typer
from rich.console import Console

from agentgym_envs.errors import AgentGymError

platform_app = typer.Typer(
    help="The experience platform as a service (organisations, API keys, logins, the SDK's API).",
    no_args_is_help=True,
)
console = Console()
#: The service's database URL (its login role, a member of agentgym_tenant).
URL_ENV = "AGENTGYM_PLATFORM_DATABASE_URL"
#: The database owner's URL (migrations, organisations).
ADMIN_URL_ENV = "AGENTGYM_PLATFORM_ADMIN_URL"

AdminUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help=f"The database owner's PostgreSQL URL (default: ${ADMIN_URL_ENV}).",
        show_default=False,
    ),
]


def _url(value: str | None, env: str, what: str) -> str:
    url = value or os.environ.get(env)
    if not url:
        raise AgentGymError(f"give {what} with --database-url or ${env}")
    return url


@platform_app.command("migrate")
def migrate_command(
    database_url: AdminUrl = None,
    grant_to: Annotated[
        str | None,
        typer.Option("--grant-to", help="A login role to make a member of agentgym_tenant."),
    ] = None,
) -> None:
    """Create or upgrade the platform's tables (alembic upgrade heads) as the database owner."""
    from agentgym_envs.platform.admin import grant_service_role
    from agentgym_envs.platform.db import migrate

    url = _url(database_url, ADMIN_URL_ENV, "the database owner's URL")
    migrate(url)
    if grant_to:
        grant_service_role(url, grant_to)
    console.print("platform database migrated" + (f"; {grant_to} may serve it" if grant_to else ""))


@platform_app.command("create-org")
def create_org_command(
    slug: Annotated[str, typer.Argument(help="Short name (lower-case letters, digits, dashes).")],
    name: Annotated[str | None, typer.Option("--name", help="Display name.")] = None,
    admin_email: Annotated[
        str | None, typer.Option("--admin-email", help="Create this admin user too.")
    ] = None,
    admin_password: Annotated[
        str | None,
        typer.Option(
            "--admin-password", envvar="AGENTGYM_ADMIN_PASSWORD", help="The admin's password."
        ),
    ] = None,
    database_url: AdminUrl = None,
) -> None:
    """Create an organisation (tenant) and print its first API key (shown once)."""
    from agentgym_envs.platform.admin import create_organisation

    if admin_email and not admin_password:
        admin_password = typer.prompt("admin password", hide_input=True, confirmation_prompt=True)
    made = create_organisation(
        _url(database_url, ADMIN_URL_ENV, "the database owner's URL"),
        slug,
        name,
        admin_email=admin_email,
        admin_password=admin_password,
    )
    console.print(f"organisation {made.slug} ({made.org_id})")
    console.print(made.api_key, markup=False, highlight=False, soft_wrap=True)


@platform_app.command("serve")
def serve_command(
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help=f"The service role's PostgreSQL URL (default: ${URL_ENV}); not the owner's.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port")] = 8780,
    allowed_hosts: Annotated[
        str,
        typer.Option(
            "--allowed-hosts",
            help="Host names it answers to besides --host, comma-separated (*.domain matches "
            "its subdomains).",
        ),
    ] = "",
) -> None:
    """Serve the platform: the /v1 API, logins and the dashboard."""
    from agentgym_envs.experience.dashboard_guard import parse_hosts
    from agentgym_envs.platform.app import serve

    try:
        extra = parse_hosts(allowed_hosts) if allowed_hosts.strip() else ()
    except ValueError as exc:
        raise AgentGymError(str(exc)) from None
    url = _url(database_url, URL_ENV, "the service's database URL")
    console.print(f"agentgym platform at http://{host}:{port}/ (Ctrl-C stops)")
    serve(url, host=host, port=port, allowed_hosts=extra)


@platform_app.command("worker")
def worker_command(
    artifacts: Annotated[
        str, typer.Option("--artifacts", help="Folder for trained weights (the workers share it).")
    ],
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help=f"The service role's PostgreSQL URL (default: ${URL_ENV}); not the owner's.",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", help="Jobs run at once.")] = 1,
    stalled_after: Annotated[
        float,
        typer.Option(
            "--stalled-after",
            help="Seconds without a heartbeat after which a worker counts as dead: its job is "
            "queued again (up to 3 runs), then failed with the reason.",
        ),
    ] = 60.0,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            metavar="NAME=CHECKPOINT",
            help="A base model sft jobs may name (a save_pretrained folder); repeatable.",
        ),
    ] = None,
    once: Annotated[bool, typer.Option("--once", help="Stop when the queue is empty.")] = False,
) -> None:
    """Run training jobs queued with /v1/jobs (SIGTERM or Ctrl-C: finish the running jobs and
    stop; a second signal stops at once)."""
    import logging

    from agentgym_envs.platform.jobs_worker import parse_models, worker

    url = _url(database_url, URL_ENV, "the service's database URL")
    models = parse_models(model or [])
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    console.print(f"training worker (concurrency {concurrency}); Ctrl-C stops after its jobs")
    worker(
        url,
        artifacts,
        models=models,
        concurrency=concurrency,
        stalled_after=stalled_after,
        wait=not once,
    )


def register_cli(app: typer.Typer) -> None:
    """Add ``platform`` to the main ``agentgym`` app."""
    app.add_typer(platform_app, name="platform")


__all__ = ["platform_app", "register_cli"]
