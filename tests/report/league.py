"""A simulated league event shared by the report tests: its events, its records and its ``.tdf``.

Chosen by what it contains, not by a fixed seed, so the tests survive simulator changes: the first seed
whose league has Swiss ties, a bye, a drop, findings, claims that disagree with the rules, knockouts
taken from claims (a manual source), and a second tiebreak in the top cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from replay import replay_records
from replay.generators.league import LeagueSim
from replay.records import Record, from_mapping

Event = dict[str, Any]
LEAGUE = "Kanto League"


@dataclass(frozen=True)
class League:
    seed: int
    events: list[Event]
    records: dict[str, dict[str, Any]]
    sim: LeagueSim

    def typed(self) -> list[Record]:
        """The records as the report reads them: typed values (``replay.records``)."""
        return [from_mapping(r) for r in self.records.values()]


def _wanted(sim: LeagueSim, records: dict[str, dict[str, Any]]) -> bool:
    t = sim.tournament
    recs = records.values()
    return (
        any(m.outcome == 3 for m in t.matches if m.stage == "swiss")
        and any(m.outcome == 5 for m in t.matches)
        and bool(t.dropped)
        and any(r["findings"] for r in recs)
        and any(r["agrees"] is False for r in recs)
        and any(k["verified"] is False for r in recs for k in r["knockouts"])
        and any(r["match"].endswith("/tb2") for r in recs)
    )


@cache
def league() -> League:
    """9 players, 4 Swiss rounds, top 4."""
    for seed in range(60):
        sim = LeagueSim(LEAGUE, 9, 4, seed=seed, top_cut=4)
        events = [e for stream in sim.streams() for e in stream]
        records = replay_records(events)
        if _wanted(sim, records):
            return League(seed, events, records, sim)
    raise AssertionError("no seed below 60 gives a league with everything the report tests need")
