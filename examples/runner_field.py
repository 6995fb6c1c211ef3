"""A field run from Python: a profile as a dict, pre-flight, a battery with repeats, events.

Run: ``python examples/runner_field.py [--policy expert|random|local] [--repeat 2]
[--nats nats://127.0.0.1:4222] [--out runs/example-field]``
(``pip install "agentgym-envs[field]"``; ``--policy local`` also needs ``[local-llm]``).

The same run on the command line is ``agentgym run lightweight --policy expert --repeat 2``
(or ``--config examples/profile.yaml``). A second run with the same ``--out`` resumes: it
plays only what is missing. Events go to ``<out>/events.jsonl`` and, with ``--nats``, to NATS
(buffered on disk while the server is down).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from agentgym_envs.runner import parse_profile, plan_field, run_profile
from agentgym_envs.runner.preflight import failed, preflight


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="expert", choices=["expert", "random", "local"])
    parser.add_argument("--battery", default="lightweight")
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--nats", default=None, help="a NATS server URL to publish events to")
    parser.add_argument("--out", default="runs/example-field")
    args = parser.parse_args()

    sinks = [{"type": "jsonl", "path": "events.jsonl"}]
    if args.nats:
        sinks.append({"type": "nats", "servers": [args.nats]})
    profile = parse_profile(
        {
            "name": "example",
            "model": {"policy": args.policy, "max_tokens": 64},
            "envs": [args.battery],
            "episodes": args.episodes,
            "repeat": args.repeat,
            "max_rounds": 3 if args.policy == "local" else 15,
            "output": args.out,
            "sinks": sinks,
        }
    )
    checks = preflight(profile, plan_field(profile), Path(args.out))
    for check in checks:
        print(
            f"{'ok  ' if check.ok else 'FAIL' if check.fatal else 'warn'} {check.area} "
            f"{check.name}: {check.detail}"
        )
    if failed(checks):
        raise SystemExit(3)

    result, undelivered = run_profile(profile)
    print(f"\n{result.status}: {result.ran} played, {result.skipped} resumed ({result.model})")
    for s in result.summaries:
        print(
            f"  {s.env_id:26} {s.episodes:3}/{s.planned:<3} reward {s.mean_reward:.3f} "
            f"success {s.success_rate:.0%}"
        )
    events = Path(args.out, "events.jsonl").read_text().splitlines()
    print(
        f"{len(events)} events in {args.out}/events.jsonl; last: {json.loads(events[-1])['status']}"
    )
    if any(undelivered.values()):
        print(f"still buffered on disk: {undelivered}")
    raise SystemExit(result.exit_code)


if __name__ == "__main__":
    main()
