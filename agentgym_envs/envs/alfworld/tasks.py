"""ALFWorld task sources: generated households, or the official ALFWorld games.

* :class:`GeneratedAlfworldTasks` (default): seeded scenes from :mod:`.generator`. The test
  split has AgentEval's 200 tasks spread evenly over the six task types (task ``i`` has type
  ``TASK_TYPES[i % 6]``); the train split has AgentGym's 2,420, from a disjoint seed range.
  AgentGym's item index is kept: ``alfworld_0`` .. ``alfworld_2419`` are train tasks and
  ``alfworld_2420`` .. ``alfworld_2619`` the test tasks.
* :class:`OfficialAlfworldTasks`: an ALFWorld data folder (``$ALFWORLD_DATA``) holding
  ``json_2.1.1/<split>/<task dir>/<trial>/game.tw-pddl``. With AgentGym's mapping files
  (``mappings_train.json`` / ``mappings_test.json``) the train split is their 2,420 train games
  and the test split their 200 ``valid_train`` games, in their order, so task ``i`` is AgentGym's
  ``alfworld_i`` (train) or ``alfworld_{2420+i}`` (test). Without them the games found on disk
  are used, sorted by path, with the filters of alfworld's loader.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agentgym_envs.core import Task, TaskSource
from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.generator import generate
from agentgym_envs.envs.alfworld.world import Goal, Scene
from agentgym_envs.errors import BadDataError
from agentgym_envs.spec import family_record

log = logging.getLogger(__name__)

TEST_SIZE = 200  # AgentEval's ALFWorld split
TRAIN_SIZE = 2420  # AgentGym's ALFWorld train index (AgentTraj-L)


@dataclass(frozen=True)
class AlfworldTask(Task):
    """A scene and its goal; ``game`` names the source (a generated key or a game file)."""

    scene: Scene = field(repr=False, compare=False, default=None)  # type: ignore[assignment]
    goal: Goal = field(default=None)  # type: ignore[assignment]
    game: str = ""

    @property
    def task_type(self) -> str:
        return self.goal.task_type


@lru_cache(maxsize=4096)
def _generated(split: str, task_id: int) -> tuple[Scene, Goal]:
    task_type = vocab.TASK_TYPES[task_id % len(vocab.TASK_TYPES)]
    return generate(f"{split}/{task_id}", task_type)


class GeneratedAlfworldTasks(TaskSource):
    """Seeded households and goals (see the module docstring)."""

    item_prefix = family_record("alfworld").item_prefix

    def __init__(self, train_size: int = TRAIN_SIZE, test_size: int = TEST_SIZE) -> None:
        self._sizes = {"train": int(train_size), "test": int(test_size)}

    def size(self, split: str) -> int:
        return self._sizes.get(split, 0)

    def _load(self, split: str, task_id: int) -> AlfworldTask:
        scene, goal = _generated(split, task_id)
        return AlfworldTask(
            task_id, split, scene=scene, goal=goal, game=f"generated/{split}/{task_id}"
        )

    def agentgym_index(self, split: str, task_id: int) -> int:
        n_train = min(self.size("train"), TRAIN_SIZE)
        if split == "test":
            return n_train + task_id
        # train tasks past AgentGym's 2,420 are numbered after the test block
        return task_id if task_id < n_train else task_id + self.size("test")

    def locate(self, index: int) -> tuple[str, int]:
        n_train = min(self.size("train"), TRAIN_SIZE)
        if 0 <= index < n_train:
            return "train", index
        if n_train <= index < n_train + self.size("test"):
            return "test", index - n_train
        extra = index - self.size("test")
        if n_train <= extra < self.size("train"):
            return "train", extra
        return super().locate(index)


# -- official games -----------------------------------------------------------------------
DATA_DIR = "json_2.1.1"
MAPPING_FILES = {"train": "mappings_train.json", "test": "mappings_test.json"}
#: The data folder each split's games come from (AgentGym's test games are in valid_train).
SPLIT_DIRS = {"train": "train", "test": "valid_train"}


def find_mappings(data_path: Path, mappings_path: str | Path | None) -> dict[str, Path] | None:
    """AgentGym's mapping files: in ``mappings_path``, else in the data folder or its ``configs``."""
    candidates = (
        [Path(mappings_path).expanduser()] if mappings_path else [data_path, data_path / "configs"]
    )
    for folder in candidates:
        files = {s: folder / name for s, name in MAPPING_FILES.items()}
        if all(f.is_file() for f in files.values()):
            return files
    if mappings_path:
        raise BadDataError(
            f"no {MAPPING_FILES['train']} and {MAPPING_FILES['test']} in {str(mappings_path)!r}: pass the folder "
            "holding AgentGym's ALFWorld mapping files (agentenv-alfworld/configs)"
        )
    return None


def _keep(task_dir: str) -> bool:
    """alfworld's loader filters: the six task types, no movable or sliced variants."""
    return (
        task_dir.split("-", 1)[0] in vocab.TASK_TYPES
        and "movable" not in task_dir
        and "Sliced" not in task_dir
    )


class OfficialAlfworldTasks(TaskSource):
    """ALFWorld's own games from a data folder (see the module docstring)."""

    item_prefix = family_record("alfworld").item_prefix
    user_data = True

    def __init__(self, data_path: str | Path, mappings_path: str | Path | None = None) -> None:
        root = Path(data_path).expanduser()
        if (root / DATA_DIR).is_dir():
            root = root / DATA_DIR
        if not root.is_dir() or not any((root / d).is_dir() for d in SPLIT_DIRS.values()):
            raise BadDataError(
                f"{str(data_path)!r} is not an ALFWorld data folder: point data_path= or ALFWORLD_DATA at the folder "
                f"holding {DATA_DIR}/train and {DATA_DIR}/valid_train (alfworld-download's layout)"
            )
        self.root = root
        mappings = find_mappings(root.parent if root.name == DATA_DIR else root, mappings_path)
        if mappings is None and root.name == DATA_DIR:
            mappings = find_mappings(root, None)
        self.games: dict[str, list[Path]] = {}
        self.mapped = mappings is not None
        for split, folder in SPLIT_DIRS.items():
            if mappings is not None:
                try:
                    entries = json.loads(mappings[split].read_text())
                except (OSError, ValueError) as exc:
                    raise BadDataError(f"cannot read {str(mappings[split])!r}: {exc}") from exc
                entries = sorted(entries, key=lambda e: int(e["item_id"]))
                self.games[split] = [
                    root / folder / e["task_type"] / e["task_id"] / "game.tw-pddl" for e in entries
                ]
                missing = [g for g in self.games[split] if not g.is_file()]
                if missing:
                    log.warning(
                        "%d of %d %s games listed in the mapping are missing (first: %s)",
                        len(missing),
                        len(entries),
                        split,
                        missing[0],
                    )
            else:
                found = (
                    sorted(
                        p
                        for p in (root / folder).glob("*/*/game.tw-pddl")
                        if _keep(p.parent.parent.name)
                    )
                    if (root / folder).is_dir()
                    else []
                )
                self.games[split] = found
        if not self.mapped:
            log.warning(
                "no AgentGym mapping files (%s, %s) next to %s: games are indexed in path order, "
                "which is not AgentGym's alfworld_N numbering",
                MAPPING_FILES["train"],
                MAPPING_FILES["test"],
                root,
            )
        self._cache: dict[tuple[str, int], AlfworldTask] = {}

    def size(self, split: str) -> int:
        return len(self.games.get(split, ()))

    def _load(self, split: str, task_id: int) -> AlfworldTask:
        key = (split, task_id)
        if key not in self._cache:
            from agentgym_envs.envs.alfworld.pddl import read_game_file

            path = self.games[split][task_id]
            scene, goal = read_game_file(path)
            if len(self._cache) > 512:
                self._cache.clear()
            self._cache[key] = AlfworldTask(task_id, split, scene=scene, goal=goal, game=str(path))
        return self._cache[key]


def default_data_path() -> str | None:
    """``$ALFWORLD_DATA`` if set (alfworld's own variable)."""
    return os.environ.get("ALFWORLD_DATA") or None
