"""Small charts as inline SVG for the HTML report: stacked bars, percentage bars, a heat map, a line.

Hand-built rather than rendered by a charting library: four chart shapes of a few dozen marks each come
to ~150 lines here and a few kilobytes per chart in the page; a library (Vega-Lite through
vl-convert-python, for one) would add a ~40 MB dependency with its own JavaScript runtime to start for
every report, for the same static SVG. Every mark carries a ``<title>`` (the browser's tooltip) and the
number it shows in ``data-value``, so the charts can be read by a screen reader and checked by a test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
OUTCOME_COLORS = {"win": "#2f7d4f", "draw": "#d9a521", "no_winner": "#8c5aa8", "undecided": "#9aa4ae"}
SERIES_COLORS = ("#3b6fb6", "#e07b39", "#2f7d4f", "#c23b4a", "#8c5aa8", "#5aa7a8", "#d9a521", "#7a6c5d")


def _text_width(text: str, size: float = 12) -> float:
    return len(text) * size * 0.58


def _svg(width: float, height: float, label: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}" '
        f'font-family="{FONT}" font-size="12">' + "".join(body) + "</svg>"
    )


def _legend(items: Sequence[tuple[str, str]], x: float, y: float) -> list[str]:
    out = []
    for name, color in items:
        out.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="10" height="10" rx="2" fill="{color}"/>')
        out.append(f'<text x="{x + 14:.1f}" y="{y:.1f}" fill="#333">{escape(name)}</text>')
        x += 24 + _text_width(name)
    return out


def stacked_bars(
    label: str,
    categories: Sequence[str],
    series: Sequence[str],
    values: Mapping[tuple[str, str], int],
    colors: Mapping[str, str] | None = None,
) -> str:
    """One horizontal bar per category, split by series (e.g. games by reason, split by outcome)."""
    colors = colors or {s: SERIES_COLORS[i % len(SERIES_COLORS)] for i, s in enumerate(series)}
    left = 12 + max((_text_width(c) for c in categories), default=0)
    plot, row = 460.0, 26.0
    top = 34.0
    total = {c: sum(values.get((c, s), 0) for s in series) for c in categories}
    scale = plot / max(max(total.values(), default=0), 1)
    body = _legend([(s, colors[s]) for s in series], left, 16)
    for i, c in enumerate(categories):
        y = top + i * row
        body.append(
            f'<text x="{left - 8:.1f}" y="{y + 15:.1f}" text-anchor="end" fill="#333">{escape(c)}</text>'
        )
        x = left
        for s in series:
            n = values.get((c, s), 0)
            if not n:
                continue
            w = n * scale
            body.append(
                f'<rect class="mark" x="{x:.1f}" y="{y + 3:.1f}" width="{max(w, 1):.1f}" '
                f'height="{row - 8:.1f}" '
                f'fill="{colors[s]}" data-series="{escape(s)}" data-category="{escape(c)}" data-value="{n}">'
                f"<title>{escape(c)}, {escape(s)}: {n}</title></rect>"
            )
            x += w
        body.append(f'<text x="{x + 6:.1f}" y="{y + 15:.1f}" fill="#555">{total[c]}</text>')
    height = top + len(categories) * row + 8
    return _svg(left + plot + 60, height, label, body)


def percent_bars(label: str, rows: Sequence[tuple[str, float | None, str]], color: str = "#3b6fb6") -> str:
    """One bar per row on a 0-100 % scale: ``(name, rate or None, note shown after the bar)``."""
    left = 12 + max((_text_width(r[0]) for r in rows), default=0)
    plot, row, top = 360.0, 26.0, 22.0
    body = [f'<text x="{left:.1f}" y="12" fill="#777">0 %</text>']
    body.append(f'<text x="{left + plot:.1f}" y="12" fill="#777" text-anchor="end">100 %</text>')
    body.append(
        f'<line x1="{left + plot:.1f}" y1="{top - 4:.1f}" x2="{left + plot:.1f}" '
        f'y2="{top + len(rows) * row:.1f}" stroke="#ddd"/>'
    )
    for i, (name, rate, note) in enumerate(rows):
        y = top + i * row
        body.append(
            f'<text x="{left - 8:.1f}" y="{y + 15:.1f}" text-anchor="end" fill="#333">{escape(name)}</text>'
        )
        body.append(
            f'<rect x="{left:.1f}" y="{y + 3:.1f}" width="{plot:.1f}" height="{row - 8:.1f}" fill="#eef1f4"/>'
        )
        if rate is not None:
            body.append(
                f'<rect class="mark" x="{left:.1f}" y="{y + 3:.1f}" width="{max(rate * plot, 1):.1f}" '
                f'height="{row - 8:.1f}" fill="{color}" data-category="{escape(name)}" data-value="{rate}">'
                f"<title>{escape(name)}: {rate * 100:.1f} % ({escape(note)})</title></rect>"
            )
        shown = "-" if rate is None else f"{rate * 100:.1f} %"
        body.append(
            f'<text x="{left + plot + 8:.1f}" y="{y + 15:.1f}" fill="#555">{shown}  {escape(note)}</text>'
        )
    return _svg(left + plot + 200, top + len(rows) * row + 6, label, body)


#: A heatmap row's tone (``tones``): its colour, and the shade is relative to the rows of the same tone.
TONES = {"violation": (194, 59, 74), "warning": (204, 132, 16), "info": (110, 122, 134)}


def heatmap(
    label: str,
    rows: Sequence[str],
    columns: Sequence[str],
    values: Mapping[tuple[str, str], int],
    column_title: str,
    tones: Mapping[str, str] | None = None,
) -> str:
    """A grid of counts (rows x columns), darker for more: e.g. findings by code over rounds.

    ``tones`` gives rows a tone of :data:`TONES` (a finding's severity): each tone has its colour and
    its own scale, so that 67 info notes do not make 7 violations look pale."""
    left = 12 + max((_text_width(r) for r in rows), default=0)
    cell, top = 34.0, 40.0
    tone_of = {r: (tones or {}).get(r, "") for r in rows}
    peaks: dict[str, int] = {}
    for (r, _), n in values.items():
        peaks[tone_of.get(r, "")] = max(peaks.get(tone_of.get(r, ""), 0), n)
    body = [f'<text x="{left:.1f}" y="12" fill="#777">{escape(column_title)}</text>']
    for j, c in enumerate(columns):
        x = left + j * cell + cell / 2
        body.append(
            f'<text x="{x:.1f}" y="{top - 8:.1f}" text-anchor="middle" fill="#333">{escape(c)}</text>'
        )
    for i, r in enumerate(rows):
        y = top + i * cell
        body.append(
            f'<text x="{left - 8:.1f}" y="{y + cell / 2 + 4:.1f}" text-anchor="end" fill="#333">'
            f"{escape(r)}</text>"
        )
        tone = tone_of[r]
        peak = peaks.get(tone, 0) or 1
        red, green, blue = TONES.get(tone, TONES["violation"])
        for j, c in enumerate(columns):
            n = values.get((r, c), 0)
            x = left + j * cell
            shade = 0.08 + 0.92 * (n / peak) if n else 0.0
            fill = f"rgba({red}, {green}, {blue}, {shade:.3f})" if n else "#f4f6f8"
            kind = f' data-tone="{escape(tone)}"' if tone else ""
            body.append(
                f'<rect class="mark" x="{x + 1:.1f}" y="{y + 1:.1f}" width="{cell - 2:.1f}" '
                f'height="{cell - 2:.1f}" rx="3" fill="{fill}" data-category="{escape(r)}" '
                f'data-series="{escape(c)}" data-value="{n}"{kind}>'
                f"<title>{escape(r)}, {escape(column_title)} {escape(c)}: {n}</title></rect>"
            )
            if n:
                ink = "#fff" if n / peak > 0.5 else "#333"
                body.append(
                    f'<text x="{x + cell / 2:.1f}" y="{y + cell / 2 + 4:.1f}" text-anchor="middle" '
                    f'fill="{ink}" pointer-events="none">{n}</text>'
                )
    return _svg(left + len(columns) * cell + 12, top + len(rows) * cell + 6, label, body)


def line(
    label: str,
    points: Sequence[tuple[str, float | None, int]],
    x_title: str,
    of_count: str = "{rate} % of {count} claim(s)",
) -> str:
    """Rates over an ordered axis (e.g. agreement per round): ``(x label, rate or None, count)``;
    ``of_count`` words a point's tooltip (``rate``, ``count``)."""
    left, top, plot_w, plot_h = 48.0, 26.0, max(240.0, 56.0 * len(points)), 180.0
    body = []
    for pct in (0, 25, 50, 75, 100):
        y = top + plot_h * (1 - pct / 100)
        body.append(
            f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{left + plot_w:.1f}" y2="{y:.1f}" stroke="#e3e6ea"/>'
        )
        body.append(f'<text x="{left - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" fill="#777">{pct} %</text>')
    step = plot_w / max(len(points), 1)
    coords = []
    for i, (x_label, rate, count) in enumerate(points):
        x = left + step * (i + 0.5)
        body.append(
            f'<text x="{x:.1f}" y="{top + plot_h + 16:.1f}" text-anchor="middle" fill="#333">'
            f"{escape(x_label)}</text>"
        )
        if rate is not None:
            coords.append((x, top + plot_h * (1 - rate), x_label, rate, count))
    if len(coords) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, *_ in coords)
        body.append(f'<polyline points="{path}" fill="none" stroke="#3b6fb6" stroke-width="2"/>')
    for x, y, x_label, rate, count in coords:
        body.append(
            f'<circle class="mark" cx="{x:.1f}" cy="{y:.1f}" r="5" fill="#3b6fb6" '
            f'data-category="{escape(x_label)}" '
            f'data-value="{rate}"><title>{escape(x_title)} {escape(x_label)}: '
            f"{escape(of_count.format(rate=f'{rate * 100:.1f}', count=count))}</title></circle>"
        )
        body.append(
            f'<text x="{x:.1f}" y="{y - 10:.1f}" text-anchor="middle" fill="#555" font-size="11">'
            f"{rate * 100:.0f} %</text>"
        )
    body.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{top + plot_h + 34:.1f}" text-anchor="middle" fill="#777">'
        f"{escape(x_title)}</text>"
    )
    return _svg(left + plot_w + 16, top + plot_h + 44, label, body)
