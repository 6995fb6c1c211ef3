"""Product pictures drawn per item: an SVG whose silhouette comes from the product's department
(a bottle, a box, a garment, a device ...), whose colour is the product's own and whose pattern
and accents come from a hash of its SKU, so no two products look alike and the same product
always looks the same. No files: the shop puts them inline in its pages (an ``<img>`` would
load after the page, and the order Chromium hands out node ids, which the observation shows,
would then depend on timing) and also serves them at ``/media/catalog/product/<sku>.svg``.
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
