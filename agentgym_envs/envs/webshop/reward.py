"""WebShop's purchase reward, as AgentGym's copy of WebShop computes it at ``click[Buy Now]``.

``reward = r_type * (attribute hits + option hits + price ok) / (attributes + options + 1)``

* **type** ``r_type``: 1.0 when the purchased product's query equals the goal's, or their
  breadcrumbs share two segments, or more than 20% of the goal title's nouns are in the
  purchased title; else 0.5. Then 0.1 when under 10% of the nouns match and 0.0 when none
  does (whatever the query or breadcrumb say).
* **attributes**: a goal attribute is hit when some product attribute has thefuzz
  ``token_set_ratio > 85`` with it, or when it is a substring of the lower-cased title, bullet
  points or description.
* **options**: AgentGym's variant (``agentenv-webshop``): both sides go through
  :func:`normalize_color`; the goal side is ``goal_options.items()`` -- ``(name, value)`` tuples
  that thefuzz stringifies (``"('size', 'x-large')"``) -- and a goal option is hit when any
  purchased value has ``token_set_ratio > 85`` with it.
* **price**: the product's price (one value, or a draw inside its range) ``<= price_upper``.

Known quirks kept on purpose, because they are WebShop's score (each is pinned by a test):

* token-subset matches score 100: buying size ``large`` hits the goal ``size: x-large``;
* :func:`normalize_color` maps a purchased value to the *first* of 102 colour words that is a
  *substring* of it: ``light blue`` and ``navy blue`` both become ``blue`` (any blue then hits
  a goal colour ``navy blue``), and ``standard`` becomes ``tan`` (a goal ``style: standard``
  is then missed even by the right choice);
* on the goal side a tuple is normalised only when its value *equals* a colour word;
* an attribute matches as a substring, so ``tea`` is hit by a title saying ``green tea``.

Title nouns: WebShop tags titles with spaCy (``en_core_web_lg`` in AgentGym). That model is
not installable from PyPI, so the default tagger here is a lexicon (:func:`title_nouns`):
words that are not stop words, numbers or known adjectives / participles count as nouns.
It affects only ``r_type`` of products whose query and breadcrumb both differ from the goal's.
Pass ``nouns=spacy_nouns("en_core_web_lg")`` where spaCy and the model are installed to get
the original tagging.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from agentgym_envs.errors import require

#: WebShop's 102 colour words, in its order (``normalize_color`` returns the first one found).
COLOR_SET: tuple[str, ...] = (
    "alabaster",
    "apricot",
    "aqua",
    "ash",
    "asphalt",
    "azure",
    "banana",
    "beige",
    "black",
    "blue",
    "blush",
    "bordeaux",
    "bronze",
    "brown",
    "burgundy",
    "camel",
    "camo",
    "caramel",
    "champagne",
    "charcoal",
    "cheetah",
    "chestnut",
    "chocolate",
    "christmas",
    "coffee",
    "cognac",
    "copper",
    "coral",
    "cranberry",
    "cream",
    "crystal",
    "dark",
    "denim",
    "eggplant",
    "elephant",
    "espresso",
    "fuchsia",
    "gold",
    "granite",
    "grape",
    "graphite",
    "grass",
    "gray",
    "green",
    "grey",
    "heather",
    "indigo",
    "ivory",
    "ivy",
    "khaki",
    "lavender",
    "lemon",
    "leopard",
    "light",
    "lilac",
    "lime",
    "magenta",
    "maroon",
    "mauve",
    "merlot",
    "midnight",
    "mint",
    "mocha",
    "multicolor",
    "mushroom",
    "mustard",
    "natural",
    "navy",
    "nude",
    "olive",
    "orange",
    "peach",
    "pewter",
    "pink",
    "plum",
    "purple",
    "rainbow",
    "red",
    "rose",
    "royal",
    "rust",
    "sand",
    "sapphire",
    "seashell",
    "silver",
    "skull",
    "slate",
    "steel",
    "stone",
    "stonewash",
    "sunflower",
    "tan",
    "taupe",
    "teal",
    "tiger",
    "turquoise",
    "violet",
    "walnut",
    "wheat",
    "white",
    "wine",
    "yellow",
)
#: WebShop's price thresholds for goals: 10, 20, ..., 990 dollars.
PRICE_RANGE: tuple[float, ...] = tuple(10.0 * i for i in range(1, 100))
MATCH_THRESHOLD = 85


def normalize_color(value: Any) -> Any:
    """The first colour word ``in`` ``value`` (substring for text, equality for a tuple), else ``value``."""
    for color in COLOR_SET:
        if color in value:
            return color
    return value


@lru_cache(maxsize=1)
def _fuzz():
    return require("thefuzz.fuzz", "webshop")


def token_set_ratio(a: Any, b: Any) -> int:
    """thefuzz's ``token_set_ratio`` (0-100, ints; non-strings are ``str()``-ed as thefuzz does)."""
    return int(_fuzz().token_set_ratio(a, b))


# -- title nouns ------------------------------------------------------------------------------
_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "nor",
        "but",
        "of",
        "for",
        "with",
        "without",
        "to",
        "in",
        "on",
        "at",
        "by",
        "from",
        "into",
        "onto",
        "over",
        "under",
        "up",
        "down",
        "out",
        "off",
        "as",
        "is",
        "are",
        "be",
        "was",
        "were",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "your",
        "our",
        "my",
        "his",
        "her",
        "their",
        "you",
        "we",
        "he",
        "she",
        "they",
        "them",
        "me",
        "us",
        "i",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "can",
        "will",
        "just",
        "s",
        "t",
        "x",
        "pcs",
        "pc",
        "pack",
        "count",
        "set",
        "oz",
        "fl",
        "lb",
        "lbs",
        "ft",
        "inch",
        "inches",
        "cm",
        "mm",
        "ml",
        "g",
        "kg",
        "w",
        "per",
        "plus",
        "new",
    ]
)
_ADJECTIVES = frozenset(
    [
        "adjustable",
        "athletic",
        "ample",
        "anti",
        "bamboo",
        "basic",
        "big",
        "black",
        "blue",
        "breathable",
        "bright",
        "brown",
        "casual",
        "classic",
        "clean",
        "clear",
        "cold",
        "comfortable",
        "compact",
        "cool",
        "cozy",
        "crew",
        "cute",
        "daily",
        "dark",
        "decorative",
        "deep",
        "double",
        "dry",
        "durable",
        "easy",
        "elastic",
        "electric",
        "elegant",
        "essential",
        "everyday",
        "extra",
        "fast",
        "faux",
        "fine",
        "flexible",
        "floral",
        "foldable",
        "free",
        "fresh",
        "full",
        "genuine",
        "gentle",
        "giant",
        "glossy",
        "golden",
        "good",
        "great",
        "green",
        "grey",
        "gray",
        "heavy",
        "high",
        "hot",
        "ideal",
        "large",
        "latest",
        "lightweight",
        "light",
        "little",
        "long",
        "low",
        "luxury",
        "magnetic",
        "matte",
        "mechanical",
        "medium",
        "mid",
        "mini",
        "modern",
        "multi",
        "natural",
        "navy",
        "neat",
        "nice",
        "non",
        "organic",
        "original",
        "outdoor",
        "perfect",
        "pink",
        "plain",
        "plastic",
        "portable",
        "premium",
        "pro",
        "professional",
        "pure",
        "purple",
        "quick",
        "raw",
        "real",
        "red",
        "regular",
        "round",
        "royal",
        "rustic",
        "safe",
        "short",
        "simple",
        "single",
        "slim",
        "small",
        "smart",
        "smooth",
        "soft",
        "solid",
        "special",
        "stainless",
        "stylish",
        "super",
        "sweet",
        "thick",
        "thin",
        "tiny",
        "true",
        "ultra",
        "universal",
        "unique",
        "vintage",
        "warm",
        "waterproof",
        "white",
        "whole",
        "wide",
        "wild",
        "wireless",
        "wooden",
        "yellow",
        "compatible",
        "dual",
        "active",
        "high-quality",
        "sensitive",
        "strong",
        "oily",
        "smoky",
        "shimmer",
        "cotton",
        "waisted",
        "graphic",
    ]
)
_ADJ_SUFFIXES = ("less", "ous", "ful", "able", "ible", "ive", "ized", "ised")


def title_nouns(title: str) -> list[str]:
    """Lower-cased words of ``title`` that the lexicon tagger reads as nouns (in order, repeats kept)."""
    out = []
    for token in _TOKEN.findall(title.lower()):
        if token in _STOP or token in _ADJECTIVES or not token.isalpha() or len(token) < 2:
            continue
        if len(token) > 6 and token.endswith(_ADJ_SUFFIXES):
            continue
        if len(token) > 5 and token.endswith(("ing", "ed")) and token not in _ING_NOUNS:
            continue
        out.append(token)
    return out


_ING_NOUNS = frozenset(
    [
        "clothing",
        "bedding",
        "seasoning",
        "dressing",
        "frosting",
        "icing",
        "topping",
        "stuffing",
        "flooring",
        "lighting",
        "packaging",
        "ring",
        "string",
        "wedding",
        "pudding",
        "stocking",
        "legging",
        "leggings",
        "sporting",
    ]
)


def spacy_nouns(model: str = "en_core_web_lg") -> Callable[[str], list[str]]:
    """WebShop's own tagger: nouns and proper nouns from a spaCy model (needs spaCy + the model)."""
    spacy = require("spacy", "webshop")
    nlp = spacy.load(model)

    def nouns(title: str) -> list[str]:
        return [t.text.lower() for t in nlp(title) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]

    return nouns


# -- the reward -------------------------------------------------------------------------------
@dataclass(frozen=True)
class RewardInfo:
    """The reward and its parts, as WebShop's ``get_reward(..., verbose=True)`` reports them."""

    reward: float
    r_type: float
    query_match: bool
    category_match: bool
    title_score: float
    attribute_hits: int
    n_attributes: int
    option_hits: int
    n_options: int
    r_price: bool

    def as_dict(self) -> dict[str, Any]:
        n = self.n_attributes + self.n_options + 1
        out: dict[str, Any] = {
            "r_type": self.r_type,
            "r_att": self.attribute_hits / self.n_attributes if self.n_attributes else 0.0,
            "w_att": self.n_attributes / n,
            "query_match": self.query_match,
            "category_match": self.category_match,
            "title_score": self.title_score,
            "r_price": self.r_price,
            "w_price": 1 / n,
        }
        if self.n_options:
            out["r_option"] = self.option_hits / self.n_options
            out["w_option"] = self.n_options / n
        return out


def type_reward(
    purchased: Any, goal: Any, nouns: Callable[[str], Sequence[str]] = title_nouns
) -> tuple[float, bool, bool, float]:
    """``(r_type, query_match, category_match, title_score)``."""
    query_match = purchased.query == goal.query
    p_cat = {x.strip() for x in purchased.product_category.split("\u203a")}
    g_cat = {x.strip() for x in goal.product_category.split("\u203a")}
    category_match = len(p_cat & g_cat) >= 2
    p_nouns = nouns(purchased.title)
    g_nouns = nouns(goal.name)
    title_score = 0.2 if not g_nouns else len(set(p_nouns) & set(g_nouns)) / len(g_nouns)
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return r_type, query_match, category_match, title_score


def attribute_hits(purchased: Any, goal_attributes: Iterable[str]) -> int:
    """Goal attributes found in the product (fuzzy on its attribute list, else as substrings)."""
    title = purchased.title.lower()
    bullets = " ".join(purchased.bullets).lower()
    description = purchased.description.lower()
    hits = 0
    for g_attr in goal_attributes:
        if (
            any(
                token_set_ratio(p_attr, g_attr) > MATCH_THRESHOLD for p_attr in purchased.attributes
            )
            or g_attr in title
            or g_attr in bullets
            or g_attr in description
        ):
            hits += 1
    return hits


def option_hits(
    purchased_values: Iterable[str], goal_options: Mapping[str, str] | Sequence[str]
) -> int:
    """Goal options hit by a purchased value (AgentGym's variant, tuples and all)."""
    goal_side = (
        list(goal_options.items()) if isinstance(goal_options, Mapping) else list(goal_options)
    )
    purchased = [normalize_color(v) for v in purchased_values]
    goal_side = [normalize_color(g) for g in goal_side]
    return sum(
        1 for g in goal_side if any(token_set_ratio(p, g) > MATCH_THRESHOLD for p in purchased)
    )


def get_reward(
    purchased: Any,
    goal: Any,
    price: float,
    options: Mapping[str, str],
    nouns: Callable[[str], Sequence[str]] = title_nouns,
) -> RewardInfo:
    """Score buying ``purchased`` (at ``price``, with chosen ``options``) against ``goal``."""
    r_type, query_match, category_match, title_score = type_reward(purchased, goal, nouns)
    n_attrs = len(goal.attributes)
    n_opts = len(goal.goal_options)
    att = attribute_hits(purchased, goal.attributes)
    opt = option_hits(list(options.values()), goal.goal_options)
    r_price = bool(price <= goal.price_upper)
    total = (att + opt + int(r_price)) / (n_attrs + n_opts + 1) * r_type
    return RewardInfo(
        total, r_type, query_match, category_match, title_score, att, n_attrs, opt, n_opts, r_price
    )


def price_threshold(price: float, rng) -> tuple[float, str]:
    """WebShop's goal price bound: the larger of two draws among the first 4 tens above ``price``.

    ``rng`` is a :class:`random.Random` (consumed exactly as WebShop consumes ``random``).
    Returns ``(price_upper, price_text)``; ``(1000000, "")`` when fewer than 2 thresholds fit.
    """
    candidates = [p for p in PRICE_RANGE if p > price][:4]
    if len(candidates) >= 2:
        _, upper = sorted(rng.sample(candidates, 2))
        return upper, f", and price lower than {upper:.2f} dollars"
    return 1000000, ""
