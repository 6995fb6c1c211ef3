"""WebShop's scripted expert: search with the instruction's key terms, open the target, choose
the goal's options, buy.

It reads the goal (target ASIN and options) from the env, as a human demonstrator reads the
instruction: first it searches with the instruction's product phrase (without the option and
price clauses); if the target is not on the first results page it searches the target's
title, then pages through. On the item page it clicks each goal option value, then Buy Now.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agentgym_envs.envs.webshop.env import WebShopEnv
from agentgym_envs.envs.webshop.shop import ITEM, RESULTS, SEARCH, SUB
from agentgym_envs.envs.webshop.tasks import option_phrase

_PRICE_CLAUSE = re.compile(r",? and price lower than [\d.]+ dollars$")


def key_terms(instruction: str, goal_options: Mapping[str, str] | None = None) -> str:
    """The product phrase of a WebShop instruction: no ``Find me``, options or price clause."""
    text = _PRICE_CLAUSE.sub("", instruction.strip())
    clause = option_phrase(goal_options) if goal_options else ""
    if clause and text.endswith(clause):
        text = text[: -len(clause)]
    text = re.sub(
        r"^(find me|i need|i want|i am looking for|i'm looking for)\s+",
        "",
        text,
        flags=re.IGNORECASE,
    )
    return text.replace(",", "").strip().lower()


class WebShopExpert:
    """Follows the env across resets; one instance per env."""

    def __init__(self, env: WebShopEnv) -> None:
        self.env = env
        self._episode = -1
        self._searches = 0

    def _goal_option_values(self) -> list[tuple[str | None, str]]:
        options = self.env.goal.goal_options
        if isinstance(options, Mapping):
            return list(options.items())
        return [(None, v) for v in options]

    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        env = self.env
        if env.episode != self._episode:
            self._episode, self._searches = env.episode, 0
        shop = env.shop
        assert shop is not None
        goal = env.goal
        target = goal.asin.lower()
        page = shop.state.page
        clickables = shop.clickables()
        if page == SEARCH:
            return self._search()
        if page == RESULTS:
            if target in clickables:
                return f"click[{target}]"
            n_results = len(shop.state.results)
            if self._searches < 2:
                return self._search()
            if shop.state.page_num * 10 < n_results:
                return "click[Next >]"
            return self._search()
        if page == SUB:
            return "click[< Prev]"
        if page == ITEM:
            if shop.state.asin != goal.asin:
                return "click[< Prev]"
            product = shop.product
            for name, value in self._goal_option_values():
                if name is None:
                    # human goals list values only: choose them in any group that offers them
                    if value in clickables and value not in shop.state.options.values():
                        return f"click[{value}]"
                    continue
                if (
                    name in product.options
                    and shop.state.options.get(name) != value
                    and value in clickables
                    and clickables[value].group == name
                ):
                    return f"click[{value}]"
            return "click[Buy Now]"
        return "click[Buy Now]"

    def _search(self) -> str:
        self._searches += 1
        if self._searches == 1:
            goal = self.env.goal
            options = goal.goal_options if isinstance(goal.goal_options, Mapping) else None
            return f"search[{key_terms(goal.instruction_text, options)}]"
        return f"search[{self.env.goal.name}]"
