"""League audit reports (docs/reports.md): records in, a report out, in four forms.

- :mod:`replay.report.build`: :class:`ReportBuilder` folds records one at a time into the report (plain
  data, the JSON form); :class:`Filters` says which records count.
- :mod:`replay.report.tdf`: the tournament software's file (TOM's ``.tdf``), read and written;
  :mod:`replay.report.reconcile` compares it with the game records.
- :mod:`replay.report.text`, :mod:`replay.report.tables` (CSV), :mod:`replay.report.html` (one
  self-contained page with :mod:`replay.report.svg` charts): the other forms.

Pure: no I/O here but the TDF reader; where records come from (event files, record files, the service's
store) is the command line's business (:mod:`replay.cli.report`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from typing import Any

from replay.engine.chain import Verifier
from replay.engine.outputs import Record
from replay.report.build import Filters, ReportBuilder
from replay.report.lazy import write_json
from replay.report.links import review_link
from replay.report.names import CardName
from replay.report.tdf import Tournament, read_tdf

__all__ = [
    "FORMATS",
    "Filters",
    "ReportBuilder",
    "Tournament",
    "build_report",
    "read_tdf",
    "render",
    "review_link",
]

FORMATS = ("text", "html", "csv", "json")


def build_report(
    records: Iterable[Record],
    filters: Filters | None = None,
    *,
    base_url: str = "",
    signing_key: bytes | Verifier | None = None,
    tdf: Tournament | None = None,
) -> dict[str, Any]:
    """The report over ``records`` (typed records, :mod:`replay.records`; see :class:`ReportBuilder`)."""
    builder = ReportBuilder(filters, base_url=base_url, signing_key=signing_key)
    return builder.add_all(records).finish(tdf)


def render(report: Mapping[str, Any], fmt: str, *, card_name: CardName | None = None) -> bytes:
    """``report`` in one of :data:`FORMATS`, as UTF-8 bytes. ``card_name``: how the HTML and text forms
    show a card's name (the command line's ``--lang``: replay.sources.cards.card_name in that language;
    the data forms keep names as the events wrote them)."""
    if fmt == "json":
        # msgspec: the same compact, key-sorted UTF-8 JSON as the records' canonical form, ~5x faster than
        # json.dumps on a season's report (ReportBuilder.write_json writes the same bytes part by part)
        out = io.BytesIO()
        write_json(report, out)
        return out.getvalue()
    if fmt == "csv":
        from replay.report.tables import to_csv

        return to_csv(report).encode("utf-8")
    if fmt == "html":
        from replay.report.html import to_html

        return to_html(report, card_name=card_name).encode("utf-8")
    if fmt == "text":
        from replay.report.text import to_text

        return to_text(report, card_name=card_name).encode("utf-8")
    raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
