"""Korean particles chosen by the word a placeholder holds (replay.i18n.korean; issue 34 item 5): after a
final consonant 을/이/은/과/으로, after a vowel 를/가/는/와/로 (and 로 after ㄹ); a word that does not end
in hangul keeps the generic form the catalogue wrote."""

from __future__ import annotations

import pytest

from replay.i18n import korean, notes
from replay.sources.cards import card_name
from streams.http.battle_log import card_in


def test_the_final_consonant_of_a_words_last_syllable() -> None:
    assert korean.final("피카츄") == 0  # 츄: no final consonant
    assert korean.final("야돈") == 4  # 돈: ㄴ
    assert korean.final("물") == 8  # 물: ㄹ
    assert korean.final("가") == 0 and korean.final("힣") == 27  # the first and the last syllable
    for word in ("Pikachu", "뮤 ex", "(B1)", ""):
        assert korean.final(word) is None, word


@pytest.mark.parametrize(
    ("word", "reading", "end"),
    [
        ("1", "일", 8),
        ("2", "이", 0),
        ("3", "삼", 16),
        ("6", "육", 1),
        ("0", "영", 21),
        ("12", "십이", 0),
        ("B1", "비일", 8),
        ("10", "십", 17),
        ("120", "백이십", 17),
        ("300", "삼백", 1),
        ("2000", "이천", 4),
        ("50000", "오만", 4),
        ("100000000", "일억", 1),
    ],
)
def test_a_number_ends_as_it_is_read(word: str, reading: str, end: int) -> None:
    assert korean.final(word) == end == korean.final(reading)


@pytest.mark.parametrize(
    ("word", "generic", "shown"),
    [
        ("야돈", "을(를)", "을"),
        ("피카츄", "을(를)", "를"),
        ("야돈", "이(가)", "이"),
        ("피카츄", "이(가)", "가"),
        ("야돈", "은(는)", "은"),
        ("피카츄", "은(는)", "는"),
        ("야돈", "와(과)", "과"),
        ("피카츄", "와(과)", "와"),
        ("덱", "(으)로", "으로"),
        ("패", "(으)로", "로"),
        ("트래쉬", "(으)로", "로"),
        ("물", "(으)로", "로"),  # ㄹ takes 로
        ("야돈", "(이)", "이"),
        ("피카츄", "(이)", ""),
        # not hangul at the end: its reading is not known here, the generic form stays
        ("Pikachu", "을(를)", "을(를)"),
        ("A3", "(으)로", "으로"),  # 삼
        ("seq 12", "을(를)", "를"),  # 십이
        ("A3x", "(으)로", "(으)로"),
        ("뮤 ex", "이(가)", "이(가)"),
        # not a particle this knows: as written
        ("야돈", "에게", "에게"),
    ],
)
def test_a_particle_in_the_form_its_word_takes(word: str, generic: str, shown: str) -> None:
    assert korean.particle(word, generic) == shown


def test_a_template_filled_with_its_particles() -> None:
    template = "{player}이(가) {card}을(를) {zone}(으)로 옮김: {card}(이)라는 카드"
    assert korean.fill(template, {"player": "Mara", "card": "피카츄", "zone": "덱"}) == (
        "Mara이(가) 피카츄를 덱으로 옮김: 피카츄라는 카드"
    )
    assert korean.fill(template, {"player": "지우", "card": "야돈", "zone": "패"}) == (
        "지우가 야돈을 패로 옮김: 야돈이라는 카드"
    )
    # a particle after the template's own text (not a field) is as the translation wrote it
    assert korean.fill("{card} ({pid})을(를) 고름", {"card": "야돈", "pid": "B1"}) == "야돈 (B1)을(를) 고름"
    # braces the template escapes are text
    assert korean.fill("{{x}}을(를) {card}", {"card": "야돈"}) == "{x}을(를) 야돈"


def test_an_importers_note_in_korean_takes_the_particles_of_its_card_names() -> None:
    name = card_name("Slowpoke", "ko")
    assert name == "야돈"
    said = notes.say(notes.GUESS_PID, n=2, card="Slowpoke", pids="A2, A3", what="the knockout", pid="A2")
    shown = notes.text("ko", said, card_in("ko"))
    assert shown.startswith("야돈이라는 이름의 포켓몬 2마리"), shown
    said = notes.say(notes.CARD_UNKNOWN, player="Mara", card="Slowpoke")
    assert "야돈을 사용함" in notes.text("ko", said, card_in("ko"))
    # a name in Latin letters keeps the generic form; Japanese is not touched
    said = notes.say(notes.CARD_UNKNOWN, player="Mara", card="Mystery Card")
    assert "Mara이(가) Mystery Card을(를) 사용함" in notes.text("ko", said, card_in("ko"))
    assert "(" not in notes.text("ja", said, card_in("ja")).split(":")[0]


def test_a_field_keeps_its_format_spec_and_conversion() -> None:
    # 1,200 is 천이백: read by its digits, the comma not read
    assert korean.fill("{n:,}을(를) {card!r}(으)로", {"n": 1200, "card": "야돈"}) == "1,200을 '야돈'(으)로"
    assert korean.fill("{n:>5}(으)로", {"n": 13}) == "   13으로"  # 십삼
    assert korean.fill("{m.x}을(를)", {"m": type("M", (), {"x": "야돈"})()}) == "야돈을"


def test_every_translated_message_takes_its_particles(monkeypatch: pytest.MonkeyPatch) -> None:
    """One way a message gets its fields (replay.i18n.fill): the command line's, the service's errors, a
    finding's sentence; English and Japanese as str.format fills them."""
    from replay import i18n
    from replay.cli.words import tr

    template = "Deck-out: {player} cannot draw"
    assert (
        i18n.fill("ko", i18n.gettext("ko", template), {"player": "지우"})
        == "덱 아웃: 지우는 카드를 뽑을 수 없음"
    )
    assert (
        i18n.fill("ko", i18n.gettext("ko", template), {"player": "웅"}) == "덱 아웃: 웅은 카드를 뽑을 수 없음"
    )
    assert i18n.fill("en", template, {"player": "지우"}) == "Deck-out: 지우 cannot draw"
    monkeypatch.setenv("LC_ALL", "ko_KR.UTF-8")
    assert tr(" (did you mean {choice}?)", choice="리플레이") == " (리플레이를 말씀하신 건가요?)"
    assert tr(" (did you mean {choice}?)", choice="replay") == " (replay을(를) 말씀하신 건가요?)"


def test_a_pages_trans_block_takes_the_particles_of_its_fields() -> None:
    """The pages' ``{% trans %}`` (Jinja2's ``%(name)s``) choose the particle as fill() does, the field
    still escaped by Jinja2: a role's name, a player's handle in markup."""
    from streams.http.templating import environment

    template = environment("ko").from_string("{% trans %}This page needs the role {{ roles }}{% endtrans %}")
    assert template.render(roles="저지") == "이 페이지에는 역할 저지가 필요합니다"
    assert template.render(roles="기록원") == "이 페이지에는 역할 기록원이 필요합니다"
    assert (
        template.render(roles="judge") == "이 페이지에는 역할 judge이(가) 필요합니다"
    )  # its reading unknown
    assert template.render(roles="<b>") == "이 페이지에는 역할 &lt;b&gt;이(가) 필요합니다"
    assert korean.particled("%(who)s은(는) %(card)s을(를)", {"who": "야돈", "card": "피카츄"}) == (
        "%(who)s은 %(card)s를"
    )
