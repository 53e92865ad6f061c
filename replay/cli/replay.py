"""``prizecheck replay FILE... [--json] [--until SEQ] [--timeline] [--strict]`` (README, "The command line").

Each record is printed as soon as its game is done (:func:`replay.files.replay_files`): every event of
the input is checked first, so bad input prints nothing and exits 2. A bar shows the progress on a
terminal (stderr) when the work takes more than half a second.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from replay.cli.common import maybe_sign
from replay.cli.progress import TerminalProgress
from replay.engine.game import Game
from replay.engine.record import dumps
from replay.files import replay_files


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help=".jsonl, .msgpack or - for stdin")
    parser.add_argument("--json", action="store_true", help="print exactly the record JSON, one per line")
    parser.add_argument("--until", type=int, metavar="SEQ", help="show the board at this seq instead")
    parser.add_argument("--timeline", action="store_true", help="print the derived outputs")
    parser.add_argument("--strict", action="store_true", help="exit 1 when there are violation findings")


def run(args: argparse.Namespace) -> int:
    progress = TerminalProgress()
    violations = False
    try:
        for done in replay_files(args.files, until=args.until, progress=progress):
            record = maybe_sign(done.record)
            out = sys.stdout  # looked up each time: the progress bar may stand in front of it
            if args.until is not None:
                _print_board(done.game, args.json, out)
            elif args.timeline:
                _print_timeline(done.game, args.json, out)
            elif args.json:
                out.write(dumps(record).decode("utf-8") + "\n")
            else:
                out.write(summary(record) + "\n")
            out.flush()  # streaming: this record is out before the next game is folded
            violations = violations or any(f["severity"] == "violation" for f in record["findings"])
    finally:
        progress.stop()
    return 1 if args.strict and violations else 0


def _print_board(game: Game, as_json: bool, out: Any) -> None:
    board = game.board()
    if as_json:
        out.write(dumps(board).decode("utf-8") + "\n")
        return
    out.write(
        f"{board['match']} at seq {board['seq']}: turn {board['turn']} ({board['turn_player']}), "
        f"{board['status']}\n"
    )
    for pid, pl in board["players"].items():
        out.write(
            f"  {pid}: prizes left {pl['prizes_left']} (taken {pl['prizes_taken']}/"
            f"{pl['prizes_needed']}), deck {pl['deck']}, hand {pl['hand']}, discard {pl['discard']}\n"
        )
        for label, mons in (("active", [pl["active"]] if pl["active"] else []), ("bench", pl["bench"])):
            for m in mons:
                hp = (
                    f"{m['hp'] - m['damage']}/{m['hp']} HP"
                    if m["hp"] is not None
                    else f"{m['damage']} damage"
                )
                extra = (" " + ",".join(m["conditions"])) if m["conditions"] else ""
                out.write(
                    f"    {label:6} {m['pid']:>6} {m['name']} {hp}{extra}"
                    f"{' +' + str(len(m['attached'])) + ' attached' if m['attached'] else ''}\n"
                )


def _print_timeline(game: Game, as_json: bool, out: Any) -> None:
    for item in game.timeline:
        if as_json:
            out.write(json.dumps({"match": game.match, **item}, ensure_ascii=False) + "\n")
        else:
            rest = ", ".join(f"{k}={v}" for k, v in item.items() if k not in ("type", "seq"))
            out.write(f"{game.match} seq {item['seq']:>4} {item['type']:<16} {rest}\n")


def summary(record: dict[str, Any]) -> str:
    """A few human lines about one record."""
    res = record["result"]
    if res is None:
        verdict = "no result yet"
    elif res["outcome"] == "win":
        verdict = f"{res['winner']} wins by {res['reason']} at seq {res['decided_at']} (turn {res['turn']})"
    else:
        verdict = f"{res['outcome']} ({res['reason']}) at seq {res['decided_at']} (turn {res['turn']})"
    lines = [f"{record['match']}  [{record['ruleset']}]  {record['status']}: {verdict}"]
    claim = record["claimed"]
    if claim is not None:
        agree = "agrees" if record["agrees"] else "DISAGREES"
        lines.append(
            f"  source claims: {claim.get('outcome')} {claim.get('winner') or ''} "
            f"({claim.get('reason')}) - {agree}"
        )
    prizes = ", ".join(f"{p} took {v['taken']}/{v['needed']}" for p, v in record["prizes"].items())
    lines.append(f"  prizes: {prizes}")
    kos = record["knockouts"]
    lines.append(
        f"  knockouts: {len(kos)} ({sum(1 for k in kos if k['verified'])} verified by HP, "
        f"audit basis {record['audit']['basis']})"
    )
    if record["playoff"]:
        po = record["playoff"]
        lines.append(f"  playoff: {po['kind']} with {po['prizes']} prize(s) -> {po['child']}")
    if record["parent"]:
        lines.append(f"  playoff game of {record['parent']}")
    fs = record["findings"]
    if fs:
        counts = {s: sum(1 for f in fs if f["severity"] == s) for s in ("violation", "warning", "info")}
        lines.append(
            f"  findings: {len(fs)} ({counts['violation']} violation, {counts['warning']} warning, "
            f"{counts['info']} info)"
        )
        for f in fs[:20]:
            lines.append(f"    [{f['severity']}] seq {f['seq']} {f['code']}: {f['message']}")
        if len(fs) > 20:
            lines.append(f"    ... {len(fs) - 20} more (use --json)")
    chain = record["chain"]
    lines.append(
        f"  chain: sha256 {chain['head'][:16]}... over {chain['events']} events"
        + ("; signed " + record["signature"]["key_id"] if record.get("signature") else "")
    )
    return "\n".join(lines)
