"""Dashboard charts as inline SVG, drawn by matplotlib on the server (no script, no CDN)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache

_PALETTE = ("#4C72B0", "#55A868", "#C44E52", "#8172B2", "#CCB974", "#64B5CD", "#8C8C8C", "#DD8452")


def _plt():
    from agentgym_envs.errors import require

    matplotlib = require("matplotlib", "experience")
    matplotlib.use("Agg", force=False)
    return require("matplotlib.pyplot", "experience")


def _svg(fig) -> str:
    plt = _plt()
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]  # drop the XML prolog and doctype: the SVG goes inline


@lru_cache(maxsize=64)
def grouped_bars(
    title: str,
    groups: tuple[str, ...],
    series: tuple[tuple[str, tuple[float | None, ...]], ...],
    ylabel: str,
) -> str:
    """Bars per group (e.g. env) and series (e.g. version); ``None`` leaves a gap."""
    import numpy as np

    plt = _plt()
    n = max(len(series), 1)
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(groups) * max(1, n / 2) + 2), 3.4), dpi=96)
    x = np.arange(len(groups))
    for k, (name, values) in enumerate(series):
        ys = [np.nan if v is None else v for v in values]
        ax.bar(
            x - 0.4 + width * (k + 0.5), ys, width, label=name, color=_PALETTE[k % len(_PALETTE)]
        )
    ax.set_xticks(x, [g.split("/")[-1] for g in groups], rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    if series:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return _svg(fig)


@lru_cache(maxsize=64)
def intervals(title: str, rows: tuple[tuple[str, float, float, float], ...], xlabel: str) -> str:
    """One horizontal interval per row: ``(label, diff, low, high)``, with a line at 0."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.0, 0.45 * len(rows) + 1.2), dpi=96)
    for i, (_label, diff, low, high) in enumerate(rows):
        color = "#55A868" if low > 0 else "#C44E52" if high < 0 else "#8C8C8C"
        ax.plot([low, high], [i, i], color=color, linewidth=3, solid_capstyle="butt")
        ax.plot([diff], [i], "o", color="black", markersize=4)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)), [r[0] for r in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return _svg(fig)


def score_per_env(
    rows: Sequence[tuple[str, str, float]], title: str = "Score per env across versions"
) -> str:
    """``rows``: (version label, env id, mean score on a 0..1 scale)."""
    envs = tuple(sorted({r[1] for r in rows}))
    versions = sorted({r[0] for r in rows})
    table = {(v, e): s for v, e, s in rows}
    series = tuple((v, tuple(table.get((v, e)) for e in envs)) for v in versions)
    return grouped_bars(title, envs, series, "mean score (score / max)")


__all__ = ["grouped_bars", "intervals", "score_per_env"]
