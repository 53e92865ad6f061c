"""The import page (docs/web.md, "Import"): a judge pastes a battle log, or drops files (logs, game sheets,
photos or PDFs of printed sheets, a folder of saved logs), and each becomes a match through the same
importers as ``prizecheck import`` (:mod:`replay.sources.intake`) and the same ingest path as ``POST
/events`` (the ownership check, then the ingest core).

- ``GET /import``: the page. Its script sends one file a request, so a batch has a progress bar, each
  file its own answer, and one request's memory is bounded by one file.
- ``POST /import``: ``multipart/form-data`` with ``file`` (one file) or ``paste`` (the text of a log), and
  optional ``match``, ``event``, ``table``, ``round``, ``league``, ``ruleset``; for a photo or a PDF,
  ``players`` and ``match`` given once a sheet (``players`` also once for all), as ``import scan``'s
  ``--players`` and ``--match`` (issue 39), or ``players_by_id``: the batch's list of ``ID,A,B`` lines,
  as ``--players-file`` takes them, sent with each of its photos (each sheet named by its match id). The
  answer names each match read, with its review page, or
  is one sentence saying what is wrong with the file (``400``/``409``/``413``).

A file is stored whole or not at all: every event of every game in it is checked (the contract's schema,
the writer's scope and ownership, no match already stored under its id) before any is written. Judges
only (role ``judge``): importing a dispute is a judge's act, the matches it makes belong to the judge's
token, and a scanned sheet's crops show handwriting.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError

from replay.contract.admit import admit
from replay.engine import KNOWN_RULESETS, EventError, InputError
from replay.sources.common import match_id_from, valid_match_id
from replay.sources.intake import MAX_SCAN_BYTES, Imported, import_file, kind_of
from replay.sources.scan.naming import ByMatch, Players, given_match, players_list, sheet_players
from replay.sources.scan.refusals import Refused, spoken
from streams.http.access import AUDIT_DETAIL, PRINCIPAL
from streams.http.keys import CORE, STORE
from streams.http.ownership import authorize_request
from streams.http.routes import LANG, Answer, Problem, Route, page_lang
from streams.http.scans import CROPS, CROPS_ENV
from streams.http.templating import render
from streams.tokens import Principal

JUDGE = frozenset({"judge"})
#: One file a request: the largest a photo or a PDF may be (a log's own limit is smaller), and the form.
MAX_UPLOAD = MAX_SCAN_BYTES + 64 * 1024
#: Files read at once by this process: reading a photo takes a core and ~100 MB; others wait their turn.
_READERS: web.AppKey[asyncio.Semaphore] = web.AppKey("import_readers", asyncio.Semaphore)
_TEXT_FIELDS = ("event", "table", "round", "league", "ruleset", "partial", "players_by_id")
#: Fields a photo's or a PDF's sheets may each be given, as ``import scan --players``/``--match`` are:
#: once for every sheet (players) or once a sheet, in the file's order; ``match`` once names a log or a
#: sheet file.
_LIST_FIELDS = ("players", "match")


@dataclass(slots=True)
class _Form:
    """One request's file (or pasted log), its single fields and its per-sheet ones, as sent."""

    name: str
    data: bytes
    fields: dict[str, str]
    lists: dict[str, list[str]] = field(default_factory=dict)


async def import_page(request: web.Request) -> web.StreamResponse:
    """GET /import: paste a log, or drop files, photos or a folder."""
    return render(request, "import.html", rulesets=KNOWN_RULESETS, max_mb=MAX_SCAN_BYTES // (1024 * 1024))


async def _form(request: web.Request) -> _Form:
    """The request's one file (or pasted text) and its fields; Problem naming what is wrong."""
    if request.content_length is not None and request.content_length > MAX_UPLOAD:
        raise _too_large()
    if request.content_type == "application/x-www-form-urlencoded":  # a plain form: a pasted log
        posted = await request.post()  # bounded by the app's body limit
        fields = {k: _field(k, str(v)) for k, v in posted.items() if k in _TEXT_FIELDS}
        lists = {k: [str(v).strip() for v in posted.getall(k, ())] for k in _LIST_FIELDS}
        text = str(posted.get("paste", ""))
        if "paste" not in posted:
            raise Problem.said(400, "no_file", "nothing to import: paste a battle log or choose a file")
        if not text.strip():
            raise Problem.said(400, "empty", "pasted log is empty: nothing to import")
        return _Form("pasted log", text.encode("utf-8"), fields, lists)
    if not request.content_type.startswith("multipart/"):
        raise Problem.said(400, "bad_request", "send the file as multipart/form-data (field file, or paste)")
    try:
        return await _parts(request)
    except (ValueError, LookupError, HttpProcessingError) as exc:  # a body that is not multipart as sent
        raise Problem.said(
            400, "bad_request", "the form could not be read: {exc}", exc=str(exc)[:200]
        ) from None


async def _parts(request: web.Request) -> _Form:
    reader = await request.multipart()
    name, data, fields = "", b"", {}
    lists: dict[str, list[str]] = {k: [] for k in _LIST_FIELDS}
    seen = 0
    async for part in reader:
        if not isinstance(part, BodyPartReader) or part.name is None:
            continue
        chunks = []
        async for chunk in _chunks(part):
            seen += len(chunk)
            if seen > MAX_UPLOAD:
                raise _too_large()
            chunks.append(chunk)
        value = b"".join(chunks)
        if part.name in ("file", "paste") and name:  # never one kept and another dropped unsaid
            raise Problem.said(
                400, "one_file", "one file a request: send each file (or the paste) in its own POST"
            )
        if part.name == "file":
            name, data = part.filename or "upload", value
        elif part.name == "paste":
            name, data = "pasted log", value
        elif part.name in _TEXT_FIELDS:
            fields[part.name] = _field(part.name, value.decode("utf-8", "replace"))
        elif part.name in _LIST_FIELDS:
            lists[part.name].append(value.decode("utf-8", "replace").strip())
    if not name:
        raise Problem.said(400, "no_file", "nothing to import: paste a battle log or choose a file")
    if not data.strip():
        raise Problem.said(400, "empty", "{name} is empty: nothing to import", name=name)
    return _Form(name, data, fields, lists)


def _field(name: str, text: str) -> str:
    """A single field as sent, stripped; a list as sent, its lines where the judge wrote them (a refusal
    names a line by its number in the box or the file)."""
    if name == "players_by_id":
        return text if text.strip() else ""
    return text.strip()


def _too_large() -> Problem:
    return Problem.said(
        413, "too_large", "the file is larger than {n} MiB: nothing read", n=MAX_SCAN_BYTES // (1024 * 1024)
    )


async def _chunks(part: BodyPartReader) -> Any:
    while chunk := await part.read_chunk(256 * 1024):
        yield chunk


def _context(fields: Mapping[str, str]) -> dict[str, Any]:
    """The tournament context the form gives, checked as the contract types it."""
    context: dict[str, Any] = {}
    for key in ("event", "league"):
        if fields.get(key):
            if len(fields[key]) > 256:
                raise Problem.said(400, "bad_field", "{key}: at most 256 characters", key=key)
            context[key] = fields[key]
    for key, top in (("round", 1000), ("table", 1_000_000)):
        text = fields.get(key)
        if text:
            if not text.isdigit() or not 1 <= int(text) <= top:
                raise Problem.said(
                    400,
                    "bad_field",
                    "{key}: a whole number from 1 to {top}, got {text}",
                    key=key,
                    top=top,
                    text=repr(text),
                )
            context[key] = int(text)
    return context


def _match_id(fields: Mapping[str, str], name: str, principal: Principal) -> str:
    """The form's match id, else one made from the file's name (a pasted log: ``import-DATE-XXXXXX``), in
    the namespace a scoped judge creates matches in (its league or event, the form's: ownership.py)."""
    given = fields.get("match", "")
    if given:
        if not valid_match_id(given):
            raise Problem.said(400, "bad_field", "match: 1-128 characters of A-Z a-z 0-9 . _ : / -")
        return given
    made = (
        f"import-{dt.date.today():%Y%m%d}-{secrets.token_hex(3)}"
        if name == "pasted log"
        else match_id_from(name)
    )
    space = fields.get("league") or fields.get("event")
    if principal.scoped and space and not principal.may_create(made):
        made = f"{space}/{made}"[:128]
    return made


@dataclass(slots=True)
class _ByHand:
    """A photo's or a PDF's sheets as the form names them: ``import scan --players`` and ``--match``."""

    players: Players = None
    given: list[str | None] | None = None
    #: ``players_by_id``: the line that names each match id (the answer gives them back: the page says,
    #: at the end of a batch, a line no sheet used).
    lines: dict[str, int] | None = None


def _by_hand(form: _Form, scan: bool) -> _ByHand:
    """The form's ``players`` and ``match`` for the file's sheets, checked as the command line checks
    ``import scan --players``/``--match`` (:mod:`replay.sources.scan.naming`); an empty field is not given.
    A log's or a sheet file's ``match`` goes to the form's single fields, once."""
    players = [text for text in form.lists.get("players", ()) if text]
    matches = [text for text in form.lists.get("match", ()) if text]
    listed = form.fields.pop("players_by_id", "")
    if not scan:
        if listed:
            raise Problem.said(
                400,
                "bad_field",
                "players_by_id: given for a photo or a PDF of printed game sheets only (a battle log or a "
                "sheet file names its own players)",
            )
        if players:
            raise Problem.said(
                400,
                "bad_field",
                "players: given for a photo or a PDF of printed game sheets only (a battle log or a sheet "
                "file names its own players)",
            )
        if len(matches) > 1:
            raise Problem.said(
                400,
                "bad_field",
                "match: given {n} times; a battle log or a sheet file is one game, named once",
                n=len(matches),
            )
        if matches:
            form.fields["match"] = matches[0]
        return _ByHand()
    by_match = _players_by_id(listed, form.name, players) if listed else None
    pairs: list[tuple[str, str] | None] = []
    for text in players:
        try:
            pairs.append(sheet_players(text))
        except ValueError:
            raise Problem.said(
                400,
                "bad_field",
                "players: two different names, A,B (or - for the names printed on the sheet), got {text}",
                text=repr(text),
            ) from None
    given: list[str | None] = []
    for text in matches:
        try:
            given.append(given_match(text))
        except ValueError:
            raise Problem.said(
                400,
                "bad_field",
                "match: a match id of 1-128 characters A-Z a-z 0-9 . _ : / -, or - for the sheet's own, got "
                "{text}",
                text=repr(text),
            ) from None
    if by_match is not None:
        return _ByHand(by_match.names, given or None, by_match.lines)
    # once: every sheet of the file; more: one a sheet, in its order (the reader checks the count)
    return _ByHand(pairs[0] if len(pairs) == 1 else (pairs or None), given or None)


#: The batch's players list: a problem with the list itself names it as its ``field`` (the page then stops the
#: batch: every photo sent with the same list would be refused alike).
_LIST = "players_by_id"


def _players_by_id(text: str, name: str, players: list[str]) -> ByMatch:
    """``players_by_id``: the batch's ``ID,A,B`` lines, read as ``import scan --players-file`` reads them
    (:func:`replay.sources.scan.naming.players_list`). A photo's own ``players`` beside it as well is
    refused: the list names every sheet, and which of two names a sheet has would be a guess."""
    if players:
        raise Problem.said(
            400,
            "bad_field",
            "players and players_by_id: the players list names every sheet by its match id, and the players "
            "beside {file} say {text} too: give a sheet's names in one place (empty the box beside the "
            "photo, or give its sheet's line in the list)",
            file=name,
            text=repr("; ".join(players)),
        )
    try:
        read = players_list(text, field="players_by_id")
    except InputError as exc:
        raise Problem.quoting(
            400, "bad_field", "the players list cannot be read: {words}", exc, about_field=_LIST
        ) from None
    if not isinstance(read, ByMatch):
        raise Problem.said(
            400,
            "bad_field",
            "players_by_id: a line a sheet by its match id, ID,A,B (or ID,- for the names printed on it); "
            "names in the batch's order (A,B) are given beside each photo, in its players box",
            about_field=_LIST,
        )
    return read


def _read(name: str, data: bytes, fields: Mapping[str, str], match: str, by_hand: _ByHand) -> list[Imported]:
    ruleset = fields.get("ruleset") or None
    if ruleset is not None and ruleset not in KNOWN_RULESETS:
        raise InputError(f"unknown ruleset {ruleset!r} (known: {', '.join(KNOWN_RULESETS)})", field="ruleset")
    return import_file(
        name,
        data,
        match=match,
        ruleset=ruleset,
        partial=fields.get("partial") == "1",
        players=by_hand.players,
        given=by_hand.given,
    )


def _with_context(games: list[Imported], context: Mapping[str, Any]) -> None:
    """The form's event, table and round into each game's ``match_started`` (the sheet's own values win
    where the form says nothing)."""
    if not context:
        return
    for game in games:
        for event in game.events:
            if event.get("type") == "match_started":
                event["context"] = {**(event.get("context") or {}), **context}


async def _check_new(request: web.Request, games: list[Imported]) -> None:
    store = request.app[STORE]
    for game in games:
        if await store.record(game.match) is not None or await store.events(game.match):
            raise Problem.said(
                409,
                "match_exists",
                "match {match} is already stored: nothing of {file} was imported (give it another match id)",
                match=game.match,
                file=game.file,
            )
        for event in game.events:
            try:
                admit(event)
            except EventError as exc:  # an importer's event the contract refuses: a bug, said plainly
                raise Problem.said(400, "invalid_event", "{file}: {exc}", file=game.file, exc=exc) from None


def _keep_crops(request: web.Request, games: list[Imported]) -> str | None:
    """A scanned sheet's crops where ``GET /scans`` serves them from; the folder, or None if none is set."""
    root = request.app.get(CROPS) or os.environ.get(CROPS_ENV)
    crops = {name: data for game in games for name, data in game.crops.items()}
    if not crops:
        return None
    if not root:
        return None
    for name, data in crops.items():
        path = os.path.join(root, *name.split("/")) + ".jpg"
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
    return root


async def post_import(request: web.Request) -> web.StreamResponse:
    """POST /import: one file (or a pasted log) into its matches, whole or not at all."""
    form = await _form(request)
    name, data, fields = form.name, form.data, form.fields
    by_hand = _by_hand(form, kind_of(name, data) == "scan")
    match = _match_id(fields, name, request[PRINCIPAL])
    context = _context(fields)
    readers = request.app[_READERS]
    async with readers:  # a photo's reading is CPU and memory: one file at a time per process
        try:
            games = await asyncio.get_running_loop().run_in_executor(
                None, _read, name, data, fields, match, by_hand
            )
        except InputError as exc:
            # a photo's refusal (how to retake it) in the page's language: the page sends its ?lang=
            raise Problem.quoting(
                400,
                "unreadable",
                "the file cannot be imported: {words}",
                _sentence(spoken(_on_the_page(exc), page_lang(request)), name),
            ) from None
    _with_context(games, context)
    await _check_new(request, games)
    events = [event for game in games for event in game.events]
    await authorize_request(request, events, "import")
    kept = await asyncio.get_running_loop().run_in_executor(None, _keep_crops, request, games)
    core = request.app[CORE]
    answers = []
    written = []
    for game in games:
        outcomes = await core.ingest_many(game.events, judge=True)
        written += outcomes
        refused = [o for o in outcomes if o.status == "rejected"]
        answers.append(
            {
                "match": game.match,
                "kind": game.kind,
                "file": game.file,
                "events": len(game.events) - len(refused),
                "refused": [o.as_json() for o in refused],
                "findings": len(game.findings),
                "unread_lines": len(game.unmatched),
                "low_confidence": game.low_confidence,
                "review": f"/review/{game.match}",
            }
        )
    digest = hashlib.sha256(data).hexdigest()[:16]
    request[AUDIT_DETAIL] = f"import {name} (sha256 {digest}): {', '.join(g.match for g in games)}"
    answer: dict[str, Any] = {
        "file": name,
        "kind": kind_of(name, data),
        "matches": answers,
        "crops": kept is not None,
    }
    if by_hand.lines is not None:  # the list's ids and their lines: the page names a line no sheet used
        answer["players_by_id"] = by_hand.lines
    receipts = core.receipts(written)  # signed, one per match (docs/records.md, "Receipts")
    if receipts:
        answer["receipts"] = receipts
    return web.json_response(answer, headers={"Cache-Control": "no-store"})


#: The command line's words in an importer's refusal, and the page's for the same (its checkbox): both
#: sentences are templates of replay.i18n.inputs, said in the page's language.
_PARTIAL = ("use --partial to import it anyway", "tick 'a game in progress' to import it anyway")


def _on_the_page(exc: InputError) -> InputError:
    """``exc`` in the page's words where the command line's differ (the checkbox, not ``--partial``; the
    photo's match id box, not ``--match``)."""
    if isinstance(exc, Refused):
        return exc.on_the_page()
    if _PARTIAL[0] not in exc.message:
        return exc
    return InputError(
        exc.message.replace(*_PARTIAL),
        file=exc.file,
        line=exc.line,
        field=exc.field,
        match=exc.match,
        seq=exc.seq,
    )


def _sentence(message: str, name: str) -> str:
    """The importer's refusal as one sentence that names the file (it usually does already)."""
    return message if message.startswith(name) else f"{name}: {message}"


def import_routes() -> tuple[Route, ...]:
    """The import page and its upload (see :mod:`streams.http.routes`)."""
    fields = {
        "type": "object",
        "properties": {
            "file": {"type": "string", "format": "binary"},
            "paste": {"type": "string"},
            **{key: {"type": "string"} for key in _TEXT_FIELDS},
            # players_by_id: the batch's ID,A,B lines (import scan --players-file); repeated: once a
            # sheet of a photo or a PDF (import scan --players, --match)
            **{key: {"type": "array", "items": {"type": "string"}} for key in _LIST_FIELDS},
        },
    }
    return (
        Route(
            "GET",
            "/import",
            import_page,
            JUDGE,
            "The import page: paste a battle log, or drop logs, sheets, photos or a folder",
            query=(LANG,),
            answers={200: Answer("the page", "text/html", {"type": "string"})},
            page=True,
            tag="pages",
        ),
        Route(
            "POST",
            "/import",
            post_import,
            JUDGE,
            "Import one file (a battle log, a game sheet, a photo or PDF of printed sheets) as matches",
            query=(LANG,),
            body={"multipart/form-data": fields},
            answers={
                200: Answer("the matches read from the file", schema={"type": "object"}),
                409: Answer(
                    "a match of the file is already stored: nothing was imported", schema={"type": "object"}
                ),
            },
            audited=True,
            tag="pages",
            cookie_writes=True,
            description="One file a request (`file`), or a pasted log (`paste`); optional `match`, "
            "`event`, `table`, `round`, `league`, `ruleset`. A photo or a PDF of printed sheets may be "
            "named by hand as `prizecheck import scan` names it: `players` (`A,B`) once for every sheet "
            "or once a sheet in the file's order (`-`: the names printed on it), `match` once a sheet "
            "(`-`: its own id), used for a sheet whose QR codes and printed id cannot be read (flagged) "
            "and refused for a sheet whose own id is another; a count that is not the file's sheets is "
            "refused. Or `players_by_id`: the batch's list as `--players-file` takes it, a line a sheet "
            "`ID,A,B` (`ID,-`: the names printed on it; blank lines and `#` comments skipped), sent with "
            "each photo of the batch: each sheet is named by its own id (or the `match` given it); a "
            "sheet with no line refuses its file (400 `unreadable`), a malformed line is 400 `bad_field` "
            "naming the line, order lines (`A,B`) and `players` beside the same photo are refused (400 "
            "`bad_field`); the answer gives back the list's ids and their lines (`players_by_id`), so "
            "that a batch can name a line no sheet used. The file is stored whole or not at all: 400 "
            "`bad_field` (the field named), 400 "
            "`unreadable` (the importer's sentence naming the file; a photo's refusal, with how to "
            "retake it, in `?lang=`'s language), 409 `match_exists`, 413 `too_large`.",
        ),
    )


def add_import(app: web.Application) -> None:
    """Register the import page on an app with pages (:func:`streams.http.pages.add_pages` calls it)."""
    from streams.http.routes import register

    app[_READERS] = asyncio.Semaphore(1)
    register(app, import_routes())
