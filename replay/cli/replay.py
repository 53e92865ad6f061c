"""``prizecheck replay FILE... [--json] [--until SEQ] [--timeline] [--due] [--strict]`` (README, "The command
line").

Each record is printed as soon as its game is done (:func:`replay.files.replay_files`): every event of
the input is checked first, so bad input prints nothing and exits 2. A bar shows the progress on a
terminal (stderr) when the work takes more than half a second.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from replay.cli.common import UsageError, at_least, json_line, tr
from replay.i18n import N_

# The engine and the readers are imported when the command runs, not to parse its options (issue 40 item 2)
if TYPE_CHECKING:
    from replay.engine import Finding, Game
    from replay.records import Record

#: Findings listed one by one in a summary, per severity (violations, then warnings); info notes are counted.
LISTED = 20

#: Timeline fields that name a Pokémon in play by its pid.
PID_FIELDS = ("pid", "by", "attacker", "target")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help=".jsonl, .msgpack or - for stdin")
    parser.add_argument("--json", action="store_true", help="print exactly the record JSON, one per line")
    parser.add_argument(
        "--until", type=at_least(1), metavar="SEQ", help="show the board at this seq instead (from 1)"
    )
    parser.add_argument("--timeline", action="store_true", help="print the derived outputs")
    parser.add_argument(
        "--due",
        action="store_true",
        help="print the steps due next (replay.due): at --until SEQ, or after the last event",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 when there are violation findings")


def run(args: argparse.Namespace) -> int:
    from replay.cli.common import language, record_signer
    from replay.cli.progress import TerminalProgress
    from replay.files import replay_files
    from replay.records import dumps as record_json

    if args.until is not None and args.timeline:
        raise UsageError(
            tr("--until and --timeline cannot be combined: the board at a seq, or the whole timeline")
        )
    if args.due and args.timeline:
        raise UsageError(tr("--due and --timeline cannot be combined: the steps due, or the whole timeline"))
    sign = record_signer()
    progress = TerminalProgress()
    violations = False
    games: list[tuple[Game, Record]] = []  # --due: printed once every record is known (playoffs settle)
    try:
        for done in replay_files(args.files, until=args.until, progress=progress):
            record = sign(done.record)
            out = sys.stdout  # looked up each time: the progress bar may stand in front of it
            if args.due:
                games.append((done.game, done.record))
            elif args.until is not None:
                _print_board(done.game, args.json, out, language())
            elif args.timeline:
                _print_timeline(done.game, args.json, out)
            elif args.json:
                out.write(record_json(record).decode("utf-8") + "\n")
            else:
                out.write(summary(record, language()) + "\n")
            out.flush()  # streaming: this record is out before the next game is folded
            violations = violations or any(f.severity == "violation" for f in record.findings)
    finally:
        progress.stop()
    records = {rec.match: rec for _, rec in games if rec.match is not None}
    for game, _ in games:
        _print_due(game, records, args.json, sys.stdout, language())
    return 1 if args.strict and violations else 0


def _print_due(game: Game, records: dict[str, Record], as_json: bool, out: Any, lang: str = "en") -> None:
    """The steps due next in ``game`` (:func:`replay.due`, a drawn game settled by the playoff games'
    records): one JSON list per match, or a line per step and an indented line per event to post (its
    head in ``lang``; the steps and events as the contract names them)."""
    from replay.engine import steps_due as due
    from replay.i18n import gettext

    steps = due(game, records)
    if as_json:
        out.write(json_line(steps) + "\n")
        return
    head = gettext(lang, "{match} at seq {seq}: {n} step(s) due")
    out.write(head.format(match=game.match, seq=game.next_seq - 1, n=len(steps)) + "\n")
    for step in steps:
        fields = {k: v for k, v in step.items() if k not in ("step", "events", "outputs", "choices", "start")}
        out.write(f"  {step['step']}" + (f" {json_line(fields)}" if fields else "") + "\n")
        for event in step.get("events", []):
            out.write("    " + gettext(lang, "post {event}").format(event=json_line(event)) + "\n")
        for n, choice in enumerate(step.get("choices", []), 1):
            events = " ".join(json_line(e) for e in choice["events"])
            line = gettext(lang, "choice {n}: post {events}").format(n=n, events=events)
            out.write(f"    {line}\n")
        if "start" in step:
            line = gettext(lang, "start {match}: post {event}").format(
                match=step["child"], event=json_line(step["start"])
            )
            out.write(f"    {line}\n")


def _print_board(game: Game, as_json: bool, out: Any, lang: str = "en") -> None:
    """The board at ``--until``'s seq: JSON, or lines in ``lang`` (ids, names and statuses as written)."""
    from replay.engine import dumps
    from replay.i18n import gettext

    def tr(message: str) -> str:
        return gettext(lang, message)

    board = game.board()
    if as_json:
        out.write(dumps(board).decode("utf-8") + "\n")
        return
    if board["turn"]:
        when = tr("turn {turn} ({player})").format(turn=board["turn"], player=board["turn_player"])
    else:
        when = tr("setup, before the first turn")
    head = tr("{match} at seq {seq}: {when}, {status}")
    out.write(head.format(match=board["match"], seq=board["seq"], when=when, status=board["status"]) + "\n")
    for pid, pl in board["players"].items():
        line = tr(
            "prizes left {left} (taken {taken}/{needed}), deck {deck}, hand {hand}, discard {discard}"
        ).format(
            left=pl["prizes_left"],
            taken=pl["prizes_taken"],
            needed=pl["prizes_needed"],
            deck=pl["deck"],
            hand=pl["hand"],
            discard=pl["discard"],
        )
        out.write(f"  {pid}: {line}\n")
        for label, mons in (
            (N_("active"), [pl["active"]] if pl["active"] else []),
            (N_("bench"), pl["bench"]),
        ):
            for m in mons:
                hp = (
                    tr("{left}/{hp} HP").format(left=m["hp"] - m["damage"], hp=m["hp"])
                    if m["hp"] is not None
                    else tr("{damage} damage").format(damage=m["damage"])
                )
                extra = (" " + ",".join(m["conditions"])) if m["conditions"] else ""
                attached = tr(" +{n} attached").format(n=len(m["attached"])) if m["attached"] else ""
                out.write(f"    {tr(label):6} {m['pid']:>6} {m['name']} {hp}{extra}{attached}\n")


def card_names(game: Game) -> dict[str, list[tuple[int, str]]]:
    """Each pid's card names over the game, ``[(seq, name)]`` in seq order: the card put into play
    (``setup``, ``played``), then each evolution (``evolved``)."""
    names: dict[str, list[tuple[int, str]]] = {}

    def put(seq: int, mon: Any) -> None:
        if isinstance(mon, dict) and isinstance(mon.get("card"), dict) and "name" in mon["card"]:
            names.setdefault(str(mon.get("pid")), []).append((seq, str(mon["card"]["name"])))

    for event in game.events():
        kind, seq = event.get("type"), event.get("seq", 0)
        if kind == "setup":
            for mon in [event.get("active"), *(event.get("bench") or [])]:
                put(seq, mon)
        elif kind in ("played", "evolved"):
            put(seq, event)
    return names


def name_at(names: dict[str, list[tuple[int, str]]], pid: str, seq: int) -> str | None:
    """The name of ``pid``'s card at ``seq`` (what it had evolved into by then), if known."""
    known = [name for at, name in names.get(pid, []) if at <= seq] or [n for _, n in names.get(pid, [])[:1]]
    return known[-1] if known else None


def _print_timeline(game: Game, as_json: bool, out: Any) -> None:
    names = card_names(game) if not as_json else {}
    for item in game.timeline:
        if as_json:
            out.write(json_line({"match": game.match, **item}) + "\n")
            continue
        parts = []
        for k, v in item.items():
            if k in ("type", "seq"):
                continue
            name = name_at(names, str(v), item["seq"]) if k in PID_FIELDS and isinstance(v, str) else None
            parts.append(f"{k}={name} ({v})" if name else f"{k}={v}")
        out.write(f"{game.match} seq {item['seq']:>4} {item['type']:<16} {', '.join(parts)}\n")


def summary(record: Record, lang: str = "en") -> str:
    """A few human lines about one record in ``lang`` (en, ja, ko): the words from the catalogues, the
    findings' sentences through replay.i18n.findings; codes (status, reason, ids) as the record has them."""
    from replay.i18n import gettext

    def tr(message: str) -> str:
        return gettext(lang, message)

    res = record.result
    if res is None:
        verdict = tr("no result yet")
    elif res.outcome == "win":
        verdict = tr("{winner} wins by {reason} at seq {seq} (turn {turn})").format(
            winner=res.winner, reason=res.reason, seq=res.decided_at, turn=res.turn
        )
    else:
        verdict = tr("{outcome} ({reason}) at seq {seq} (turn {turn})").format(
            outcome=res.outcome, reason=res.reason, seq=res.decided_at, turn=res.turn
        )
    lines = [f"{record.match}  [{record.ruleset}]  {record.status}: {verdict}"]
    claim = record.claimed
    if claim is not None:
        agree = tr("agrees") if record.agrees else tr("DISAGREES")
        said = f"{claim.outcome or None} {claim.winner or ''} ({claim.reason or None})"
        lines.append("  " + tr("source claims: {said} - {agree}").format(said=said, agree=agree))
    prizes = ", ".join(
        tr("{player} took {taken}/{needed}").format(player=p, taken=v.taken, needed=v.needed)
        for p, v in record.prizes.items()
    )
    lines.append("  " + tr("prizes: {prizes}").format(prizes=prizes))
    kos = record.knockouts
    basis = record.audit.basis if record.audit else None
    lines.append(
        "  "
        + tr("knockouts: {n} ({verified} verified by HP, audit basis {basis})").format(
            n=len(kos), verified=sum(1 for k in kos if k.verified), basis=basis
        )
    )
    if record.playoff:
        po = record.playoff
        lines.append(
            "  "
            + tr("playoff: {kind} with {prizes} prize(s) -> {child}").format(
                kind=po.kind, prizes=po.prizes, child=po.child
            )
        )
    if record.parent:
        lines.append("  " + tr("playoff game of {parent}").format(parent=record.parent))
    lines.extend(findings_lines(record.findings, lang=lang))
    chain = record.chain
    if chain:
        signed = tr("; signed {key}").format(key=record.signature.key_id) if record.signature else ""
        lines.append(
            "  "
            + tr("chain: sha256 {head}... over {events} events").format(
                head=chain.head[:16], events=chain.events
            )
            + signed
        )
    return "\n".join(lines)


#: The line after the first ``listed`` findings of a severity, per severity (each its own sentence).
_MORE = {
    "violation": N_("... {n} more violations (use --json)"),
    "warning": N_("... {n} more warnings (use --json)"),
}


def findings_lines(findings: Sequence[Finding], listed: int = LISTED, *, lang: str = "en") -> list[str]:
    """The findings of a summary by severity: the violations, then the warnings, each one a line (up to
    ``listed`` of each; its sentence in ``lang``), then the info notes counted by code (``--json`` has
    every finding, as the record keeps it)."""
    from replay.i18n import gettext
    from replay.i18n.findings import message

    def tr(text: str) -> str:
        return gettext(lang, text)

    if not findings:
        return []
    by = {s: [f for f in findings if f.severity == s] for s in ("violation", "warning", "info")}
    lines = [
        "  "
        + tr("findings: {n} ({violations} violation, {warnings} warning, {info} info)").format(
            n=len(findings),
            violations=len(by["violation"]),
            warnings=len(by["warning"]),
            info=len(by["info"]),
        )
    ]
    for severity in ("violation", "warning"):
        for f in by[severity][:listed]:
            lines.append(f"    [{severity}] seq {f.seq} {f.code}: {message(lang, f.code, f.message)}")
        if len(by[severity]) > listed:
            lines.append("    " + tr(_MORE[severity]).format(n=len(by[severity]) - listed))
    if by["info"]:
        codes = Counter(f.code for f in by["info"])
        counted = ", ".join(f"{code} {n}" for code, n in codes.most_common())
        lines.append(
            "    "
            + tr("[info] {n} note(s): {codes} (each with --json)").format(n=len(by["info"]), codes=counted)
        )
    return lines
