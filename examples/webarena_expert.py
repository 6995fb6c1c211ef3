"""Play WebArena tasks in a real Chromium: the package's own sites, or your WebArena deployment.

    python examples/webarena_expert.py                      # the expert on 3 test tasks
    python examples/webarena_expert.py --task 10 --show     # one task, printing each page
    python examples/webarena_expert.py --config config_files/test.raw.json \\
        --site shopping=http://my-host:7770 --site reddit=http://my-host:9999 --task 0

Needs ``pip install "agentgym-envs[webarena]"`` and Chromium (Debian: ``apt-get install
chromium``; elsewhere set ``AGENTGYM_CHROMIUM`` to its path). With ``--config`` the script only
shows the first page of the task (there is no scripted solver for WebArena's own tasks).
"""

from __future__ import annotations

import argparse

from agentgym_envs.envs.webarena.env import WebArenaEnv
from agentgym_envs.envs.webarena.expert import WebArenaExpert


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", type=int, action="append", help="test task id (repeatable)")
    parser.add_argument("--show", action="store_true", help="print every observation")
    parser.add_argument("--config", help="WebArena config file or folder of {i}.json")
    parser.add_argument("--site", action="append", default=[], help="site=URL of your deployment")
    args = parser.parse_args()
    if args.config:
        urls = dict(item.split("=", 1) for item in args.site)
        env = WebArenaEnv(config_path=args.config, site_urls=urls)
        obs, _ = env.reset(options={"split": "test", "task_id": (args.task or [0])[0]})
        print(obs)
        env.close()
        return
    env = WebArenaEnv()
    expert = WebArenaExpert(env)
    for task_id in args.task or [0, 10, 18]:
        obs, info = env.reset(seed=0, options={"split": "test", "task_id": task_id})
        print(f"== task {task_id}: {env.task.intent}")
        done = False
        while not done:
            if args.show:
                print(obs, end="\n\n")
            reply = expert(obs, info)
            obs, reward, done, _, info = env.step(reply)
            print("  ", reply.split("```")[1], "->", info.get("error") or "ok")
        print(f"   reward {reward}")
    env.close()


if __name__ == "__main__":
    main()
