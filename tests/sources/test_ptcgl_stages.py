"""The PTCGL importer's stages one by one (replay/sources/ptcgl/): lines and language (a line to a typed
sentence), facts, the walk's handlers (turns, play, zones, moves, window) on an import state built by hand,
cards (catalogue look-ups, same-named Pokémon) and events (the stream, its findings and its counts). The
whole pipeline is tested on logs in test_import_ptcgl.py and test_ptcgl_real.py."""

from __future__ import annotations

import pytest

from replay.engine.errors import InputError
from replay.engine.ruleset import load_ruleset
from replay.sources.cards import NO_CATALOGUE, Catalogue, card_database
from replay.sources.common import Event
from replay.sources.ptcgl import facts
from replay.sources.ptcgl.cards import LogCards, choose, clues
from replay.sources.ptcgl.events import Stream
from replay.sources.ptcgl.importer import Importer
from replay.sources.ptcgl.language import detect_locale, name_unread, unread
from replay.sources.ptcgl.lines import Line, card_ids, classify, normalise
from replay.sources.ptcgl.locales import LOCALES
from replay.sources.ptcgl.walk import walk_lines
from replay.sources.ptcgl.window import close_window
from replay.sources.table import Table
from tests.paths import DATA

EN = LOCALES["en"]


# -- lines: a line to a typed sentence --------------------------------------------------------------------
def kinds(text: str, loc: str = "en") -> list[tuple[str, bool]]:
    return [(ln.kind, ln.detail) for ln in classify(normalise(text), LOCALES[loc])]


def test_normalise_and_card_ids() -> None:
    text = "\ufeffSetup\r\nAsh’s (sv6_163) Secret Box\r\n(me3_48_ph) Pokemon Center"
    assert normalise(text) == ["Setup", "Ash's Secret Box", "Pokémon Center"]
    assert card_ids("Ash played (sv6_163) Secret Box.") == {"Secret Box": {"sv6_163"}}


def test_headers_details_lists_and_the_end() -> None:
    lines = classify(
        normalise(
            "Setup\nTurn # 2 - Ash's Turn\nMisty's Turn\n[playerName]'s Turn\nAsh drew 2 cards.\n"
            "   • Iono, Switch\n- Ash shuffled their deck.\nOpponent conceded. Ash wins."
        ),
        EN,
    )
    assert [ln.kind for ln in lines] == [
        "setup",
        "turn",
        "turn",
        "turn",
        "drew_n",
        "bullet",
        "shuffle",
        "end",
    ]
    assert (lines[1].player, lines[1].extra, lines[2].player, lines[3].player) == ("Ash", 2, "Misty", None)
    assert lines[4].extra == ["Iono", "Switch"] and lines[6].detail
    assert lines[7].player == "Ash" and lines[7].extra[0] == "concession"


def test_two_sentences_on_one_line_and_a_flattened_paste() -> None:
    assert kinds("Ash attached Jet Energy to Pikachu on the Bench. Jet Energy was activated.") == [
        ("attached", False),
        ("ignore", True),
    ]
    assert kinds("Ash drew 7 cards for the opening hand. - 7 drawn cards.") == [
        ("opening", False),
        ("list_head", True),
    ]


def test_signed_numbers_and_a_line_a_vaguer_sentence_reads() -> None:
    line = (
        "Ash's Greninja ex used Mirage Barrage on Misty's Slowking for 90 damage. "
        "Misty's Slowking took -30 less damage because of Fighting Resistance."
    )
    (ln,) = classify([line], EN)
    assert ln.kind == "attack" and ln.g is not None and not ln.partial
    assert (ln.g["d"], ln.g["n"], ln.g["numReducedDamage"]) == ("Slowking", "90", "-30")
    # a line the specific sentence cannot read (a name with a sentence joint in it): the vaguer one that
    # reads it says so
    (vague,) = classify(["Ash's Greninja ex used Mirage Barrage on Misty's Slowking for lots of damage."], EN)
    assert vague.kind == "used" and vague.partial == "blog_loc_applied_damage"


def test_latin_american_spanish_and_its_older_wording() -> None:
    text = (
        "Preparación\nTurno de jugador1\njugador1 robó una carta.\n- jugador1 barajó su baraja.\n"
        "- jugador1 barajó su mazo.\nEl Miraidon de jugador1 pasa a estar en el Puesto Activo.\n"
        "Todas las cartas de Premio tomadas. jugador1 ganó."
    )
    loc = detect_locale(normalise(text), "x.txt")
    assert loc.code == "es_la"
    got = kinds(text, "es_la")
    assert got[2:6] == [("drew_hidden", False), ("shuffle", True), ("shuffle", True), ("now_active", False)]
    assert got[-1] == ("end", False)


# -- language ---------------------------------------------------------------------------------------------
def test_a_language_we_do_not_read_is_named() -> None:
    ja = (DATA / "ptcgl" / "lang_ja_unsupported.txt").read_text("utf-8")
    assert name_unread(ja.splitlines()) == "Japanese (ja)"
    with pytest.raises(InputError, match=r"looks Japanese \(ja\)"):
        detect_locale(ja.splitlines(), "ja.txt")
    ko = ["준비", "Turn # 1 - Kai의 턴", "Kai는 카드를 1장 뽑았다."]
    with pytest.raises(InputError, match=r"looks Korean \(ko\)"):
        detect_locale(ko, "ko.txt")


def test_a_cut_off_log_and_a_log_in_another_variant_get_different_messages() -> None:
    raw = normalise((DATA / "ptcgl" / "real" / "es_la_miraidon-vs-lugia.txt").read_text("utf-8"))[:240]
    # read with the Spanish of Spain, whose headers it shares: most sentences are not read
    err = unread(raw, [ln.kind for ln in classify(raw, LOCALES["es"])], LOCALES["es"], "x.txt")
    assert err is not None and "unsupported language" in str(err) and "Spanish (Spain)" in str(err)
    # read with its own table it is simply cut off
    assert unread(raw, [ln.kind for ln in classify(raw, LOCALES["es_la"])], LOCALES["es_la"], "x.txt") is None


# -- facts and the walk's handlers ------------------------------------------------------------------------
OPENING = """Setup
Ash chose heads for the opening coin flip.
Misty won the coin toss.
Misty decided to go first.
Ash drew 7 cards for the opening hand.
- 7 drawn cards.
   • Charmander, Charmander, Fire Energy, Potion, Switch, Gravity Mountain, Hero's Cape
Misty drew 7 cards for the opening hand.
- 7 drawn cards.
Ash played Charmander to the Active Spot.
Misty played Pidgey to the Active Spot.

Turn # 1 - Misty's Turn
Misty drew a card.
Misty ended their turn.

Turn # 1 - Ash's Turn
Ash drew Fire Energy.
Ash played Charmander to the Bench.
Ash attached Fire Energy to Charmander on the Bench.
"""


def state(text: str) -> tuple[Importer, list[Line]]:
    """The import state parse_ptcgl builds before its walk, for a log in English."""
    raw = normalise(text)
    loc = detect_locale(raw, "t.txt")
    lines = classify(raw, loc)
    out = Stream()
    players = facts.find_players(lines, "t.txt", out.find)
    table = out.table = Table(players)
    cards = LogCards(NO_CATALOGUE, card_database(), "en", card_ids(text), out.find)
    imp = Importer(raw, loc, load_ruleset("play-2026"), players, table, out, cards, "t.txt")
    imp.first = facts.find_first(lines, players, out.find)
    imp.exporter = facts.find_exporter(lines, players, out.find)
    imp.attack_lines = facts.find_attacks(lines, cards.is_ability)
    return imp, lines


def walked(text: str) -> tuple[Importer, list[Event]]:
    imp, lines = state(text)
    walk_lines(imp, lines)
    return imp, imp.out.events


def test_facts_players_first_exporter_and_attacks() -> None:
    imp, lines = state(OPENING + "Ash's Charmander used Scratch on Misty's Pidgey for 30 damage.\n")
    assert imp.players == ["Ash", "Misty"] and imp.first == "Misty"
    assert imp.exporter == "Ash"  # the opening hand the log lists is the exporter's
    assert imp.attack_lines == {ln.no for ln in lines if ln.text.startswith("Ash's Charmander used")}


def test_turns_and_play_setup_the_bench_and_an_attachment_on_its_pid() -> None:
    imp, events = walked(OPENING)
    setup = {e["player"]: e["active"]["card"]["name"] for e in events if e["type"] == "setup"}
    assert setup == {"Ash": "Charmander", "Misty": "Pidgey"}
    assert [(e["type"], e["player"]) for e in events if e["type"] == "turn_started"] == [
        ("turn_started", "Misty"),
        ("turn_started", "Ash"),
    ]
    (played,) = [e for e in events if e["type"] == "played"]
    (attached,) = [e for e in events if e["type"] == "attached"]
    assert attached["pid"] == played["pid"] != imp.table.active["Ash"]  # the Benched one, not the Active


def test_zones_and_moves_take_each_card_from_the_zone_the_log_implies() -> None:
    imp, events = walked(
        OPENING
        + """Ash played Switch.
- Ash's Charmander was switched with Ash's Charmander to become the Active Pokémon.
Ash played Potion.
- Ash shuffled 2 cards into their deck.
   • Potion, Hero's Cape
"""
    )
    (switch,) = [e for e in events if e["type"] == "trainer_played" and e["card"]["name"] == "Switch"]
    assert switch["card"]["kind"] == "item"  # the catalogue's Trainer type (zones)
    (shuffled,) = [e for e in events if e["type"] == "shuffled"]
    assert shuffled["cards"] == ["Potion", "Hero's Cape"] and shuffled.get("from", "hand") == "hand"  # moves
    zones = imp.table.zones["Ash"]
    assert zones.hand == 7 - 2 + 1 - 1 - 1 - 1 - 2 and zones.deck == 60 - 7 - 6 - 1 + 2  # never below zero


def test_window_knockout_attack_end_and_prize_in_rule_order() -> None:
    imp, events = walked(
        OPENING
        + """Ash's Charmander used Scratch on Misty's Pidgey for 60 damage.
Misty's Pidgey was Knocked Out!
Ash took a Prize card.
A card was added to Ash's hand.
"""
    )
    close_window(imp)  # the next action line, or the end, closes it
    kinds = [(e["type"], e.get("pid")) for e in events if e["type"] != "note"][-5:]
    # the knockout during the attack, the attack's end, then the prize [docs/rules.md §3, JP3.4 §I-D]
    assert kinds == [
        ("attack", "A1"),
        ("damage", "B1"),
        ("knocked_out", "B1"),
        ("attack_ended", None),
        ("prize_taken", None),
    ]


def test_a_stadium_that_changes_hp_counts_on_every_pokemon_in_play_while_it_stays() -> None:
    imp, _ = walked(OPENING + "Ash played Gravity Mountain to the Stadium spot.\n")
    assert imp.field == ("Ash", "Gravity Mountain")
    assert all(imp.mon(pid).hp_bonus == 0 for p in imp.players for pid in imp.table.in_play(p))  # Basics


# -- cards: catalogue look-ups and same-named Pokémon -------------------------------------------------------
def logcards(findings: list[tuple[str, str]], cards: Catalogue | None = None, lang: str = "en") -> LogCards:
    return LogCards(
        cards or Catalogue(), card_database(), lang, {}, lambda c, s, n, m: findings.append((c, m))
    )


def test_card_facts_in_the_log_language() -> None:
    found: list[tuple[str, str]] = []
    c = logcards(found, lang="de")
    assert c.card_map("Glurak-ex")["hp"] == 330 and c.card_map("Glurak-ex")["rule"] == "ex"
    assert c.trainer_kind("Hyperball") == "item" and c.attach_kind("Heldenumhang") == "tool"
    assert c.is_ability({"c": "Drakloak", "a": "Recon Directive"})
    user = logcards(found, Catalogue(hp={"Pikachu": 999}))
    assert user.card_map("Pikachu")["hp"] == 999  # a user's file wins


def test_hp_a_tool_gives_and_its_condition() -> None:
    found: list[tuple[str, str]] = []
    c = logcards(found)
    t = Table(["Ash", "Misty"])
    basic = t.new_mon("Ash", "Pikachu", c.card_map("Pikachu"))
    ex = t.new_mon("Ash", "Pikachu ex", c.card_map("Pikachu ex"))
    ex.rule = "ex"
    assert c.hp_bonus("Hero's Cape", basic) == 100 and c.hp_bonus("Hero's Cape", ex) == 100
    assert c.hp_bonus("Bravery Charm", basic) == 50  # Basic Pokémon only
    raichu = t.new_mon("Ash", "Raichu", c.card_map("Raichu"))
    assert c.hp_bonus("Bravery Charm", raichu) == 0
    assert c.hp_bonus("Ancient Booster Energy Capsule", basic) is None  # "Ancient": not in the catalogue
    assert c.hp_bonus("Ultra Ball", basic) == 0


def test_same_named_pokemon_by_every_clue() -> None:
    found: list[tuple[str, str]] = []
    t = Table(["Ash", "Misty"])
    a = t.new_mon("Misty", "Pidgey", {"name": "Pidgey", "hp": 60})
    b = t.new_mon("Misty", "Pidgey", {"name": "Pidgey", "hp": 60})
    t.place(a, "active")
    t.place(b, "bench")

    def pick(*names: str, hit: tuple[str, ...] = ()) -> str:
        return choose(t, ["B1", "B2"], 1, "x", clues(t, *names, hit=hit), lambda *f: found.append(f[:2]))

    assert pick("active") == "B1" and not found
    b.damage = 30
    assert pick("damaged", "active") == "B2"  # a heal: the damaged one, even on the Bench
    b.damage = 60
    assert pick("fits", "hit", "active", hit=("B1",)) == "B2"  # a knockout: the one whose damage is its HP
    b.damage = a.damage = 0
    assert pick("hit", "damaged") == "B1" and found == [("importer_guess_pid", "info")]  # a tie: said so


# -- events: the stream, its findings and its counts --------------------------------------------------------
def test_findings_travel_as_notes_where_they_happened() -> None:
    out = Stream()
    out.find("importer_guess_first", "warning", None, "about the whole log")
    out.emit({"type": "turn_started", "player": "Ash", "turn": 1})
    out.find("importer_guess_pid", "info", 5, "at line 5")
    out.end_at = len(out.events)
    out.emit({"type": "game_ended", "outcome": "draw"})
    out.ended = True
    out.find("unmatched_line", "info", 9, "after the end")
    assert [e.get("finding", {}).get("line", e["type"]) for e in out.head_notes] == [None]
    assert [e["type"] for e in out.events] == ["turn_started", "note", "note", "game_ended"]
    assert out.events[2]["text"] == "after the end" and len(out.findings) == 3


def test_no_count_goes_below_zero_a_shortfall_is_said() -> None:
    out = Stream(Table(["Ash", "Misty"]))
    out.line = 7
    out.emit({"type": "setup", "player": "Ash", "active": {"pid": "A1"}, "bench": []})
    out.emit({"type": "moved", "player": "Ash", "count": 9, "from": "hand", "to": "deck"})
    assert out.table is not None and out.table.zone("Ash", "hand") == 0
    fix = [e for e in out.events if e["type"] == "searched"]
    assert fix == [{"type": "searched", "player": "Ash", "count": 3}]
    (f,) = [f for f in out.findings if f.code == "importer_count_unknown"]
    assert f.line == 7 and "3 more card(s)" in f.message and "-" not in f.message.split(":")[0]
    out.emit({"type": "prize_taken", "player": "Ash", "count": 1}, counted=False)
    assert out.table.zone("Ash", "prizes") == 6 and out.corrections == 1
