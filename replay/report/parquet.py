"""The cold archive (``prizecheck archive``'s Parquet files) read back: its records by DuckDB for
``prizecheck report --parquet DIR`` in bounded memory, and its events for ``prizecheck verify RECORD
--events DIR`` (:func:`archived_records_of_events`).

DuckDB scans ``DIR/records/league=*/season=*/*.parquet`` (Hive partitions; the league and season filters
prune whole directories, the other columns are never read) and hands the stored records (``version`` 0,
the bytes the service stored) over in batches of :data:`BATCH` rows; each is decoded and folded into the
report, as ``--from-store`` folds the store's records. DuckDB runs with a memory limit
(:data:`MEMORY_LIMIT`) and one thread: the scan is a small part of the report's time (the Python fold is
the rest), and a second thread only took CPU from it on a two-core machine (and 35 MB more resident, its
buffers); a batch is all the report holds of the records at once.

duckdb is the ``archive`` extra; it is imported only here (pyarrow only to read the events back).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from replay.engine import InputError
from replay.extras import needs_extra

BATCH = 10_000
MEMORY_LIMIT = "128MB"
_PLAIN = re.compile(r"[A-Za-z0-9._-]+")


def partition_value(name: str) -> str:
    """A league or season as the archive names its partition directory (percent-encoded UTF-8 but
    ``A-Z a-z 0-9 . _ -``: what ``streams.store.base.key_part`` gives)."""
    return name if _PLAIN.fullmatch(name) else quote(name, safe="", errors="surrogatepass")


def connect() -> Any:
    """A DuckDB connection in memory, bounded (:data:`MEMORY_LIMIT`, one thread)."""
    try:
        import duckdb
    except ImportError as exc:
        raise InputError(f"--parquet {needs_extra(exc, 'archive')}") from None
    # no progress bar of DuckDB's own on a terminal: the command draws its own (replay/cli/progress.py)
    con = duckdb.connect(config={"memory_limit": MEMORY_LIMIT, "threads": 1})
    con.execute("SET enable_progress_bar = false")
    return con


def records_glob(root: str) -> str:
    """The records files of an archive directory, as DuckDB globs them; InputError when there is no archive
    there or it holds no records file."""
    folder = os.path.join(os.path.abspath(root), "records")
    if not os.path.isdir(folder):
        raise InputError(f"{root}: no archive here (no records/ directory: see prizecheck archive --to)")
    if not any(f.endswith(".parquet") for _, _, names in os.walk(folder) for f in names):
        # said as the store says it (DuckDB's own error would be "No files found that match...")
        raise InputError(f"the archive at {root} is empty: no records")
    return os.path.join(folder, "**", "*.parquet")


def scan(root: str, league: str | None, season: str | None) -> str:
    """``FROM read_parquet(...) WHERE ...`` over the archive's records: league and season compared with
    the partitions' values (DuckDB decodes the directories' percent-encoding: :func:`partition_value`),
    as SQL string literals (quotes doubled)."""
    source = (
        f"read_parquet('{records_glob(root).replace(chr(39), chr(39) * 2)}', hive_partitioning = true, "
        "hive_types_autocast = false, union_by_name = true)"
    )
    where = ["version = 0"]
    for column, value in (("league", league), ("season", season)):
        if value is not None:
            literal = value.replace("'", "''")
            where.append(f"{column} = '{literal}'")
    return f"FROM {source} WHERE {' AND '.join(where)}"


def archived_records(
    root: str, league: str | None = None, season: str | None = None
) -> Iterator[list[bytes]]:
    """The stored records of the archive under ``root`` (their bytes), in lists of :data:`BATCH`."""
    con = connect()
    try:
        try:
            # fetched as Python values, a batch at a time: DuckDB streams the result, and pyarrow (70 MB
            # resident once imported) is not needed to read it
            result = con.execute(f"SELECT record {scan(root, league, season)}")
            while rows := result.fetchmany(BATCH):
                yield [data for (data,) in rows]
        except InputError:
            raise
        except Exception as exc:  # duckdb's errors: a damaged or foreign file
            raise InputError(f"{root}: cannot read the archive: {str(exc).splitlines()[0][:300]}") from None
    finally:
        con.close()


def events_files(path: str) -> list[str]:
    """The events files of ``path``: one ``.parquet`` file, or every one under an archive directory's
    ``events/``; InputError naming the path when there is none."""
    if os.path.isdir(path):
        folder = os.path.join(path, "events")
        found = sorted(
            os.path.join(d, f) for d, _, names in os.walk(folder) for f in names if f.endswith(".parquet")
        )
        if not found:
            raise InputError(f"{path}: no archive here (no events/ files: see prizecheck archive --to)")
        return found
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    return [path]


def archived_records_of_events(paths: list[str], matches: list[str]) -> dict[str, dict[str, Any]]:
    """The records the archived events of ``matches`` (and of their playoff games) replay to, as
    ``prizecheck replay`` derives them: every entry applied in archive order (conflicts and late events
    where they were archived), each family settled from its playoff games."""
    import msgpack

    from replay.contract.validate import checked_game
    from replay.engine import Game, link_records

    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise InputError(f"reading the archive {needs_extra(exc, 'archive')}") from None
    tops = {re.sub(r"(/tb\d+)+$", "", m) for m in matches}
    games: dict[str, Game] = {}
    for path in [p for given in paths for p in events_files(given)]:
        try:
            table = pq.read_table(path, columns=["match", "event"])
        except Exception as exc:  # pyarrow's errors for a damaged or foreign file
            raise InputError(f"{path}: cannot read: {str(exc).splitlines()[0][:200]}") from None
        for match, data in zip(
            table.column("match").to_pylist(), table.column("event").to_pylist(), strict=True
        ):
            if re.sub(r"(/tb\d+)+$", "", match) in tops:
                games.setdefault(match, checked_game()).apply(msgpack.unpackb(data, raw=False), data)
    records: dict[str, dict[str, Any]] = link_records({m: g.record() for m, g in games.items()})
    return records
