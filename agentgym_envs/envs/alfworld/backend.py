"""``backend="alfworld"``: play a task in alfworld's own TextWorld engine (the reference).

The task (generated, or an official game) is written as a ``game.tw-pddl`` file with the
requested grammar and loaded through TextWorld's PDDL engine with alfworld's
``AlfredDemangler`` and ``AlfredInfos`` wrappers, as alfworld's ``AlfredTWEnv`` does. Each
reset grounds the game again (hundreds of milliseconds; that is the engine's cost, not ours).
Needs ``pip install "agentgym-envs[alfworld]"``.
"""

from __future__ import annotations

import atexit
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

from agentgym_envs.errors import require

log = logging.getLogger(__name__)


class AlfworldBackend:
    """One game at a time in alfworld's TextWorld engine."""

    def __init__(self, grammar: str = "0.3.3") -> None:
        require("alfworld", "alfworld")
        require("textworld", "alfworld")
        self.grammar = grammar
        self.admissible: list[str] = []
        self.won = False
        self._env: Any = None
        self._dir: str | None = None
        self._files: dict[str, Path] = {}

    def _workdir(self) -> Path:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="agentgym-alfworld-")
            atexit.register(shutil.rmtree, self._dir, True)
        return Path(self._dir)

    def game_file(self, task: Any) -> Path:
        """The task's ``game.tw-pddl`` file: an official game's own, else the task written with
        this backend's grammar (cached per task)."""
        from agentgym_envs.envs.alfworld.pddl import write_game_file

        if task.game.endswith(".tw-pddl") and Path(task.game).is_file():
            return Path(task.game)  # an official game plays from its own file (its own grammar)
        key = f"{task.split}-{task.task_id}-{task.game}"
        path = self._files.get(key)
        if path is None or not path.is_file():
            folder = self._workdir() / f"g{len(self._files)}"
            path = write_game_file(task.scene, task.goal, folder, grammar=self.grammar)
            self._files[key] = path
        return path

    def start(self, task: Any) -> str:
        """Load ``task`` and return the engine's first observation (banner included)."""
        import textworld
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos

        self.close()
        path = self.game_file(task)
        infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
        self._env = textworld.start(
            str(path), request_infos=infos, wrappers=[AlfredDemangler(), AlfredInfos]
        )
        state = self._env.reset()
        self.won = bool(state.get("won"))
        self.admissible = list(state.get("admissible_commands") or [])
        return str(state["feedback"])

    def step(self, command: str) -> tuple[str, bool]:
        """Apply ``command``; return the engine's reply and whether the game is won."""
        state, _, _done = self._env.step(command)
        self.won = bool(state.get("won"))
        self.admissible = list(state.get("admissible_commands") or [])
        return str(state["feedback"]), self.won

    def close(self) -> None:
        if self._env is not None:
            try:
                self._env.close()
            except Exception:  # pragma: no cover - closing a finished game is best effort
                log.debug("closing the TextWorld env failed", exc_info=True)
            self._env = None

    def __getstate__(self) -> dict[str, Any]:
        raise TypeError(
            "an env with backend='alfworld' cannot be pickled: alfworld's engine holds a live game"
        )
