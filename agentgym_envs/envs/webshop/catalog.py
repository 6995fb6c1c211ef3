"""The product catalog: generated (seeded) or loaded from WebShop's product and attribute files.

A :class:`Product` holds the fields WebShop's engine derives when it loads products
(``Title``, ``Description``, ``BulletPoints``, ``pricing``/``Price``, ``options``,
``Attributes``, ``query``, ``product_category``...). A :class:`Catalog` is built once per
process for each configuration (:func:`generated_catalog`, :func:`original_catalog`) and shared
by every env that uses it; pickling a catalog stores only how to rebuild it.
"""

from __future__ import annotations

import json
import logging
import random
import re
import threading
import time
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentgym_envs.envs.webshop import vocab
from agentgym_envs.envs.webshop.search import SEARCH_RETURN_N, SearchIndex
from agentgym_envs.errors import BadDataError

logger = logging.getLogger(__name__)

DEFAULT_NUM_PRODUCTS = 10_000
MAX_NUM_PRODUCTS = 100_000
DEFAULT_SEED = 0
BREADCRUMB_SEP = " \u203a "  # WebShop's product_category separator (single right angle quote)


@dataclass(eq=False, slots=True)
class Product:
    """One product, in the shape WebShop's engine gives it after loading."""

    asin: str
    title: str
    description: str
    bullets: tuple[str, ...]
    category: str
    query: str
    product_category: str
    pricing: tuple[float, ...]
    price_tag: str
    options: dict[str, tuple[str, ...]]
    attributes: tuple[str, ...]
    #: The price the reward compares with the goal's bound (one value, or a draw in the range).
    price: float
    image: str = ""
    #: Synthetic-goal fields of WebShop's attribute file (original data) or of the generator.
    instruction: str | None = None
    instruction_attributes: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.title

    def option_text(self) -> str:
        """``"size: s, m, and color: red, blue"`` as WebShop's index writes options."""
        return ", and ".join(f"{k}: {', '.join(v)}" for k, v in self.options.items())

    def search_document(self) -> str:
        first_bullet = self.bullets[0] if self.bullets else ""
        return f"{self.title} {self.description} {first_bullet} {self.option_text()}".lower()


def price_tag(pricing: tuple[float, ...]) -> str:
    """WebShop's display price: ``$12.99``, ``$10.0 to $25.5`` (Python float text)."""
    if len(pricing) == 1:
        return f"${pricing[0]}"
    return f"${pricing[0]} to ${pricing[1]}"


class Catalog:
    """Products, their lookup by ASIN, and a lazily built BM25 index over them."""

    def __init__(
        self,
        products: list[Product],
        key: tuple,
        description: str,
        source_mtime: int | None = None,
    ) -> None:
        self.products = products
        self.by_asin = {p.asin: p for p in products}
        self.key = key
        self.description = description
        #: modification time (ns) of the data file read, so a changed file is read again
        self.source_mtime = source_mtime
        self._index: SearchIndex | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.products)

    def __reduce__(self):
        return (_rebuild, self.key)

    @property
    def index(self) -> SearchIndex:
        if self._index is None:
            with self._lock:
                if self._index is None:
                    t0 = time.perf_counter()
                    self._index = SearchIndex([p.search_document() for p in self.products])
                    logger.info(
                        "indexed %d products in %.2fs", len(self.products), time.perf_counter() - t0
                    )
        return self._index

    def search(self, keywords: str, k: int = SEARCH_RETURN_N) -> list[Product]:
        """The top ``k`` products for ``keywords`` (BM25), best first."""
        return [self.products[i] for i in self.index.search(keywords, k)]


_CACHE: dict[tuple, Catalog] = {}
_CACHE_LOCK = threading.Lock()


def _rebuild(kind: str, *args: Any) -> Catalog:
    if kind == "generated":
        return generated_catalog(*args)
    return original_catalog(*args)


# -- generated catalog ------------------------------------------------------------------------
_ASIN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@lru_cache(maxsize=4096)
def _title_case(phrase: str) -> str:
    return " ".join(
        w if any(c.isdigit() for c in w) or w.isupper() else w[:1].upper() + w[1:]
        for w in phrase.split()
    )


def _money(rng: random.Random, lo: float, hi: float) -> float:
    whole = rng.uniform(lo, hi)
    cents = rng.choice((0.99, 0.99, 0.95, 0.49, 0.0, 0.89))
    return round(int(whole) + cents, 2)


def _make_product(rng: random.Random, asin: str, ptype: vocab.ProductType) -> Product:
    cat = ptype.category
    brand = rng.choice(vocab.BRANDS[cat])
    head = rng.choice(ptype.heads)
    pre = rng.sample(ptype.pre, rng.randint(1, 2))
    with_ = rng.sample(ptype.with_, rng.randint(1, 2))
    for_ = rng.sample(ptype.for_, rng.randint(0, 2))
    attributes = tuple(pre + with_ + for_)

    # Title: brand, head noun, and some (not always all) of the attributes, in shop style.
    shown = [a for a in attributes if rng.random() < 0.55]
    style = rng.randrange(3)
    if style == 0:
        title = f"{brand} {head}"
        if shown:
            title += ", " + ", ".join(_title_case(a) for a in shown)
    elif style == 1:
        lead = [a for a in shown if a in pre]
        rest = [a for a in shown if a not in pre]
        title = f"{brand} {' '.join(_title_case(a) for a in lead)} {head}".replace("  ", " ")
        if rest:
            title += " with " + " and ".join(_title_case(a) for a in rest)
    else:
        title = f"{head} by {brand}"
        if shown:
            title += " - " + " | ".join(_title_case(a) for a in shown)

    filler = vocab.FILLER[cat]
    desc = [f"The {brand} {head.lower()} is made with {' and '.join(with_)}."]
    desc.append(f"It is {', '.join(pre)} by design.")
    if for_:
        desc.append(f"A great pick for {' and '.join(for_)}.")
    desc.append(rng.choice(filler))
    bullets = [
        f"{a.upper()}: {_bullet_line(rng, a, head)}"
        for a in rng.sample(list(attributes), len(attributes))
    ]
    bullets.append(rng.choice(filler))

    options: dict[str, tuple[str, ...]] = {}
    for name, pool in ptype.options.items():
        n = rng.randint(2, min(6, len(pool)))
        chosen = set(rng.sample(range(len(pool)), n))
        options[name] = tuple(pool[i] for i in sorted(chosen))

    lo, hi = ptype.price
    if rng.random() < 0.15:
        a = _money(rng, lo, hi)
        b = round(a + rng.uniform(2.0, max(3.0, (hi - lo) / 3)), 2)
        pricing: tuple[float, ...] = (a, b)
        price = rng.uniform(a, b)
    else:
        pricing = (_money(rng, lo, hi),)
        price = pricing[0]
    return Product(
        asin=asin,
        title=title,
        description=" ".join(desc),
        bullets=tuple(bullets),
        category=cat,
        query=ptype.query,
        product_category=BREADCRUMB_SEP.join(ptype.path),
        pricing=pricing,
        price_tag=price_tag(pricing),
        options=options,
        attributes=attributes,
        price=price,
    )


_BULLET_TEMPLATES = (
    "this {head} is {attr}, as promised on the label",
    "{attr} you can count on every day",
    "we chose {attr} after months of testing",
    "{attr}, checked by our quality team",
)


def _bullet_line(rng: random.Random, attr: str, head: str) -> str:
    return rng.choice(_BULLET_TEMPLATES).format(attr=attr, head=head.lower())


def generated_catalog(
    num_products: int = DEFAULT_NUM_PRODUCTS, seed: int = DEFAULT_SEED
) -> Catalog:
    """The seeded synthetic catalog, built once per process for each ``(num_products, seed)``."""
    if not 1 <= int(num_products) <= MAX_NUM_PRODUCTS:
        raise BadDataError(
            f"num_products={num_products} is out of range: use 1..{MAX_NUM_PRODUCTS}"
        )
    key = ("generated", int(num_products), int(seed))
    with _CACHE_LOCK:
        if key in _CACHE:
            return _CACHE[key]
        t0 = time.perf_counter()
        rng = random.Random(f"webshop-catalog-{seed}")
        types = vocab.TYPES
        products = []
        seen: set[str] = set()
        for i in range(int(num_products)):
            asin = "B0" + "".join(rng.choices(_ASIN_CHARS, k=8))
            while asin in seen:
                asin = "B0" + "".join(rng.choices(_ASIN_CHARS, k=8))
            seen.add(asin)
            products.append(
                _make_product(
                    rng, asin, types[i % len(types)] if i < len(types) else rng.choice(types)
                )
            )
        catalog = Catalog(
            products, key, f"generated catalog of {len(products)} products (seed {seed})"
        )
        _CACHE[key] = catalog
        logger.info("built %s in %.2fs", catalog.description, time.perf_counter() - t0)
        return catalog


# -- WebShop's original files --------------------------------------------------------------------
def _parse_pricing(pricing: Any) -> tuple[float, ...]:
    if not pricing:
        return (100.0,)
    values = []
    for chunk in str(pricing).split("$")[1:]:
        digits = re.sub(r"[^\d.]", "", chunk)
        try:
            values.append(float(Decimal(digits)))
        except InvalidOperation:
            continue
    return tuple(values[:2]) if values else (100.0,)


def load_original_products(
    products_path: str | Path,
    attributes_path: str | Path,
    num_products: int | None = None,
    price_seed: int = DEFAULT_SEED,
) -> list[Product]:
    """WebShop's ``load_products``: the product list (``items_shuffle*.json``) and attribute map
    (``items_ins_v2*.json``), skipping ``nan`` / over-long ASINs and duplicates, first
    ``num_products`` of the file. Range prices draw the reward price from ``random.Random(price_seed)``
    in file order (WebShop draws from the unseeded global ``random``)."""
    try:
        raw = json.loads(Path(products_path).read_text())
        attrs = json.loads(Path(attributes_path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise BadDataError(
            f"cannot read WebShop data ({exc}): pass data_path= a folder with "
            "items_shuffle*.json and items_ins_v2*.json"
        ) from None
    if not isinstance(raw, list) or not isinstance(attrs, dict):
        raise BadDataError(
            f"{products_path} must hold a JSON list of products and {attributes_path} a JSON "
            "object keyed by asin (WebShop's items_shuffle / items_ins_v2 formats)"
        )
    if num_products is not None:
        raw = raw[:num_products]
    rng = random.Random(price_seed)
    products: list[Product] = []
    seen: set[str] = set()
    for p in raw:
        asin = str(p.get("asin", "nan"))
        if asin == "nan" or len(asin) > 10 or asin in seen:
            continue
        seen.add(asin)
        bullets = p.get("small_description") or []
        if isinstance(bullets, str):
            bullets = [bullets]
        pricing = _parse_pricing(p.get("pricing"))
        price = pricing[0] if len(pricing) == 1 else rng.uniform(*pricing[:2])
        options: dict[str, tuple[str, ...]] = {}
        for name, contents in (p.get("customization_options") or {}).items():
            if contents is None:
                continue
            options[name.lower()] = tuple(
                str(c["value"]).strip().replace("/", " | ").lower() for c in contents
            )
        entry = attrs.get(asin) or {}
        attributes = (
            tuple(entry.get("attributes") or ()) if "attributes" in entry else ("DUMMY_ATTR",)
        )
        images = p.get("images") or [""]
        products.append(
            Product(
                asin=asin,
                title=str(p.get("name", "")),
                description=str(p.get("full_description") or ""),
                bullets=tuple(str(b) for b in bullets),
                category=str(p.get("category", "")),
                query=str(p.get("query", "")).lower().strip(),
                product_category=str(p.get("product_category", "")),
                pricing=pricing,
                price_tag="$100.0" if not p.get("pricing") else price_tag(pricing),
                options=options,
                attributes=attributes,
                price=price,
                image=str(images[0] or ""),
                instruction=entry.get("instruction"),
                instruction_attributes=tuple(entry.get("instruction_attributes") or ()),
            )
        )
    return products


def find_data_files(data_path: str | Path) -> tuple[Path, Path]:
    """``(products file, attributes file)`` in ``data_path`` (a folder, or the products file itself)."""
    p = Path(data_path).expanduser()
    if p.is_file():
        folder, products = p.parent, p
    elif p.is_dir():
        folder = p
        candidates = sorted(folder.glob("items_shuffle*.json"))
        if not candidates:
            raise BadDataError(
                f"no items_shuffle*.json in {str(p)!r}: put WebShop's product file there"
            )
        products = next(
            (c for c in candidates if c.name == "items_shuffle_1000.json"), candidates[0]
        )
    else:
        raise BadDataError(
            f"WebShop data path {str(p)!r} not found: pass data_path= the folder holding "
            "items_shuffle_1000.json and items_ins_v2_1000.json"
        )
    suffix = products.name[len("items_shuffle") :]  # "_1000.json" or ".json"
    attrs = folder / f"items_ins_v2{suffix}"
    if not attrs.is_file():
        found = sorted(folder.glob("items_ins_v2*.json"))
        if not found:
            raise BadDataError(
                f"no items_ins_v2*.json next to {products.name} in {str(folder)!r}: "
                "put WebShop's attribute file there"
            )
        attrs = found[0]
    return products, attrs


def original_catalog(
    data_path: str, num_products: int | None = None, price_seed: int = DEFAULT_SEED
) -> Catalog:
    """WebShop's real products from ``data_path`` (built once per process per file and options)."""
    products_file, attrs_file = find_data_files(data_path)
    stat = products_file.stat()
    key = ("original", str(data_path), num_products, int(price_seed))
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None and cached.source_mtime == stat.st_mtime_ns:
            return cached
        products = load_original_products(products_file, attrs_file, num_products, price_seed)
        if not products:
            raise BadDataError(f"{products_file} holds no usable product (asin, name, ...)")
        catalog = Catalog(
            products,
            key,
            f"WebShop data from {products_file} ({len(products)} products)",
            source_mtime=stat.st_mtime_ns,
        )
        _CACHE[key] = catalog
        return catalog
