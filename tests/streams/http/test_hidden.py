"""Hidden information, proven over many games: simulated and imported games are posted to the real service
and every route and the live stream are read as each role. No hidden card reaches a role that may not see
it; cards that became public stay visible.

Hidden cards are marked so that any leak is found by a plain search: every card a player draws, searches
into the hand, puts into the deck (its order) or takes from the prizes is renamed ``HIDDENCARD<n>``, and
producers' extra fields carry ``XTRAHIDDEN<n>``. Discarded cards are renamed ``PUBLICCARD<n>``; played
Pokémon keep their names. Then, for each game:

- as the public (no token), ingest, organizer: no response of any route (record, board, archive, index,
  match list, pages, review endpoints, live stream) contains a hidden mark; the organizer's archive (the
  public projection) still shows every discarded and every played card;
- as a judge: the archive and the review endpoints show every hidden mark (the marks did reach the
  service: the search above cannot pass by finding nothing).

``PRIZECHECK_HIDDEN_GAMES`` sets the number of games (CI: 120 simulated + 30 imported; ``make test-long``:
2,000 + 500).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Iterator
from typing import Any

import aiohttp
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.sources.ptcgl import parse_ptcgl
from replay.sources.simulate import simulate_corpus
from replay.sources.synthetic import synthetic_log
from streams.http.redact import PUBLIC_ZONES, public_event
from tests.streams.http.served import Served

Event = dict[str, Any]
GAMES = int(os.environ.get("PRIZECHECK_HIDDEN_GAMES", "150"))
HIDDEN = ("HIDDENCARD", "XTRAHIDDEN")
ROLES = (None, "ingest", "organizer", "judge")


class Marker:
    """Renames cards in hidden and public places, remembering what each game must and must not show."""

    def __init__(self) -> None:
        self.n = 0
        self.hidden: dict[str, set[str]] = {}
        self.public: dict[str, set[str]] = {}

    def _mark(self, match: str, kind: str, count: int) -> list[str]:
        out = []
        for _ in range(max(1, count)):
            self.n += 1
            out.append(f"{kind}{self.n}")
        (self.public if kind == "PUBLICCARD" else self.hidden).setdefault(match, set()).update(out)
        return out

    def event(self, e: Event, rng: random.Random) -> Event:
        e = dict(e)
        m, kind = e["match"], e["type"]
        if kind == "drew":
            e["cards"] = self._mark(m, "HIDDENCARD", int(e.get("count", 1)))
            e["count"] = len(e["cards"])
        elif kind == "moved":
            public = e.get("from") in PUBLIC_ZONES or e.get("to") in PUBLIC_ZONES
            e["cards"] = self._mark(m, "PUBLICCARD" if public else "HIDDENCARD", int(e.get("count", 1)))
            e["count"] = len(e["cards"])
        elif kind == "played":
            self.public.setdefault(m, set()).add(e["card"]["name"])
        if rng.random() < 0.05:  # a producer's extra field: kept in the archive, for judges only
            e["secret"] = self._mark(m, "XTRAHIDDEN", 1)[0]
        return e


def games(marker: Marker) -> Iterator[list[Event]]:
    """The corpus: simulated games (with their playoff games) and imported PTCGL battle logs."""
    rng = random.Random(7)
    imported = max(1, GAMES // 5)
    for stream in simulate_corpus(GAMES - imported, 2026):
        yield [marker.event(e, rng) for e in stream]
    for i in range(imported):
        text, _catalogue, _winner, _reason = synthetic_log(100 + i)
        events = parse_ptcgl(text, match=f"ptcgl-{i:04d}", filename=f"log-{i}.txt").events
        yield [marker.event(e, rng) for e in events]


async def read(s: Served, path: str, who: str | None) -> tuple[int, str]:
    async with s.http.get(f"{s.url}{path}", headers=s.auth(who), allow_redirects=False) as r:
        return r.status, await r.text()


async def live_frame(s: Served, match: str, who: str | None) -> str:
    """The first board of the match's live stream."""
    timeout = aiohttp.ClientTimeout(total=20)
    async with s.http.get(f"{s.url}/matches/{match}/live", headers=s.auth(who), timeout=timeout) as r:
        assert r.status == 200
        async for raw in r.content:
            if raw.startswith(b"data: "):
                return raw.decode()
    raise AssertionError("no board on the live stream")


async def test_no_hidden_card_reaches_a_role_that_may_not_see_it(served: Served) -> None:
    s = served
    marker = Marker()
    corpus = list(games(marker))
    matches = [stream[0]["match"] for stream in corpus]
    for i in range(0, len(corpus), 20):  # 20 games per request
        batch = [e for stream in corpus[i : i + 20] for e in stream]
        r = await s.post(batch, who="admin")  # a judge: the simulated games' penalties after the end
        assert r.status == 200, (await r.text())[:500]
    assert len(matches) >= GAMES and sum(len(v) for v in marker.hidden.values()) > GAMES

    sem = asyncio.Semaphore(16)

    async def check(match: str) -> None:
        async with sem:
            last = len(next(g for g in corpus if g[0]["match"] == match))
            paths = [
                f"/matches/{match}/record",
                f"/matches/{match}/board",
                f"/matches/{match}/events",
                f"/review/{match}",
                f"/review/{match}/meta",
                f"/review/{match}/state?seq={random.Random(match).randint(1, last)}",
                f"/review/{match}/state",
                f"/overlay/{match}",
            ]
            for who in ROLES:
                seen = []
                for path in paths:
                    status, body = await read(s, path, who)
                    assert status < 500, (path, who, status)
                    seen.append(body)
                seen.append(await live_frame(s, match, who))
                text = "\n".join(seen)
                if who == "judge":
                    for mark in marker.hidden.get(match, ()):
                        assert mark in text, (match, mark)
                    continue
                for mark in HIDDEN:
                    assert mark not in text, (match, who, text[text.find(mark) - 200 : text.find(mark) + 50])
                if who == "organizer":
                    archive = seen[2]
                    for card in marker.public.get(match, ()):
                        assert json.dumps(card)[1:-1] in archive, (match, card)

    await asyncio.gather(*(check(m) for m in matches))
    for who in ROLES:  # the lists: index, match list, stats
        for path in ("/matches?limit=10000", "/ui?limit=5000", "/stats", "/healthz"):
            status, body = await read(s, path, who)
            assert status < 500 and not any(mark in body for mark in HIDDEN), (path, who)


# ------------------------------------------------------------------------------- the projection alone
_zone = st.sampled_from(["deck", "hand", "discard", "prizes", "lost_zone", "stadium"])
_events = st.fixed_dictionaries(
    {
        "match": st.just("m1"),
        "seq": st.integers(1, 500),
        "type": st.sampled_from(
            ["drew", "moved", "played", "note", "correction", "setup", "match_started", "bogus"]
        ),
        "cards": st.lists(st.just("SECRETCARD"), max_size=3),
        "from": _zone,
        "to": _zone,
        "text": st.just("SECRETNOTE"),
        "event": st.just({"cards": ["SECRETCARD"]}),
    },
    optional={"revealed": st.booleans(), "extra": st.just("SECRETEXTRA"), "count": st.integers(0, 3)},
)


@settings(max_examples=500, deadline=None)
@given(_events)
def test_the_public_projection_keeps_only_public_fields(event: Event) -> None:
    out = json.dumps(public_event(event))
    assert "SECRETNOTE" not in out and "SECRETEXTRA" not in out
    public_move = event["type"] == "moved" and (
        event.get("revealed") is True or event["from"] in PUBLIC_ZONES or event["to"] in PUBLIC_ZONES
    )
    if "SECRETCARD" in out:
        assert public_move and event["cards"], event
    elif public_move and event["cards"]:
        raise AssertionError(f"a public move lost its cards: {event}")
    assert public_event(event)["seq"] == event["seq"] and public_event(event)["type"] == event["type"]
