"""The judgment: the one module that changes a game's result. The rule handlers call down into it.

Here: the knockout check (one batch per attack, checkup or effect, then the judgment), promotion after a
knockout, the judgment itself (the simultaneous table, a prize lead where fewer prizes remaining wins),
results decided by penalties and by time, and the playoff a drawn game that must be decided awaits.
Citations are to docs/rules.md and to the public rule documents it names.
"""

from __future__ import annotations

from typing import Final

import msgspec

from replay.engine import batch, claims
from replay.engine import findings as F
from replay.engine.board import Player, Pokemon
from replay.engine.findings import say
from replay.engine.outputs import PlayoffLink, Result
from replay.engine.playoff import child_name
from replay.engine.state import State, TimeCalled

LOSS_PENALTIES: Final = ("game_loss", "match_loss", "disqualification")
#: A loss for both players (両者敗北): a judge's penalty kind, and what an unfinished game becomes when time
#: is over at an event whose rules say so (``context.time_result``) [docs/rules.md §6].
DOUBLE_LOSS: Final = "double_loss"


# ---------------------------------------------------------------------------------- the knockout check
def run_batch(g: State, seq: int, window: str, claimed: set[str], removal: bool = False) -> None:
    """One knockout check [JP3.4 §I-D steps 1-5; docs/rules.md §2-3], then the judgment (§4).

    ``claimed``: the Pokémon the source claimed Knocked Out in this window; ``removal``: the window holds
    something else to judge with its knockouts, even without any (an Active that left play with nothing
    to promote, Prize cards taken by a card effect).
    """
    knocked: list[Pokemon] = []
    for player in g.players:
        for pid in g.p[player].in_play_pids():
            mon = g.mons[pid]
            if mon.knocked_out or (pid in claimed and (mon.hp is None or pid in g.forced_kos)):
                knocked.append(mon)
    for pid in sorted(claimed):
        claimed_mon = g.mons.get(pid)
        if (
            claimed_mon is not None
            and claimed_mon.hp is not None
            and not claimed_mon.knocked_out
            and pid not in g.forced_kos
        ):
            claims.not_due(g, seq, claimed_mon)
    if knocked:
        if g.prizes_claimed:
            claims.close_prize_claims(g)  # a claim still short when the next knockouts come is over
        batch.knock_out(g, seq, window, claimed, knocked)
    claims.settle_prize_claims(g)
    if knocked or removal:
        judge(g, seq)


def end_window(g: State, seq: int) -> None:
    """The attack or checkup window closes: its knockouts are checked, once [JP3.4 §I-D]."""
    window = g.window or "effect"
    claimed = g.window_claims
    removal = g.window_removal or g.effect_prizes
    g.window = None
    g.window_claims = set()
    g.window_removal = False
    g.effect_prizes = False
    run_batch(g, seq, window, claimed, removal)


def close_window(g: State, seq: int) -> bool:
    """An attack or checkup window the source did not close is closed (and checked) now; True when that
    ended the game (the event that closed it then goes no further: nothing follows game_over)."""
    if g.window is not None:
        g.find("window_not_closed", seq, say(F.WINDOW_NOT_CLOSED, window=g.window))
        end_window(g, seq)
    return g.result is not None


def resolve_effect(g: State) -> None:
    """The effect outside the windows has resolved: check knockouts once for all of it [JP3.4 §I-D], and
    judge the Prize cards it made players take (docs/rules.md §1.1)."""
    g.effect_pending = False
    claimed = g.effect_claims
    g.effect_claims = set()
    prizes = g.effect_prizes
    g.effect_prizes = False
    g.prize_effect = None
    run_batch(g, g.effect_seq, "effect", claimed, prizes)


def prizes_by_effect(g: State, seq: int, pl: Player, count: int, effect: str) -> None:
    """``pl`` takes ``count`` Prize cards by the card effect ``effect`` (not a knockout's).

    Checked against the prize cards left (never more than remain); judged like a knockout's prizes once
    the effect has resolved, or at the end of the attack or checkup it happened in: a player who takes
    their last Prize card wins, and when the same effect gives both players their last ones (consecutive
    ``prize_taken`` events naming it), the simultaneous table decides [docs/rules.md §1.1, §4].
    """
    n = min(count, pl.prizes)
    if n < count:
        g.find(
            "prizes_not_left",
            seq,
            say(F.PRIZES_NOT_LEFT, player=pl.id, count=count, left=pl.prizes, took=n),
            detail=f"effect: {effect}",
        )
    pl.prizes -= n
    pl.hand += n
    pl.taken += n
    if n:
        g.emit({"type": "prizes_due", "seq": seq, "player": pl.id, "count": n, "effect": effect})
    g.effect_prizes = True
    if g.window is None:
        # outside the windows, the effect resolves at the first event that is not part of it
        g.effect_pending = True
        g.effect_seq = seq
        g.prize_effect = effect


def promote(g: State, pl: Player, mon: Pokemon, seq: int) -> None:
    """A new Active from the Bench after a knockout [JP3.4 §I-D step 5: the next-turn player first]."""
    due = g.promotions_due
    if pl.id in due and due[0] != pl.id:
        g.find(
            "promotion_order",
            seq,
            say(F.PROMOTED_EARLY, player=pl.id, due=due[0]),
        )
    if pl.id in due:
        due.remove(pl.id)
    pl.bench.remove(mon.pid)
    pl.active = mon.pid


def active_removed(g: State, pl: Player, seq: int) -> None:
    """``pl``'s Active left play by an effect (not a knockout) and ``pl`` has nothing to promote.

    Inside an attack or a checkup this is judged when that window ends, together with the window's
    knockouts: recoil later in the same attack may leave the attacker's side empty too, and that is the
    simultaneous table's draw, not a win at the removal [JP3.4 §I-D, §I-E; docs/rules.md §2, §4].
    Outside them, at once [docs/rules.md §1.2].
    """
    if g.window is not None:
        g.window_removal = True
    else:
        judge(g, seq)


# ---------------------------------------------------------------------------------- the judgment
def conditions_met(g: State) -> dict[str, list[str]]:
    """The win conditions each player meets right now [docs/rules.md §4]."""
    met: dict[str, list[str]] = {}
    for me in g.players:
        mine: list[str] = []
        if g.p[me].taken >= g.p[me].needed:
            mine.append("prizes")
        if g.p[g.opponent(me)].cannot_put_out_active:
            mine.append("no_active_opponent")
        met[me] = mine
    return met


def score_result(met: dict[str, list[str]], players: list[str]) -> tuple[str | None, str]:
    """(winner or None for a draw, reason) from the conditions met; reason "" when nobody meets any
    [JP3.4 §I-E table: the higher count of conditions met wins, equal counts draw]."""
    a, b = players
    sa, sb = len(met[a]), len(met[b])
    if sa == 0 and sb == 0:
        return None, ""
    if sa == sb:
        return None, "simultaneous"
    winner, loser = (a, b) if sa > sb else (b, a)
    if met[loser]:
        return winner, "simultaneous"
    return winner, "prizes" if "prizes" in met[winner] else "no_pokemon"


def judge(g: State, seq: int) -> None:
    """The judgment after a knockout batch or a Pokémon leaving play [docs/rules.md §4]."""
    if g.result is not None:
        return
    met = conditions_met(g)
    winner, reason = score_result(met, g.players)
    lead = _lead_rule(g)
    if lead is not None and (reason == "" or (winner is None and reason == "simultaneous")):
        leader = prize_leader(g)
        if leader is not None:
            decide(g, seq, winner=leader, reason=lead[0], conditions=met, detail=lead[1])
            return
    if reason == "":
        return
    if winner is None:
        decide(g, seq, winner=None, reason=reason, conditions=met, outcome="draw")
    else:
        decide(g, seq, winner=winner, reason=reason, conditions=met)


def prize_leader(g: State) -> str | None:
    """The player with fewer prizes remaining, or None when level [docs/rules.md §6].

    "Remaining" is what each player still needs to take (needed - taken): a prize penalty lowers what its
    offender's opponent needs, as the prize cards it gives would have lowered their pile.
    """
    a, b = g.players
    ra, rb = g.p[a].needed - g.p[a].taken, g.p[b].needed - g.p[b].taken
    if ra == rb:
        return None
    return a if ra < rb else b


def _lead_rule(g: State) -> tuple[str, str] | None:
    """(reason, detail) when the game is won by the first prize lead, else None.

    A playoff game [KR1.0 Sudden Death: first prize; JP3.4 Tiebreak; TTH §7.4.3.1], or single elimination
    after time ran out level [TTH §7.4.4].
    """
    if g.lead_mode == "time":
        return ("time", "fewer prizes remaining after time was called")
    if g.playoff_kind is not None:
        won_by = g.ruleset.playoff_of(g.playoff_kind).won_by
        if won_by == "prize_lead":
            return ("prizes", f"{g.playoff_kind}: fewer prizes remaining than the opponent")
        if won_by == "first_prize":
            return ("prizes", f"{g.playoff_kind}: first prize taken")
    return None


def decide(
    g: State,
    seq: int,
    *,
    winner: str | None,
    reason: str,
    conditions: dict[str, list[str]] | None = None,
    outcome: str = "win",
    detail: str | None = None,
) -> None:
    """Record the game's result (the first decision stands) and what follows from it."""
    if g.result is not None:
        return
    res = Result(
        outcome=outcome,
        winner=winner,
        loser=g.opponent(winner) if winner is not None else None,
        reason=reason,
        conditions=conditions if conditions is not None else {p: [] for p in g.players},
        decided_at=seq,
        turn=g.turn,
    )
    if detail:
        res = msgspec.structs.replace(res, detail=detail)
    g.result = res
    g.status = "finished"
    g.emit({"type": "game_over", "seq": seq, "outcome": outcome, "winner": winner, "reason": reason})
    if outcome == "draw" and g.must_decide:
        require_playoff(g, seq)


def require_playoff(g: State, seq: int) -> None:
    """A drawn game that must be decided awaits its playoff child [KR1.0; JP3.4; TTH §7.4.3.1]: the
    ruleset's, or after time was called the one its time procedure names [JP 終了コール: サドンデス]."""
    assert g.match is not None
    child = child_name(g.match, g.parent)
    po = g.ruleset.playoff_of(g.playoff_kind)  # a drawn playoff game: another of its own kind
    if g.lead_mode == "time" and g.time_date is not None and g.playoff_kind is None:
        po = g.ruleset.time_procedure(g.time_date or None).playoff or po
    g.playoff = PlayoffLink(po.kind, po.prizes, child)
    g.status = "awaiting_playoff"
    if child not in g.children:
        g.children.append(child)
    g.emit({"type": "playoff_required", "seq": seq, "child": child, "playoff": po.kind, "prizes": po.prizes})


# ---------------------------------------------------------------------------------- penalties [PG §3-4]
def prize_penalty(g: State, seq: int, offender: Player, kind: str, cut: int) -> None:
    """Double or Quadruple Prize Card: the offender's opponent needs ``cut`` fewer prizes [PG §3].

    They win at once when they already have what they now need. And where fewer prizes remaining wins (a
    playoff game, single elimination after time ran out level), the lead the penalty makes is judged
    when it is given, not at a later knockout [docs/rules.md §6].
    """
    if g.result is not None:
        return
    opp = g.p[g.opponent(offender.id)]
    # [JP floor rules 2023-04-01 §11 ③] the opponent takes no prize cards: they need fewer to win
    opp.needed = max(0, opp.needed - cut)
    if opp.taken >= opp.needed:
        conditions = {opp.id: ["prizes"], offender.id: []}
        decide(g, seq, winner=opp.id, reason="penalty", detail=kind, conditions=conditions)
        return
    lead = _lead_rule(g)
    leader = prize_leader(g) if lead is not None else None
    if lead is not None and leader is not None:
        met = conditions_met(g)
        decide(g, seq, winner=leader, reason="penalty", conditions=met, detail=f"{kind}: {lead[1]}")


def double_loss(g: State, seq: int, detail: str) -> None:
    """A loss for both players (両者敗北): the game ends with no winner, reason ``double_loss``.

    Given right after the game, it replaces that game's result, as a Game Loss does [PG §4]; a game that
    awaited its playoff then awaits none.
    """
    prior = g.result
    if prior is not None and prior.outcome == "no_winner" and prior.reason == DOUBLE_LOSS:
        return
    g.result = Result(
        outcome="no_winner",
        winner=None,
        loser=None,
        reason=DOUBLE_LOSS,
        conditions={p: [] for p in g.players},
        decided_at=seq,
        turn=g.turn,
        detail=detail,
    )
    g.playoff = None
    g.status = "finished"
    g.emit({"type": "game_over", "seq": seq, "outcome": "no_winner", "winner": None, "reason": DOUBLE_LOSS})


def loss_penalty(g: State, seq: int, offender: Player, kind: str) -> None:
    """Game Loss, Match Loss, Disqualification: the offender loses the current game [PG §4].

    Given right after the game, it applies to that game. Loss penalties to both players at once (two
    penalty events in a row, one to each) mean no winner, during the game or right after it [PG §4].
    """
    opp = g.opponent(offender.id)
    both = g.loss_penalty_seq == seq - 1 and g.loss_penalty_player == opp
    g.loss_penalty_seq = seq
    g.loss_penalty_player = offender.id
    prior = g.result
    if prior is None:
        decide(g, seq, winner=opp, reason="penalty", detail=kind)
        return
    if both:
        if prior.outcome == "no_winner":
            return
        # [PG §4] Game Losses to both players at once: no winner (not a tie).
        g.result = msgspec.structs.replace(
            prior,
            outcome="no_winner",
            winner=None,
            loser=None,
            reason="penalty",
            decided_at=seq,
            detail="game losses to both players",
            conditions={p: [] for p in g.players},
        )
        g.playoff = None
        g.status = "finished"
        g.emit({"type": "game_over", "seq": seq, "outcome": "no_winner", "winner": None, "reason": "penalty"})
        return
    if prior.loser != offender.id:
        # [PG §4] a Game Loss given right after a game applies to that game.
        g.result = msgspec.structs.replace(
            prior,
            outcome="win",
            winner=opp,
            loser=offender.id,
            reason="penalty",
            decided_at=seq,
            detail=f"{kind} after the game",
            conditions={},
        )
        g.playoff = None
        g.status = "finished"
        g.emit({"type": "game_over", "seq": seq, "outcome": "win", "winner": opp, "reason": "penalty"})


# ---------------------------------------------------------------------------------- time [TTH §7.4.3-4]
def time_turn_started(g: State, time: TimeCalled, seq: int) -> bool:
    """Count a turn after time was called; True when time is over (and the game was judged)."""
    if time.turns_left > 0:
        time.turns_left -= 1
        return False
    _time_over(g, seq)
    return g.result is not None


def time_turn_ended(g: State, time: TimeCalled, seq: int) -> None:
    """A turn ended after time was called: where the procedure plays no checkup after the last turn
    [JP 終了コール: ポケモンチェックは含まれない], time is over when that turn ends."""
    if not time.checkup and time.turns_left == 0:
        _time_over(g, seq)


def time_over_at_end(g: State, seq: int) -> None:
    """The source ended the game after the last turn allowed by time."""
    if g.time is not None and g.time.turns_left == 0 and not g.turn_open:
        _time_over(g, seq)


def _time_over(g: State, seq: int) -> None:
    time = g.time
    g.time = None
    proc = g.ruleset.time_procedure(time.date if time is not None else None)
    g.time_date = (time.date or "") if time is not None else ""
    if g.playoff_kind is not None:
        # [TTH §7.4.3.1] A playoff decides its parent game: when its time runs out it stays unresolved, and
        # the first prize lead (or an outright win) still decides it. Never a draw that needs another
        # playoff, whatever context.stage says.
        return
    if g.context.get("time_result") == DOUBLE_LOSS:
        # the event's own rule: an unfinished game is a loss for both (両者敗北) [docs/rules.md §6]
        double_loss(g, seq, "time: a loss for both players (the event's rule)")
        return
    if proc.decide == "prize_lead":
        _time_over_by_lead(g, seq, proc.later_games_lead_within)
        return
    if g.context.get("stage") == "single_elimination":
        # [TTH §7.4.4] fewest prizes remaining wins; equal: play on until someone leads or wins.
        leader = prize_leader(g)
        if leader is not None:
            decide(g, seq, winner=leader, reason="time", detail="fewer prizes remaining when time ran out")
        else:
            g.lead_mode = "time"
        return
    # [TTH §7.4.3] Swiss: a game still in progress when time runs out is a tie.
    decide(g, seq, winner=None, reason="time", outcome="draw")


def _time_over_by_lead(g: State, seq: int, later_within: int | None) -> None:
    """[JP 終了コール] Fewer prizes left wins, in every stage; level: the extension (延長戦), won by a win
    condition or by fewer prizes left first; a drawn extension goes to the playoff. In game 2 or later a
    lead decides the game only when a player has ``later_within`` or fewer prizes left; otherwise the game
    is left undecided (a draw with no playoff: the match goes to game 1's winner)."""
    game = g.context.get("game")
    a, b = g.players
    left = min(g.p[a].needed - g.p[a].taken, g.p[b].needed - g.p[b].taken)
    if later_within is not None and isinstance(game, int) and game >= 2 and left > later_within:
        g.must_decide = False
        decide(
            g,
            seq,
            winner=None,
            reason="time",
            outcome="draw",
            detail=f"game {game}: both players have more than {later_within} prizes left; "
            "the match goes to game 1's winner",
        )
        return
    g.must_decide = True  # a drawn extension is played off, whatever the stage
    leader = prize_leader(g)
    if leader is not None:
        decide(g, seq, winner=leader, reason="time", detail="fewer prizes remaining when time ran out")
    else:
        g.lead_mode = "time"
