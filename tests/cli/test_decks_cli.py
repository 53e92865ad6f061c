"""``prizecheck decks import`` (replay/cli/decks.py): a list read whole, stored for its event and player
(or one match), the import in the audit log, its breaches of the deck rules printed; a malformed list
stores nothing and names its line."""

from __future__ import annotations

from pathlib import Path

from replay.sources.decks import decode
from streams.store import RedisStore
from tests.cli.test_cli import run
from tests.paths import ROOT

DECK = str(ROOT / "tests" / "data" / "decks" / "lightning.txt")


def decks(store: RedisStore, redis_url: str, *args: str) -> tuple[int, str, str]:
    p = run("decks", "import", *args, "--redis-prefix", store.prefix, env={"REDIS_URL": redis_url})
    return p.returncode, p.stdout.decode(), p.stderr.decode()


async def test_a_list_is_stored_audited_and_checked(redis_store: RedisStore, redis_url: str) -> None:
    code, out, err = decks(redis_store, redis_url, DECK, "--event", "Cup", "--player", "ash",
                           "--play", "standard", "--date", "2026-04-01")  # fmt: skip
    assert code == 0, err
    assert out == (
        f"{DECK}:5: regulation_mark: 1 Radiant Greninja ASR 46: regulation mark F; Standard at 2026-04-01 "
        "allows G and later (rules.md §8.2)\n"
    )
    assert err.startswith(f"deck list of ash for Cup (the event): 60 cards from {DECK} stored in")
    code, _, err = decks(
        redis_store, redis_url, DECK, "--event", "Cup", "--player", "ash", "--match", "cup/r3/g1"
    )
    assert code == 0, err
    stored = await redis_store.decks("Cup")
    assert set(stored) == {"ash", "ash|cup/r3/g1"}
    assert decode(stored["ash"]).total == 60
    (entry, _) = [e for e in await redis_store.audit_log() if e.action == "deck_import"]
    assert entry.target == "Cup/ash" and entry.detail == f"60 cards from {DECK} (ptcgl)"


async def test_a_malformed_list_stores_nothing(
    redis_store: RedisStore, redis_url: str, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("Pokémon: 4\n4 Pikachu ex SVI 57\nTrainer: 1\nfour Iono PAL 185\n", "utf-8")
    code, out, err = decks(redis_store, redis_url, str(bad), "--event", "Cup", "--player", "ash")
    assert (code, out) == (2, "")
    assert err == (
        f"prizecheck decks: {bad}:4: not a card line (COUNT NAME SET NUMBER) nor a heading: "
        "'four Iono PAL 185'\n"
    )
    assert await redis_store.decks("Cup") == {}
    assert not [e for e in await redis_store.audit_log() if e.action == "deck_import"]
