"""Watch a field run's events on NATS: prints each event as it arrives.

Run: ``python examples/runner_nats_subscriber.py [--server nats://127.0.0.1:4222]
[--prefix lab.node1]`` (``pip install "agentgym-envs[field]"``; a NATS server:
``apt-get install nats-server && nats-server -a 127.0.0.1``), then in another terminal
``agentgym run --config examples/profile.yaml --run lightweight --repeat 3``.
Ctrl-C stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import json

import nats


def describe(event: dict) -> str:
    kind = event["event"]
    if kind == "agentgym.episode.completed.v1":
        return (
            f"episode {event['episode_id']}: reward {event['reward']:.3f} in {event['rounds']} "
            f"rounds, {event['duration_s']:.1f} s, {event['outcome']} ({event['model']})"
        )
    if kind == "agentgym.eval.batch.completed.v1":
        return (
            f"batch {event['batch_id']}: {event['n_episodes']} episodes, "
            f"mean reward {event['mean_reward']:.3f}"
        )
    return (
        f"{event['node']}: run {event['run_id']} {event['status']} ({event['config']['profile']})"
    )


async def main(server: str, prefix: str) -> None:
    nc = await nats.connect(servers=[server])
    subject = f"{prefix}.agentgym.>" if prefix else "agentgym.>"

    async def on_message(msg) -> None:
        print(f"[{msg.subject}] {describe(json.loads(msg.data))}", flush=True)

    await nc.subscribe(subject, cb=on_message)
    print(f"listening on {server} for {subject}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await nc.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="nats://127.0.0.1:4222")
    parser.add_argument("--prefix", default="", help="the profile's subject_prefix")
    args = parser.parse_args()
    try:
        asyncio.run(main(args.server, args.prefix))
    except KeyboardInterrupt:
        pass
