"""Small charts as inline SVG for the HTML report: stacked bars, percentage bars, a heat map, a line.

Hand-built rather than rendered by a charting library: four chart shapes of a few dozen marks each come
to ~150 lines here and a few kilobytes per chart in the page; a library (Vega-Lite through
vl-convert-python, for one) would add a ~40 MB dependency with its own JavaScript runtime to start for
every report, for the same static SVG. Every mark carries a ``<title>`` (the browser's tooltip) and the
number it shows in ``data-value``, so the charts can be read by a screen reader and checked by a test.

Each element is a :class:`markupsafe.Markup` filled by ``format()``, which escapes every value it is
given, as Jinja2's autoescape does for the page around the chart (the same library): a name from the
records is text in a chart as anywhere else on the page, with no escaping by hand.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"
OUTCOME_COLORS = {"win": "#2f7d4f", "draw": "#d9a521", "no_winner": "#8c5aa8", "undecided": "#9aa4ae"}
SERIES_COLORS = ("#3b6fb6", "#e07b39", "#2f7d4f", "#c23b4a", "#8c5aa8", "#5aa7a8", "#d9a521", "#7a6c5d")


def _el(markup: str, **values: Any) -> Markup:
    """An element of a chart: ``markup`` with ``values`` filled in, each escaped."""
    return Markup(markup).format(**values)


def _text_width(text: str, size: float = 12) -> float:
    """About how wide ``text`` is drawn: a Japanese or Korean character (East Asian wide or full-width)
    takes a whole em, a Latin one a little over half."""
    return sum(size if unicodedata.east_asian_width(c) in "WF" else size * 0.58 for c in text)


def _svg(width: float, height: float, label: str, body: list[Markup]) -> Markup:
    return _el(
        '<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
        'viewBox="0 0 {w:.0f} {h:.0f}" role="img" aria-label="{label}" font-family="{font}" '
        'font-size="12">{body}</svg>',
        w=width,
        h=height,
        label=label,
        font=FONT,
        body=Markup("").join(body),
    )


def _legend(items: Sequence[tuple[str, str]], x: float, y: float) -> list[Markup]:
    out = []
    for name, color in items:
        out.append(
            _el(
                '<rect x="{x:.1f}" y="{y:.1f}" width="10" height="10" rx="2" fill="{c}"/>',
                x=x,
                y=y - 9,
                c=color,
            )
        )
        out.append(_el('<text x="{x:.1f}" y="{y:.1f}" fill="#333">{name}</text>', x=x + 14, y=y, name=name))
        x += 24 + _text_width(name)
    return out


def stacked_bars(
    label: str,
    categories: Sequence[str],
    series: Sequence[str],
    values: Mapping[tuple[str, str], int],
    colors: Mapping[str, str] | None = None,
) -> Markup:
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
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" fill="#333">{c}</text>',
                x=left - 8,
                y=y + 15,
                c=c,
            )
        )
        x = left
        for s in series:
            n = values.get((c, s), 0)
            if not n:
                continue
            w = n * scale
            body.append(
                _el(
                    '<rect class="mark" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                    'fill="{fill}" data-series="{s}" data-category="{c}" data-value="{n}">'
                    "<title>{c}, {s}: {n}</title></rect>",
                    x=x,
                    y=y + 3,
                    w=max(w, 1),
                    h=row - 8,
                    fill=colors[s],
                    s=s,
                    c=c,
                    n=n,
                )
            )
            x += w
        body.append(
            _el('<text x="{x:.1f}" y="{y:.1f}" fill="#555">{n}</text>', x=x + 6, y=y + 15, n=total[c])
        )
    height = top + len(categories) * row + 8
    return _svg(left + plot + 60, height, label, body)


def percent_bars(label: str, rows: Sequence[tuple[str, float | None, str]], color: str = "#3b6fb6") -> Markup:
    """One bar per row on a 0-100 % scale: ``(name, rate or None, note shown after the bar)``."""
    left = 12 + max((_text_width(r[0]) for r in rows), default=0)
    plot, row, top = 360.0, 26.0, 22.0
    body = [
        _el('<text x="{x:.1f}" y="12" fill="#777">0 %</text>', x=left),
        _el('<text x="{x:.1f}" y="12" fill="#777" text-anchor="end">100 %</text>', x=left + plot),
        _el(
            '<line x1="{x:.1f}" y1="{y1:.1f}" x2="{x:.1f}" y2="{y2:.1f}" stroke="#ddd"/>',
            x=left + plot,
            y1=top - 4,
            y2=top + len(rows) * row,
        ),
    ]
    for i, (name, rate, note) in enumerate(rows):
        y = top + i * row
        body.append(
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" fill="#333">{name}</text>',
                x=left - 8,
                y=y + 15,
                name=name,
            )
        )
        body.append(
            _el(
                '<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="#eef1f4"/>',
                x=left,
                y=y + 3,
                w=plot,
                h=row - 8,
            )
        )
        if rate is not None:
            body.append(
                _el(
                    '<rect class="mark" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
                    'fill="{fill}" data-category="{name}" data-value="{rate}">'
                    "<title>{name}: {pct:.1f} % ({note})</title></rect>",
                    x=left,
                    y=y + 3,
                    w=max(rate * plot, 1),
                    h=row - 8,
                    fill=color,
                    name=name,
                    rate=rate,
                    pct=rate * 100,
                    note=note,
                )
            )
        shown = "-" if rate is None else f"{rate * 100:.1f} %"
        body.append(
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" fill="#555">{shown}  {note}</text>',
                x=left + plot + 8,
                y=y + 15,
                shown=shown,
                note=note,
            )
        )
    width = left + plot + 40 + max((_text_width(r[2]) for r in rows), default=0)
    return _svg(max(width, left + plot + 200), top + len(rows) * row + 6, label, body)


#: A heatmap row's tone (``tones``): its colour, and the shade is relative to the rows of the same tone.
TONES = {"violation": (194, 59, 74), "warning": (204, 132, 16), "info": (110, 122, 134)}


def heatmap(
    label: str,
    rows: Sequence[str],
    columns: Sequence[str],
    values: Mapping[tuple[str, str], int],
    column_title: str,
    tones: Mapping[str, str] | None = None,
) -> Markup:
    """A grid of counts (rows x columns), darker for more: e.g. findings by code over rounds.

    ``tones`` gives rows a tone of :data:`TONES` (a finding's severity): each tone has its colour and
    its own scale, so that 67 info notes do not make 7 violations look pale."""
    left = 12 + max((_text_width(r) for r in rows), default=0)
    cell, top = 34.0, 40.0
    tone_of = {r: (tones or {}).get(r, "") for r in rows}
    peaks: dict[str, int] = {}
    for (r, _), n in values.items():
        peaks[tone_of.get(r, "")] = max(peaks.get(tone_of.get(r, ""), 0), n)
    body = [_el('<text x="{x:.1f}" y="12" fill="#777">{t}</text>', x=left, t=column_title)]
    for j, c in enumerate(columns):
        body.append(
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" fill="#333">{c}</text>',
                x=left + j * cell + cell / 2,
                y=top - 8,
                c=c,
            )
        )
    for i, r in enumerate(rows):
        y = top + i * cell
        body.append(
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" fill="#333">{r}</text>',
                x=left - 8,
                y=y + cell / 2 + 4,
                r=r,
            )
        )
        tone = tone_of[r]
        peak = peaks.get(tone, 0) or 1
        red, green, blue = TONES.get(tone, TONES["violation"])
        for j, c in enumerate(columns):
            n = values.get((r, c), 0)
            x = left + j * cell
            shade = 0.08 + 0.92 * (n / peak) if n else 0.0
            fill = f"rgba({red}, {green}, {blue}, {shade:.3f})" if n else "#f4f6f8"
            kind = _el(' data-tone="{tone}"', tone=tone) if tone else Markup("")
            body.append(
                _el(
                    '<rect class="mark" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{w:.1f}" rx="3" '
                    'fill="{fill}" data-category="{r}" data-series="{c}" data-value="{n}"{kind}>'
                    "<title>{r}, {t} {c}: {n}</title></rect>",
                    x=x + 1,
                    y=y + 1,
                    w=cell - 2,
                    fill=fill,
                    r=r,
                    c=c,
                    n=n,
                    kind=kind,
                    t=column_title,
                )
            )
            if n:
                body.append(
                    _el(
                        '<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" fill="{ink}" '
                        'pointer-events="none">{n}</text>',
                        x=x + cell / 2,
                        y=y + cell / 2 + 4,
                        ink="#fff" if n / peak > 0.5 else "#333",
                        n=n,
                    )
                )
    return _svg(left + len(columns) * cell + 12, top + len(rows) * cell + 6, label, body)


def line(
    label: str,
    points: Sequence[tuple[str, float | None, int]],
    x_title: str,
    of_count: str = "{rate} % of {count} claim(s)",
) -> Markup:
    """Rates over an ordered axis (e.g. agreement per round): ``(x label, rate or None, count)``;
    ``of_count`` words a point's tooltip (``rate``, ``count``)."""
    left, top, plot_w, plot_h = 48.0, 26.0, max(240.0, 56.0 * len(points)), 180.0
    body = []
    for pct in (0, 25, 50, 75, 100):
        y = top + plot_h * (1 - pct / 100)
        body.append(
            _el(
                '<line x1="{x1:.1f}" y1="{y:.1f}" x2="{x2:.1f}" y2="{y:.1f}" stroke="#e3e6ea"/>',
                x1=left,
                x2=left + plot_w,
                y=y,
            )
        )
        body.append(
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" text-anchor="end" fill="#777">{pct} %</text>',
                x=left - 6,
                y=y + 4,
                pct=pct,
            )
        )
    step = plot_w / max(len(points), 1)
    coords = []
    for i, (x_label, rate, count) in enumerate(points):
        x = left + step * (i + 0.5)
        body.append(
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" fill="#333">{t}</text>',
                x=x,
                y=top + plot_h + 16,
                t=x_label,
            )
        )
        if rate is not None:
            coords.append((x, top + plot_h * (1 - rate), x_label, rate, count))
    if len(coords) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, *_ in coords)
        body.append(_el('<polyline points="{p}" fill="none" stroke="#3b6fb6" stroke-width="2"/>', p=path))
    for x, y, x_label, rate, count in coords:
        body.append(
            _el(
                '<circle class="mark" cx="{x:.1f}" cy="{y:.1f}" r="5" fill="#3b6fb6" data-category="{t}" '
                'data-value="{rate}"><title>{title} {t}: {tip}</title></circle>',
                x=x,
                y=y,
                t=x_label,
                rate=rate,
                title=x_title,
                tip=of_count.format(rate=f"{rate * 100:.1f}", count=count),
            )
        )
        body.append(
            _el(
                '<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" fill="#555" font-size="11">'
                "{pct:.0f} %</text>",
                x=x,
                y=y - 10,
                pct=rate * 100,
            )
        )
    body.append(
        _el(
            '<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" fill="#777">{t}</text>',
            x=left + plot_w / 2,
            y=top + plot_h + 34,
            t=x_title,
        )
    )
    return _svg(left + plot_w + 16, top + plot_h + 44, label, body)
