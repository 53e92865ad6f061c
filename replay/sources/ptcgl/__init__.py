"""Pokémon TCG Live battle-log exports -> contract events (docs/importers.md).

Pure functions over text: no file I/O here (replay/cli/import_.py reads files). ``parse_ptcgl`` is a
pipeline of small stages, each a module with one job:

1. ``lines`` + ``language``: the text normalised, its language found, every line a typed sentence of the
   client's template table in that language (replay/sources/ptcgl/sentences.py);
2. ``facts``: the handles, who went first, whose view the log is, which lines are attacks;
3. ``walk`` (with ``turns``, ``play``, ``zones``, ``window``): each sentence to contract events on the
   table (replay/sources/table.py: which card is where, with counts and HP), resolution windows emitted
   in rule order, not printed order [JP3.4 §I-D];
4. ``cards``: every card name looked up in the catalogue in the log's language, and same-named Pokémon
   told apart from the board;
5. ``events``: the stream written, findings as ``note`` events where they happened.

The log is one player's view: hidden draws and prizes stay counts, never names [docs/importers.md, point of
view]. Every guess (an owner, which of two same-named Pokémon, a missing Pokémon, an HP) is a finding.
"""

from __future__ import annotations

from typing import Any

from replay.engine import InputError, load_ruleset
from replay.i18n import notes
from replay.i18n.notes import say
from replay.sources.cards import NO_CATALOGUE, Catalogue, card_database
from replay.sources.common import Event, ImportResult, number
from replay.sources.ptcgl import facts
from replay.sources.ptcgl.cards import LogCards
from replay.sources.ptcgl.events import Stream
from replay.sources.ptcgl.importer import Importer
from replay.sources.ptcgl.language import detect_locale, unread
from replay.sources.ptcgl.lines import card_ids, classify, normalise, spaced_handles
from replay.sources.ptcgl.locales import with_handles
from replay.sources.ptcgl.sentences import language_of
from replay.sources.ptcgl.turns import REASONS
from replay.sources.ptcgl.walk import finish, walk_lines
from replay.sources.table import Table

__all__ = ["MAX_LOG_BYTES", "card_ids", "normalise", "parse_ptcgl", "too_large"]

# A battle log is tens of KB (the largest of ~80 real exports read: 19 KB). Above this the importer refuses
# the input before reading it, which bounds its memory: a 4 MiB log of real-log lines peaks under 200 MB
# (bench/importers.py --memory measures it); larger files would not stay under 300 MB.
MAX_LOG_BYTES = 4 * 1024 * 1024


def too_large(filename: str, size: int) -> InputError:
    """The error for a log above MAX_LOG_BYTES, naming the limit."""
    return InputError(
        f"{size / 1024 / 1024:.1f} MiB is larger than the {MAX_LOG_BYTES // 1024 // 1024} MiB limit for a "
        "battle log (a Pokémon TCG Live export is tens of KB); refused to keep the import's memory bounded",
        file=filename,
    )


def parse_ptcgl(
    text: str,
    *,
    match: str,
    ruleset: str = "play-2026",
    cards: Catalogue | None = None,
    filename: str = "<log>",
    partial: bool = False,
    catalogue: bool = True,
) -> ImportResult:
    """Turn a Pokémon TCG Live battle-log export into contract events.

    Card facts (HP, rule box, Trainer types, Ability names) come from the packaged catalogue unless
    ``catalogue`` is False; ``cards`` (a user's catalogue file) wins for the names it lists.

    Raises InputError (naming ``filename`` and the line) when the text is not a readable battle log: empty,
    binary, another game's log, an unsupported language, or truncated (no end line) unless ``partial``.
    Everything else the importer cannot read or had to guess is a finding, returned and also written into
    the stream as a ``note`` event (``author: "importer"``).
    """
    try:
        rules = load_ruleset(ruleset)
    except KeyError:
        raise InputError(f"unknown ruleset {ruleset!r}", field="ruleset") from None
    if len(text) > MAX_LOG_BYTES:
        raise too_large(filename, len(text.encode("utf-8")))
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError("binary data (NUL byte): not a text battle log", file=filename, line=line)
    ids = card_ids(text)
    raw = normalise(text)
    loc = detect_locale(raw, filename)
    handles = spaced_handles(raw, loc)
    if handles:
        loc = with_handles(loc, handles)  # the turn headers and the end line name them too
    lines = classify(raw, loc, handles)
    out = Stream()  # before the players are known: the findings about them go to its head
    players = facts.find_players(lines, filename, out.find)
    table = out.table = Table(players, deck=rules.deck, hand=rules.hand, prizes=rules.prizes)
    db = card_database() if catalogue else None
    logcards = LogCards(cards or NO_CATALOGUE, db, language_of(loc.code), ids, out.find)
    imp = Importer(raw, loc, rules, players, table, out, logcards, filename)
    imp.first = facts.find_first(lines, players, out.find)
    facts.conceded_ending(lines, players)
    exporter = imp.exporter = facts.find_exporter(lines, players, out.find)
    imp.attack_lines = facts.find_attacks(lines, logcards.is_ability)
    # (from the last line: an end line is last, or close to it)
    if not any(ln.kind == "end" for ln in reversed(lines)) and not partial:
        other = unread(raw, [ln.kind for ln in lines], loc, filename)
        if other is not None:
            raise other
        raise InputError(
            "truncated log: no end line ('<reason>. <winner> wins.'); use --partial to import it anyway",
            file=filename,
            line=lines[-1].no,
        )
    walk_lines(imp, lines)
    finish(imp)
    for mon in list(table.mons.values()):
        # what is left: the HP without a card that left it, and the HP every printing agrees with above
        # what it survived
        logcards.settle_dropped(mon, None)
        logcards.settle_hp(mon, None)
    late = [
        {"type": "setup", "player": p, "active": slot["active"], "bench": slot["bench"]}
        for p, slot in imp.late_setup.items()
        if slot["active"] is not None
    ]
    out.events[imp.setup_at : imp.setup_at] = late
    hp_known = not logcards.hp_missing and bool(table.mons)
    if not hp_known:
        out.find(
            "importer_hp_unknown",
            "info",
            None,
            say(notes.HP_UNKNOWN, cards=", ".join(sorted(logcards.hp_missing)))
            if logcards.hp_missing
            else say(notes.HP_UNKNOWN_ALL),
        )
    source: dict[str, Any] = {
        "kind": "digital",
        "client": "ptcgl",
        "exporter": exporter,
        "reports_knockouts": True,
        "hp_known": hp_known,
        "language": loc.code,
    }
    if exporter is None:
        del source["exporter"]
    start: Event = {
        "type": "match_started",
        "players": list(players),
        "first": imp.first,
        "ruleset": rules.id,
        "source": source,
    }
    events = number(match, [start, *out.head_notes, *out.events])
    if imp.ended is not None and imp.ended.extra[0] == "unknown" and imp.ended.player is not None:
        events = end_unknown(match, events, imp.other(imp.ended.player))
    meta = {"players": list(players), "first": imp.first, "exporter": exporter, "language": loc.code}
    if imp.ended is not None and imp.ended.player is not None:
        meta["winner"] = imp.ended.player
        meta["reason"] = REASONS.get(imp.ended.extra[0], imp.ended.extra[0])
    return ImportResult(events, out.findings, out.unmatched, meta, out.partly)


def end_unknown(match: str, events: list[Event], loser: str) -> list[Event]:
    """An end line whose reason the importer does not know (locales.py) still ends the game: when the
    events before the claim do not end it [docs/rules.md §1], the loser the log names concedes just
    before the claim (``conceded.reason``: unknown), so the record ends with the claimed winner; the
    ``importer_unknown_reason`` finding says why."""
    from replay.engine import Game  # here: the engine is not part of a log's import otherwise

    game = Game()
    for ev in events[:-1]:
        game.apply(ev)
    if game.typed_record().result is not None:
        return events  # the rules decided it already (the last knockout, a deck-out): that stands
    body = [{k: v for k, v in ev.items() if k not in ("match", "seq")} for ev in events]
    body.insert(len(body) - 1, {"type": "conceded", "player": loser, "reason": "unknown"})
    return number(match, body)
