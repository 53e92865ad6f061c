"""The packaged card catalogue (replay/sources/cards.py, cards.bin): what a look-up answers, that loading
reads the index only, and the HP bonuses tools/build_catalogue.py reads from effect texts."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from replay.sources.cards import (
    MAGIC,
    CardDatabase,
    CardInfo,
    card_name,
    card_names,
    display_name,
    load_catalogue,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from build_catalogue import basic_energy, field_bonus, hp_bonus, trainer_links


def test_loading_reads_the_index_and_decodes_records_on_demand() -> None:
    db = load_catalogue()
    assert db.count > 10_000 and not db._cards  # no record decoded yet
    hits = db.lookup("Pikachu ex")
    assert hits and all(i.name == "Pikachu ex" and i.hp for i in hits)
    assert len(db._cards) == len(hits)  # only the cards asked for are made, not their blocks' others
    # only the English names were decoded: an English name never decodes the Japanese and Korean ones,
    # even when it is not found (issue 34: each language's names are a part of their own)
    assert not db.lookup("No Such Card") and set(db.by_name._decoded) == {"en"}  # type: ignore[attr-defined]
    assert db.lookup("ピカチュウ", "ja") and set(db.by_name._decoded) == {"en", "ja"}  # type: ignore[attr-defined]
    assert len(db.cards()) == db.count == len(db)


def test_a_card_made_alone_is_the_card_of_its_whole_block() -> None:
    """A record is made when asked for, from its block split into raw records: each card, asked in any
    order, is the one its block decoded whole gives."""
    db = load_catalogue()
    whole = [CardInfo.from_record(rec) for b in db._blocks for rec in db._part(b)]
    order = list(range(db.count))
    random.Random(40).shuffle(order)
    assert all(db.card(i) == whole[i] for i in order)


def test_the_file_names_its_source_and_licence() -> None:
    db = load_catalogue()
    assert db.source["repository"] == "https://github.com/tcgdex/cards-database"
    assert db.source["licence"] == "MIT" and len(db.source["commit"]) == 40
    with pytest.raises(ValueError):
        CardDatabase(b"{}")
    assert MAGIC.startswith(b"prizecheck-cards/")


def test_lookups_by_name_in_each_language_and_by_printing() -> None:
    db = load_catalogue()
    assert {i.name for i in db.lookup("Glurak-ex", "de")} == {"Charizard ex"}
    assert db.lookup("Hyperball", "de")[0].kind == "Item"
    assert db.lookup("Ultra Ball", "fr")  # an English name is tried in any language
    card = db.printing("sv6_163")
    assert card is not None and card.name == "Secret Box"
    assert db.printing("(sv6_163)") == card and db.printing("nope_1") is None
    assert card_names("Glurak-ex")["fr"] == "Dracaufeu-ex"
    assert display_name("Hyperball", "en") == "Ultra Ball"
    assert display_name("No Such Card", "de") == "No Such Card"


def test_a_pokemon_names_rule_and_hp_are_its_printings_and_kept() -> None:
    db = load_catalogue()
    # several printings: every HP once, lowest first; the rule box they all give
    assert db.pokemon_facts("Dusclops") == ("none", (80, 90))
    assert db.pokemon_facts("Glurak-ex", "de") == ("ex", (330,))
    assert db.pokemon_facts("Professor's Research") == (None, ())  # no Pokémon printing
    assert db.pokemon_facts("No Such Card") == (None, ())
    assert db.pokemon_facts("Pikachu") is db.pokemon_facts("Pikachu")  # kept: asked log after log
    # the same as the printings looked up by name (the importer's card map reads either)
    for name in ("Dusclops", "Pikachu", "Charizard ex", "Radiant Greninja"):
        infos = db.lookup(name)
        hps = tuple(sorted({i.hp for i in infos if i.category == "pokemon" and i.hp}))
        assert db.pokemon_facts(name)[1] == hps


def test_moves_abilities_and_deck_discards() -> None:
    db = load_catalogue()
    assert db.is_ability("Drakloak", "Recon Directive") is True
    assert db.is_ability("Slowking", "Seek Inspiration") is False
    assert db.is_ability("No Such Card", "Anything") is None
    assert db.mills("Slowking", "Seek Inspiration")
    assert not db.mills("Drakloak", "Recon Directive")


def test_each_attack_keeps_its_printed_damage() -> None:
    # issue 33 item 4: the console offers the attack's printed damage (tools/build_catalogue.py ``d``), as
    # printed: a plain number, or with its sign (+, ×); an attack without damage has none
    db = load_catalogue()
    printings = db.lookup("Pikachu ex")
    assert ("Thunder", "220") in {d for c in printings for d in c.damage}
    staryu = {d for c in db.lookup("Staryu") for d in c.damage}
    assert ("Continuous Spin", "10×") in staryu and "Recover" not in {a for a, _ in staryu}
    assert any(d.endswith("+") for c in db.lookup("Raichu") for _, d in c.damage)


def test_moves_that_knock_out_place_on_the_bench_or_use_another_attack() -> None:
    # issue 35: what the card text says that the log leaves out (tools/build_catalogue.py _KNOCKS_OUT,
    # _BENCH_COUNTERS, _USES_ATTACK)
    db = load_catalogue()
    assert db.attach_source("Dusclops", "Cursed Blast", of="knock") == "self"
    assert db.attach_source("Roaring Moon ex", "Frenzied Gouging", of="knock") == "active"
    assert db.attach_source("Haxorus", "Axe Blast", of="knock") == "active"
    assert db.attach_source("Annihilape", "Destined Fight", of="knock") == "both"
    assert db.attach_source("Pidgey", "Gust", of="knock") is None
    assert db.attach_source("Dragapult ex", "Phantom Dive", of="bench") == "bench"
    assert db.attach_source("Slowking", "Seek Inspiration", of="copy") == "copy"
    assert db.attach_source("Dracaufeu-ex", "Démon Ardent", "fr", of="knock") is None


def test_tools_that_change_hp_carry_the_bonus() -> None:
    db = load_catalogue()
    assert db.lookup("Hero's Cape")[0].hp_bonus == (100, "")
    assert db.lookup("Dracaufeu-ex", "fr")[0].types == ("Fire",)


def test_stadiums_that_change_hp_in_play_carry_it() -> None:
    db = load_catalogue()
    assert db.lookup("Gravity Mountain")[0].hp_bonus == (-30, "stage:Stage2")
    assert db.lookup("Stade en Liesse", "fr")[0].hp_bonus == (30, "stage:Basic")  # Lively Stadium
    assert field_bonus("Each Mega Floette ex in play (both yours and your opponent's) gets +150 HP.") == [
        150,
        "name:Mega Floette ex",
    ]
    assert field_bonus("Draw 2 cards.") is None


@pytest.mark.parametrize(
    ("text", "bonus"),
    [
        ("The Pokémon this card is attached to gets +100 HP.", [100, ""]),
        (
            "The Basic Pokémon this card is attached to gets +50 HP, except Pokémon-GX.",
            [50, "not:GX stage:Basic"],
        ),
        ("The Stage 1 Pokémon this card is attached to gets +40 HP.", [40, "stage:Stage1"]),
        (
            "If the Pokémon this card is attached to doesn't have a Rule Box, it gets +100 HP, and",
            [100, "rule:none"],
        ),
        ("The Cynthia's Pokémon this card is attached to gets +70 HP.", [70, "prefix:Cynthia's"]),
        ("The Zamazenta V this card is attached to gets +70 HP.", [70, "name:Zamazenta V"]),
        (
            "As long as this card is attached to a Pokémon, it provides {G} Energy.\n"
            "The {G} Pokémon this card is attached to gets +20 HP.",
            [20, "type:Grass"],
        ),
        (
            "The Ancient Pokémon this card is attached to gets +60 HP, recovers from all Special Conditions.",
            [60, "?"],
        ),
        (
            "If the Retreat Cost of the Pokémon this card is attached to is 3 or more, that Pokémon gets "
            "+20 HP.",
            [20, "?"],
        ),
        ("Draw 2 cards.", None),
    ],
)
def test_hp_bonus_read_from_the_effect_text(text: str, bonus: list[object] | None) -> None:
    assert hp_bonus(text) == bonus


# -- Japanese and Korean (issue 34 item 4) ----------------------------------------------------------------
FIXTURE = Path(__file__).resolve().parents[1] / "data" / "tcgdex"


def fixture_catalogue() -> CardDatabase:
    from build_catalogue import build, pack

    doc = build(FIXTURE, "0" * 40)
    data = pack(doc)
    assert pack(build(FIXTURE, "0" * 40)) == data  # deterministic: same checkout, same bytes
    return CardDatabase(data)


def test_the_catalogue_is_built_from_tcgdex_files_with_japanese_and_korean_printings() -> None:
    db = fixture_catalogue()
    assert db.source["commit"] == "0" * 40 and db.source["licence"] == "MIT"
    assert "ja" in db.by_name and "ko" in db.by_name
    # a Japanese printing that is an English card (same name, HP, stage, attacks) is that card: they agree
    english = db.printing("sv3_125")
    assert english is not None and english.names["ja"] == "リザードンex"
    assert db.printing("sv4a-115") == english  # its Indonesian name says Charizard ex
    assert db.printing("SV3-066") == english  # no Indonesian name: the Japanese name, learnt, says it
    assert db.printing("sv2a-025") == db.printing("sv3-5_25") and english.hp == 330
    # the English names gain ja and ko: from the printings and from TCG Pocket's names
    assert db.lookup("Pikachu")[0].names["ko"] == "피카츄"
    assert db.lookup("Professor's Research")[0].names["ko"] == "박사의 연구"
    # a printing no English card is: a record of its own with its own id, HP, stage and rule box
    pansage = db.printing("sv4k-001")
    assert pansage is not None and pansage.asian
    assert (pansage.names, pansage.hp, pansage.stage, pansage.rule) == (
        {"ja": "ヤナップ", "ko": "야나프"},
        70,
        "Basic",
        "none",
    )
    mega = db.printing("m1l-078")
    assert mega is not None and (mega.hp, mega.stage, mega.rule) == (340, "Stage1", "mega_ex")
    yanmega = db.printing("sv9a-003")  # メガヤンマ is Yanmega, not a Mega Yanma
    assert yanmega is not None and yanmega.rule == "ex"
    radiant = db.printing("svk-004")
    assert radiant is not None and radiant.rule == "radiant"
    trainer = db.lookup("博士の研究", "ja")
    assert trainer and trainer[0].category == "trainer" and trainer[0].kind == "Supporter"
    # Japanese-only printings never answer an English name (an English log's Pikachu is not SV2a's)
    assert all(not c.asian for c in db.lookup("Pikachu"))


def test_names_are_found_in_kana_kanji_hangul_and_half_width() -> None:
    db = fixture_catalogue()
    for typed in ("ピカチュウ", "ぴかちゅう", "ﾋﾟｶﾁｭｳ", "ピカ"):
        assert ("ピカチュウ", "ja") in db.search(typed), typed
    assert db.search("피카") == [("피카츄", "ko")]
    assert db.search("研究") == [("博士の研究", "ja")]  # a kanji inside the name
    assert db.search("ヤナ") == [("ヤナップ", "ja")] and db.search("야나프") == [("야나프", "ko")]
    assert db.search("げっこうが") == [("かがやくゲッコウガ", "ja")]  # inside, the other kana
    assert db.search("ゲッコウカ") == []  # the sound marks are part of the kana: カ is not ガ
    assert {c.name for c in db.lookup("ぴかちゅう", "ja")} == {"Pikachu"}
    assert {c.name for c in db.lookup("ﾘｻﾞｰﾄﾞﾝex", "ja")} == {"Charizard ex"}
    assert db.lookup("피카츄", "ko")[0].hp == 60


def test_the_packaged_catalogue_speaks_japanese_and_korean() -> None:
    db = load_catalogue()
    assert db.source["asia_series"] and db.printing("sv1v-001") is not None
    pineco = db.printing("sv1v-001")
    assert pineco is not None and pineco.names["ja"] == "クヌギダマ" and pineco.hp == 60
    assert ("ピカチュウex", "ja") in db.search("ぴかちゅう") and ("피카츄", "ko") in db.search("피카츄")
    assert db.search("博士の研究")[0][0].startswith("博士の研究")
    assert (
        card_name("Charizard ex", "ja") == "リザードンex" and card_name("Charizard ex", "ko") == "리자몽 ex"
    )
    assert card_name("sv1v-001", "en") == "Pineco" and card_name("sv1v-001", "ja") == "クヌギダマ"
    assert card_name("sv6_163", "en") == "Secret Box" and card_name("Unknown Card", "ja") == "Unknown Card"
    assert card_name("リザードンex", "en") == "Charizard ex"


def test_japanese_trainers_and_basic_energy_have_their_english_cards_names() -> None:
    """Trainers and basic Energy (issue 34 item 4): a Japanese printing names the English card, so the
    board, overlay, review page and report show Boss's Orders as ボスの指令 on a Japanese page."""
    db = load_catalogue()
    assert (
        card_name("Boss's Orders", "ja") == "ボスの指令" and card_name("ボスの指令", "en") == "Boss's Orders"
    )
    assert card_name("Ultra Ball", "ja") == "ハイパーボール"
    assert db.printing("sv1v-070") == db.lookup("Ultra Ball")[0]  # the Japanese printing is the card
    assert (card_name("Iono", "ja"), card_name("Iono", "ko")) == ("ナンジャモ", "모야모")
    # a basic Energy by the type its Japanese name prints; Korean where a Korean printing names it
    assert card_name("Lightning Energy", "ja") == "基本雷エネルギー"
    assert (card_name("Darkness Energy", "ja"), card_name("Darkness Energy", "ko")) == (
        "基本悪エネルギー",
        "기본 악 에너지",
    )
    assert db.lookup("基本闘エネルギー", "ja")[0].name == "Fighting Energy"
    assert db.lookup("はいぱーぼーる", "ja")[0].name == "Ultra Ball"  # kana either way
    assert db.lookup("박사의 연구", "ko")[0].kind == "Supporter"


def test_a_trainer_links_only_where_its_printings_agree_both_ways() -> None:
    """trainer_links: era, Trainer type, illustrator and the effect's numbers name a Japanese Trainer's
    English card only when most printings agree, both ways; a tie or a lone coincidence stays unlinked."""
    sv = ("Scarlet & Violet", "Item", "toyste beach")
    boss = ("Scarlet & Violet", "Supporter", "nc empire")
    none: frozenset[str] = frozenset()
    english = [
        (sv, none, "Nest Ball"),
        (sv, none, "Counter Catcher"),  # drawn alike: a tie with Nest Ball
        (sv, frozenset({"2", "4"}), "Superior Energy Retrieval"),
        (boss, none, "Boss's Orders"),
        (boss, none, "Boss's Orders"),
        (("Scarlet & Violet", "Stadium", "x"), none, "Lone Stadium"),
    ]
    japanese = [
        (sv, none, "ネストボール"),
        (sv, none, "カウンターキャッチャー"),
        (sv, frozenset({"2", "4"}), "スーパーエネルギー回収"),
        (sv, frozenset({"2", "4"}), "スーパーエネルギー回収"),
        (boss, none, "ボスの指令"),
        (boss, none, "ボスの指令"),
        (("XY", "Supporter", "nc empire"), none, "ボスの指令"),  # another era: no candidates, no vote
        (("Scarlet & Violet", "Stadium", "x"), none, "ひとつのスタジアム"),  # one printing each way
    ]
    assert trainer_links(english, japanese) == {
        "ボスの指令": "Boss's Orders",
        "スーパーエネルギー回収": "Superior Energy Retrieval",  # its numbers tell it from Nest Ball
    }


def test_a_japanese_basic_energy_is_the_english_basic_energy_of_its_type() -> None:
    by_en = {("E", "Fighting Energy"): [0]}
    basic = {"category": "Energy", "energyType": "Normal", "name": {"ja": "基本闘エネルギー"}}
    assert basic_energy(basic, by_en) == "Fighting Energy"
    assert basic_energy({**basic, "name": {"ja": "基本草エネルギー"}}, by_en) is None  # no such card here
    assert basic_energy({**basic, "energyType": "Special"}, by_en) is None


def test_the_build_runs_from_a_checkout_named_on_the_command_line(tmp_path: Path) -> None:
    import subprocess

    tool = Path(__file__).resolve().parents[2] / "tools" / "build_catalogue.py"
    out = tmp_path / "cards.bin"
    run = subprocess.run(
        [sys.executable, str(tool), str(FIXTURE), "--commit", "1" * 40, "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "9 cards, 12 printings" in run.stdout and "1111111111" in run.stdout
    db = CardDatabase(out.read_bytes())
    assert db.printing("sv4k-001") is not None and db.source["commit"] == "1" * 40
    # a folder that is not a checkout is one sentence, not a traceback
    (tmp_path / "data").mkdir()
    (tmp_path / "LICENSE").write_text("Copyright (c) 2021 TCGdex\n")
    bad = subprocess.run(
        [sys.executable, str(tool), str(tmp_path), "--out", str(tmp_path / "x.bin")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode != 0 and "no data-asia/ folder" in bad.stderr and "Traceback" not in bad.stderr
