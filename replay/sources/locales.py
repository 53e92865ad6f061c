"""Localisation tables for Pokémon TCG Live battle logs: phase headers and end lines.

Localised clients translate every sentence except the ``Turn # N - `` prefix [ptcgl-format.md, Shape].
The importer reads the full English template set; for the other languages it reads the phase headers and
the end line (enough to recover turns and the claimed result) and reports every other line as unmatched.

Checked against the shape of public localised exports: the Setup and turn headers of de, es, it and pt-BR,
the "<winner> hat gewonnen." / "ganó." / "ha vinto." / "venceu." endings, and the reasons "Alle Preiskarten
genommen.", "Todas las cartas de Premio tomadas.", "Hai concesso la vittoria all'avversario." and "O oponente
se rendeu.". Every other string here (all of fr, the Checkup headers, the remaining reasons) was written by
the team from the English templates and is unverified (docs/importers.md says so). Add or fix a language by
editing this table only: the parser has no per-language code.

End reasons map to ``(kind, pov)``: ``kind`` is the result kind (prizes, no_pokemon, both, deck_out,
concession, timeout, draw, sudden_death); ``pov`` says whether the exporter is the ``winner`` or the
``loser`` of the game (``None``: the line does not tell).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Locale:
    code: str
    setup: str
    checkup: str
    turn: re.Pattern[str]  # unnumbered turn header; group p = the player
    wins: re.Pattern[str]  # "<reason> <winner> wins."; groups reason, w
    reasons: dict[str, tuple[str, str | None]]
    draw: dict[str, str]  # whole-line results without a winner -> "draw" | "sudden_death"
    turn_prefix: str = ""  # literal parts, for a cheap test before the regex
    turn_suffix: str = ""
    wins_suffix: str = ""


def _loc(
    code: str,
    setup: str,
    checkup: str,
    turn: str,
    wins: str,
    reasons: dict[str, tuple[str, str | None]],
    draw: tuple[str, str],
) -> Locale:
    return Locale(
        code=code,
        setup=setup,
        checkup=checkup,
        turn=re.compile("^" + turn.replace("{P}", r"(?P<p>\S+)") + "$"),
        wins=re.compile(r"^(?P<reason>.+?) (?P<w>\S+) " + re.escape(wins) + "$"),
        reasons=reasons,
        draw={draw[0]: "draw", draw[1]: "sudden_death"},
        turn_prefix=turn.split("{P}")[0],
        turn_suffix=turn.split("{P}")[1],
        wins_suffix=" " + wins,
    )


W, L = "winner", "loser"

LOCALES: dict[str, Locale] = {
    "en": _loc(
        "en",
        "Setup",
        "Pokémon Checkup",
        "{P}'s Turn",
        "wins.",
        {
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
        ("Draw!", "Entering Sudden Death."),
    ),
    "de": _loc(
        "de",
        "Vorbereitung",
        "Pokémon-Check",
        "Zug von {P}",
        "hat gewonnen.",
        {
            "Dein Gegner hat aufgegeben.": ("concession", W),
            "Du hast aufgegeben.": ("concession", L),
            "Alle Preiskarten genommen.": ("prizes", None),
            "Dein Gegner hat alle seine Preiskarten genommen.": ("prizes", L),
            "Keine Pokémon auf der Bank als Ersatz.": ("no_pokemon", None),
            "Kampfunfähig ohne Pokémon auf der Bank.": ("no_pokemon", None),
            "Alle Pokémon des Gegners im Spiel kampfunfähig gemacht und alle Preiskarten genommen.": (
                "both",
                W,
            ),
            "Dein Gegner hat alle deine Pokémon im Spiel kampfunfähig gemacht und alle seine Preiskarten "
            "genommen.": ("both", L),
            "Das Deck deines Gegners ist leer.": ("deck_out", W),
            "Dein Deck ist leer.": ("deck_out", L),
            "Dein Gegner war zu lange inaktiv.": ("timeout", W),
        },
        ("Unentschieden!", "Sudden Death beginnt."),
    ),
    "es": _loc(
        "es",
        "Preparación",
        "Chequeo Pokémon",
        "Turno de {P}",
        "ganó.",
        {
            "Tu rival se ha rendido.": ("concession", W),
            "Te has rendido.": ("concession", L),
            "Todas las cartas de Premio tomadas.": ("prizes", None),
            "Tu rival ha cogido todas sus cartas de Premio.": ("prizes", L),
            "No hay Pokémon en la Banca para sustituir.": ("no_pokemon", None),
            "Debilitado sin Pokémon en la Banca.": ("no_pokemon", None),
            "Has debilitado a todos los Pokémon en juego de tu rival y has cogido todas tus cartas de "
            "Premio.": ("both", W),
            "Tu rival ha debilitado a todos tus Pokémon en juego y ha cogido todas sus cartas de Premio.": (
                "both",
                L,
            ),
            "La baraja de tu rival se ha quedado sin cartas.": ("deck_out", W),
            "Tu baraja se ha quedado sin cartas.": ("deck_out", L),
            "Tu rival ha estado inactivo demasiado tiempo.": ("timeout", W),
        },
        ("¡Empate!", "Comienza la muerte súbita."),
    ),
    "fr": _loc(
        "fr",
        "Préparation",
        "Contrôle Pokémon",
        "Tour de {P}",
        "gagne.",
        {
            "L'adversaire a abandonné.": ("concession", W),
            "Vous avez abandonné.": ("concession", L),
            "Toutes les cartes Récompense ont été prises.": ("prizes", None),
            "L'adversaire a pris toutes ses cartes Récompense.": ("prizes", L),
            "Aucun Pokémon de Banc pour le remplacer.": ("no_pokemon", None),
            "K.O. sans Pokémon de Banc.": ("no_pokemon", None),
            "Vous avez mis K.O. tous les Pokémon en jeu de l'adversaire et pris toutes vos cartes "
            "Récompense.": ("both", W),
            "L'adversaire a mis K.O. tous vos Pokémon en jeu et pris toutes ses cartes Récompense.": (
                "both",
                L,
            ),
            "Le deck de l'adversaire est vide.": ("deck_out", W),
            "Votre deck est vide.": ("deck_out", L),
            "L'adversaire est resté inactif trop longtemps.": ("timeout", W),
        },
        ("Égalité !", "Mort subite."),
    ),
    "it": _loc(
        "it",
        "Allestimento",
        "Controllo Pokémon",
        "Turno di {P}",
        "ha vinto.",
        {
            "L'avversario ti ha concesso la vittoria.": ("concession", W),
            "Hai concesso la vittoria all'avversario.": ("concession", L),
            "Tutte le carte Premio sono state prese.": ("prizes", None),
            "L'avversario ha preso tutte le sue carte Premio.": ("prizes", L),
            "Nessun Pokémon in panchina come riserva.": ("no_pokemon", None),
            "Messo KO senza Pokémon in panchina.": ("no_pokemon", None),
            "Hai messo KO tutti i Pokémon in gioco dell'avversario e hai preso tutte le tue carte Premio.": (
                "both",
                W,
            ),
            "L'avversario ha messo KO tutti i tuoi Pokémon in gioco e ha preso tutte le sue carte Premio.": (
                "both",
                L,
            ),
            "Il mazzo dell'avversario è finito.": ("deck_out", W),
            "Il tuo mazzo è finito.": ("deck_out", L),
            "L'avversario è rimasto inattivo troppo a lungo.": ("timeout", W),
        },
        ("Pareggio!", "Inizia la morte improvvisa."),
    ),
    "pt-BR": _loc(
        "pt-BR",
        "Preparação",
        "Checagem Pokémon",
        "Turno de {P}",
        "venceu.",
        {
            "O oponente se rendeu.": ("concession", W),
            "Você se rendeu.": ("concession", L),
            "Todas as cartas de Prêmio foram pegas.": ("prizes", None),
            "O oponente pegou todas as cartas de Prêmio dele.": ("prizes", L),
            "Nenhum Pokémon no Banco para substituir.": ("no_pokemon", None),
            "Nocauteado sem Pokémon no Banco.": ("no_pokemon", None),
            "Você nocauteou todos os Pokémon em jogo do oponente e pegou todas as suas cartas de Prêmio.": (
                "both",
                W,
            ),
            "O oponente nocauteou todos os seus Pokémon em jogo e pegou todas as cartas de Prêmio dele.": (
                "both",
                L,
            ),
            "O baralho do oponente acabou.": ("deck_out", W),
            "Seu baralho acabou.": ("deck_out", L),
            "O oponente ficou inativo por tempo demais.": ("timeout", W),
        },
        ("Empate!", "Morte Súbita."),
    ),
}

# The only part of a header no client translates [ptcgl-format.md, Shape].
NUMBERED = re.compile(r"^Turn # (?P<n>\d+) - (?P<rest>.+)$")
