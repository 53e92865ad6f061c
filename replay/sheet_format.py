"""The match sheet's file format (docs/importers.md, "Match sheets"; schemas/sheet.schema.json): its
columns, its header lines, reading it (:func:`read_sheet`) and writing it (:func:`write_sheet`).

One row per action: ``turn, player, action, target, card, amount, note, confidence, scan, ref, at``, as
CSV with ``# key: value`` header lines for the match facts, or as JSON (``{"format": "prizecheck-sheet/1",
"players": [...], "rows": [...]}``). What the rows mean is the importer's (:mod:`replay.sources.sheet`:
rows -> events); what a console's game writes is the console's (:mod:`streams.http.console_sheet`: events
-> rows). Both go through this module, so the sheet a console writes is the sheet the importer reads
(tests/test_sheet_format.py: a round-trip property).

**Written as clean as the report's CSV.** Names come from people (players, cards, notes): never trusted.
Every cell a spreadsheet would run as a formula is neutralised (:func:`neutral_cell`, OWASP's rule for
CSV injection, which the report's CSV uses too), the header lines' values piece by piece as a spreadsheet
splits them at their commas; nothing written holds a line break but the row ends, so a value can never
add a row.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replay.engine import InputError

# ---------------------------------------------------------------------------------------------- reading

FORMAT = "prizecheck-sheet/1"
COLUMNS = ("turn", "player", "action", "target", "card", "amount", "note", "confidence", "scan", "ref", "at")
_AT = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$"
)
ACTIONS = frozenset(
    {
        "mulligan", "active", "bench", "turn", "draw", "evolve", "attach", "retreat", "switch", "attack",
        "damage", "heal", "condition", "checkup", "ko", "prize", "promote", "remove", "end_turn", "concede",
        "penalty", "time", "result", "note", "void", "amend", "prize_modifier",
    }
)  # fmt: skip

_TOP_KEYS = frozenset(
    {"format", "match", "players", "first", "ruleset", "deck", "prizes", "context", "source", "rows"}
)
META_KEYS = (
    "match",
    "players",
    "first",
    "ruleset",
    "deck",
    "prizes",
    "tool",
    "kind",
    "event",
    "round",
    "table",
    "game",
    "stage",
    "league",
    "season",
    "series",
)


@dataclass(slots=True)
class Row:
    """One sheet row, as read; ``n`` is its row number (refs use it), ``line`` where it is in the file."""

    n: int
    line: int
    turn: int | None
    player: str | None
    action: str
    target: str
    card: str
    amount: int | None
    note: str
    confidence: float | None
    scan: str
    ref: int | None
    at: str = ""


def whole_number(value: Any, *, filename: str, line: int, fld: str, lo: int = 0) -> int | None:
    """A sheet's whole number (a cell or a header value), ``None`` when empty; at least ``lo``."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise InputError("expected a whole number", file=filename, line=line, field=fld)
    try:
        n = int(str(value).strip())
    except ValueError:
        raise InputError(
            f"expected a whole number, got {value!r}", file=filename, line=line, field=fld
        ) from None
    if n < lo:
        raise InputError(f"must be >= {lo}, got {n}", file=filename, line=line, field=fld)
    return n


def _row(raw: dict[str, Any], n: int, line: int, filename: str) -> Row:
    unknown = [k for k in raw if k not in COLUMNS and k is not None]
    if unknown:
        raise InputError(f"unknown column {unknown[0]!r}", file=filename, line=line, field=str(unknown[0]))
    action = str(raw.get("action") or "").strip().lower()
    if action not in ACTIONS:
        raise InputError(
            f"unknown action {action!r} (docs/importers.md lists them)",
            file=filename,
            line=line,
            field="action",
        )
    conf_raw = raw.get("confidence")
    confidence: float | None = None
    if conf_raw not in (None, ""):
        text_conf = str(conf_raw).strip()
        scale = 100.0 if text_conf.endswith("%") else 1.0  # an OCR step may give "87%"
        try:
            confidence = float(text_conf.rstrip("%")) / scale
        except ValueError:
            raise InputError(
                f"confidence must be a number 0..1, got {conf_raw!r}",
                file=filename,
                line=line,
                field="confidence",
            ) from None
        if not 0.0 <= confidence <= 1.0:
            raise InputError(
                f"confidence must be between 0 and 1, got {confidence}",
                file=filename,
                line=line,
                field="confidence",
            )
    player = str(raw.get("player") or "").strip() or None

    def text(key: str) -> str:
        v = raw.get(key)
        return "" if v is None else str(v).strip()

    return Row(
        n=n,
        line=line,
        turn=whole_number(raw.get("turn"), filename=filename, line=line, fld="turn"),
        player=player,
        action=action,
        target=text("target"),
        card=text("card"),
        amount=whole_number(
            raw.get("amount"),
            filename=filename,
            line=line,
            fld="amount",
            lo=-100 if action == "prize_modifier" else 0,
        ),
        note=text("note"),
        confidence=confidence,
        scan=text("scan"),
        ref=whole_number(raw.get("ref"), filename=filename, line=line, fld="ref", lo=1),
        at=_at(raw.get("at"), filename, line),
    )


def _at(value: Any, filename: str, line: int) -> str:
    if value in (None, ""):
        return ""
    text = str(value).strip()
    if not _AT.match(text):
        raise InputError(f"at must be an RFC 3339 time such as 2026-03-14T10:05:00Z, got {text!r}",
                         file=filename, line=line, field="at")  # fmt: skip
    return text


def read_sheet(text: str, filename: str = "<sheet>") -> tuple[dict[str, Any], list[Row]]:
    """Parse CSV or JSON sheet text into (match facts, rows); InputError names file, line and field."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        raise InputError("empty match sheet", file=filename, line=1)
    if "\x00" in text:
        raise InputError(
            "binary data (NUL byte), not a match sheet",
            file=filename,
            line=text.count("\n", 0, text.index("\x00")) + 1,
        )
    if text.lstrip().startswith("{"):
        return _read_json(text, filename)
    return _read_csv(text, filename)


def _read_json(text: str, filename: str) -> tuple[dict[str, Any], list[Row]]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg}", file=filename, line=exc.lineno) from None
    if not isinstance(doc, dict):
        raise InputError("a JSON sheet is an object", file=filename, line=1)
    extra = sorted(set(doc) - _TOP_KEYS)
    if extra:
        raise InputError(f"unknown field {extra[0]!r}", file=filename, line=1, field=extra[0])
    if doc.get("format") != FORMAT:
        raise InputError(f"format must be {FORMAT!r}", file=filename, line=1, field="format")
    rows_raw = doc.get("rows")
    if not isinstance(rows_raw, list):
        raise InputError("rows must be a list", file=filename, line=1, field="rows")
    meta = {k: doc[k] for k in META_KEYS if k in doc}
    if isinstance(doc.get("context"), dict):
        meta.update({k: v for k, v in doc["context"].items() if k in META_KEYS})
    if isinstance(doc.get("source"), dict):
        meta.update({k: v for k, v in doc["source"].items() if k in ("tool", "kind")})
    rows = []
    for i, raw in enumerate(rows_raw, 1):
        if not isinstance(raw, dict):
            raise InputError(f"row {i} is not an object", file=filename, line=i, field=f"rows[{i - 1}]")
        rows.append(_row(raw, i, i, filename))
    return meta, rows


def _read_csv(text: str, filename: str) -> tuple[dict[str, Any], list[Row]]:
    meta: dict[str, Any] = {}
    lines = text.splitlines()
    body_start = 0
    for i, raw_line in enumerate(lines):
        s = raw_line.strip()
        if not s:
            continue
        if s.startswith("#"):
            key, sep, value = s[1:].partition(":")
            key = key.strip().lower()
            if sep and key in META_KEYS:
                meta[key] = [v.strip() for v in value.split(",")] if key == "players" else value.strip()
            continue
        body_start = i
        break
    else:
        raise InputError("no header row (turn,player,action,...)", file=filename, line=len(lines))
    reader = csv.reader(io.StringIO("\n".join(lines[body_start:])))
    header: list[str] | None = None
    rows: list[Row] = []
    for rec in reader:
        line = body_start + reader.line_num
        if not rec or not any(c.strip() for c in rec) or rec[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [h.strip().lower() for h in rec]
            bad = [h for h in header if h not in COLUMNS]
            if bad or "action" not in header:
                raise InputError(
                    f"header must name columns from {', '.join(COLUMNS)}; got {bad or header}",
                    file=filename,
                    line=line,
                )
            continue
        if len(rec) > len(header):
            raise InputError(f"{len(rec)} fields for {len(header)} columns", file=filename, line=line)
        rows.append(_row(dict(zip(header, rec, strict=False)), len(rows) + 1, line, filename))
    if header is None:
        raise InputError("no header row (turn,player,action,...)", file=filename, line=len(lines))
    return meta, rows


# ---------------------------------------------------------------------------------------------- writing

#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"; ASVS 5.0 1.2.10 adds NUL),
#: and the full-width forms some spreadsheets take for the same.
FORMULA_START = frozenset("=+-@\t\r\n\0\uff1d\uff0b\uff0d\uff20")

#: What ends a line for the sheet's reader (``str.splitlines``) or a spreadsheet: a space in a value.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029", " "))

#: The first line of a written sheet: a comment for the person who opens it (the reader skips it).
TITLE = "# prizecheck match sheet v1"


def neutral_cell(value: Any) -> Any:
    """A cell as written to CSV: a number as it is; text that a spreadsheet would run as a formula (it
    begins with ``=``, ``+``, ``-``, ``@``, a tab, a carriage return, a line feed or NUL, after any
    spaces) prefixed with a single quote, OWASP's rule for CSV injection, so that it shows as the text
    it is. Names in a report or a sheet come from people (players, leagues, events): never trusted.
    A formula start after other white space (a no-break or an ideographic space, ``\u3000=``) is
    neutralised too: a reader that strips white space, as :func:`read_sheet` does, would show the
    formula bare."""
    if not isinstance(value, str) or not value:
        return value
    first = value.lstrip(" ")[:1] or value[:1]
    return "'" + value if first in FORMULA_START or value.lstrip()[:1] in FORMULA_START else value


def one_line(value: Any) -> str:
    """``value`` as text on one line: every line break a space."""
    return str(value).translate(_LINE_BREAKS)


def neutral_piece(text: str) -> str:
    """Text a spreadsheet reads as one unquoted cell: neutralised, and opening no quoted cell (a quote
    would swallow the rows after it into one cell)."""
    return "'" + text if text.lstrip(" ").startswith('"') else neutral_cell(text)


def cell(value: Any) -> Any:
    """A data cell as written: a number as it is; text on one line and neutralised."""
    return value if not isinstance(value, str) else neutral_cell(one_line(value))


def header_value(value: Any) -> str:
    """A header line's value as written: on one line (a line break would add rows), and each piece a
    spreadsheet splits it into at a comma neutralised."""
    return ",".join(neutral_piece(p) for p in one_line(value).split(","))


def write_sheet(
    meta: Mapping[str, Any], rows: Iterable[Mapping[str, Any]], columns: Sequence[str] = COLUMNS
) -> str:
    """A match sheet as CSV: the title, a ``# key: value`` line per match fact of ``meta`` (in its order;
    ``players`` a list), then ``columns`` (of :data:`COLUMNS`, in their order) and a line per row (a
    column a row does not fill is empty). :func:`read_sheet` reads it back."""
    unknown = [k for k in meta if k not in META_KEYS] + [c for c in columns if c not in COLUMNS]
    if unknown:
        raise ValueError(f"not a match sheet's header key or column: {unknown[0]!r}")
    out = io.StringIO()
    out.write(TITLE + "\n")
    for key, value in meta.items():
        text = ", ".join(map(header_value, value)) if key == "players" else header_value(value)
        out.write(f"# {key}: {text}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([cell(row.get(c, "")) for c in columns])
    return out.getvalue()
