"""How a game ends besides knockouts and the deck, and the source's own claimed result: conceded,
effect_result, game_ended.

[docs/rules.md §1] A player loses by concession or by a card effect that says so [JP3.4 §II-E-38]; the
source's ``game_ended`` is a claim, compared with the result the rules derived
(``replay.engine.judgment``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from replay.engine import claims, judgment
from replay.engine import findings as F
from replay.engine.findings import say
from replay.engine.outputs import Claim, Result
from replay.engine.state import Event, State

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
    "double_loss": "double_loss",  # a loss for both players (両者敗北) [docs/rules.md §6]
}


def reason_kind(res: Result | Mapping[str, Any]) -> str:
    """The kind of a result's reason (a record's ``result`` JSON too), comparable with a claimed one."""
    return (res if isinstance(res, Result) else Result.from_json(res)).reason_kind()


def on_conceded(g: State, e: Event) -> None:
    pl = g.player(e)
    if pl is None or g.result is not None:
        return
    why = e.get("reason")
    judgment.decide(
        g, e["seq"], winner=g.opponent(pl.id), reason="concession", detail=str(why) if why else None
    )


def on_effect_result(g: State, e: Event) -> None:
    pl = g.player(e)
    if pl is None or g.result is not None:
        return
    # [JP3.4 §II-E-38] "you win/lose this game" ends it directly.
    winner = pl.id if e.get("wins") else g.opponent(pl.id)
    card = e.get("card")
    judgment.decide(
        g,
        e["seq"],
        winner=winner,
        reason="effect",
        detail=str(card.get("name") if isinstance(card, dict) else card) if card else None,
    )


def on_game_ended(g: State, e: Event) -> None:
    seq = e["seq"]
    if g.window is not None:
        judgment.close_window(g, seq)
    if g.unclaimed or g.prizes_claimed:
        claims.close(g, seq)
    if g.result is None and g.time is not None:
        judgment.time_over_at_end(g, seq)
    claim = Claim(**{k: e[k] for k in ("outcome", "winner", "reason") if k in e})
    if g.claimed is not None:
        g.find("result_mismatch", seq, say(F.SECOND_CLAIM), "info")
    g.claimed = claim
    res = g.result
    if res is None:
        g.find("result_mismatch", seq, say(F.CLAIM_NOT_ENDED, said=claim.said()))
        return
    if not claim.agrees(res):
        got = res.outcome + (f" for {res.winner}" if res.winner else "")
        g.find(
            "result_mismatch",
            seq,
            say(F.CLAIM_DIFFERS, said=claim.said(), got=got, reason=res.reason, decided=res.decided_at),
        )
        return
    claimed_reason = claim.reason
    if isinstance(claimed_reason, str):
        kind = REASON_KINDS.get(claimed_reason.lower(), claimed_reason.lower())
        if kind != res.reason_kind() and not (kind == "prizes" and res.reason == "simultaneous"):
            # A reason the engine knows is a word of its vocabulary; any other is the source's free text,
            # for judges only (the finding's detail).
            known = claimed_reason.lower() in REASON_KINDS
            said = (
                say(F.REASON_DIFFERS, said=claimed_reason, reason=res.reason)
                if known
                else say(F.REASON_OWN_WORDS, reason=res.reason)
            )
            g.find(
                "reason_mismatch",
                seq,
                said,
                None,
                None if known else f"the source gives reason {claimed_reason!r}",
            )
