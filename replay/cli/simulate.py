"""``prizecheck simulate``: plausible, rule-correct games as contract events.

``--matches N --seed S [--ruleset R] [--faults F]``: a corpus of games steered towards every ending.
``--league L --players N --rounds R [--top-cut K] [--tdf-out FILE]``: a league event, Swiss rounds of
best-of-three matches and a single-elimination top cut (:mod:`replay.sources.league`); ``--tdf-out``
also writes what the tournament software would have recorded, as a TOM ``.tdf`` file.
"""

from __future__ import annotations

import argparse
import sys
import zlib
from collections.abc import Iterable
from typing import Any, BinaryIO

from replay.engine.errors import InputError
from replay.sources.simulate import FAULTS, RULESETS, simulate_corpus


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``prizecheck simulate``."""
    parser.add_argument("--matches", type=int, default=10, help="number of games (playoff games come extra)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (same seed, same events)")
    parser.add_argument("--ruleset", choices=RULESETS, default=None, help="ruleset (default: rotate)")
    parser.add_argument("--out", default="-", help="output file (default: stdout)")
    parser.add_argument("--format", choices=("jsonl", "msgpack"), default=None, help="default: jsonl")
    parser.add_argument(
        "--faults",
        default="",
        help=f"comma-separated source errors to inject in every game ({', '.join(FAULTS)})",
    )
    league = parser.add_argument_group("a league event (instead of --matches)")
    league.add_argument("--league", help="simulate a league event of this league")
    league.add_argument("--players", type=int, default=8, help="players in the event (default 8)")
    league.add_argument("--rounds", type=int, default=3, help="Swiss rounds (default 3)")
    league.add_argument("--season", default="2026", help="the season (default 2026)")
    league.add_argument("--event", default="League Cup", help="the event's name (default League Cup)")
    league.add_argument("--top-cut", type=int, default=None, help="players in the top cut (0, 2, 4, 8, 16)")
    league.add_argument("--tdf-out", metavar="FILE", help="also write the tournament software's .tdf file")


def run(args: argparse.Namespace) -> int:
    """Write the simulated events as JSON Lines or MessagePack."""
    if args.matches < 0:
        raise InputError("must be >= 0", field="--matches")
    faults = [f for f in str(args.faults).split(",") if f]
    fmt = args.format or ("msgpack" if str(args.out).endswith(".msgpack") else "jsonl")
    league = None
    if args.league:
        from replay.sources.league import LeagueSim

        if faults:
            raise InputError("faults are for --matches corpora", field="--faults")
        league = LeagueSim(
            args.league,
            args.players,
            args.rounds,
            seed=args.seed,
            season=args.season,
            event=args.event,
            ruleset=args.ruleset or "play-2026",
            top_cut=args.top_cut,
        )
        streams: Iterable[list[dict[str, Any]]] = league.streams()
    elif args.tdf_out:
        raise InputError("--tdf-out needs --league", field="--tdf-out")
    else:
        streams = simulate_corpus(args.matches, args.seed, args.ruleset, faults=faults)
    if args.out == "-":
        _write(sys.stdout.buffer, streams, fmt)
        sys.stdout.buffer.flush()
    else:
        with open(args.out, "wb") as out:
            _write(out, streams, fmt)
    if league is not None and args.tdf_out:
        write_league_tdf(league, args.tdf_out)
    return 0


def _write(out: BinaryIO, streams: Iterable[list[dict[str, Any]]], fmt: str) -> None:
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
    from replay.report.tdf import TdfPlayer, WriteRound, write_tdf

    t = league.tournament
    uid = {p.id: p.userid for p in t.players}
    rounds: dict[int, WriteRound] = {}
    for m in t.matches:
        rnd = rounds.setdefault(m.round, WriteRound(m.round, m.stage, []))
        other = uid[m.players[1]] if len(m.players) > 1 else None
        rnd.matches.append((m.outcome, uid[m.players[0]], other, m.table))
    year, month, day = t.day.split("-")
    data = write_tdf(
        name=t.event,
        sanction_id=f"{year[2:]}-{month}-{zlib.crc32(t.league.encode()) % 1000000:06d}",
        start=f"{month}/{day}/{year}",
        players=[TdfPlayer(p.userid, p.first, p.last, t.dropped.get(p.id)) for p in t.players],
        rounds=[rounds[n] for n in sorted(rounds)],
    )
    try:
        with open(path, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", file=path) from None
