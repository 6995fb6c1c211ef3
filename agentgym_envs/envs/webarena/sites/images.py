"""Product pictures drawn per item: an SVG whose silhouette comes from the product's department
(a bottle, a box, a garment, a device ...), whose colour is the product's own and whose pattern
and accents come from a hash of its SKU, so no two products look alike and the same product
always looks the same. No files: the shop puts them inline in its pages (an ``<img>`` would
load after the page, and until it has its box is empty, so what the viewport-pruned
observation shows would depend on timing) and also serves them at ``/media/catalog/product/<sku>.svg``.

The forum's photos (:func:`photo_svg`) are scenes: a sky and a ground by time of day and
place, and a subject (an eagle, fireworks, a costume contest ...: :data:`PHOTO_KINDS`) whose
details vary with the image's file name; the forum inlines them the same way and serves them
at ``/submission_images/<sha256>.svg`` (:mod:`.photos`).
"""

from __future__ import annotations

import hashlib
import html

#: The product colours (vocab.COLORS) as fills.
COLOURS = {
    "Black": "#2b2b2b",
    "White": "#f4f4f2",
    "Gray": "#9a9ea3",
    "Blue": "#2f6fc0",
    "Red": "#c63b32",
    "Green": "#3f8f4f",
    "Beige": "#d9c7a3",
    "Pink": "#e58fb1",
    "Navy": "#22335c",
    "Brown": "#7a4f2e",
}
_ACCENTS = ("#f2b134", "#4fb0c6", "#e8e1d0", "#8e6cc0", "#ef6f4c", "#5fbf8f", "#ffffff", "#333")
#: Department -> silhouette (an SVG path in a 200 x 200 box).
_SHAPES = {
    "bottle": "M85 30h30v25c18 8 25 22 25 40v70q0 10-10 10H70q-10 0-10-10V95c0-18 7-32 25-40z",
    "box": "M40 60l60-25 60 25v85l-60 25-60-25z",
    "garment": "M70 35l30 12 30-12 35 25-15 25-15-8v93H65V77l-15 8-15-25z",
    "device": "M55 40h90q10 0 10 10v100q0 10-10 10H55q-10 0-10-10V50q0-10 10-10z",
    "can": "M60 45q40-14 80 0v110q-40 14-80 0z",
    "tool": "M50 130l60-60 10-30 30 10-10 30-60 60q-10 10-20 0t-10-10z",
    "plant": "M100 170V95M100 95c-30-5-45-30-40-55 25 0 40 20 40 55zm0 0c30-5 45-30 40-55-25 0-40"
    " 20-40 55z",
    "pad": "M50 35h100v130H50zM65 55h70M65 75h70M65 95h70M65 115h45",
}
DEPARTMENT_SHAPES = {
    "Beauty & Personal Care": "bottle",
    "Sports & Outdoors": "tool",
    "Clothing, Shoes & Jewelry": "garment",
    "Home & Kitchen": "can",
    "Electronics": "device",
    "Grocery & Gourmet Food": "box",
    "Office Products": "pad",
    "Tools & Home Improvement": "tool",
    "Health & Household": "bottle",
    "Patio, Lawn & Garden": "plant",
    "Cell Phones & Accessories": "device",
    "Video Games": "device",
}


def _pattern(kind: int, accent: str) -> str:
    if kind == 0:
        return f'<path d="M0 0L8 8M-2 6L2 10M6 -2L10 2" stroke="{accent}" stroke-width="2"/>'
    if kind == 1:
        return f'<circle cx="5" cy="5" r="2" fill="{accent}"/>'
    if kind == 2:
        return f'<rect width="5" height="5" fill="{accent}"/>'
    return f'<path d="M0 5H10" stroke="{accent}" stroke-width="2"/>'


def product_svg(sku: str, name: str, department: str, colour: str, css_class: str = "") -> str:
    """The picture of one product (200 x 200 SVG text; its pattern and clip ids carry the SKU,
    so several pictures can share a page)."""
    digest = hashlib.sha256(sku.encode()).digest()
    fill = COLOURS.get(colour, "#8a8f99")
    accent = _ACCENTS[digest[0] % len(_ACCENTS)]
    if accent.lower() == fill.lower():
        accent = _ACCENTS[(digest[0] + 1) % len(_ACCENTS)]
    shape = _SHAPES[DEPARTMENT_SHAPES.get(department, "box")]
    size = 6 + digest[1] % 10
    angle = digest[2] % 90
    band_y = 90 + digest[3] % 40
    stroke = ' stroke-width="10" fill="none"' if "plant" in department.lower() else ""
    background = f"hsl({digest[4] * 360 // 256}, 35%, 95%)"
    label = html.escape(name)
    uid = "".join(ch for ch in sku if ch.isalnum())
    cls = f' class="{css_class}"' if css_class else ""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200" '
        f'role="img" aria-label="{label}"{cls}><defs><pattern id="p{uid}" width="{size}" '
        f'height="{size}" patternUnits="userSpaceOnUse" viewBox="0 0 10 10" '
        f'patternTransform="rotate({angle})">{_pattern(digest[5] % 4, accent)}</pattern>'
        f'<clipPath id="c{uid}"><path d="{shape}"/></clipPath></defs>'
        f'<rect width="200" height="200" fill="{background}"/>'
        f'<path d="{shape}" fill="{fill}" stroke="{fill}"{stroke}/>'
        f'<g clip-path="url(#c{uid})"><rect y="{band_y}" width="200" height="{18 + digest[6] % 20}" '
        f'fill="url(#p{uid})" opacity="0.85"/></g>'
        f'<path d="{shape}" fill="none" stroke="rgba(0,0,0,0.25)" stroke-width="2"/></svg>'
    )


# -- the forum's photos ---------------------------------------------------------------------
#: Skies (top and bottom of a vertical gradient) by time of day.
_SKIES = {
    "day": ("#5aa9e6", "#cfe8f7"),
    "dusk": ("#ff7e5f", "#feb47b"),
    "night": ("#0b1026", "#2b3a67"),
    "indoor": ("#efe4d2", "#d8c7ad"),
}
#: Grounds: (fill, height of the band at the bottom of the 320 x 240 frame).
_GROUNDS = {
    "grass": ("#5c9e3f", 60),
    "water": ("#2f6f9f", 70),
    "snow": ("#f2f5f8", 55),
    "sand": ("#e0c48a", 60),
    "table": ("#8b5a2b", 70),
    "street": ("#55585e", 50),
}


def _bird(r, x: float, y: float, s: float) -> str:
    wing = f"M{x} {y}q{-40 * s} {-30 * s} {-80 * s} {-10 * s}q{40 * s} 0 {80 * s} {25 * s}z"
    other = f"M{x} {y}q{40 * s} {-30 * s} {80 * s} {-10 * s}q{-40 * s} 0 {-80 * s} {25 * s}z"
    return (
        f'<path d="{wing}" fill="#3b2a1a"/><path d="{other}" fill="#3b2a1a"/>'
        f'<ellipse cx="{x}" cy="{y + 8 * s}" rx="{14 * s}" ry="{22 * s}" fill="#4a3320"/>'
        f'<circle cx="{x}" cy="{y - 14 * s}" r="{11 * s}" fill="#fafafa"/>'
        f'<path d="M{x + 8 * s} {y - 14 * s}l{10 * s} {4 * s}l{-10 * s} {3 * s}z" fill="#f2b134"/>'
    )


def _burst(r, x: float, y: float, colour: str) -> str:
    rays = "".join(
        f'<line x1="{x}" y1="{y}" x2="{x + 45 * _cos(a)}" y2="{y + 45 * _sin(a)}" '
        f'stroke="{colour}" stroke-width="2.5" stroke-linecap="round"/>'
        for a in range(0, 360, 20 + r.randrange(0, 10))
    )
    return f'{rays}<circle cx="{x}" cy="{y}" r="6" fill="#fff8d0"/>'


def _cos(deg: float) -> float:
    import math

    return round(math.cos(math.radians(deg)), 3)


def _sin(deg: float) -> float:
    import math

    return round(math.sin(math.radians(deg)), 3)


def _tree(x: float, base: float, h: float, colour: str) -> str:
    return (
        f'<rect x="{x - 4}" y="{base - h * 0.25}" width="8" height="{h * 0.25}" fill="#5b3a1e"/>'
        f'<path d="M{x} {base - h}l{h * 0.32} {h * 0.78}h{-h * 0.64}z" fill="{colour}"/>'
    )


def _person(x: float, base: float, body: str, hat: str = "") -> str:
    return (
        f'<rect x="{x - 14}" y="{base - 70}" width="28" height="50" rx="10" fill="{body}"/>'
        f'<circle cx="{x}" cy="{base - 82}" r="13" fill="#f1c27d"/>'
        f'<rect x="{x - 12}" y="{base - 22}" width="9" height="22" fill="#333"/>'
        f'<rect x="{x + 3}" y="{base - 22}" width="9" height="22" fill="#333"/>{hat}'
    )


def _witch_hat(x: float, base: float) -> str:
    return (
        f'<path d="M{x - 22} {base - 90}h44l-22 -40z" fill="#222"/>'
        f'<rect x="{x - 12}" y="{base - 96}" width="24" height="5" fill="#8e6cc0"/>'
    )


def _motif(kind: str, r) -> str:
    """The drawing of ``kind`` over the 320 x 240 frame; ``r`` varies its details."""
    dx = r.randrange(-30, 30)
    if kind == "eagle":
        return _bird(r, 160 + dx, 100 + r.randrange(-15, 15), 1.2)
    if kind == "heron":
        x = 150 + dx
        return (
            f'<path d="M{x} 120q-10 -50 10 -70q12 -8 20 2l25 4l-24 4q-8 0 -12 14q20 40 0 50z" '
            'fill="#7d8fa3"/>'
            f'<line x1="{x + 5}" y1="165" x2="{x}" y2="205" stroke="#c9a227" stroke-width="3"/>'
            f'<line x1="{x + 12}" y1="165" x2="{x + 16}" y2="205" stroke="#c9a227" '
            'stroke-width="3"/>'
        )
    if kind == "fireworks":
        colours = ("#ff4d6d", "#ffd166", "#06d6a0", "#4cc9f0", "#c77dff")
        return "".join(
            _burst(r, 50 + k * 75 + r.randrange(-15, 15), 50 + r.randrange(0, 60), colours[k])
            for k in range(4)
        )
    if kind == "turkey":
        return (
            '<ellipse cx="160" cy="195" rx="120" ry="22" fill="#f4f4f2"/>'
            f'<ellipse cx="{160 + dx / 3}" cy="165" rx="80" ry="45" fill="#b5651d"/>'
            f'<ellipse cx="{140 + dx / 3}" cy="150" rx="35" ry="15" fill="#d4883b" opacity="0.8"/>'
            '<path d="M230 150l40 -20l6 12l-38 20z" fill="#a0522d"/>'
            '<circle cx="278" cy="134" r="8" fill="#f4f4f2"/>'
            '<path d="M90 150l-40 -20l-6 12l38 20z" fill="#a0522d"/>'
            '<circle cx="42" cy="134" r="8" fill="#f4f4f2"/>'
            '<circle cx="70" cy="200" r="7" fill="#3f8f4f"/><circle cx="250" cy="200" r="7" '
            'fill="#c63b32"/>'
        )
    if kind == "pumpkin_costume":
        x = 160 + dx
        return (
            f'<ellipse cx="{x}" cy="150" rx="45" ry="40" fill="#f28c28"/>'
            f'<path d="M{x - 15} 115v70M{x + 15} 115v70" stroke="#c96a10" stroke-width="3"/>'
            f'<circle cx="{x}" cy="90" r="18" fill="#f1c27d"/>'
            f'<rect x="{x - 4}" y="64" width="8" height="10" fill="#3f8f4f"/>'
            f'<rect x="{x - 25}" y="188" width="12" height="30" fill="#333"/>'
            f'<rect x="{x + 13}" y="188" width="12" height="30" fill="#333"/>'
        )
    if kind == "costume_contest":
        bodies = ("#8e6cc0", "#f28c28", "#c63b32", "#3f8f4f")
        people = "".join(
            _person(60 + k * 65, 210, bodies[k], _witch_hat(60 + k * 65, 210) if k % 2 else "")
            for k in range(4)
        )
        return f'<rect x="20" y="20" width="280" height="22" fill="#f2b134"/>{people}'
    if kind == "sunset":
        return f'<circle cx="{160 + dx}" cy="170" r="40" fill="#ffcf5c"/>' + "".join(
            f'<rect x="{120 + dx + k * 6}" y="{182 + k * 8}" width="{80 - k * 12}" height="3" '
            'fill="#ffcf5c" opacity="0.7"/>'
            for k in range(5)
        )
    if kind == "mountain":
        return (
            f'<path d="M0 190L{90 + dx} 60L200 190z" fill="#6d6875"/>'
            f'<path d="M{90 + dx} 60l-25 40l12 -6l13 10l12 -12l13 8z" fill="#fff"/>'
            f'<path d="M120 190L{230 + dx / 2} 80L320 190z" fill="#4a4e69"/>'
            f'<path d="M{230 + dx / 2} 80l-20 32l10 -4l10 8l10 -9l10 5z" fill="#fff"/>'
        )
    if kind == "cat":
        x = 160 + dx
        return (
            f'<path d="M{x - 45} 95l5 -45l30 30zM{x + 45} 95l-5 -45l-30 30z" fill="#e08a3c"/>'
            f'<circle cx="{x}" cy="120" r="50" fill="#e08a3c"/>'
            f'<circle cx="{x - 18}" cy="110" r="8" fill="#3f8f4f"/>'
            f'<circle cx="{x + 18}" cy="110" r="8" fill="#3f8f4f"/>'
            f'<path d="M{x - 6} 130h12l-6 7z" fill="#e58fb1"/>'
            f'<path d="M{x - 50} 135h30M{x + 20} 135h30" stroke="#fff" stroke-width="2"/>'
        )
    if kind == "puppy":
        x = 160 + dx
        return (
            f'<circle cx="{x}" cy="120" r="48" fill="#d9a55b"/>'
            f'<ellipse cx="{x - 48}" cy="125" rx="16" ry="34" fill="#a86f2c"/>'
            f'<ellipse cx="{x + 48}" cy="125" rx="16" ry="34" fill="#a86f2c"/>'
            f'<circle cx="{x - 16}" cy="110" r="7" fill="#2b2b2b"/>'
            f'<circle cx="{x + 16}" cy="110" r="7" fill="#2b2b2b"/>'
            f'<ellipse cx="{x}" cy="135" rx="11" ry="8" fill="#2b2b2b"/>'
            f'<path d="M{x} 143q0 18 8 18" stroke="#e58fb1" stroke-width="6" fill="none"/>'
        )
    if kind == "lighthouse":
        x = 200 + dx / 2
        stripes = "".join(
            f'<rect x="{x - 18 + k * 1.5}" y="{80 + k * 25}" width="{36 - k * 3}" height="12" '
            'fill="#c63b32"/>'
            for k in range(4)
        )
        return (
            f'<path d="M{x - 14} 70h28l8 110h-44z" fill="#f4f4f2"/>{stripes}'
            f'<rect x="{x - 12}" y="52" width="24" height="18" fill="#ffd166"/>'
            f'<path d="M{x - 16} 52h32l-16 -14z" fill="#2b2b2b"/>'
            f'<path d="M{x} 60L{x - 160} 30L{x - 160} 90z" fill="#fff8d0" opacity="0.35"/>'
        )
    if kind == "forest":
        colours = ("#c0392b", "#e67e22", "#f1c40f", "#d35400", "#a04000")
        return "".join(
            _tree(20 + k * 38 + r.randrange(-6, 6), 195, 90 + r.randrange(0, 50), colours[k % 5])
            for k in range(8)
        )
    if kind == "balloons":
        colours = ("#ef476f", "#ffd166", "#06d6a0", "#118ab2")
        out = ""
        for k in range(3):
            x, y = 70 + k * 90 + r.randrange(-10, 10), 70 + r.randrange(0, 50)
            out += (
                f'<ellipse cx="{x}" cy="{y}" rx="28" ry="34" fill="{colours[(k + dx) % 4]}"/>'
                f'<path d="M{x - 20} {y + 22}l12 24h16l12 -24" stroke="#555" fill="none"/>'
                f'<rect x="{x - 8}" y="{y + 46}" width="16" height="12" fill="#8b5a2b"/>'
            )
        return out
    if kind == "sailboat":
        x = 160 + dx
        return (
            f'<path d="M{x - 60} 180h120l-20 22h-80z" fill="#7a4f2e"/>'
            f'<line x1="{x}" y1="60" x2="{x}" y2="180" stroke="#333" stroke-width="4"/>'
            f'<path d="M{x + 4} 65v105h60z" fill="#f4f4f2"/>'
            f'<path d="M{x - 4} 80v90h-45z" fill="#ef6f4c"/>'
        )
    if kind == "moon":
        stars = "".join(
            f'<circle cx="{r.randrange(5, 315)}" cy="{r.randrange(5, 150)}" r="1.5" fill="#fff"/>'
            for _ in range(30)
        )
        return (
            f'{stars}<circle cx="{220 + dx}" cy="70" r="36" fill="#f5f3ce"/>'
            f'<circle cx="{208 + dx}" cy="62" r="6" fill="#dcd9a8"/>'
            f'<circle cx="{232 + dx}" cy="84" r="8" fill="#dcd9a8"/>'
        )
    if kind == "blossom":
        petals = "".join(
            f'<circle cx="{160 + r.randrange(-90, 90)}" cy="{90 + r.randrange(-55, 40)}" '
            f'r="{r.randrange(5, 12)}" fill="{r.choice(("#f7c6d9", "#e58fb1", "#fbe3ec"))}"/>'
            for _ in range(60)
        )
        return (
            '<path d="M152 200l4 -90l-30 -30M156 130l30 -40M156 150l-40 -20" stroke="#5b3a1e" '
            f'stroke-width="9" fill="none"/>{petals}'
        )
    if kind == "aurora":
        bands = "".join(
            f'<path d="M0 {70 + k * 22}q80 {-40 + k * 10} 160 0t160 {-10 + k * 5}" '
            f'stroke="{c}" stroke-width="14" fill="none" opacity="0.6"/>'
            for k, c in enumerate(("#4ade80", "#22d3ee", "#a78bfa"))
        )
        return bands + _tree(60, 195, 70, "#0f2b1d") + _tree(260 + dx / 3, 195, 90, "#0f2b1d")
    if kind == "rainbow":
        colours = ("#e63946", "#f4a261", "#f1c40f", "#2a9d8f", "#457b9d", "#8e6cc0")
        return "".join(
            f'<path d="M{40 + k * 10} 190a{120 - k * 10} {120 - k * 10} 0 0 1 {240 - k * 20} 0" '
            f'stroke="{c}" stroke-width="10" fill="none"/>'
            for k, c in enumerate(colours)
        )
    if kind == "skyline":
        out = ""
        x = 0
        while x < 320:
            w, h = r.randrange(25, 45), r.randrange(60, 160)
            out += f'<rect x="{x}" y="{190 - h}" width="{w}" height="{h}" fill="#1f2633"/>'
            for wy in range(190 - h + 8, 185, 14):
                for wx in range(x + 5, x + w - 6, 10):
                    if r.random() < 0.5:
                        out += f'<rect x="{wx}" y="{wy}" width="5" height="7" fill="#ffd166"/>'
            x += w + 3
        return out
    if kind == "cake":
        x = 160 + dx / 2
        candles = "".join(
            f'<rect x="{x - 40 + k * 20}" y="90" width="6" height="24" fill="#4fb0c6"/>'
            f'<ellipse cx="{x - 37 + k * 20}" cy="85" rx="4" ry="7" fill="#ffb703"/>'
            for k in range(5)
        )
        return (
            f'<rect x="{x - 70}" y="150" width="140" height="45" fill="#e58fb1"/>'
            f'<rect x="{x - 55}" y="114" width="110" height="38" fill="#fbe3ec"/>'
            f'<path d="M{x - 70} 150q17 12 35 0t35 0t35 0t35 0" stroke="#fff" stroke-width="5" '
            f'fill="none"/>{candles}'
        )
    if kind == "pizza":
        x = 160 + dx / 2
        toppings = "".join(
            f'<circle cx="{x + r.randrange(-60, 60)}" cy="{140 + r.randrange(-45, 45)}" r="9" '
            'fill="#b5172b"/>'
            for _ in range(12)
        )
        return (
            f'<circle cx="{x}" cy="140" r="85" fill="#d9a55b"/>'
            f'<circle cx="{x}" cy="140" r="72" fill="#f6c85f"/>{toppings}'
            f'<path d="M{x} 140L{x} 55M{x} 140L{x + 74} 183M{x} 140L{x - 74} 183" stroke="#c98f3b" '
            'stroke-width="2"/>'
        )
    raise KeyError(f"no drawing for {kind!r}")


#: Drawings :func:`photo_svg` can make.
PHOTO_KINDS = (
    "eagle", "heron", "fireworks", "turkey", "pumpkin_costume", "costume_contest", "sunset",
    "mountain", "cat", "puppy", "lighthouse", "forest", "balloons", "sailboat", "moon",
    "blossom", "aurora", "rainbow", "skyline", "cake", "pizza",
)  # fmt: skip


def photo_svg(kind: str, sky: str, ground: str, key: str, alt: str, width: int = 320) -> str:
    """A forum photo (320 x 240 SVG): ``sky`` and ``ground`` set the scene, ``kind`` the
    subject (see :data:`PHOTO_KINDS`); ``key`` (the image's file name) varies its details and
    names its gradient, so several photos can share a page; ``alt`` is its text alternative."""
    import random

    r = random.Random(key)
    top, bottom = _SKIES[sky]
    fill, band = _GROUNDS[ground]
    uid = "g" + "".join(ch for ch in key if ch.isalnum())[:16]
    height = width * 3 // 4
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 320 240" role="img" aria-label="{html.escape(alt)}">'
        f'<defs><linearGradient id="{uid}" x1="0" y1="0" x2="0" y2="1">'
        f'<stop offset="0" stop-color="{top}"/><stop offset="1" stop-color="{bottom}"/>'
        f'</linearGradient></defs><rect width="320" height="240" fill="url(#{uid})"/>'
        f'<rect y="{240 - band}" width="320" height="{band}" fill="{fill}"/>'
        f"{_motif(kind, r)}</svg>"
    )
