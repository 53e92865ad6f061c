"""Reconciliation with the tournament software: the TDF's reported matches against the game records.

Every match the TDF reports (player 1 won, player 2 won, tie) is looked up among the report's matches by
round and pair of players (record player ids are matched to TDF players by :class:`PlayerIndex`):

- ``disagree``: the records give another result (or none yet: in progress, a tiebreaker still owed);
- ``missing``: no game records for a reported match;
- ``unrecorded_byes``: a bye in the TDF, but games recorded for that player in that round;
- ``not_in_tdf``: matches in the records that the TDF does not list;
- ``unknown_players``: players of the records that match no TDF player;
- ``standings``: per age division, where Prizecheck's standings differ from TOM's own ``<standings>``,
  each difference with its reason (:func:`compare_standings`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TypedDict

from replay.report import sentences
from replay.report.document import (
    ByeWithGames,
    Disagreement,
    DivisionStandings,
    Event,
    Match,
    Missing,
    NotInTdf,
    Reconciliation,
    Section,
    Standing,
    StandingDifference,
    TdfLine,
)
from replay.report.links import review_link
from replay.report.tdf import OUTCOMES, PlayerIndex, Tournament
from replay.series import SWISS, Pairing, rank_by_division, swiss_standings


def reconcile(
    tdf: Tournament, sections: Sequence[Section], round_filter: str | None, base_url: str
) -> Reconciliation:
    """Compare ``tdf`` with the matches of the report's ``sections`` (see the module docstring); with
    ``round_filter`` (the report's ``--round``), only that round of the TDF."""
    index = PlayerIndex(tdf.players.values())
    events: list[Event] = [ev for sec in sections for ev in sec.events]
    named = [ev for ev in events if ev.event == tdf.name]
    scope = named or events  # the TDF's own event when the records name it, else every event in scope
    recorded: dict[tuple[int, frozenset[str]], Match] = {}
    unknown: set[str] = set()
    for ev in scope:
        for m in ev.matches:
            uids = [index.userid(p) for p in m.players]
            for p, uid in zip(m.players, uids, strict=True):
                if uid is None:
                    unknown.add(p)
            if None in uids or not m.round.isdigit():
                continue
            recorded[(int(m.round), frozenset(u for u in uids if u is not None))] = m
    only = int(round_filter) if round_filter and round_filter.isdigit() else None
    disagree: list[Disagreement] = []
    missing: list[Missing] = []
    byes_with_games: list[ByeWithGames] = []
    reported = agree = 0
    for tm in tdf.matches:
        if only is not None and tm.round != only:
            continue
        names = [_name(tdf, uid) for uid in tm.players]
        # the division of the match (its players'; a combined pod pairs across them): reconciled per division
        divisions = sorted({d for uid in tm.players if (d := _division(tdf, uid))})
        where = TdfLine(round=tm.round, table=tm.table, line=tm.line, players=names, divisions=divisions)
        if len(tm.players) == 1:
            played = [m for (r, pair), m in recorded.items() if r == tm.round and tm.players[0] in pair]
            if tm.outcome == 5 and played:
                byes_with_games.append(ByeWithGames(series=[m.series for m in played], **_at(where)))
            continue
        key = (tm.round, frozenset(tm.players))
        expected = tm.result
        if tm.outcome == 0:
            continue  # not reported yet in the tournament software: nothing to reconcile
        reported += 1
        found = recorded.get(key)
        tdf_says = _tdf_says(tm.outcome, expected)
        if found is None:
            missing.append(Missing(tdf=_show(tdf, tdf_says), **_at(where)))
            continue
        records_say = _records_say(found, index)
        if expected is None or records_say != tdf_says:
            disagree.append(
                Disagreement(
                    tdf=_show(tdf, tdf_says),
                    records=_show(tdf, records_say),
                    series=found.series,
                    links=[review_link(base_url, g.match) for g in found.games],
                    **_at(where),
                )
            )
        else:
            agree += 1
    listed = {(tm.round, frozenset(tm.players)) for tm in tdf.matches}
    not_in_tdf = [
        NotInTdf(round=m.round, series=m.series, players=list(m.players))
        for key, m in sorted(recorded.items(), key=lambda kv: (kv[0][0], kv[1].series))
        if key not in listed and (only is None or key[0] == only)
    ]
    rows = {uid: row for ev in scope for row in ev.standings if (uid := index.userid(row.player))}
    off = {p for d in (*disagree, *missing) for p in d.players}
    return Reconciliation(
        standings=compare_standings(tdf, rows, {u for u in tdf.players if _name(tdf, u) in off}),
        tdf=tdf.path,
        event=tdf.name,
        reported=reported,
        agree=agree,
        disagree=disagree,
        missing=missing,
        unrecorded_byes=byes_with_games,
        not_in_tdf=not_in_tdf,
        unknown_players=sorted(unknown),
    )


class _At(TypedDict):
    round: int
    table: int | None
    line: int
    players: list[str]
    divisions: list[str]


def _at(where: TdfLine) -> _At:
    """Where a TDF match is, for the line of one of the reconciliation's lists."""
    return _At(
        round=where.round,
        table=where.table,
        line=where.line,
        players=where.players,
        divisions=where.divisions,
    )


def _division(tdf: Tournament, uid: str) -> str | None:
    player = tdf.players.get(uid)
    return player.division if player is not None else None


def _name(tdf: Tournament, uid: str) -> str:
    player = tdf.players.get(uid)
    return f"{player.name} ({uid})" if player is not None and player.name else uid


def _tdf_says(outcome: int, result: Mapping[str, str] | None) -> tuple[str, str | None]:
    """A TDF result as ``(kind, winner userid)``: ``("win", uid)``, ``("tie", None)`` or the code's name."""
    if result is None:
        return (OUTCOMES.get(outcome) or sentences.UNKNOWN_OUTCOME.format(code=outcome), None)
    if outcome == 3:
        return (sentences.TIE, None)
    return ("win", next(uid for uid, r in result.items() if r == "win"))


def _records_say(m: Match, index: PlayerIndex) -> tuple[str, str | None]:
    """The records' match result in the same terms (a winner no TDF player matches keeps its record id)."""
    if m.result is None:
        return (m.status.replace("_", " "), None)
    if m.winner is None:  # a tie, or a loss for both (両者敗北: never TOM's tie)
        return (sentences.DOUBLE_LOSS if m.decided_by == "double_loss" else sentences.TIE, None)
    return ("win", index.userid(m.winner) or m.winner)


def _show(tdf: Tournament, said: tuple[str, str | None]) -> str:
    kind, uid = said
    return sentences.WON.format(player=_name(tdf, uid)) if kind == "win" and uid is not None else kind


# ------------------------------------------------------------------------------------------ standings


def tdf_standings(tdf: Tournament) -> dict[str, Standing]:
    """Prizecheck's standings of the TDF's own Swiss results (its byes and drops), ranked per division,
    by userid: what TOM should have ranked, before any game record is read."""
    pairings = [
        Pairing(m.round, (m.players[0], m.players[1]), m.result)
        for m in tdf.matches
        if m.stage == SWISS and len(m.players) == 2
    ]
    table = swiss_standings(pairings, tdf.byes(), tdf.dropped())
    return {row["player"]: Standing(top_cut=None, **row) for row in rank_by_division(table, tdf.divisions())}


def compare_standings(
    tdf: Tournament,
    rows: Mapping[str, Standing],
    results_differ: Collection[str] = frozenset(),
) -> list[DivisionStandings]:
    """Per division, TOM's ``<standings>`` against Prizecheck's: ``rows`` (standings rows by userid) are
    the game records' when the TDF's event has any, else :func:`tdf_standings`. A player TOM places
    elsewhere than Prizecheck ranks them is a difference, with the reason (``why``):

    - TOM ranks a dropped player above players who did not drop and have better tiebreakers (known TOM
      behaviour: it appears to keep a dropped player's standing from the round they dropped);
    - the player's match results in the records differ from the TDF's (``disagree``, ``missing``);
    - the player is level on points, OWP and OOWP with another, which TOM breaks at random;
    - else the tiebreakers as Prizecheck computed them.
    """
    basis = "records" if rows else "tdf"
    if not rows:
        rows = tdf_standings(tdf)
    out: list[DivisionStandings] = []
    for div, places in tdf.standings.items():
        tom = [p.userid for p in places]
        ours = sorted((u for u, r in rows.items() if r.division == div), key=lambda u: rows[u].rank)
        ours += [u for u in tom if u not in ours]  # placed by TOM, not ranked here: after the ranked
        differences = [
            StandingDifference(
                player=_name(tdf, uid),
                tom=place,
                prizecheck=rows[uid].rank if uid in rows else None,
                why=_why(tdf, uid, div, tom, rows, results_differ),
            )
            for place, uid in enumerate(tom, 1)
            if ours.index(uid) + 1 != place
        ]
        out.append(DivisionStandings(division=div, basis=basis, players=len(tom), differences=differences))
    return out


def _key(row: Standing) -> tuple[float, float, float]:
    return (row.points, row.owp, row.oowp)


def _show_row(tdf: Tournament, uid: str, row: Standing) -> str:
    return sentences.ROW.format(
        player=_name(tdf, uid), points=row.points, owp=f"{row.owp * 100:.2f}", oowp=f"{row.oowp * 100:.2f}"
    )


def _why(
    tdf: Tournament,
    uid: str,
    div: str,
    tom: list[str],
    rows: Mapping[str, Standing],
    results_differ: Collection[str],
) -> str:
    row = rows.get(uid)
    if row is None or row.division != div:
        return sentences.NO_STANDING.format(player=_name(tdf, uid), division=div)
    mine = tom.index(uid)
    below = [
        u for u in tom[mine + 1 :] if u in rows and rows[u].dropped is None and _key(rows[u]) > _key(row)
    ]
    if row.dropped is not None and below:
        return sentences.DROPPED_ABOVE.format(
            player=_name(tdf, uid),
            round=row.dropped,
            points=row.points,
            owp=f"{row.owp * 100:.2f}",
            rows="; ".join(_show_row(tdf, u, rows[u]) for u in below),
        )
    above = [u for u in tom[:mine] if u in rows and rows[u].dropped is not None and _key(rows[u]) < _key(row)]
    if row.dropped is None and above:
        return sentences.BELOW_DROPPED.format(
            players=", ".join(
                sentences.DROPPED_WORSE.format(player=_name(tdf, u), round=rows[u].dropped) for u in above
            )
        )
    if uid in results_differ:
        return sentences.RESULTS_DIFFER
    level = [u for u in tom if u != uid and u in rows and _key(rows[u]) == _key(row)]
    if level:
        return sentences.LEVEL.format(players=", ".join(_name(tdf, u) for u in level))
    return sentences.TIEBREAKERS.format(rank=row.rank, row=_show_row(tdf, uid, row))
