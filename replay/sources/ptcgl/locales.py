"""Per-language facts about Pokémon TCG Live battle logs: headers, end lines, end reasons.

The phase headers (``Setup``, ``<P>'s Turn``, ``Pokémon Checkup``), the end line (``<reason>. <P> wins.``)
and the two draw results come from the client's own sentence table (``replay/sources/ptcgl/templates/``, the
same 228 keys in every language; see replay/sources/ptcgl/sentences.py). Only the ``Turn # N - `` prefix of
older clients is never translated [docs/importers.md, the export's traps].

The end *reasons* are not in that table. The English ones are read from real exports. Of the others, the
German "Alle Preiskarten genommen." is confirmed by a real German export (docs/importers.md lists the
sources); every other localised reason below was written by the team from the English text and is
**unverified** (marked ``UNVERIFIED`` here and in docs/importers.md): an unknown reason is read as
``unknown`` with an ``importer_unknown_reason`` finding, never guessed, and the winner is still read: the
game ends with that winner, reason unknown (docs/importers.md, the end-line table).

End reasons map to ``(kind, pov)``: ``kind`` is the result kind (prizes, no_pokemon, both, deck_out,
concession, timeout); ``pov`` says whether the exporter is the ``winner`` or the ``loser`` of the game
(``None``: the line does not tell).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from replay.sources.ptcgl.sentences import normal_template, sentence_table


@dataclass(frozen=True, slots=True)
class Locale:
    code: str
    setup: str
    checkup: str
    turn: re.Pattern[str]  # unnumbered turn header; group p = the player
    wins: re.Pattern[str]  # "<reason>. <winner> wins."; groups reason, w
    reasons: dict[str, tuple[str, str | None]]
    draw: dict[str, str]  # whole-line results without a winner -> "draw" | "sudden_death"
    turn_prefix: str = ""  # literal parts, for a cheap test before the regex
    turn_suffix: str = ""
    wins_suffix: str = ""


def header_ends(loc: Locale) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """What a turn header, the Setup or checkup header, the end line or a draw line of ``loc`` can look like,
    as three literal tests: a line is none of them unless it ends with one of ``ends``, or (when ``starts``
    is not empty) ends with ``suffix`` and starts with one of ``starts`` (a turn header of a language whose
    header starts with its literal text, ``Zug von P``, or a numbered one, ``Turn # 3 - ...``: a numbered
    header's rest is the line's end). The header tests run only on the few lines that pass (most lines are
    sentences):
    ``s.endswith(ends) or (starts and s.endswith(suffix) and s.startswith(starts))``."""
    fixed = (loc.setup, loc.checkup, loc.wins_suffix, *loc.draw)
    if not loc.turn_prefix:  # (English: "P's Turn") the turn header is told by its end alone
        return (*fixed, loc.turn_suffix), (), ""
    return fixed, ("Turn # ", loc.turn_prefix), loc.turn_suffix


W, L = "winner", "loser"

# reason -> (kind, pov). Verified: every English reason (real exports), German "Alle Preiskarten genommen.".
REASONS: dict[str, dict[str, tuple[str, str | None]]] = {
    "en": {
        "Opponent conceded.": ("concession", W),
        "You conceded.": ("concession", L),
        "All Prize cards taken.": ("prizes", None),
        "Opponent took all of their Prize cards.": ("prizes", L),
        "No Benched Pokémon for backup.": ("no_pokemon", None),
        "Knocked Out with no Benched Pokémon.": ("no_pokemon", None),
        "Knocked Out all your opponent's Pokémon in play and took all your Prize cards.": ("both", W),
        "Opponent Knocked Out all your Pokémon in play and took all their Prize cards.": ("both", L),
        "Opponent's deck ran out of cards.": ("deck_out", W),
        "Your deck ran out of cards.": ("deck_out", L),
        "Opponent was inactive for too long.": ("timeout", W),
    },
    "de": {
        "Alle Preiskarten genommen.": ("prizes", None),
        # UNVERIFIED (team translations of the English reasons)
        "Dein Gegner hat aufgegeben.": ("concession", W),
        "Du hast aufgegeben.": ("concession", L),
        "Dein Gegner hat alle seine Preiskarten genommen.": ("prizes", L),
        "Keine Pokémon auf der Bank als Ersatz.": ("no_pokemon", None),
        "Kampfunfähig ohne Pokémon auf der Bank.": ("no_pokemon", None),
        "Das Deck deines Gegners ist leer.": ("deck_out", W),
        "Dein Deck ist leer.": ("deck_out", L),
        "Dein Gegner war zu lange inaktiv.": ("timeout", W),
    },
    "es": {
        # UNVERIFIED (team translations of the English reasons)
        "Tu rival se ha rendido.": ("concession", W),
        "Te has rendido.": ("concession", L),
        "Todas las cartas de Premio tomadas.": ("prizes", None),
        "Tu rival ha cogido todas sus cartas de Premio.": ("prizes", L),
        "No hay Pokémon en la Banca para sustituir.": ("no_pokemon", None),
        "Debilitado sin Pokémon en la Banca.": ("no_pokemon", None),
        "La baraja de tu rival se ha quedado sin cartas.": ("deck_out", W),
        "Tu baraja se ha quedado sin cartas.": ("deck_out", L),
        "Tu rival ha estado inactivo demasiado tiempo.": ("timeout", W),
    },
    "es_la": {
        # Latin-American Spanish: read from a real export (tests/data/ptcgl/real/es_la_*.txt)
        "Todas las cartas de Premio tomadas.": ("prizes", None),
        # UNVERIFIED: seen in a public parser's patterns (jspenaq/PokeCoach), not in an export we hold
        "El rival se rindió.": ("concession", W),
        "Te rendiste.": ("concession", L),
        # UNVERIFIED (team translations of the English reasons, in the table's Latin-American wording)
        "El rival tomó todas sus cartas de Premio.": ("prizes", L),
        "No hay Pokémon en la Banca para reemplazarlo.": ("no_pokemon", None),
        "Quedó Fuera de Combate sin Pokémon en la Banca.": ("no_pokemon", None),
        "El mazo del rival se quedó sin cartas.": ("deck_out", W),
        "Tu mazo se quedó sin cartas.": ("deck_out", L),
        "El rival estuvo inactivo demasiado tiempo.": ("timeout", W),
    },
    "fr": {
        # Read from real French exports (github.com/Huang-Frederic/I.R.I.S, lib/ptcg/fixtures/: no licence,
        # read, not copied); the client prints the last one with two full stops.
        "Toutes les cartes Récompense ont été récupérées.": ("prizes", None),
        "L'adversaire a récupéré toutes ses cartes Récompense.": ("prizes", L),
        (
            "L'adversaire a mis K.O. tous vos Pokémon en jeu, et toutes ses cartes Récompense "
            "ont été récupérées.."
        ): ("both", L),
        # Read from a real French export (issue 35: "L'adversaire a concédé la partie. X gagne."; the
        # team's earlier guess "a abandonné" was wrong)
        "L'adversaire a concédé la partie.": ("concession", W),
        # UNVERIFIED (team translations of the English reasons, in the client's verb for a concession)
        "Vous avez concédé la partie.": ("concession", L),
        "Aucun Pokémon de Banc pour le remplacer.": ("no_pokemon", None),
        "K.O. sans Pokémon de Banc.": ("no_pokemon", None),
        "Le deck de l'adversaire est vide.": ("deck_out", W),
        "Votre deck est vide.": ("deck_out", L),
        "L'adversaire est resté inactif trop longtemps.": ("timeout", W),
    },
    "it": {
        # UNVERIFIED (team translations of the English reasons)
        "L'avversario ti ha concesso la vittoria.": ("concession", W),
        "Hai concesso la vittoria all'avversario.": ("concession", L),
        "Tutte le carte Premio sono state prese.": ("prizes", None),
        "L'avversario ha preso tutte le sue carte Premio.": ("prizes", L),
        "Nessun Pokémon in panchina come riserva.": ("no_pokemon", None),
        "Messo KO senza Pokémon in panchina.": ("no_pokemon", None),
        "Il mazzo dell'avversario è finito.": ("deck_out", W),
        "Il tuo mazzo è finito.": ("deck_out", L),
        "L'avversario è rimasto inattivo troppo a lungo.": ("timeout", W),
    },
    "pt-BR": {
        # UNVERIFIED (team translations of the English reasons)
        "O oponente se rendeu.": ("concession", W),
        "Você se rendeu.": ("concession", L),
        "Todas as cartas de Prêmio foram pegas.": ("prizes", None),
        "O oponente pegou todas as cartas de Prêmio dele.": ("prizes", L),
        "Nenhum Pokémon no Banco para substituir.": ("no_pokemon", None),
        "Nocauteado sem Pokémon no Banco.": ("no_pokemon", None),
        "O baralho do oponente acabou.": ("deck_out", W),
        "Seu baralho acabou.": ("deck_out", L),
        "O oponente ficou inativo por tempo demais.": ("timeout", W),
    },
}


# The client's texts a Locale is made of: every language's are read to tell a log's language (start-up).
_HEADERS = (
    "blog_loc_phase_turn",
    "blog_loc_end_game",
    "blog_loc_phase_setup",
    "blog_loc_phase_checkup",
    "battle_draw",
    "blog_loc_sudden_death",
)


def _labels(code: str) -> dict[str, str]:
    """The header and end-line texts of one language, normalised as Sentences.labels holds them; the
    language's ~230 sentences are neither normalised nor compiled before a log in it is met."""
    table = sentence_table(code)
    return {k: normal_template(table[k]) for k in _HEADERS}


def _locale(code: str) -> Locale:
    lab = _labels(code)
    turn = lab["blog_loc_phase_turn"]
    prefix, _, suffix = turn.partition("[playerName]")
    end = lab["blog_loc_end_game"]  # "[gameEndReason]. [playerName] wins."
    wins = end.split("[playerName]", 1)[1]
    return Locale(
        code=code,
        setup=lab["blog_loc_phase_setup"],
        checkup=lab["blog_loc_phase_checkup"],
        turn=re.compile("^" + re.escape(prefix) + r"(?P<p>\S+)" + re.escape(suffix) + "$"),
        wins=re.compile(r"^(?P<reason>.+?) (?P<w>\S+)" + re.escape(wins) + "$"),
        reasons={k.replace("\u2019", "'"): v for k, v in REASONS[code].items()},
        draw={lab["battle_draw"]: "draw", lab["blog_loc_sudden_death"]: "sudden_death"},
        turn_prefix=prefix,
        turn_suffix=suffix,
        wins_suffix=wins,
    )


LOCALES: dict[str, Locale] = {code: _locale(code) for code in REASONS}


def with_handles(loc: Locale, handles: list[str]) -> Locale:
    """``loc`` for a log whose handles hold spaces (``[abc] Gary``, read from its opening lines): the turn
    header's and the end line's player is one of ``handles`` (longest first), else a word as usual."""
    alts = "|".join(re.escape(h) for h in sorted(handles, key=len, reverse=True)) + r"|\S+"
    wins = _labels(loc.code)["blog_loc_end_game"].split("[playerName]", 1)[1]
    return replace(
        loc,
        turn=re.compile(
            "^" + re.escape(loc.turn_prefix) + f"(?P<p>{alts})" + re.escape(loc.turn_suffix) + "$"
        ),
        wins=re.compile(rf"^(?P<reason>.+?) (?P<w>{alts})" + re.escape(wins) + "$"),
    )


# The only part of a header no client translates [docs/importers.md, the export's traps].
NUMBERED = re.compile(r"^Turn # (?P<n>\d+) - (?P<rest>.+)$")
