"""Print the README's environment table from the registry (README must match; a test checks).

python scripts/env_table.py
"""

from __future__ import annotations

import agentgym_envs

PARITY = {
    "agentgym": "identical",
    "stand-in": "stand-in data (loader for the real data)",
    "ours": "ours (not in AgentGym)",
}


def table() -> str:
    lines = [
        "| id | family | extra | train / test tasks | max rounds | reward | AgentGym parity "
        "| what it is |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in agentgym_envs.list_envs():
        lines.append(
            f"| `{r['id']}` | {r['family']} | `{r['extra']}` | {r['splits']['train']} / {r['splits']['test']} "
            f"| {r['max_rounds']} | {r['reward']} | {PARITY[r['parity']]} | {r['description']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
