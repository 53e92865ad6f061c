"""The deck check in the report (docs/decks.md): a card put into play against the player's list is a
judges' finding at its event, linked to the review page there, and its game counted among the games to
review; the record, which the public reads, never carries it."""

from __future__ import annotations

import json
from pathlib import Path

from replay import replay_records
from replay.cli import main
from replay.codec import encode_jsonl
from replay.sources.decks import encode, parse_deck, to_json
from streams.ingest import IngestCore
from streams.store import RedisStore
from tests.builder import Stream, card
from tests.cli.test_cli import run
from tests.paths import ROOT

LIST = (ROOT / "tests" / "data" / "decks" / "lightning.txt").read_text("utf-8")
CONTEXT = {
    "league": "Kanto",
    "season": "2026",
    "event": "Cerulean Cup",
    "round": 2,
    "series": "r2-t4",
    "game": 1,
}


def _game(match: str, **started: object) -> tuple[Stream, int]:
    s = Stream(match, context=CONTEXT, **started)
    s.setup("ash", ("a1", card("Pikachu ex", 200, "ex")))
    s.setup("misty", ("m1", card("Staryu", 60)))
    s.turn("ash")
    seq = s.add("played", player="ash", pid="a2", card={"name": "Charmander", "hp": 70})["seq"]
    s.add("conceded", player="misty")
    s.add("game_ended", outcome="win", winner="ash", reason="concession")
    return s, int(seq)


def _report(tmp_path: Path, *extra: str, events: list[dict[str, object]]) -> dict[str, object]:
    path = tmp_path / "games.jsonl"
    path.write_bytes(encode_jsonl(events))
    out = tmp_path / "report.json"
    assert main(["report", str(path), "--format", "json", "--out", str(out), *extra]) == 0
    report: dict[str, object] = json.loads(out.read_bytes())
    return report


def test_a_console_games_card_not_on_the_list_is_to_review(tmp_path: Path) -> None:
    s, seq = _game("cup/r2/t4/g1", console={"decks": {"ash": LIST}})
    rep = _report(tmp_path, events=s.events)
    (sec,) = rep["sections"]  # type: ignore[index]
    (f,) = sec["deck_checks"]
    assert (f["match"], f["seq"], f["player"], f["card"], f["code"]) == (
        s.match,
        seq,
        "ash",
        "Charmander",
        "not_on_list",
    )
    assert f["link"] == f"http://127.0.0.1:8080/review/cup/r2/t4/g1#seq={seq}"
    (item,) = sec["review"]
    assert item["match"] == s.match
    assert item["why"] == ["deck check: 1 card(s) against the deck list (ash: Charmander)"]
    # the record (what the public and the opponent read) knows nothing of it
    record = replay_records(s.events)[s.match]
    assert "Charmander" not in json.dumps(record.get("findings")) and "deck" not in json.dumps(record).lower()


def test_registered_lists_are_read_from_a_saved_answer(tmp_path: Path) -> None:
    s, seq = _game("cup/r2/t4/g1")
    assert _report(tmp_path, events=s.events)["sections"][0]["deck_checks"] == []  # type: ignore[index]
    deck = parse_deck(LIST, "ptcgl", player="ash", event="Cerulean Cup")
    saved = tmp_path / "decks.json"
    saved.write_text(json.dumps({"event": "Cerulean Cup", "decks": [to_json(deck)]}))
    rep = _report(tmp_path, "--decks", str(saved), events=s.events)
    (f,) = rep["sections"][0]["deck_checks"]  # type: ignore[index]
    assert (f["seq"], f["code"]) == (seq, "not_on_list")
    text = tmp_path / "report.txt"
    path = tmp_path / "games.jsonl"
    assert main(["report", str(path), "--decks", str(saved), "--out", str(text)]) == 0
    assert (
        f"deck checks, judges only (1):\n    cup/r2/t4/g1 #{seq}: not_on_list: ash put Charmander"
        in text.read_text()
    )
    assert encode(deck)  # what the store keeps reads back the same way
    # --lang: the sentence and the card's name in the reader's language, in the text and the HTML (issue 34
    # items 4-5)
    for fmt, lang, sentence in (
        ("text", "ja", "ash は ヒトカゲ を場に出した; デッキリストにないカード"),
        ("html", "ko", "ash이(가) 파이리을(를) 냈음; 덱 리스트에 없는 카드"),
    ):
        out = tmp_path / f"report.{lang}"
        args = [
            "report",
            str(path),
            "--decks",
            str(saved),
            "--format",
            fmt,
            "--lang",
            lang,
            "--out",
            str(out),
        ]
        assert main(args) == 0
        assert sentence in out.read_text(), (fmt, lang)


async def test_the_stores_lists_check_the_stored_games(redis_store: RedisStore, redis_url: str) -> None:
    s, seq = _game("cup/r2/t4/g1")
    core = IngestCore(redis_store)
    for e in s.events:
        assert (await core.ingest(e)).status == "applied", e
    args = ("report", "--from-store", "--redis-prefix", redis_store.prefix, "--format", "json")
    before = json.loads(run(*args, env={"REDIS_URL": redis_url}).stdout)
    assert before["sections"][0]["deck_checks"] == []  # no list registered: nothing checked
    deck = parse_deck(LIST, "ptcgl", player="ash", event="Cerulean Cup")
    await redis_store.put_deck("Cerulean Cup", "ash", encode(deck))
    p = run(*args, env={"REDIS_URL": redis_url})
    assert p.returncode == 0, p.stderr
    (sec,) = json.loads(p.stdout)["sections"]
    (f,) = sec["deck_checks"]
    assert (f["match"], f["seq"], f["card"], f["code"]) == (s.match, seq, "Charmander", "not_on_list")
    assert [item["match"] for item in sec["review"]] == [s.match]
