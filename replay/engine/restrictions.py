"""The turn's limits: once-per-turn rules and the first-turn restrictions, as findings [docs/rules.md §6].

During their turn a player may attach one Energy card from their hand, play one Supporter and one Stadium,
and retreat once [RB, "Your turn"]; the player who goes first may not attack on their first turn, nor
(from the Sword & Shield era, ruleset ``first_turn.supporter``) play a Supporter; nobody evolves a Pokémon
on their own first turn, nor one that came into play or evolved that turn [docs/rules.md §6 Setup].

Each is a finding, never a change to the game (the source's game goes on as it was played). Card effects
lift these rules (Lt. Surge's Strategy plays 3 Supporters, Baxcalibur attaches Energy as often as you
like, Forest of Vitality evolves a Pokémon the turn it is played), and the engine models none of them, so
what it knows of effects is:

- the event's own ``effect`` field: a source that names the card whose effect did it (an attachment, a
  switch, a Supporter, an attack, an evolution) makes no finding at all;
- ``replay.engine.card_effects``: the cards whose text can lift each rule, generated from the card
  catalogue's source (tools/build_card_effects.py).

The severity then follows the source [decisions 3]: a violation on a paper game (``scanned``, ``manual``);
on a digital client's log, whose client enforces the rules, an ``info`` when a card that may lift the rule
is in view (in the player's play area, the Stadium in play, or a Trainer the player played this turn), a
``warning`` otherwise, and a violation only where no card effect of the catalogue lifts the rule.
"""

from __future__ import annotations

from typing import Final

from replay.engine import findings as F
from replay.engine.board import Player
from replay.engine.card_effects import LIFTS
from replay.engine.findings import INFO, VIOLATION, WARNING, say
from replay.engine.state import Event, State

#: The turn rules' finding codes (docs/rules.md §6); each code's sentences cite its rule
#: (replay.engine.findings.SENTENCES).
RULES: Final[frozenset[str]] = frozenset(
    {
        "second_supporter",
        "second_energy",
        "second_stadium",
        "second_retreat",
        "supporter_first_turn",
        "attack_first_turn",
        "evolved_too_early",
    }
)
NOTHING: Final[frozenset[str]] = frozenset()


def severity(source_kind: object, lifts: frozenset[str], in_view: set[str]) -> tuple[str, str | None]:
    """(severity, why) of a turn-rule finding [decisions 3]: a violation on paper; on a digital client's
    log, info when a card that may lift the rule is in view, else a warning, unless no card lifts it."""
    if source_kind != "digital":
        return VIOLATION, None
    if not lifts:
        return VIOLATION, F.NOT_LIFTED
    seen = sorted(lifts & in_view)
    if seen:
        return INFO, say(F.IN_VIEW, cards=", ".join(seen))
    return WARNING, F.ENFORCED


def in_view(g: State, pl: Player) -> set[str]:
    """The cards whose effects may act for ``pl`` now: their Pokémon in play and what is attached to
    them, the Stadium in play, and the Trainers and effects they used this turn."""
    names = set(g.turn_cards if g.turn_player == pl.id else [])
    if g.stadium is not None:
        names.add(g.stadium)
    for pid in pl.in_play_pids():
        mon = g.mons.get(pid)
        if mon is not None:
            names.add(mon.name)
            names.update(mon.attached)
    return {n.replace("\u2019", "'") for n in names}


def restriction(g: State, code: str, seq: int, pl: Player, message: str, detail: str | None = None) -> None:
    """A finding about a turn rule, citing it, with the severity for this game's source."""
    sev, why = severity(g.source.get("kind"), LIFTS.get(code, NOTHING), in_view(g, pl))
    if detail and why:
        detail = say(F.DETAIL_AFTER, named=detail, why=why)
    g.find(code, seq, message, sev, detail or why or None)


def _this_turn(g: State, what: str) -> int:
    """Count one more ``what`` for the turn player this turn; how many now."""
    n = g.turn_counts.get(what, 0) + 1
    g.turn_counts[what] = n
    return n


def _theirs(g: State, pl: Player) -> bool:
    """Is it ``pl``'s turn (the limits count the turn player's own actions)?"""
    return g.turn > 0 and g.turn_player == pl.id


def trainer_played(g: State, e: Event, pl: Player, kind: object, name: str) -> None:
    """A Supporter or Stadium from the hand: one of each per turn; no Supporter on the first turn of the
    player who goes first (where the ruleset says so)."""
    if not _theirs(g, pl):
        return
    g.turn_cards.append(name)
    if e.get("effect"):
        g.turn_cards.append(str(e["effect"]))
        return  # the source names the effect that allowed it
    seq = e["seq"]
    if kind == "supporter":
        if not g.ruleset.first_turn_supporter and g.turn == 1 and pl.id == g.first:
            restriction(g, "supporter_first_turn", seq, pl, say(F.SUPPORTER_FIRST_TURN, player=pl.id))
        if _this_turn(g, "supporter") > 1:
            restriction(g, "second_supporter", seq, pl, say(F.SECOND_SUPPORTER, player=pl.id), f"{name}")
    elif kind == "stadium" and _this_turn(g, "stadium") > 1:
        restriction(g, "second_stadium", seq, pl, say(F.SECOND_STADIUM, player=pl.id), f"{name}")


def energy_attached(g: State, e: Event, pl: Player, name: str) -> None:
    """An Energy card attached from the hand outside an attack: one per turn."""
    if not _theirs(g, pl):
        return
    if e.get("effect"):
        g.turn_cards.append(str(e["effect"]))
        return  # attached by a named effect (an Ability, a Trainer), not the turn's attachment
    if _this_turn(g, "energy") > 1:
        restriction(g, "second_energy", e["seq"], pl, say(F.SECOND_ENERGY, player=pl.id), name)


def switched(g: State, e: Event, pl: Player) -> None:
    """The turn player's own Active switched outside an attack, by no named effect: a retreat, one per
    turn."""
    if not _theirs(g, pl):
        return
    if e.get("effect"):
        g.turn_cards.append(str(e["effect"]))
        return  # a switch by a named effect (Switch, an Ability), not a retreat
    if _this_turn(g, "retreat") > 1:
        restriction(g, "second_retreat", e["seq"], pl, say(F.SECOND_RETREAT, player=pl.id))
