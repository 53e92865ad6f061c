"""Synthetic Pokémon TCG Live battle logs for tests and benchmarks (never real players' logs).

``synthetic_log(seed)`` plays a small, consistent and legal game with ``random.Random(seed)`` (one Energy
attached from the hand and one Supporter a turn, no Supporter or attack on the first turn of the game,
no evolution on a player's first turn or of a Pokémon played that turn) and prints it in the client's
English templates: draws (named for the exporter, hidden for the opponent), Bench plays,
attachments, evolutions, Abilities, attacks with spread damage and Special Conditions, Pokémon Checkups,
knockouts, aggregated prize lines and promotions, ending with prizes, no Pokémon or a concession. The
returned catalogue gives every Pokémon's HP, so a test can import with or without HP.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

# (name, hp, evolves into or None)
_BASICS = (
    ("Charmander", 70, "Charmeleon"), ("Pidgey", 60, "Pidgeotto"), ("Dreepy", 70, "Drakloak"),
    ("Duskull", 60, "Dusclops"), ("Lugia V", 220, None), ("Miraidon ex", 220, None),
    ("Iron Hands ex", 230, None), ("Radiant Greninja", 130, None), ("Bidoof", 60, "Bibarel"),
    ("Mew ex", 180, None),
)  # fmt: skip
_STAGE1 = {"Charmeleon": 90, "Pidgeotto": 80, "Drakloak": 90, "Dusclops": 90, "Bibarel": 120}
_TRAINERS = ("Ultra Ball", "Nest Ball", "Arven", "Iono", "Boss's Orders", "Rare Candy", "Switch", "Pal Pad")
_SUPPORTERS = frozenset({"Arven", "Iono", "Boss's Orders"})
_ENERGY = ("Fire Energy", "Psychic Energy", "Lightning Energy", "Double Turbo Energy")
_HANDLES = ("Ash", "Ashley", "7seas", "Éloïse_k", "Kai-2", "Mo_Mo")


@dataclass
class _Mon:
    name: str
    hp: int
    evolves: str | None
    damage: int = 0
    poisoned: bool = False
    entered: int = 0


@dataclass
class _Side:
    name: str
    active: _Mon | None = None
    bench: list[_Mon] = field(default_factory=list)
    prizes: int = 6


def _prize_value(name: str) -> int:
    return 2 if name.endswith((" ex", " V")) else 1


def synthetic_log(seed: int, *, target_lines: int = 400) -> tuple[str, dict[str, int], str, str]:
    """(log text, catalogue name -> HP, winner, reason kind) for one generated game."""
    rng = random.Random(seed)
    a, b = rng.sample(_HANDLES, 2)
    exporter = rng.choice((a, b))
    sides = {a: _Side(a), b: _Side(b)}
    hp: dict[str, int] = dict(_STAGE1)
    lines: list[str] = ["Setup", f"{b} chose heads for the opening coin flip.", f"{a} won the coin toss.",
                        f"{a} decided to go first."]  # fmt: skip
    numbered = rng.random() < 0.5

    def mon(side: _Side) -> _Mon:
        # one of each name per side: a log cannot tell same-named copies apart (tests cover that case)
        taken = {m.name for m in [side.active, *side.bench] if m is not None}
        taken |= {n for n, _, e in _BASICS if e is not None and _STAGE1.get(e or "") and e in taken}
        name, h, evo = rng.choice([b for b in _BASICS if b[0] not in taken and (b[2] or "") not in taken])
        hp[name] = h
        return _Mon(name, h, evo)

    for p in (a, b):
        lines.append(f"{p} drew 7 cards for the opening hand.")
        lines.append("- 7 drawn cards.")
        if p == exporter:
            lines.append("   • " + ", ".join(rng.choice(_TRAINERS) for _ in range(7)))
    for p in (a, b):
        s = sides[p]
        s.active = mon(s)
        lines.append(f"{p} played {s.active.name} to the Active Spot.")
        for _ in range(rng.randint(1, 2)):
            m = mon(s)
            s.bench.append(m)
            lines.append(f"{p} played {m.name} to the Bench.")
    per_turn = max(4, target_lines // 25)
    deck = {a: 47, b: 47 - rng.choice((0, 0, 0, 20, 40))}  # a thin deck now and then: deck-out endings
    turn = 0
    player, other = a, b
    winner, reason = "", ""
    while not winner:
        turn += 1
        lines.append("")
        n = (turn + 1) // 2
        lines.append(f"Turn # {n} - {player}'s Turn" if numbered else f"{player}'s Turn")
        me, opp = sides[player], sides[other]
        assert me.active is not None and opp.active is not None
        if deck[player] == 0:
            # [docs/rules.md §1.3] deck-out: the header is followed straight by the end line
            why = "Your deck ran out of cards." if player == exporter else "Opponent's deck ran out of cards."
            winner, reason = other, "deck_out"
            lines.append(f"{why} {other} wins.")
            break
        deck[player] -= 1
        lines.append(
            f"{player} drew {rng.choice(_TRAINERS)}." if player == exporter else f"{player} drew a card."
        )
        if len(lines) > target_lines - 12:
            winner, reason = other, "concession"
            lines.append(
                ("You conceded." if player == exporter else "Opponent conceded.") + f" {other} wins."
            )
            break
        # A legal turn [docs/rules.md §6, "The turn's limits"]: one Energy attached from the hand, one
        # Supporter (none on the first turn of the player who goes first).
        attached = supporter = False
        for _ in range(rng.randint(per_turn // 2, per_turn)):
            r = rng.random()
            if r < 0.2 and len(me.bench) < 5:
                m = mon(me)
                m.entered = turn
                me.bench.append(m)
                lines.append(f"{player} played {m.name} to the Bench.")
            elif r < 0.35 and turn > 2:
                cands = [m for m in me.bench if m.evolves and m.entered < turn]
                if cands:
                    m = rng.choice(cands)
                    old, new = m.name, m.evolves or m.name
                    m.name, m.hp, m.evolves, m.entered = new, _STAGE1[new], None, turn
                    lines.append(f"{player} evolved {old} to {m.name} on the Bench.")
            elif r < 0.55:
                target = rng.choice([me.active, *me.bench])
                where = "in the Active Spot" if target is me.active else "on the Bench"
                energy = rng.choice(_ENERGY)
                if not attached:
                    attached = True
                    lines.append(f"{player} attached {energy} to {target.name} {where}.")
            elif r < 0.65 and deck[player] >= 2:
                lines.append(f"{player}'s {me.active.name} used Quick Search.")
                if player != exporter:
                    deck[player] -= 2
                    lines.append(f"- {player} drew 2 cards.")
                else:
                    deck[player] -= 1
                    lines.append(f"- {player} drew Iono.")
            else:
                t = rng.choice(_TRAINERS[:3])
                if t in _SUPPORTERS:
                    if supporter or turn == 1:
                        t = "Ultra Ball"  # an Item instead: a Supporter is once a turn, never on turn 1
                    supporter = supporter or t in _SUPPORTERS
                lines.append(f"{player} played {t}.")
                lines.append(f"- {player} discarded {rng.choice(_ENERGY)}.")
        if turn == 1:
            lines.append(f"{player} ended their turn.")
        else:
            dmg = rng.choice((10, 30, 30, 60, 90, 120, 180))
            target_name = opp.active.name
            lines.append(
                f"{player}'s {me.active.name} used Strike on {other}\u2019s {target_name} for {dmg} damage."
            )
            opp.active.damage += dmg
            knocked = [opp.active] if opp.active.damage >= opp.active.hp else []
            if opp.bench and rng.random() < 0.3:
                hit = rng.choice(opp.bench)
                hit.damage += 30
                lines.append(f"- {other}\u2019s {hit.name} took 30 damage.")
                if hit.damage >= hit.hp:
                    knocked.append(hit)
            if opp.active not in knocked and rng.random() < 0.3 and not opp.active.poisoned:
                opp.active.poisoned = True
                lines.append(f"- {other}'s {opp.active.name} is now Poisoned.")
            value = 0
            for k in knocked:
                lines.append(f"{other}'s {k.name} was Knocked Out!")
                value += _prize_value(k.name)
                if k is opp.active:
                    opp.active = None
                else:
                    opp.bench.remove(k)
            if value:
                got = min(value, me.prizes)
                me.prizes -= got
                lines.append(f"{player} took {'a Prize card' if got == 1 else f'{got} Prize cards'}.")
                for _ in range(got):
                    lines.append(f"A card was added to {player}'s hand." if player != exporter
                                 else f"{rng.choice(_TRAINERS)} was added to {player}'s hand.")  # fmt: skip
            if me.prizes == 0:
                winner, reason = player, "prizes"
                lines.append(("All Prize cards taken." if player == exporter else
                              "Opponent took all of their Prize cards.") + f" {player} wins.")  # fmt: skip
                break
            if opp.active is None:
                if not opp.bench:
                    winner, reason = player, "no_pokemon"
                    lines.append(f"Knocked Out with no Benched Pokémon. {player} wins.")
                    break
                opp.active = opp.bench.pop(rng.randrange(len(opp.bench)))
                if any(m.name == opp.active.name for m in opp.bench):
                    # keep the log unambiguous: the generator never promotes one of two identical names
                    opp.bench = [m for m in opp.bench if m.name != opp.active.name] + [
                        m for m in opp.bench if m.name == opp.active.name
                    ]
                lines.append(f"{other}'s {opp.active.name} is now in the Active Spot.")
            # checkup: poison on the opponent's Active
            if opp.active is not None and opp.active.poisoned:
                lines.append("")
                lines.append("Pokémon Checkup")
                opp.active.damage += 10
                lines.append(f"1 damage counter was placed on {other}'s {opp.active.name} for the Special "
                             "Condition Poisoned.")  # fmt: skip
                if opp.active.damage >= opp.active.hp:
                    lines.append(f"{other}'s {opp.active.name} was Knocked Out!")
                    got = min(_prize_value(opp.active.name), me.prizes)
                    me.prizes -= got
                    lines.append(f"{player} took {'a Prize card' if got == 1 else f'{got} Prize cards'}.")
                    opp.active = None
                    if me.prizes == 0:
                        winner, reason = player, "prizes"
                        why = (
                            "All Prize cards taken."
                            if player == exporter
                            else "Opponent took all of their Prize cards."
                        )
                        lines.append(f"{why} {player} wins.")
                        break
                    if not opp.bench:
                        winner, reason = player, "no_pokemon"
                        lines.append(f"No Benched Pokémon for backup. {player} wins.")
                        break
                    opp.active = opp.bench.pop(0)
                    lines.append(f"{other}'s {opp.active.name} is now in the Active Spot.")
        player, other = other, player
    return "\n".join(lines) + "\n", hp, winner, reason


# -- the same log in another client language ------------------------------------------------------------

_CARD_SLOTS = frozenset({
    "cardName", "sourceCardName", "targetCardName", "pokemonCardName", "targetPokemonCardName",
    "attackingPokemonCardName", "sourcePokemonCardName",
})  # fmt: skip


def translate_log(text: str, code: str) -> str:
    """An English battle log written again in the client language ``code`` (de, fr, es, it, pt-BR):
    every line re-rendered from the same template key of that language's table, card, attack and Ability
    names taken from the card catalogue in that language (English kept where it has none), handles and
    numbers kept. For test fixtures in the shape of a localised export (never a real player's log); the
    end reasons come from replay/sources/ptcgl/locales.py (unverified except where it says so)."""
    import re

    from replay.sources.cards import card_database, display_name
    from replay.sources.ptcgl.locales import LOCALES, NUMBERED, REASONS
    from replay.sources.ptcgl.sentences import Sentences, language_of, normal_text

    en, to = Sentences.for_language("en"), Sentences.for_language(code)
    lang = language_of(code)
    db = card_database()
    reason_by_kind = {v: k for k, v in REASONS[code].items()}
    labels = (
        "blog_loc_a_card",
        "blog_loc_another_card",
        "blog_loc_hidden_card",
        "blog_loc_unspecified_pokemon",
    )

    def card(name: str) -> str:
        low = name.casefold()
        for key in labels:
            if en.labels.get(key, "").casefold() == low:
                out = to.labels[key]
                return out[0].upper() + out[1:] if name[:1].isupper() else out
        m = en.n_cards.fullmatch(name)
        if m is not None:
            return to.labels["blog_loc_number_of_cards"].replace("[numCards]", m.group(1))
        return display_name(name, lang)

    def move(attacker: str, name: str) -> str:
        for info in db.lookup(attacker):
            for m in (*info.attacks, *info.abilities):
                if m.get("en") == name and lang in m:
                    return m[lang]
        return name

    out: list[str] = []
    for raw in normal_text(text.lstrip("\ufeff")).splitlines():
        s = raw.strip()
        lead = raw[: len(raw) - len(raw.lstrip())]
        if not s:
            out.append("")
            continue
        if s.startswith("•"):
            out.append(lead + "• " + ", ".join(card(n.strip()) for n in s[1:].split(",")))
            continue
        dash = "- " if s.startswith("- ") else ""
        body = s[2:] if dash else s
        prefix = ""
        nm = NUMBERED.match(body)
        if nm is not None:
            prefix, body = f"Turn # {nm.group('n')} - ", nm.group("rest")
        end = LOCALES["en"].wins.match(body)
        if end is not None and end.group("reason") in REASONS["en"]:
            reason = reason_by_kind.get(REASONS["en"][end.group("reason")], end.group("reason"))
            line = to.labels["blog_loc_end_game"].replace("[gameEndReason].", reason)
            out.append(lead + dash + prefix + line.replace("[playerName]", end.group("w")))
            continue
        parts = en.match(body)
        if not parts:
            out.append(raw)  # not a client sentence: kept as it is
            continue
        rendered = []
        for m in parts:
            line = to.table[m.key]
            vals = dict(m.raw)
            attacker = vals.get("attackingPokemonCardName", "")
            for ph, v in vals.items():
                if ph in _CARD_SLOTS:
                    v = card(v)
                elif ph in ("attackName", "specialMove"):
                    v = move(attacker, v)
                elif ph == "specialConditionName":
                    v = to.labels[f"blog_loc_condition_{m.g['cond']}"]
                elif ph == "coinFace":
                    v = to.labels["blog_loc_heads" if v == "heads" else "blog_loc_tails"]
                line = line.replace(f"[{ph}]", v)
            rendered.append(re.sub(r"\s+", " ", line).strip())
        out.append(lead + dash + prefix + " ".join(rendered))
    return "\n".join(out) + "\n"
