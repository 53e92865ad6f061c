"""Why an input is refused, in the reader's language (issue 34 item 5): the importers' and the deck lists'
parse errors.

An importer (a battle log, a match sheet, a sheet's scan, a card catalogue, a tournament file) or a deck
list refuses its input with an :class:`~replay.engine.InputError` whose message is written in English
where it is raised (its bytes are the same everywhere: a log, the service's English answer, a test). Each
such message is written by one of the templates here, as it is written there, field for field: where a
person reads it, :func:`replay.i18n.errors.message` reads its fields back by them and fills the
template's translation (:mod:`replay.i18n.sentences`), the fields as they are: a name, a number, a
value as the input gave it (quoted: the words a person typed). A check in the tests
(``tests/test_i18n_inputs.py``) walks every ``InputError`` the importers raise and fails on a message
no template here reads.

Order matters: a template is read before those after it, so a longer sentence comes before one that
would read it too (``unknown ruleset {ruleset} (known: ...)`` before ``unknown ruleset {ruleset}``).
"""

from __future__ import annotations

from typing import Final

from replay.i18n import N_

#: A deck list (replay/sources/decks.py: ``prizecheck decks``, ``POST /decks/...``).
DECKS: Final[tuple[str, ...]] = (
    N_("larger than {size} KiB: not a deck list"),
    N_("unknown deck list format {format} (one of {formats})"),
    N_("the heading says {stated} cards, the lines under it hold {got}"),
    N_("says {stated} cards, the list holds {total}"),
    N_("not a card line (COUNT NAME SET NUMBER) nor a heading: {line}"),
    N_("not JSON: {reason}"),
    N_('expected an object with "pokemon", "trainer" and "energy" lists'),
    N_("expected a list of cards or a name -> HP object"),
    N_("expected a list of cards"),
    N_("expected a card object"),
    N_("card name missing"),
    N_("the header has no {column} column"),
    N_("unknown section {section} (pokemon, trainer, energy)"),
    N_("a card count is 1 to {most}, got {value}"),
    N_("not deck lists as GET /decks/{{event}} gives them: {reason}"),
)
#: A card catalogue (replay/sources/cards.py: ``--cards``).
CARDS: Final[tuple[str, ...]] = (
    N_("HP is not a number: {hp}"),
    N_("HP out of range: {value}"),
    N_("unknown rule {rule}"),
    N_("invalid JSON: {reason}"),
    N_("expected an object per card"),
    N_("CSV header must name columns name,hp[,rule]"),
    N_("empty card catalogue"),
)
#: Any file an importer reads (replay/sources/intake.py) and the scan's photos and PDFs
#: (replay/sources/scan: photo.py, budget.py).
FILES: Final[tuple[str, ...]] = (
    N_("UTF-16 text with a broken character at byte {byte}"),
    N_("UTF-16 text without a byte-order mark: save it as UTF-8 (or UTF-16 with a BOM)"),
    N_("binary data (NUL byte), not text"),
    N_("not UTF-8 text (byte {byte})"),
    N_("not UTF-8 text"),
    N_("larger than {size} MiB: not a tournament file"),
    N_("larger than {size} MiB"),
    N_("is empty: nothing to import"),
    N_("holds the same sheet twice (photograph each sheet once)"),
    # a photo's or a PDF's sheets named by hand on the upload page (replay/sources/intake.py, issue 39)
    N_(
        "{given} pairs of players given for {sheets} sheet(s) in the file (once for every sheet, or once a "
        "sheet: pages, then the sheets of one photo left to right)"
    ),
    N_(
        "{given} match ids given for {sheets} sheet(s) in the file (once a sheet: pages, then the sheets of "
        "one photo left to right; - for a sheet's own)"
    ),
    N_("not a JPEG, PNG or PDF file"),
    N_("a damaged {kind} file (no image size in its header)"),
    N_("a damaged {kind} file (it does not decode)"),
    N_("a damaged PDF file ({reason})"),
    N_("{count} pages; at most {most} are read from one PDF"),
    N_("{count} pages, none a game sheet: {first}"),
    N_("page {page} is {reason}"),
    N_("page {page} does not render ({reason})"),
    N_(
        "image of {width} x {height} pixels ({megapixels} megapixels): larger than {most} megapixels for a "
        "PNG, not decoded"
    ),
    N_(
        "image of {width} x {height} pixels ({megapixels} megapixels): larger than {most} megapixels, "
        "not decoded"
    ),
    N_(
        "{width} x {height} inches: larger than a game sheet can be (a page is read up to about {largest} x "
        "{largest} inches, at {dpi} dpi or more), not rendered"
    ),
    N_("the QR code's match id {match} is not a match id"),
    N_("the QR code's ruleset {ruleset} is not known"),
    N_("match {match}: an unused game sheet (no box is marked on it)"),
)
#: A Pokémon TCG Live battle log (replay/sources/ptcgl).
PTCGL: Final[tuple[str, ...]] = (
    N_(
        "{size} MiB is larger than the {limit} MiB limit for a battle log (a Pokémon TCG Live export is tens "
        "of KB); refused to keep the import's memory bounded"
    ),
    N_("unknown ruleset {ruleset} (known: {known})"),
    N_("unknown ruleset {ruleset}"),
    N_("binary data (NUL byte): not a text battle log"),
    N_("truncated log: no end line ('<reason>. <winner> wins.'); use --partial to import it anyway"),
    # the same on the import page (streams/http/intake.py: its checkbox)
    N_(
        "truncated log: no end line ('<reason>. <winner> wins.'); tick 'a game in progress' to import it "
        "anyway"
    ),
    N_("no player handle found in the log"),
    N_("empty battle log"),
    N_("an older Pokémon TCG Online log: not supported (export from Pokémon TCG Live)"),
    N_(
        "unsupported language: the log looks {seen}; its turn headers and end lines match none of the "
        "languages read ({languages}; docs/importers.md lists them)"
    ),
    N_(
        "unsupported language: its turn headers and end lines match none of the languages read "
        "({languages}; docs/importers.md lists them)"
    ),
    N_(
        "unsupported language: {missed} of its {total} sentence lines are not {lang} sentences, though its "
        "headers are; the log looks {seen} (a language or a client's wording we do not read; "
        "docs/importers.md lists the languages read)"
    ),
    N_(
        "unsupported language: {missed} of its {total} sentence lines are not {lang} sentences, though its "
        "headers are: it looks like another variant of {lang} (a language or a client's wording we do not "
        "read; docs/importers.md lists the languages read)"
    ),
    N_("not a Pokémon TCG Live battle log (no Setup, turn or end line found)"),
    N_("the end line names {winner}, who is not in this game"),
)
#: A match sheet (replay/sheet_format.py, its rows: replay/sources/sheet.py).
SHEET: Final[tuple[str, ...]] = (
    N_("expected a whole number, got {value}"),
    N_("expected a whole number"),
    N_("must be >= {least}, got {value}"),
    N_("unknown column {column}"),
    N_("unknown action {action} (docs/importers.md lists them)"),
    N_("confidence must be a number 0..1, got {value}"),
    N_("confidence must be between 0 and 1, got {value}"),
    N_("at must be an RFC 3339 time such as 2026-03-14T10:05:00Z, got {value}"),
    N_("empty match sheet"),
    N_("binary data (NUL byte), not a match sheet"),
    N_("a JSON sheet is an object"),
    N_("unknown field {name}"),
    N_("format must be {format}"),
    N_("rows must be a list"),
    N_("row {row} is not an object"),
    N_("no header row (turn,player,action,...)"),
    N_("header must name columns from {columns}; got {got}"),
    N_("{fields} fields for {columns} columns"),
    N_("player {player} is not one of {players}"),
    N_("no target and no Active Pokémon"),
    N_("{player} has no Active Pokémon to attack with"),
    N_("{player} already has an Active Pokémon at setup"),
    N_("{player} already has an Active Pokémon; use bench"),
    N_("{player} has no Active Pokémon"),
    N_("{player} has {count} {name} in play, not #{index}"),
    N_("no Pokémon {spec} in play for {players}"),
    N_("evolve needs the evolution card in card"),
    N_("attach needs the attached card in card"),
    N_("damage needs an amount (HP points; 1 counter = 10)"),
    N_("heal needs an amount"),
    N_("condition must be one of {choices}"),
    N_("prize_modifier needs amount = the delta (e.g. 1 or -1)"),
    N_("prize amount must be at least 1"),
    N_("zone must be one of {choices}"),
    N_("penalty kind (card) must be one of {choices}"),
    N_("a prize_penalty needs amount = its number of prizes (1 or more)"),
    N_("{action} needs ref = the number of an earlier row"),
    N_("{action} needs a card name"),
    N_("{action} needs a player"),
    N_("row {row} produced no event to correct"),
    N_("the amended row {row} gives a different number of events; void it instead"),
    N_("row {row}: gives a {type} event the contract refuses: {reason}"),
    N_("players must name exactly two players"),
    N_("the two players must differ"),
    N_("first must be one of the players, got {value}"),
    N_("match id must be 1-128 characters of A-Z a-z 0-9 . _ : / -"),
)
#: A tournament file (replay/report/tdf.py: TOM's ``.tdf``).
TOURNAMENT: Final[tuple[str, ...]] = (
    N_("the root element is <{tag}>, not <tournament>"),
    N_("<{tag}> has no userid"),
    N_("document type declarations are not accepted"),
    N_("empty file: no <tournament>"),
    N_("not valid XML: {reason}"),
    N_("unknown age division {value} (0 Juniors, 1 Seniors, 2 Masters)"),
    N_("player {player} is not among <players>"),
    N_("a bye names no <player>"),
    N_("a match needs <player1> and <player2>"),
)
#: The event files' readers beyond replay.i18n.errors.MESSAGES (replay/codec.py, replay/files.py).
EVENT_FILES: Final[tuple[str, ...]] = (
    N_(
        "a record (replay --json output), not events: check it with prizecheck verify FILE [--events "
        "EVENTS], or report on it with prizecheck report --records FILE"
    ),
    N_("no event files given (use - for stdin)"),
    N_("cannot be replayed: {error}"),
    # the contract's admission of one event's bytes (replay/contract/admit.py: Kafka, a sheet's events)
    N_("cannot be archived as canonical msgpack ({reason})"),
    N_("an event must be a map or msgpack bytes, got {kind}"),
    N_("not msgpack we accept: nested deeper than {depth} levels"),
    N_("not one msgpack map: trailing bytes after the first object"),
    N_("not msgpack ({error}); {size} bytes"),
    N_("an event must be a msgpack map, got {kind}"),
    # a record read back (replay/records.py: msgspec's reason quoted as it is)
    N_("not a Prizecheck record: {reason}"),
    N_("not a record ({reason})"),
    # an event held behind a gap that is not what was held (streams/ingest/held.py)
    N_("the event held at seq {seq} is for match {match} seq {other}"),
    N_("the event held at seq {seq} is not in canonical msgpack"),
)
#: The cold archive a report reads (replay/report/parquet.py: ``report --parquet``).
ARCHIVE: Final[tuple[str, ...]] = (
    N_("{root}: no archive here (no records/ directory: see prizecheck archive --to)"),
    N_("{path}: no archive here (no events/ files: see prizecheck archive --to)"),
    N_("the archive at {root} is empty: no records"),
    N_("{root}: cannot read the archive: {reason}"),
    N_("{path}: cannot read: {reason}"),
    N_("{path}: no such file"),
    N_("--parquet {reason}"),
    N_("reading the archive {reason}"),
)
#: The simulator's and the league generator's options (replay/generators: ``simulate``, ``demo``).
GENERATORS: Final[tuple[str, ...]] = (
    N_("a league needs at least 2 players"),
    N_("at most {count} players"),
    N_("must be >= 1"),
    N_("the top cut is 0, 2, 4, 8 or 16 players, at most the field"),
    N_("unknown fault(s) {faults} (known: {known})"),
    N_("unknown scenario {scenario} (known: {known})"),
)
#: The service's settings and its token file (streams/settings.py, streams/tokens.py: ``serve``,
#: ``token``).
SERVICE: Final[tuple[str, ...]] = (
    N_("expected a finite number, got {value}"),
    N_("expected a number, got {value}"),
    N_("roles must be among {roles}"),
    N_("a table scope needs the event its tables are at (--event)"),
    N_('a token file is {{"tokens": [...]}}'),
    N_("no token {id}"),
    N_("a token entry must be an object"),
    N_("token entry {id}: unknown hash or id"),
    N_("token entry {id}: unknown roles {roles}"),
    N_("token entry {id}: a table scope names its events too"),
    N_("token entry {id} is malformed"),
    # a printed game sheet's font (replay/sources/scan/printer.py FontMissing)
    N_(
        "a {language} sheet needs Noto Sans CJK: install Debian's fonts-noto-cjk (make browser), "
        "or print it with --lang en"
    ),
    N_("not a token file (JSON)"),
    N_("is a directory, not a token file"),
    N_("cannot read the token file: not UTF-8"),
    N_("cannot read the token file: {reason}"),
)
#: The pieces of a PDF's refusal (``2 pages, none a game sheet: page 1 is ...``), said again inside it.
PAGES: Final[tuple[str, ...]] = tuple(t for t in FILES if t.startswith(("page ", "image of ", "{width} x")))
#: Every template above, in the order they are read.
#: A list of players, a line a sheet (replay/sources/scan/naming.py: ``import scan --players-file``, the
#: upload page's ``players_by_id``), and a photo's sheet it does not name (replay/sources/intake.py).
NAMES: Final[tuple[str, ...]] = (
    N_(
        "names a sheet by its match id (ID,A,B) but line {other} by its place in the batch (A,B): one kind "
        "of line a file, A,B and - in the batch's order, or ID,A,B and ID,- by match id"
    ),
    N_(
        "names a sheet by its place in the batch (A,B) but line {other} by its match id (ID,A,B): one kind "
        "of line a file, A,B and - in the batch's order, or ID,A,B and ID,- by match id"
    ),
    N_("{match} is not a match id (1-128 characters A-Z a-z 0-9 . _ : / -): a line is ID,A,B or ID,-"),
    N_("match {match} is named on line {other} already"),
    N_(
        "match {match}: two different names after the id, ID,A,B (or ID,- for the names printed on the "
        "sheet), got {line}"
    ),
    N_("two different names, A,B (or - for the names printed on the sheet), got {line}"),
    N_("no names in it: one line a sheet, A,B or -, or ID,A,B or ID,-"),
    N_(
        "match {match} has no line in the players by match id (ID,A,B, or ID,- for the names printed on the "
        "sheet): nothing of the file is imported; add its line, or check the sheet's match id"
    ),
)
INPUTS: Final[tuple[str, ...]] = (
    *DECKS,
    *CARDS,
    *FILES,
    *PTCGL,
    *SHEET,
    *TOURNAMENT,
    *EVENT_FILES,
    *ARCHIVE,
    *GENERATORS,
    *SERVICE,
    *NAMES,
)

#: Words inside them, said again too: the languages a battle log looks like
#: (replay/sources/ptcgl/language.py names them) and the languages it is read in.
LANGUAGE_NAMES: Final[tuple[str, ...]] = (
    N_("Korean (ko)"),
    N_("Japanese (ja)"),
    N_("Chinese (zh)"),
    N_("Russian or another Cyrillic-script language"),
    N_("Thai (th)"),
    N_("Arabic (ar)"),
    N_("Dutch (nl)"),
    N_("Polish (pl)"),
    N_("Turkish (tr)"),
    N_("Indonesian (id)"),
    N_("English"),
    N_("German"),
    N_("French"),
    N_("Spanish (Spain)"),
    N_("Latin-American Spanish"),
    N_("Italian"),
    N_("Brazilian Portuguese"),
)
