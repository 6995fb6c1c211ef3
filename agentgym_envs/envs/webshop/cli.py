"""``agentgym serve-shop``: serve the WebShop env as a web app on this machine."""

from __future__ import annotations

import logging

import typer

from agentgym_envs.envs.webshop.catalog import DEFAULT_NUM_PRODUCTS, DEFAULT_SEED

logger = logging.getLogger(__name__)


def serve_shop(
    host: str = typer.Option(
        "127.0.0.1", help="Interface to listen on (keep 127.0.0.1 unless you mean it)."
    ),
    port: int = typer.Option(3000, help="TCP port."),
    num_products: int = typer.Option(
        DEFAULT_NUM_PRODUCTS, help="Size of the generated catalog (up to 100,000)."
    ),
    catalog_seed: int = typer.Option(
        DEFAULT_SEED, help="Seed of the generated catalog and its goals."
    ),
    data_path: str | None = typer.Option(
        None, help="Folder with WebShop's items_shuffle / items_ins_v2 JSON files."
    ),
    max_sessions: int = typer.Option(
        1000, help="Browser sessions kept (least recently used dropped)."
    ),
) -> None:
    """Serve the WebShop shop as HTML pages: open http://HOST:PORT/ and start a task."""
    from agentgym_envs.envs.webshop.web import create_app
    from agentgym_envs.serving import check_bindable, serve_app

    check_bindable(host, port)  # before the catalog is built
    app = create_app(
        max_sessions=max_sessions,
        num_products=num_products,
        catalog_seed=catalog_seed,
        data_path=data_path,
    )
    typer.echo(f"WebShop on http://{host}:{port}/  (start a task: /start?split=test&task_id=0)")
    serve_app(app, host, port, extra="webshop", log_level="warning")


def register_cli(app: typer.Typer) -> None:
    """Add ``serve-shop`` to the ``agentgym`` command."""
    app.command("serve-shop")(serve_shop)
