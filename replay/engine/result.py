"""Who won: the win/loss conditions, simultaneous results and the source's claimed result.

[rules.md §1, JP3.4 §I-E] A player loses when all the prizes they conceded are taken, when they cannot put
out an Active, at deck-out (turn_started), by concession, penalty or a card effect.
[rules.md §4, JP3.4 §I-E table] When a judgment finds conditions on both sides, each player's score is
[I have taken all the prizes I need] + [the opponent cannot put out an Active]; higher wins, equal draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from replay.engine.game import Event, Game

# Claimed reasons (importers, producers) grouped into the engine's reasons.
REASON_KINDS: Final[dict[str, str]] = {
    "prizes": "prizes",
    "all_prizes": "prizes",
    "prize": "prizes",
    "no_pokemon": "no_pokemon",
    "no_active": "no_pokemon",
    "no_bench": "no_pokemon",
    "deck_out": "deck_out",
    "deckout": "deck_out",
    "concession": "concession",
    "conceded": "concession",
    "timeout": "timeout",
    "inactive": "timeout",
    "penalty": "penalty",
    "game_loss": "penalty",
    "effect": "effect",
    "simultaneous": "simultaneous",
    "playoff": "playoff",
    "time": "time",
    "draw": "simultaneous",
}


def conditions_met(g: Game) -> dict[str, list[str]]:
    """The win conditions each player meets right now [rules.md §4]."""
    met: dict[str, list[str]] = {}
    for me in g.players:
        opp = g.opponent(me)
        mine: list[str] = []
        if g.p[me].taken >= g.p[me].needed:
            mine.append("prizes")
        if g.p[opp].cannot_put_out_active:
            mine.append("no_active_opponent")
        met[me] = mine
    return met


def score_result(met: dict[str, list[str]], players: list[str]) -> tuple[str | None, str]:
    """(winner or None for a draw, reason) from the conditions met; reason "" when nobody meets any."""
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


def judge(g: Game, seq: int) -> None:
    """The judgment after a knockout batch or a Pokémon leaving play."""
    if g.result is not None:
        return
    met = conditions_met(g)
    winner, reason = score_result(met, g.players)
    lead = _lead_rule(g)
    if lead is not None and (reason == "" or (winner is None and reason == "simultaneous")):
        # Playoff by prize lead [JP3.4 Tiebreak; TTH §7.4.3.1], or time over in single elimination
        # [TTH §7.4.4]: the first player with fewer prizes remaining than the opponent wins.
        # "Remaining" is what each still needs (a prize penalty lowers it), not what each has taken.
        a, b = g.players
        ra, rb = g.p[a].needed - g.p[a].taken, g.p[b].needed - g.p[b].taken
        if ra != rb:
            leader = a if ra < rb else b
            decide(g, seq, winner=leader, reason=lead[0], conditions=met, detail=lead[1])
            return
    if reason == "":
        return
    if winner is None:
        decide(g, seq, winner=None, reason=reason, conditions=met, outcome="draw")
    else:
        decide(g, seq, winner=winner, reason=reason, conditions=met)


def _lead_rule(g: Game) -> tuple[str, str] | None:
    if g.lead_mode == "time":
        return ("time", "fewer prizes remaining after time was called")
    if g.playoff_kind is not None:
        if g.ruleset.playoff.won_by == "prize_lead":
            return ("prizes", f"{g.playoff_kind}: fewer prizes remaining than the opponent")
        if g.ruleset.playoff.won_by == "first_prize":
            return ("prizes", f"{g.playoff_kind}: first prize taken")
    return None


def decide(
    g: Game,
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
    res: dict[str, Any] = {
        "outcome": outcome,
        "winner": winner,
        "loser": g.opponent(winner) if winner is not None else None,
        "reason": reason,
        "conditions": conditions if conditions is not None else {p: [] for p in g.players},
        "decided_at": seq,
        "turn": g.turn,
    }
    if detail:
        res["detail"] = detail
    g.result = res
    g.status = "finished"
    g.emit({"type": "game_over", "seq": seq, "outcome": outcome, "winner": winner, "reason": reason})
    if outcome == "draw" and g.must_decide:
        from replay.engine.playoff import require_playoff

        require_playoff(g, seq)


def on_conceded(g: Game, e: Event) -> None:
    pl = g.player(e)
    if pl is None or g.result is not None:
        return
    why = e.get("reason")
    decide(g, e["seq"], winner=g.opponent(pl.id), reason="concession", detail=str(why) if why else None)


def on_effect_result(g: Game, e: Event) -> None:
    pl = g.player(e)
    if pl is None or g.result is not None:
        return
    # [JP3.4 §II-E-38] "you win/lose this game" ends it directly.
    winner = pl.id if e.get("wins") else g.opponent(pl.id)
    card = e.get("card")
    decide(
        g,
        e["seq"],
        winner=winner,
        reason="effect",
        detail=str(card.get("name") if isinstance(card, dict) else card) if card else None,
    )


def reason_kind(res: dict[str, Any]) -> str:
    """The kind of an engine result's reason, comparable with a claimed one."""
    if res["reason"] == "concession" and res.get("detail") in ("inactive", "timeout"):
        return "timeout"
    return str(res["reason"])


def claim_agrees(claim: dict[str, Any] | None, res: dict[str, Any] | None) -> bool | None:
    """Does the source's claimed result agree with the derived one (outcome and winner)?"""
    if claim is None:
        return None
    if res is None:
        return False
    if claim.get("outcome") != res["outcome"]:
        return False
    return bool(res["outcome"] != "win" or claim.get("winner") == res["winner"])


def on_game_ended(g: Game, e: Event) -> None:
    from replay.engine import knockout, penalties

    seq = e["seq"]
    if g.window is not None:
        knockout.close_window(g, seq)
    if g.unclaimed:
        knockout.report_unclaimed(g, seq)
    if g.result is None and g.time is not None:
        penalties.time_over_at_end(g, seq)
    claim: dict[str, Any] = {k: e[k] for k in ("outcome", "winner", "reason") if k in e}
    if g.claimed is not None:
        g.find("result_mismatch", seq, "a second game_ended claim replaces the first", "info")
    g.claimed = claim
    res = g.result
    said = f"{claim.get('outcome')}" + (f" for {claim['winner']}" if claim.get("winner") else "")
    if res is None:
        g.find("result_mismatch", seq, f"the source says {said}; the events do not end the game")
        return
    if not claim_agrees(claim, res):
        got = res["outcome"] + (f" for {res['winner']}" if res["winner"] else "")
        g.find(
            "result_mismatch",
            seq,
            f"the source says {said}; the rules give {got} ({res['reason']} at seq {res['decided_at']})",
        )
        return
    claimed_reason = claim.get("reason")
    if isinstance(claimed_reason, str):
        kind = REASON_KINDS.get(claimed_reason.lower(), claimed_reason.lower())
        if kind != reason_kind(res) and not (kind == "prizes" and res["reason"] in ("simultaneous",)):
            g.find(
                "reason_mismatch",
                seq,
                f"the source gives reason {claimed_reason!r}; the engine {res['reason']!r}",
            )
