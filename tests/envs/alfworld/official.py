"""Write a tiny ALFWorld data folder in the official layout (json_2.1.1/...) for the tests."""

from __future__ import annotations

import json
from pathlib import Path

from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.generator import generate
from agentgym_envs.envs.alfworld.pddl import write_game_file

#: A stand-in for alfworld's files where the extra is missing: the loader reads only the
#: problem and the task line of the grammar.
MINI_DOMAIN = "(define (domain alfred))\n"
MINI_GRAMMAR = (
    'grammar :: """\n{\n  "task": [ { "rhs": "Your task is to: UNKNOWN GOAL." } ]\n}\n""";\n'
)


def task_dir(goal, floorplan: int) -> str:
    target = goal.toggle if goal.task_type == "look_at_obj_in_light" else goal.recep
    return f"{goal.task_type}-{goal.obj}-None-{target}-{floorplan}"


def write_data_folder(
    root: Path, n_train: int = 4, n_test: int = 3, mappings: bool = True, real_logic: bool = False
) -> dict:
    """Games under root/json_2.1.1/{train,valid_train}; mapping files in root (shuffled order).

    ``real_logic``: use the installed alfworld's domain and grammar (0.3.3 games, as in
    json_2.1.1), so alfworld's engine can play the files."""
    logic = {} if real_logic else {"domain_text": MINI_DOMAIN, "grammar_text": MINI_GRAMMAR}
    made: dict[str, list[tuple[str, str]]] = {"train": [], "test": []}
    for split, folder, n in (("train", "train", n_train), ("test", "valid_train", n_test)):
        for i in range(n):
            scene, goal = generate(f"official/{split}/{i}", vocab.TASK_TYPES[i % 6])
            tdir, trial = task_dir(goal, scene.floorplan), f"trial_T20190907_{i:06d}_{n:06d}"
            write_game_file(scene, goal, root / "json_2.1.1" / folder / tdir / trial, **logic)
            made[split].append((tdir, trial))
    # variants alfworld's loader skips
    scene, goal = generate("official/skip", "pick_and_place_simple")
    for bad in (
        "pick_and_place_with_movable_recep-Apple-Bowl-Fridge-1",
        "pick_heat_then_place_in_recep-AppleSliced-None-Fridge-1",
    ):
        write_game_file(
            scene,
            goal,
            root / "json_2.1.1" / "train" / bad / "trial_T1",
            domain_text=MINI_DOMAIN,
            grammar_text=MINI_GRAMMAR,
        )
    if mappings:
        for split, name, base in (
            ("train", "mappings_train.json", 0),
            ("test", "mappings_test.json", n_train),
        ):
            entries = [
                {"item_id": base + k, "task_type": t, "task_id": trial}
                for k, (t, trial) in enumerate(made[split])
            ]
            (root / name).write_text(json.dumps(entries[::-1]))  # file order is not index order
    return made
