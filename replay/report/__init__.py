"""League audit reports (docs/reports.md): records in, a report out, in four forms.

- :mod:`replay.report.build`: :class:`ReportBuilder` folds records one at a time into the report, a typed
  document (:mod:`replay.report.document`: msgspec Structs whose fields are the JSON form's keys);
  :class:`Filters` says which records count.
- :mod:`replay.report.tdf`: the tournament software's file (TOM's ``.tdf``), read and written;
  :mod:`replay.report.reconcile` compares it with the game records.
- :mod:`replay.report.text`, :mod:`replay.report.tables` (CSV), :mod:`replay.report.html` (one
  self-contained page with :mod:`replay.report.svg` charts): the other forms, each written section by
  section as the report is made (:mod:`replay.report.stream`), as the JSON form is
  (:mod:`replay.report.lazy`).

Pure: no I/O here but the TDF reader; where records come from (event files, record files, the service's
store) is the command line's business (:mod:`replay.cli.report`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from importlib import import_module
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replay.engine import Record, Verifier
    from replay.report.build import Filters, ReportBuilder
    from replay.report.document import Report
    from replay.report.links import review_link
    from replay.report.names import CardName
    from replay.report.tdf import Tournament, read_tdf

__all__ = [
    "FORMATS",
    "Filters",
    "Report",
    "ReportBuilder",
    "Tournament",
    "build_report",
    "read_tdf",
    "render",
    "review_link",
    "write",
]

FORMATS = ("text", "html", "csv", "json")

# Imported when first asked for: ``prizecheck report --help`` needs FORMATS alone, not the builder, the
# engine and the TDF's XML reader (issue 40 item 2).
_LAZY = {
    "Filters": "replay.report.build",
    "ReportBuilder": "replay.report.build",
    "Report": "replay.report.document",
    "review_link": "replay.report.links",
    "Tournament": "replay.report.tdf",
    "read_tdf": "replay.report.tdf",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'replay.report' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def build_report(
    records: Iterable[Record],
    filters: Filters | None = None,
    *,
    base_url: str = "",
    signing_key: bytes | Verifier | None = None,
    tdf: Tournament | None = None,
) -> Report:
    """The report over ``records`` (typed records, :mod:`replay.records`; see :class:`ReportBuilder`)."""
    from replay.report.build import ReportBuilder

    builder = ReportBuilder(filters, base_url=base_url, signing_key=signing_key)
    return builder.add_all(records).finish(tdf)


def render(report: Report, fmt: str, *, lang: str = "en", card_name: CardName | None = None) -> bytes:
    """``report`` (settled: :meth:`ReportBuilder.finish`) in one of :data:`FORMATS`, as UTF-8 bytes (see
    :func:`write`)."""
    out = io.BytesIO()
    write(report, fmt, out, lang=lang, card_name=card_name)
    return out.getvalue()


def write(
    report: Report,
    fmt: str,
    out: IO[bytes],
    *,
    csv_note: str = "--format csv",
    lang: str = "en",
    card_name: CardName | None = None,
) -> None:
    """``report`` in one of :data:`FORMATS`, written to ``out`` as it is made: a report as it is made
    (:meth:`ReportBuilder.parts`, once) is never whole in memory, in any form; a settled one gives the same
    bytes. ``csv_note``: where the HTML page says the CSV form is, when it summarises a section's events.
    The HTML and text forms' words in ``lang`` (en, ja, ko); ``card_name``: how the HTML and text forms show a
    card's name (the command line's ``--lang``: replay.sources.cards.card_name in that language; the data
    forms keep names as the events wrote them)."""
    if fmt == "json":
        from replay.report.lazy import write_json

        # msgspec: the same compact, key-sorted UTF-8 JSON as the records' canonical form, ~5x faster than
        # json.dumps on a season's report
        write_json(report, out)
    elif fmt == "csv":
        from replay.report.tables import write_csv

        write_csv(report, out)
    elif fmt == "html":
        from replay.report.html import write_html

        write_html(report, out, csv_note=csv_note, card_name=card_name, lang=lang)
    elif fmt == "text":
        from replay.report.text import write_text

        write_text(report, out, lang=lang, card_name=card_name)
    else:
        raise ValueError(f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
