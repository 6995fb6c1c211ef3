"""Scripts run by a harness's own Python (its venv), not imported by this package."""
