"""The engine compiled by mypyc (``make compile``) is the one imported, is current, and derives exactly
what the same code derives as plain Python.

``make install`` builds the hot engine modules in place (tools/compile_engine.py); without them the same
``.py`` files run as plain Python. ``make test`` sets PRIZECHECK_EXPECT_COMPILED=1, so a build that
silently did not happen fails here instead of testing the pure engine twice.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import random
import subprocess
import sys

import msgspec
import pytest

import replay
from replay.engine import board, chain, game
from tests.compiled import assert_current_and_imported, manifest
from tests.paths import ROOT

MANIFEST = ROOT / "replay" / "engine" / "_compiled.manifest"


def _manifest() -> dict[str, str]:
    return manifest(MANIFEST, "engine")


def test_compiled_modules_are_current_and_imported() -> None:
    modules = _manifest()
    assert "replay/engine/game.py" in modules and "replay/engine/knockout.py" in modules
    assert_current_and_imported(modules)
    assert replay.compiled()
    if "replay/engine/_link.c" in modules:
        assert chain.C_LINK is not None
    # A native class: no __dict__, attributes in C slots.
    assert not hasattr(game.Game(), "__dict__") and not hasattr(game.Game().state, "__dict__")


def test_compiled_engine_derives_what_the_pure_engine_derives() -> None:
    """Every output, record (provisional ones too), board and applied event, on simulated games, faulty
    games, messy deliveries and integers sent as floats: the same bytes from both engines."""
    _manifest()
    proc = subprocess.run(
        [sys.executable, "-m", "tests.engine_outputs", "--pure"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    pure = json.loads(proc.stdout)
    assert pure["game_module"].endswith("replay/engine/game.py")  # the subprocess really ran plain Python

    from tests.engine_outputs import digests

    compiled = digests()
    assert len(compiled) == len(pure["digests"]) > 400
    differ = [i for i, (a, b) in enumerate(zip(compiled, pure["digests"], strict=True)) if a != b]
    assert differ == [], f"{len(differ)} streams differ, first {differ[:5]}"
    assert not any("Error" in d for d in compiled)


def test_a_copy_of_the_state_has_every_field() -> None:
    """Game.record() resolves a pending effect on a copy of the state: copy.deepcopy of native dataclasses
    (compiled) or plain ones. Every field is copied, with equal values, and no container is shared."""
    from replay.generators import simulate

    (stream,) = simulate.simulate_series(11, scenario="prizes")[:1]
    g = game.Game()
    for event in stream[: len(stream) // 2]:
        g.apply(event)
    st = g.state
    twin = copy.deepcopy(st)
    names = [f.name for f in dataclasses.fields(st)]
    assert {"p", "mons", "knockouts", "timeline", "result", "window_claims"} <= set(names)
    for name in names:
        a, b = getattr(st, name), getattr(twin, name)
        assert _plain(a) == _plain(b), name
        if isinstance(a, list | dict | set):
            assert a is not b, name
    for pid, pl in st.p.items():
        assert twin.p[pid] is not pl and twin.p[pid].bench is not pl.bench
    assert all(twin.mons[pid] is not mon for pid, mon in st.mons.items())


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, board.Player | board.Pokemon):
        # a native class (compiled) lists its attributes in __mypyc_attrs__; a plain one in __dict__
        names = getattr(type(value), "__mypyc_attrs__", None) or vars(value)
        return {name: _plain(getattr(value, name)) for name in names if not name.startswith("__")}
    if isinstance(value, msgspec.Struct):
        return msgspec.to_builtins(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def test_the_c_link_is_sha256_of_head_and_canonical_bytes() -> None:
    """replay/engine/_link.c computes the chain's link: always hashlib's sha256(head + canonical)."""
    c_link = chain.C_LINK
    if c_link is None:
        pytest.skip("replay/engine/_link.c is not built (make compile)")
    rng = random.Random(7)
    for size in [0, 1, 31, 32, 55, 56, 63, 64, 65, 119, 120, 200, 1000, 4096, 100_000]:
        head = rng.randbytes(32)
        canonical = rng.randbytes(size)
        assert c_link(head, canonical) == hashlib.sha256(head + canonical).digest()
    assert c_link(chain.GENESIS, b"") == hashlib.sha256(bytes(32)).digest()
    with pytest.raises(TypeError):
        c_link(b"x")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        c_link("str", b"")  # type: ignore[arg-type]


def test_a_deep_copy_of_a_game_goes_on_alone() -> None:
    """copy.deepcopy(game), compiled or not: the copy derives the same from then on, and applying events
    to it leaves the original as it was."""
    from replay.engine.record import dumps
    from replay.generators import simulate

    (stream,) = simulate.simulate_series(11, scenario="prizes")[:1]
    half = len(stream) // 2
    original = game.Game()
    for event in stream[:half]:
        original.apply(event)
    before = dumps(original.record()), dumps(original.board())
    twin = copy.deepcopy(original)
    assert twin.state.p is not original.state.p and twin.state.mons is not original.state.mons
    for event in stream[half:]:
        twin.apply(event)
    assert (dumps(original.record()), dumps(original.board())) == before
    for event in stream[half:]:
        original.apply(event)
    assert dumps(original.record()) == dumps(twin.record())
    assert original.log.head == twin.log.head and original.status == "finished"
