"""WebShop's page machine: search page, results, item page, item sub-pages, done page.

One :class:`Shop` is one shopper session on a goal. Each page is a list of
:class:`Element` s in document order; the text observation is their visible strings joined
with ``" [SEP] "`` (what WebShop's ``convert_html_to_text(simple=True)`` gives for its
templates), the clickables are the lower-cased button texts, product links and option
values, and the browser mode renders the very same elements as HTML -- so both modes show
the same shop and score the same purchase.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from agentgym_envs.envs.webshop.catalog import Catalog, Product
from agentgym_envs.envs.webshop.reward import RewardInfo, get_reward, title_nouns
from agentgym_envs.envs.webshop.tasks import Goal

SEARCH, RESULTS, ITEM, SUB, DONE = "search", "search_results", "item_page", "item_sub_page", "done"
PRODUCT_WINDOW = 10
SUB_PAGES = ("Description", "Features", "Reviews")
BUY_NOW, BACK_TO_SEARCH, NEXT_PAGE, PREV_PAGE = "Buy Now", "Back to Search", "Next >", "< Prev"
SEP = " [SEP] "


class Element(NamedTuple):
    """One visible piece of a page.

    ``kind``: ``text`` (plain), ``heading``, ``button``, ``link`` (a product ASIN), ``option``
    (a radio value; ``group`` is the option name) or ``search_box`` (the search input, no text).
    ``key`` is what ``click[...]`` names (lower case), empty for text.
    """

    kind: str
    text: str
    key: str = ""
    group: str = ""
    #: HTML id in browser mode (``instruction-text``, ``reward``...).
    anchor: str = ""


@dataclass
class ShopState:
    page: str = SEARCH
    keywords: str | None = None
    results: list[str] = field(default_factory=list)
    page_num: int = 1
    asin: str | None = None
    sub_page: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    asins: list[str] = field(default_factory=list)


class StepOutcome(NamedTuple):
    reward: float
    done: bool
    error: str | None


def parse_action(action: str) -> tuple[str, str | None]:
    """WebShop's parser: ``name[arg]`` (greedy), else the whole text and ``None``; arg lower-cased.

    The result of WebShop's ``re.match(r"(.+)\\[(.+)\\]", action)``, found in linear time (the
    regex backtracks once per ``[`` over the rest of the line): on the first line, the arg ends at
    the last ``]``, and the name at the last ``[`` that leaves the name and the arg non-empty.
    """
    text = action.strip()
    line = text.split("\n", 1)[0]  # '.' stops at a newline
    close = line.rfind("]")
    open_ = line.rfind("[", 1, close - 1) if close >= 3 else -1
    if open_ < 0:
        return text.lower(), None
    return line[:open_].strip().lower(), line[open_ + 1 : close].lower()


class Shop:
    """A shopper session on ``goal`` over ``catalog``."""

    def __init__(
        self,
        catalog: Catalog,
        goal: Goal,
        code: str = "",
        nouns: Callable[[str], list[str]] = title_nouns,
    ) -> None:
        self.catalog = catalog
        self.goal = goal
        self.code = code
        self.nouns = nouns
        self.state = ShopState()
        self.reward_info: RewardInfo | None = None
        self._elements: list[Element] | None = None

    # -- pages --------------------------------------------------------------------------------
    def elements(self) -> list[Element]:
        if self._elements is None:
            self._elements = self._render()
        return self._elements

    def _render(self) -> list[Element]:
        s, instr = self.state, self.goal.instruction_text
        if s.page == SEARCH:
            return [
                Element("heading", "WebShop"),
                Element("text", "Instruction:"),
                Element("text", instr, anchor="instruction-text"),
                Element("search_box", ""),
                Element("button", "Search", "search"),
            ]
        head = [Element("text", "Instruction:"), Element("text", instr, anchor="instruction-text")]
        if s.page == DONE:
            return self._render_done()
        head.append(Element("button", BACK_TO_SEARCH, BACK_TO_SEARCH.lower()))
        if s.page == RESULTS:
            out = head + [
                Element("heading", f"Page {s.page_num} (Total results: {len(s.results)})")
            ]
            if s.page_num > 1:
                out.append(Element("button", PREV_PAGE, PREV_PAGE.lower()))
            out.append(Element("button", NEXT_PAGE, NEXT_PAGE.lower()))
            start = (s.page_num - 1) * PRODUCT_WINDOW
            for asin in s.results[start : start + PRODUCT_WINDOW]:
                p = self.catalog.by_asin[asin]
                out += [
                    Element("link", p.asin, p.asin.lower()),
                    Element("text", p.title),
                    Element("text", p.price_tag),
                ]
            return out
        product = self.product
        out = head + [Element("button", PREV_PAGE, PREV_PAGE.lower())]
        if s.page == ITEM:
            for name, values in product.options.items():
                out.append(Element("heading", name))
                out += [Element("option", v, v, name) for v in values]
            out += [
                Element("heading", product.title),
                Element("text", f"Price: {product.price_tag}"),
                Element("text", "Rating: N.A."),
            ]
            out += [Element("button", sub, sub.lower()) for sub in SUB_PAGES]
            out.append(Element("button", BUY_NOW, BUY_NOW.lower()))
            return out
        if s.sub_page == "Description":
            out.append(Element("text", product.description))
        elif s.sub_page == "Features":
            out += [Element("text", b) for b in product.bullets]
        return out  # Reviews: WebShop loads none

    def _render_done(self) -> list[Element]:
        s, g, p = self.state, self.goal, self.product
        info = self.reward_info
        t = lambda x: Element("text", str(x))
        return [
            Element("heading", "Thank you for shopping with us!"),
            t("Your code:"),
            t(self.code),
            t("(Paste it in your MTurk interface.)"),
            t("Purchased"),
            t("asin"),
            t(p.asin),
            t("options"),
            t(json.dumps(s.options)),
            t("attrs"),
            t(list(p.attributes)),
            t("category"),
            t(p.category),
            t("query"),
            t(p.query),
            t("product category"),
            t(p.product_category),
            t("Target"),
            t("asin"),
            t(g.asin),
            t("options"),
            t(g.as_dict()["goal_options"]),
            t("attrs"),
            t(list(g.attributes)),
            t("price upper"),
            t(g.price_upper),
            t("instuction text"),
            t(g.instruction_text),
            t("category"),
            t(g.category),
            t("product category"),
            t(g.product_category),
            t("query"),
            t(g.query),
            t("Reward"),
            t("Your score (min 0.0, max 1.0)"),
            Element("text", str(info.reward if info else 0.0), anchor="reward"),
        ]

    @property
    def product(self) -> Product:
        assert self.state.asin is not None
        return self.catalog.by_asin[self.state.asin]

    def observation(self) -> str:
        return SEP.join(e.text for e in self.elements() if e.text)

    def clickables(self) -> dict[str, Element]:
        """WebShop's ``text_to_clickable``: buttons and product links, then option values."""
        out = {e.key: e for e in self.elements() if e.kind in ("button", "link")}
        out.update({e.key: e for e in self.elements() if e.kind == "option"})
        return out

    def has_search_bar(self) -> bool:
        return any(e.kind == "search_box" for e in self.elements())

    def available_actions(self) -> dict[str, object]:
        """AgentGym's ``/available_actions``: ``{"has_search_bar": bool, "clickables": [...]}``."""
        return {"has_search_bar": self.has_search_bar(), "clickables": list(self.clickables())}

    # -- actions -------------------------------------------------------------------------------
    def step(self, action: str) -> StepOutcome:
        """Apply ``search[...]`` or ``click[...]``; anything else leaves the page unchanged."""
        if self.state.page == DONE:
            return StepOutcome(0.0, True, "the purchase is done")
        name, arg = parse_action(action)
        if arg is None:
            return StepOutcome(
                0.0, False, f"{action.strip()[:80]!r} is not search[keywords] or click[value]"
            )
        if name == "search":
            self.search(arg)
            return StepOutcome(0.0, False, None)
        if name == "click":
            clickables = self.clickables()
            if arg == "search" or arg not in clickables:
                return StepOutcome(0.0, False, f"{arg[:80]!r} is not clickable on this page")
            return self.click(arg, clickables[arg])
        return StepOutcome(
            0.0, False, f"unknown action {name[:40]!r}: use search[keywords] or click[value]"
        )

    def search(self, keywords: str) -> None:
        self._show_results(keywords, 1)

    def _show_results(self, keywords: str, page_num: int) -> None:
        s = self.state
        if keywords != s.keywords or not s.results:
            s.results = [p.asin for p in self.catalog.search(keywords)]
        s.keywords, s.page_num, s.page = keywords, page_num, RESULTS
        s.asin, s.sub_page, s.options = None, None, {}
        self._elements = None

    def click(self, key: str, element: Element) -> StepOutcome:
        s = self.state
        self._elements = None
        if key == BUY_NOW.lower():
            self.reward_info = get_reward(
                self.product, self.goal, self.product.price, s.options, self.nouns
            )
            s.page = DONE
            return StepOutcome(self.reward_info.reward, True, None)
        if key == BACK_TO_SEARCH.lower():
            self.state = ShopState()
            return StepOutcome(0.0, False, None)
        if key == NEXT_PAGE.lower() and s.page == RESULTS:
            self._show_results(s.keywords or "", s.page_num + 1)
        elif key == PREV_PAGE.lower() and s.page == RESULTS:
            self._show_results(s.keywords or "", s.page_num - 1)
        elif key == PREV_PAGE.lower() and s.page == SUB:
            s.page, s.sub_page = ITEM, None
        elif key == PREV_PAGE.lower() and s.page == ITEM:
            self._show_results(s.keywords or "", s.page_num)
        elif key in (p.lower() for p in SUB_PAGES):
            s.page, s.sub_page = SUB, key.capitalize()
        elif element.kind == "link":
            s.page, s.asin = ITEM, key.upper()
            s.asins.append(s.asin)
        elif element.kind == "option":
            s.options[element.group] = key
            s.page = ITEM
        return StepOutcome(0.0, False, None)
