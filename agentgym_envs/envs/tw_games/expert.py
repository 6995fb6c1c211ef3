"""TextWorld's expert: the game's own walkthrough from the current state."""

from agentgym_envs.envs.tw_games.env import TextWorldExpert

__all__ = ["TextWorldExpert"]
