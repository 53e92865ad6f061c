"""The battle log reads as sentences, for every event type of the contract; every step from one fold.

- Every event type of ``schemas/events.schema.json`` (an event with every field its schema names, and the
  contract's own examples) becomes a sentence that names its cards and shows no raw structure; so do the
  real and the made-up battle logs in ``tests/data``, imported as a judge would import them.
- :mod:`streams.http.frames`: one fold gives each step's board (as deltas the page rebuilds), the
  derived outputs once, and the prizes a knockout made due until they are taken.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import msgpack
import pytest

from replay import Game
from replay.sources.ptcgl import parse_ptcgl
from schemas import load_schema
from streams.http.battle_log import (
    _Names,
    battle_log,
    card_name,
    decode,
    describe,
    display_moves,
    sentence,
    sentences,
)
from streams.http.frames import SNAPSHOT, apply_delta, board_delta, boards, frames, replay_steps
from streams.http.pages import state_at
from streams.store.base import ArchivedEvent
from tests.builder import Stream, card
from tests.test_schemas import VALID

Event = dict[str, Any]
DATA = Path(__file__).resolve().parents[2] / "data"

#: What a raw structure looks like in a line: a Python or JSON map or list (``{'card': ...``,
#: ``["Weedle"]``, ``'kind': 'item'``), or an empty one.
RAW = re.compile(r"[{\[]\s*['\"]|['\"]\s*[}\]]|['\"]\s*:\s|\{\s*\}|\[\s*\]")

SCHEMA = load_schema("events")
DEFS = SCHEMA["$defs"]
TYPES: list[str] = DEFS["envelope"]["properties"]["type"]["enum"]
CARD = "Sacred Ash"


def example(schema: dict[str, Any], name: str = "") -> Any:
    """A value for ``schema``: every property of an object, two items of a list, a card's name for a
    string (so the sentence can be checked for it)."""
    if "$ref" in schema:
        return example(DEFS[schema["$ref"].rsplit("/", 1)[1]], name)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("allOf", "anyOf", "oneOf"):
        if key in schema:
            merged: dict[str, Any] = {}
            for part in schema[key]:
                value = example(part, name)
                if not isinstance(value, dict):
                    return value
                merged.update(value)
            return merged
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "object" or "properties" in schema:
        return {k: example(v, k) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [example(schema.get("items", {}), name) for _ in range(2)]
    if kind == "integer":
        return max(2, schema.get("minimum", 2))
    if kind == "boolean":
        return True
    if name in ("player", "winner", "first", "author"):
        return "ash"
    if name == "pid":
        return "a1"
    return CARD


def full_event(etype: str) -> Event:
    """An event of type ``etype`` with every field its schema names."""
    event: Event = {"match": "m1", "seq": 5}
    event.update(example(DEFS[etype]))
    event.update(type=etype, match="m1", seq=5)
    if etype == "match_started":
        event["players"] = ["ash", "misty"]
    return event


def test_the_schema_walk_covers_every_contract_type() -> None:
    assert len(TYPES) >= 34 and set(VALID) == set(TYPES)
    assert {"trainer_played", "shuffled", "searched", "discarded", "to_hand"} <= set(TYPES)


@pytest.mark.parametrize("etype", TYPES)
def test_every_event_type_reads_as_a_sentence_with_its_cards(etype: str) -> None:
    for event in [full_event(etype), *VALID[etype]]:
        text = sentence(event, _Names({"a1": "Pikachu"}))
        assert text and not RAW.search(text), (etype, text)
        assert not text.startswith("Event “"), (etype, text)  # a sentence of its own, not the fallback
        # a card the event names is in its sentence
        named = [event.get("card"), *(event.get("cards") or []), event.get("effect")]
        for c in named:
            if isinstance(c, dict | str):
                assert card_name(c) in text, (etype, text)


def test_the_new_event_types_read_as_the_issue_asks() -> None:
    names = _Names({"a1": "Pikachu"})
    trainer = {
        "type": "trainer_played",
        "player": "Wonder_Squid",
        "card": {"name": "Sacred Ash", "kind": "item"},
    }
    assert describe(trainer, names) == "Wonder_Squid plays the Item Sacred Ash"
    shuffled = {
        "type": "shuffled",
        "player": "Nia",
        "zone": "deck",
        "from": "discard",
        "cards": ["Weedle"] * 2,
    }
    assert describe(shuffled, names) == "Nia shuffles 2 Weedle from the discard pile into the deck"
    assert describe({"type": "shuffled", "player": "Nia", "zone": "deck"}, names) == "Nia shuffles the deck"
    searched = {"type": "searched", "player": "Cy", "count": 2, "cards": ["Pidgey", "Nest Ball"]}
    assert describe(searched, names) == "Cy searches the deck and puts Pidgey, Nest Ball into the hand"
    discarded = {"type": "discarded", "player": "Oli", "count": 1, "cards": ["Fire Energy"], "pid": "a1"}
    assert describe(discarded, names) == "Oli discards Fire Energy attached to Pikachu (a1)"
    to_hand = {"type": "to_hand", "player": "Wren", "from": "discard", "count": 3}
    assert describe(to_hand, names) == "Wren puts 3 cards from the discard pile into the hand"
    # an evolution names the Pokémon by what it was; an amended event reads as the event it becomes
    assert describe({"type": "evolved", "player": "ash", "pid": "a1", "card": {"name": "Raichu"}}, names) == (
        "ash evolves Pikachu (a1) into Raichu"
    )
    amend = {"type": "correction", "target": 7, "action": "amend", "event": {"type": "drew", "player": "ash"}}
    assert describe(amend, names) == "Correction: seq 7 is amended to “ash draws 1 card”"
    # issue 33 item 8: the amended value in words, and who made it (no one is assumed)
    earlier = {12: {"type": "damage", "seq": 12, "pid": "a1", "amount": 30}}
    amount = {"type": "correction", "target": 12, "action": "amend", "event": {"amount": 60}}
    assert describe(amount, names, (), earlier) == (
        "Correction: seq 12 is amended (amount 30 → 60): “Pikachu (a1) takes 60 damage”"
    )
    assert describe({**amount, "author": "recorder table 7"}, names, (), earlier).startswith(
        "Correction by recorder table 7: seq 12 is amended (amount 30 → 60)"
    )
    void = {"type": "correction", "target": 12, "action": "void", "author": "judge Kim"}
    assert describe(void, names, (), earlier) == (
        "Correction by judge Kim: seq 12 (“Pikachu (a1) takes 30 damage”) is void"
    )
    unknown = {"type": "correction", "target": 9, "action": "amend", "event": {"amount": 5}}
    assert describe(unknown, names) == ("Correction: seq 9 is amended: amount 5")
    # an event type this version does not know: its plain fields, never a structure
    odd = {"type": "teleported", "player": "ash", "where": {"x": 1}, "to": ["a"]}
    assert describe(odd, names) == "Event “teleported” (player ash)"
    # a field of an unexpected shape is "?", not its repr
    assert (
        describe({"type": "drew", "player": {"id": "ash"}, "cards": [{"x": 1}]}, names) == "? draws 1 card: ?"
    )


def test_old_ex_names_stay_as_the_log_writes_them() -> None:
    # The catalogue's French name of the old Rayquaza-EX is "Rayquaza ex": a log's "Rayquaza ex" is not
    # renamed to another card; a localised name is still shown with the English one.
    assert card_name("Rayquaza ex") == "Rayquaza ex"
    assert card_name("Rayquaza-EX") == "Rayquaza-EX"
    assert card_name({"name": "Glurak-ex"}) == "Charizard ex (Glurak-ex)"


def test_card_names_in_the_pages_language() -> None:
    """Issue 34 item 4: a name in ja or ko, the source's spelling beside it (or alone: the overlay)."""
    assert card_name("Charizard ex", "ja") == "リザードンex (Charizard ex)"
    assert card_name("Glurak-ex", "ko") == "리자몽 ex (Glurak-ex)"
    assert card_name("Charizard ex", "ja", source=False) == "リザードンex"
    assert (
        card_name("リザードンex", "ja") == "リザードンex"
        and card_name("リザードンex") == "Charizard ex (リザードンex)"
    )
    assert card_name("No Such Card", "ja") == "No Such Card"
    s = Stream("m1")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.add("trainer_played", player="ash", card={"name": "Ultra Ball", "kind": "item"})
    s.add("trainer_played", player="ash", card={"name": "Homemade Ball", "kind": "item"})
    texts = sentences(s.events, "ja")
    # the sentences are Japanese too (the catalogues), the card names the catalogue's Japanese ones,
    # a Trainer's too (its Japanese printings name the English card)
    assert texts[1] == "ashがピカチュウ (Pikachu) (a1)をバトル場に置いた", texts
    assert texts[2] == "ashがグッズ「ハイパーボール (Ultra Ball)」を使った", texts
    # a card with no Japanese name in the catalogue stays as written
    assert texts[3] == "ashがグッズ「Homemade Ball」を使った", texts
    # Ultra Ball has no Korean printing in TCGdex: as written
    assert sentences(s.events, "ko")[2] == "ash이(가) 아이템 「Ultra Ball」을(를) 사용함"
    english = sentences(s.events)
    assert all("ピカチュウ" not in t and "ハイパーボール" not in t for t in english)
    assert english[2].endswith("plays the Item Ultra Ball")


def _entries(events: list[Event]) -> list[ArchivedEvent]:
    return [ArchivedEvent((e["seq"], 0), msgpack.packb(e)) for e in events]


def _real_logs() -> list[Path]:
    logs = sorted((DATA / "ptcgl").rglob("*.txt"))
    assert len(logs) >= 20 and any("real" in p.parts for p in logs)
    return logs


@pytest.mark.parametrize("path", _real_logs(), ids=lambda p: p.relative_to(DATA).as_posix())
def test_the_real_logs_read_as_sentences(path: Path) -> None:
    from replay.engine.errors import InputError

    try:
        result = parse_ptcgl(path.read_text("utf-8"), match="m1", filename=path.name, partial=True)
    except InputError:
        return  # not a battle log we read (another game, an unsupported language): nothing to show
    lines = battle_log(_entries(result.events))
    assert len(lines) == len(result.events)
    raw = [line["text"] for line in lines if RAW.search(line["text"]) or line["text"].startswith("Event “")]
    assert raw == []
    marks = [m["text"] for line in lines for m in line["marks"]]
    assert not [m for m in marks if RAW.search(m)]


# --------------------------------------------------------------------------------------------- frames
def _steps(events: list[Event]) -> list[dict[str, Any]]:
    entries = _entries(events)
    return replay_steps(entries, decode(entries))[0]


def knockout_game() -> list[Event]:
    s = Stream("f1")
    s.setup("ash", ("a1", card("Raging Bolt ex", 240, "ex")), ("a2", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 60)), ("m2", card("Starmie", 90)))
    s.add("turn_started", player="ash", turn=1)
    s.add("attack", player="ash", pid="a1", name="Bellowing Thunder")
    s.add("damage", pid="m1", amount=60)
    s.add("attack_ended")  # seq 7: the knockout; its prize is due
    s.add("promoted", player="misty", pid="m2")  # 8: still due
    s.add("prize_taken", player="ash", count=1)  # 9: taken
    s.add("turn_ended", player="ash")
    return s.events


def test_every_step_from_one_fold_matches_a_fold_up_to_it() -> None:
    events = knockout_game()
    steps = _steps(events)
    assert [s["seq"] for s in steps] == [e["seq"] for e in events]
    for step in steps:
        game = Game()
        for e in events[: step["seq"]]:
            game.apply(e)
        assert step["board"] == game.board(), step["seq"]
        assert step["event"] == events[step["seq"] - 1]
    assert [o["type"] for o in steps[6]["outputs"]] == ["ko", "prizes_due", "promotion_due"]
    # the board rebuilt from the deltas is every step's board; a delta holds only what changed
    board = None
    for frame, step in zip(frames(steps), steps, strict=True):
        board = apply_delta(board, frame["board"])
        assert board == step["board"]
    delta = board_delta(steps[6]["board"], steps[7]["board"])  # misty promotes: only her Pokémon
    assert set(delta) == {"seq", "players"} and set(delta["players"]) == {"misty"}
    assert set(delta["players"]["misty"]) == {"active", "bench"}


def test_a_long_game_s_boards_are_whole_at_snapshots_and_deltas_between() -> None:
    # issue 40 item 4: the page folds a step's board forward from the snapshot at or before it, so every
    # SNAPSHOT-th frame carries its board whole and the others only what changed; rebuilt either way, each
    # step's board is the fold's
    from tests.streams.http.test_pages import long_game

    events = long_game("f2", 3 * SNAPSHOT + 10)
    steps = _steps(events)
    shown = frames(steps)
    assert len(shown) > 3 * SNAPSHOT
    assert boards(shown) == [step["board"] for step in steps]
    for i, frame in enumerate(shown):
        if i % SNAPSHOT == 0:
            assert frame["board"] == steps[i]["board"], i  # whole: nothing to fold
        else:
            assert frame["board"] == board_delta(steps[i - 1]["board"], steps[i]["board"]), i
    # a note between two plays changes the board's seq only
    notes = [i for i, s in enumerate(steps) if s["event"]["type"] == "note" and i % SNAPSHOT]
    assert shown[notes[0]]["board"] == {"seq": steps[notes[0]]["seq"]}


def test_prizes_are_shown_taken_at_the_step_they_are_taken() -> None:
    steps = _steps(knockout_game())
    # the engine counts the prize at the knockout; the source takes it two events later
    assert steps[6]["board"]["players"]["ash"]["prizes_taken"] == 1
    assert [s["due"] for s in steps[5:10]] == [{}, {"ash": 1}, {"ash": 1}, {}, {}]


def test_an_effect_knockout_is_shown_once_at_its_decision() -> None:
    from tests.streams.http.test_pages import effect_knockout_game

    events = effect_knockout_game()
    steps = _steps(events)
    kinds = {s["seq"]: [o["type"] for o in s["outputs"]] for s in steps}
    assert kinds[6] == [] and kinds[7] == ["ko", "prizes_due", "game_over"] and kinds[8] == []
    assert steps[6]["board"]["players"]["misty"]["active"] is None  # the board after the knockout
    assert steps[6]["due"] == {"ash": 1} and steps[7]["due"] == {}  # taken by the claim at seq 8
    # the decision as the last archived event: resolved there too
    last = _steps(events[:7])
    assert [o["type"] for o in last[-1]["outputs"]] == ["ko", "prizes_due", "game_over"]


def test_a_gap_in_the_archive_is_a_step_without_an_event() -> None:
    events = knockout_game()
    steps = _steps(events[:6] + events[7:])  # seq 7 never arrived
    state = state_at(steps, 7)
    assert state["event"] is None and state["outputs"] == [] and state["board"] == steps[5]["board"]
    assert state_at(steps, 8)["event"] == events[7]


def test_steps_up_to_a_seq_are_the_whole_fold_s() -> None:
    from tests.streams.http.test_pages import effect_knockout_game

    for events in (knockout_game(), effect_knockout_game()):
        entries = _entries(events)
        whole = replay_steps(entries, decode(entries))[0]
        for seq in range(1, len(events) + 1):
            part = replay_steps(entries, decode(entries), until=seq)[0]
            assert state_at(part, seq) == state_at(whole, seq), seq


def test_every_finding_code_has_its_section_of_the_rules() -> None:
    # issue 33 item 3: six codes had none (the turn's limits, prizes_not_left). Every code the engine
    # finds (its severity table, and every code its source raises) names a numbered section of
    # docs/rules.md that exists; so do the importers' own codes.
    from replay.engine.findings import SEVERITY
    from streams.http.battle_log import rule_ref

    engine = Path(__file__).resolve().parents[3] / "replay" / "engine"
    raised = set()
    for path in engine.glob("*.py"):
        text = path.read_text("utf-8")
        raised |= set(re.findall(r"\bfind\(\s*\"([a-z_]+)\"", text))
        raised |= set(re.findall(r"\brestriction\(\s*\w+,\s*\"([a-z_]+)\"", text))
    assert raised and raised <= set(SEVERITY), raised - set(SEVERITY)
    rules = (Path(__file__).resolve().parents[3] / "docs" / "rules.md").read_text("utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", rules, re.M))
    from replay.engine.findings import SOURCE_FINDINGS

    missing = [c for c in sorted({*SEVERITY, *raised, *SOURCE_FINDINGS}) if rule_ref(c) is None]
    assert missing == []
    for code in {*SEVERITY, *SOURCE_FINDINGS}:
        ref = rule_ref(code)
        assert ref is not None and ref["section"].split(".")[0] in sections, (code, ref)
        assert ref["href"] == f"/rules#s{ref['section'].split('.')[0]}"


def test_an_attacks_name_in_the_pages_language() -> None:
    """The log names an attack by the catalogue's name for that card's move in the page's language (the
    name every printing gives it), as written where the catalogue has none; the overlay's last attack
    the same (display_moves)."""
    s = Stream("m1")
    s.setup("ash", ("a1", card("Pikachu", 60)))
    s.setup("misty", ("m1", card("Staryu", 50)))
    s.add("turn_started", player="ash")
    s.add("attack", player="ash", pid="a1", name="Quick Attack")
    s.add("damage", pid="m1", amount=10)
    s.add("attack_ended")
    s.add("attack", player="ash", pid="a1", name="No Such Move")
    ja = sentences(s.events, "ja")
    assert any("でんこうせっか" in t for t in ja), ja
    assert any("No Such Move" in t for t in ja), ja
    assert not any("でんこうせっか" in t for t in sentences(s.events)), "English keeps the event's name"
    assert display_moves(s.events, "ja") == {"Pikachu": {"Quick Attack": "でんこうせっか"}}
    assert display_moves(s.events, "en") == {}
