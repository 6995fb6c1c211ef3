"""Write the pip constraints of PyPI harnesses from their installed venvs.

    agentgym harness install openhands hermes-agent
    python scripts/harness_constraints.py openhands hermes-agent

Each harness's venv (``<harness folder>/venvs/<name>``) is frozen to
``agentgym_envs/integrations/harnesses/constraints/<name>.txt``, which ``agentgym harness
install`` then passes to pip with ``-c`` (see that package's docstring).
"""

from __future__ import annotations

import sys

from agentgym_envs.integrations.harnesses import get_harness
from agentgym_envs.integrations.harnesses.install import CONSTRAINTS, freeze


def main(names: list[str]) -> None:
    for name in names:
        harness = get_harness(name)
        path = CONSTRAINTS / f"{harness.name}.txt"
        path.write_text(freeze(harness), encoding="utf-8")
        print(f"{harness.name}: {path}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["openhands", "hermes-agent"])
