"""AgentGym's own client classes finish an episode against ``agentgym serve``, family by family.

For each family this starts ``agentgym serve <id>`` on 127.0.0.1, builds AgentGym's client class
for it (``agentenv/agentenv/envs/<module>.py``, named by the family record's
``agentgym_client``), resets it to a test item, and plays the episode with our scripted expert:
the expert runs on a local twin env on the same item, each of its actions is wrapped in a reply
the client's parser turns back into that action, and the client sends it. Per family it prints
whether the episode finished, the last reward the client saw (AgentGym scores an episode by its
last reward), the reward AgentGym's server would have sent (the twin's ``agentgym_reward`` /
``agentgym_score`` where set, else its reward / score), and how many step observations the
client got identical to the twin's.

A verification script, not part of the package or the tests: it imports AgentGym's client code
from a checkout given with ``--agentenv``. ``agentenv.controller`` imports torch and
transformers for its agents and trainers, which the clients do not use, so only its
``types``, ``env`` and ``utils`` modules are loaded (with a stand-in ``transformers`` when that
is not installed).

    python scripts/golden/check_agentgym_clients.py --agentenv /path/to/AgentGym/agentenv \\
        [--families wordle maze ...] [--task-id 0] [--port 36150] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import logging
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import gymnasium as gym
import httpx

import agentgym_envs  # noqa: F401 - registers the ids
from agentgym_envs.spec import ENV_INFO, FAMILIES, expert_policy

logger = logging.getLogger("check_agentgym_clients")

FAMILY_ORDER = (
    "wordle", "maze", "babyai", "textcraft", "alfworld", "sciworld", "webshop", "sql",
    "weather", "movie", "academia", "todo", "sheet",
)  # fmt: skip


def load_agentenv(path: Path) -> None:
    """Make ``agentenv.envs.<module>`` importable from a checkout without its agent stack."""
    package = path / "agentenv"
    if not (package / "controller" / "env.py").exists():
        raise SystemExit(f"{path} is not AgentGym's agentenv folder (no agentenv/controller)")
    try:
        importlib.import_module("transformers")
    except ImportError:
        stand_in = types.ModuleType("transformers")
        stand_in.GenerationConfig = object  # only used in annotations by the client modules
        sys.modules["transformers"] = stand_in
    for name, folder in (
        ("agentenv", package),
        ("agentenv.controller", package / "controller"),
        ("agentenv.envs", package / "envs"),
    ):
        module = types.ModuleType(name)
        module.__path__ = [str(folder)]
        sys.modules[name] = module
    controller = sys.modules["agentenv.controller"]
    for name in ("types", "env"):
        module = importlib.import_module(f"agentenv.controller.{name}")
        vars(controller).update({k: v for k, v in vars(module).items() if not k.startswith("_")})

    class Placeholder:  # BaseTask, Agent, APIAgent: used only as base classes / annotations
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

    controller.BaseTask = controller.Agent = controller.APIAgent = Placeholder
    utils = importlib.import_module("agentenv.controller.utils")
    vars(controller).update({k: v for k, v in vars(utils).items() if not k.startswith("_")})


def reply_for(parser: str, action: str) -> str:
    """A model reply that the family's AgentGym client parses back into ``action``."""
    if parser == "single_action":
        return f"Thought: I will do this.\n\nAction: {action}"
    if parser == "last_action":
        return f"Thought:\nI will do this.\n\nAction:\n{action}"
    if parser == "between_actions":
        return f"Thought: I will do this.\nAction: {action}"
    return action  # sql_block: the expert's reply carries its sql block; raw: the tool call


def serve(env_id: str, port: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "agentgym_envs.cli", "serve", env_id, "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"agentgym serve {env_id} exited: {process.stderr.read().decode()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"agentgym serve {env_id} did not start")


def wire_values(reward: float, info: dict[str, Any], by: str) -> float:
    """What AgentGym's client reports as the step's reward, from the twin's step: the server's
    ``score`` (``by="score"``), the running reward of the tool servers (``"running"``, the tool
    envs' ``score``) or the step's reward (``"step"``); ``agentgym_*`` values where set."""
    if by == "score":
        return float(info.get("agentgym_score", info.get("score", 0.0)))
    if by == "running":
        return float(info.get("agentgym_reward", info.get("score", 0.0)))
    return float(info.get("agentgym_reward", reward))


def play(family: str, url: str, task_id: int, max_steps: int) -> dict[str, Any]:
    record = FAMILIES[family]
    env_id = next(i.id for i in ENV_INFO.values() if i.family == family)
    module, cls_name = record.agentgym_client
    client_cls = getattr(importlib.import_module(f"agentenv.envs.{module}"), cls_name)
    twin = gym.make(env_id)
    obs, info = twin.reset(options={"split": "test", "task_id": task_id})
    index = twin.unwrapped.tasks.agentgym_index("test", task_id)
    expert = expert_policy(twin)
    client = client_cls(env_server_base=url + record.wire.url_prefix, data_len=1, timeout=120)
    client.reset(index)
    first = client.observe()
    first_ok = obs in first if isinstance(first, str) else False
    # BabyAI's and SciWorld's clients report the server's "score" as the step reward.
    by = "score" if "score" in record.wire.step_extras else "step"
    by = "running" if record.wire.kind == "C" else by
    same, steps, done, reward, expected = 0, 0, False, None, None
    while not done and steps < max_steps:
        action = expert(obs, info)
        obs, twin_reward, terminated, truncated, info = twin.step(action)
        out = client.step(reply_for(record.reply_parser, action))
        steps += 1
        expected = wire_values(twin_reward, info, by)
        reward, done = float(out.reward), bool(out.done)
        twin_obs = obs.removesuffix(
            "\nAVAILABLE ACTIONS: " + ",".join(info.get("available_actions") or [])
        )
        same += out.state == twin_obs
        if done != (terminated or truncated):
            logger.warning("%s: client done=%s, twin done=%s", family, done, terminated)
    if hasattr(client, "close"):
        client.close()
    twin.close()
    return {
        "family": family,
        "env_id": env_id,
        "item": index,
        "client": f"agentenv.envs.{module}.{cls_name}",
        "first_observation_contains_twin": first_ok,
        "finished": done,
        "steps": steps,
        "identical_step_observations": same,
        "reward": reward,
        "agentgym_reward": expected,
        "reward_matches": reward == expected,
        "twin_success": bool(info.get("success")),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agentenv", type=Path, required=True, help="AgentGym's agentenv folder")
    parser.add_argument("--families", nargs="*", default=list(FAMILY_ORDER))
    parser.add_argument("--task-id", type=int, default=0, help="test task id to play")
    parser.add_argument("--port", type=int, default=36150, help="port for agentgym serve")
    parser.add_argument("--max-steps", type=int, default=200)
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    load_agentenv(args.agentenv)
    results = []
    for family in args.families:
        env_id = next(i.id for i in ENV_INFO.values() if i.family == family)
        process = serve(env_id, args.port)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # AgentGym's clients print a lot
                result = play(family, f"http://127.0.0.1:{args.port}", args.task_id, args.max_steps)
        except Exception as exc:  # report and go on with the next family
            logger.exception("%s failed", family)
            result = {"family": family, "env_id": env_id, "finished": False, "error": repr(exc)}
        finally:
            process.terminate()
            process.wait(timeout=30)
        results.append(result)
        logger.info(
            "%-10s finished=%-5s reward=%s agentgym_reward=%s steps=%s identical=%s",
            family,
            result.get("finished"),
            result.get("reward"),
            result.get("agentgym_reward"),
            result.get("steps"),
            result.get("identical_step_observations"),
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    ok = sum(bool(r.get("finished")) and bool(r.get("reward_matches")) for r in results)
    logger.info("%d of %d families finished with AgentGym's reward", ok, len(results))


if __name__ == "__main__":
    main()
