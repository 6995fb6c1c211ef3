"""The pip constraints each PyPI harness is installed with: ``<harness name>.txt``.

Each file pins every package of a resolved install of the harness's pinned version (its venv's
``pip freeze``), so ``pip install -c <file> <harness>`` finds one candidate per package and
never backtracks (OpenHands alone spent about 26 minutes in pip's backtracking with only its
top packages pinned). Regenerate them from fresh installs after changing a harness's pin::

    agentgym harness install openhands hermes-agent
    python scripts/harness_constraints.py openhands hermes-agent
"""
