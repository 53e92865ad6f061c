"""The hash chain over canonical bytes, and signatures (replay/engine/chain.py; docs/records.md)."""

from __future__ import annotations

import copy

from replay import Game
from replay.engine.chain import canonical_bytes, chain_head, sign, verify_signature
from tests.engine.games import full_game


def test_chain_is_over_canonical_bytes_and_signatures_verify() -> None:
    s = full_game()
    r = s.record()
    assert r["chain"]["head"] == chain_head(s.events)
    reordered = {k: s.events[3][k] for k in reversed(list(s.events[3]))}
    assert canonical_bytes(reordered) == canonical_bytes(s.events[3])
    signed = sign(r, b"secret", "k1")
    assert verify_signature(signed, b"secret")
    assert not verify_signature(signed, b"other")
    tampered = {**signed, "result": {**signed["result"], "winner": "misty"}}
    assert not verify_signature(tampered, b"secret")


def test_huge_integers_and_integral_floats_do_not_break_the_chain() -> None:
    s = full_game()
    s.events[3]["note_id"] = 2**70  # an extra field the contract does not limit
    g = Game()
    for e in s.events:
        g.apply(e)
    assert g.record()["chain"]["events"] == len(s.events)
    assert g.apply(copy.deepcopy(s.events[3])) == []  # still recognised as a duplicate
    from replay.codec import decode_events

    line = b'{"match": "m1", "seq": 1.0, "type": "note", "text": "x", "score": 0.5}\n'
    ((_, event),) = decode_events(line, name="x.jsonl", validate=False)
    assert event["seq"] == 1 and isinstance(event["seq"], int) and event["score"] == 0.5
