"""``prizecheck simulate``: plausible, rule-correct games as contract events.

``--matches N --seed S [--ruleset R] [--faults F]``: a corpus of games steered towards every ending.
``--league L --players N --rounds R [--top-cut K] [--tdf-out FILE]``: a league event, Swiss rounds of
best-of-three matches and a single-elimination top cut (:mod:`replay.generators.league`); ``--tdf-out``
also writes what the tournament software would have recorded, as a TOM ``.tdf`` file. The two forms
do not mix: an option of one given to the other is refused, as an option that would be ignored.
"""

from __future__ import annotations

import argparse
import contextlib
import zlib
from collections.abc import Iterable
from typing import IO, Any

from replay.cli.common import UsageError, at_least, output, tr
from replay.cli.parser import filled
from replay.generators.simulate import FAULTS, RULESETS, simulate_corpus

#: The options of a league event, refused without ``--league`` (they would be ignored).
LEAGUE_OPTIONS = ("players", "rounds", "season", "event", "top_cut", "tdf_out")


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``prizecheck simulate``."""
    parser.add_argument(
        "--matches",
        type=at_least(0),
        default=None,
        help="number of games (default 10; playoff games come extra)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same events)")
    parser.add_argument("--ruleset", choices=RULESETS, default=None, help="ruleset (default: rotate)")
    parser.add_argument("--out", metavar="FILE", default="-", help="output file (default: stdout)")
    parser.add_argument(
        "--format", choices=("jsonl", "msgpack"), default=None, help="default: by --out's suffix, else jsonl"
    )
    filled(
        parser.add_argument(
            "--faults",
            default="",
            help="comma-separated source errors to inject in every game (%(known)s)",
        ),
        known=", ".join(FAULTS),
    )
    league = parser.add_argument_group("a league event (instead of --matches)")
    league.add_argument("--league", help="simulate a league event of this league")
    league.add_argument("--players", type=at_least(2), default=None, help="players in the event (default 8)")
    league.add_argument("--rounds", type=at_least(1), default=None, help="Swiss rounds (default 3)")
    league.add_argument("--season", default=None, help="the season (default 2026)")
    league.add_argument("--event", default=None, help="the event's name (default League Cup)")
    league.add_argument(
        "--top-cut", type=int, choices=(0, 2, 4, 8, 16), default=None, help="players in the top cut"
    )
    league.add_argument("--tdf-out", metavar="FILE", help="also write the tournament software's .tdf file")


def check_options(args: argparse.Namespace) -> None:
    """Refuse what would be ignored or contradict itself, before anything is written (UsageError)."""
    if args.league:
        if args.matches is not None:
            raise UsageError(
                tr("--matches and --league cannot be combined: a league event has its own games")
            )
        if args.faults:
            raise UsageError(tr("--faults is for --matches corpora, not --league"))
    else:
        given = [f"--{name.replace('_', '-')}" for name in LEAGUE_OPTIONS if getattr(args, name) is not None]
        if given:
            raise UsageError(
                tr("{options} needs --league", options=given[0])
                if len(given) == 1
                else tr("{options} need --league", options=", ".join(given))
            )
    suffix = "msgpack" if str(args.out).endswith(".msgpack") else "jsonl" if args.out != "-" else None
    if args.format and suffix and args.format != suffix:
        raise UsageError(tr("--format {format} does not fit --out {out}", format=args.format, out=args.out))


def run(args: argparse.Namespace) -> int:
    """Write the simulated events as JSON Lines or MessagePack."""
    check_options(args)
    faults = [f for f in str(args.faults).split(",") if f]
    unknown = [f for f in faults if f not in FAULTS]
    if unknown:
        raise UsageError(
            tr(
                "argument --faults: unknown {unknown} (known: {known})",
                unknown=", ".join(unknown),
                known=", ".join(FAULTS),
            )
        )
    fmt = args.format or ("msgpack" if str(args.out).endswith(".msgpack") else "jsonl")
    league = None
    if args.league:
        from replay.generators.league import LeagueSim

        league = LeagueSim(
            args.league,
            8 if args.players is None else args.players,
            3 if args.rounds is None else args.rounds,
            seed=args.seed,
            season=args.season or "2026",
            event=args.event or "League Cup",
            ruleset=args.ruleset or "play-2026",
            top_cut=args.top_cut,
        )
        streams: Iterable[list[dict[str, Any]]] = league.streams()
    else:
        streams = simulate_corpus(
            10 if args.matches is None else args.matches, args.seed, args.ruleset, faults=faults
        )
    # both outputs are opened first: one that cannot be written is refused before any event is written
    with (
        output(args.out) as out,
        output(args.tdf_out, inputs=[args.out], flag="--tdf-out")
        if args.tdf_out
        else contextlib.nullcontext() as tdf,
    ):
        _write(out, streams, fmt)
        if league is not None and tdf is not None:
            tdf.write(league_tdf(league))
    return 0


def _write(out: IO[bytes], streams: Iterable[list[dict[str, Any]]], fmt: str) -> None:
    import msgspec

    if fmt == "msgpack":
        enc_mp = msgspec.msgpack.Encoder()
        for stream in streams:
            out.write(b"".join(enc_mp.encode(e) for e in stream))
        return
    enc = msgspec.json.Encoder()
    for stream in streams:
        out.write(b"".join(enc.encode(e) + b"\n" for e in stream))


def write_league_tdf(league: Any, path: str) -> None:
    """Write what the tournament software recorded of a simulated league (a LeagueSim) as a TOM .tdf."""
    with output(path) as fh:
        fh.write(league_tdf(league))


def league_tdf(league: Any) -> bytes:
    """What the tournament software recorded of a simulated league (a LeagueSim), as a TOM .tdf file."""
    from replay.report.tdf import TdfPlayer, WriteRound, write_tdf

    t = league.tournament
    uid = {p.id: p.userid for p in t.players}
    rounds: dict[int, WriteRound] = {}
    for m in t.matches:
        rnd = rounds.setdefault(m.round, WriteRound(m.round, m.stage, []))
        other = uid[m.players[1]] if len(m.players) > 1 else None
        rnd.matches.append((m.outcome, uid[m.players[0]], other, m.table))
    year, month, day = t.day.split("-")
    return write_tdf(
        name=t.event,
        sanction_id=f"{year[2:]}-{month}-{zlib.crc32(t.league.encode()) % 1000000:06d}",
        start=f"{month}/{day}/{year}",
        players=[TdfPlayer(p.userid, p.first, p.last, t.dropped.get(p.id)) for p in t.players],
        rounds=[rounds[n] for n in sorted(rounds)],
    )
