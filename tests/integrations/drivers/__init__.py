"""Scripts the ecosystem tests run inside each ecosystem's own venv (see ``venvs``)."""
