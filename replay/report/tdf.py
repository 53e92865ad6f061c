"""Tournament Data Files (``.tdf``): what Play! Pokémon's Tournament Operations Manager (TOM) saves.

A TDF is XML (docs/reports.md cites the public descriptions this follows)::

    <tournament type="2" stage="5" version="1.80" gametype="TRADING_CARD_GAME" mode="LEAGUECHALLENGE">
      <data><name>...</name><id>26-01-000123</id><startdate>01/17/2026</startdate>...</data>
      <players>
        <player userid="4012345"><firstname>Ash</firstname><lastname>Ketchum</lastname>
          <dropped><status>1</status><round>2</round></dropped>            (only for a player who dropped)
        </player>
      </players>
      <pods><pod category="2" stage="5"><rounds>
        <round number="1" type="3" stage="4">                             (type 3 Swiss, 1 single elimination)
          <matches>
            <match outcome="1"><player1 userid="..."/><player2 userid="..."/>
              <tablenumber>4</tablenumber></match>
            <match outcome="5"><player userid="..."/><tablenumber>0</tablenumber></match>   (a bye)
          </matches>
        </round>
      </rounds></pod></pods>
      <standings>                                                         (TOM's own, per age division)
        <pod category="2" type="finished"><player id="4012345" place="1"/>...</pod>
        <pod category="2" type="dnf">...</pod>
      </standings>
    </tournament>

Match outcomes: 1 player 1 won, 2 player 2 won, 3 tie, 5 bye (0: not reported yet).

Age divisions (``category``): 0 Juniors, 1 Seniors, 2 Masters. A pod whose category is none of these pairs
the divisions together (an age-combined pod); TOM still ranks each division apart in ``<standings>``, so a
player's division is the standings pod that places them, else the category of the pod they play in.

The reader is pyexpat with every document type declaration refused (so no entity can expand) and a size
cap: a hostile file cannot cost unbounded memory or time. Errors name the file, the line and the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from xml.parsers import expat
from xml.sax.saxutils import escape, quoteattr

from replay.engine import InputError

MAX_BYTES = 64 * 1024 * 1024
OUTCOMES = {0: "not_reported", 1: "player1", 2: "player2", 3: "tie", 5: "bye"}
DIVISIONS = {"0": "juniors", "1": "seniors", "2": "masters"}
SINGLE_ELIMINATION_TYPE = "1"
SWISS_TYPE = "3"


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    line: int
    children: list[_Node] = field(default_factory=list)
    text: str = ""

    def find(self, tag: str) -> _Node | None:
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> Iterator[_Node]:
        return (c for c in self.children if c.tag == tag)

    def child_text(self, tag: str) -> str:
        node = self.find(tag)
        return node.text.strip() if node is not None else ""


@dataclass(frozen=True)
class TdfPlayer:
    """A registered player: the Play! Pokémon ID (``userid``), the name, the round they dropped after, and
    their age division (``juniors``, ``seniors``, ``masters``; None when the file does not say)."""

    userid: str
    first: str
    last: str
    dropped: int | None = None
    division: str | None = None

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}".strip()


@dataclass(frozen=True)
class TdfMatch:
    """A match as the tournament software recorded it (``players`` holds one userid for a bye)."""

    round: int
    stage: str  # swiss | single_elimination
    players: tuple[str, ...]
    outcome: int
    table: int | None
    line: int
    pod: str = ""

    @property
    def result(self) -> dict[str, str] | None:
        """Each player's result (win, loss, tie), or None for a bye or an unreported match."""
        if len(self.players) != 2:
            return None
        a, b = self.players
        return {1: {a: "win", b: "loss"}, 2: {a: "loss", b: "win"}, 3: {a: "tie", b: "tie"}}.get(self.outcome)


@dataclass(frozen=True)
class TomPlace:
    """A player's place in TOM's own standings of one division; ``finished`` False for TOM's ``dnf`` list."""

    userid: str
    place: int
    finished: bool
    line: int


@dataclass
class Tournament:
    """What a TDF says: the event, its players, every match of every round, and TOM's own standings of
    each age division (places in order; empty when the file has none yet)."""

    path: str
    name: str
    id: str
    start: str
    players: dict[str, TdfPlayer]
    matches: list[TdfMatch]
    standings: dict[str, list[TomPlace]] = field(default_factory=dict)

    def divisions(self) -> dict[str, str]:
        """Each player's age division, by userid, for the players whose division the file gives."""
        return {p.userid: p.division for p in self.players.values() if p.division is not None}

    def byes(self) -> dict[str, set[int]]:
        """The rounds in which each player (by userid) had a bye."""
        out: dict[str, set[int]] = {}
        for m in self.matches:
            if m.outcome == 5 and len(m.players) == 1:
                out.setdefault(m.players[0], set()).add(m.round)
        return out

    def dropped(self) -> dict[str, int]:
        """The last round each dropped player took part in, by userid."""
        return {p.userid: p.dropped for p in self.players.values() if p.dropped is not None}


def read_tdf(path: str) -> Tournament:
    """Read a TDF. InputError names the file, the line and the field of anything it cannot use."""
    try:
        data = Path(path).read_bytes() if Path(path).stat().st_size <= MAX_BYTES else None
    except FileNotFoundError:
        raise InputError("no such file", file=path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=path) from None
    if data is None:
        raise InputError(f"larger than {MAX_BYTES // (1024 * 1024)} MiB: not a tournament file", file=path)
    return parse_tdf(data, name=path)


def parse_tdf(data: bytes, *, name: str = "<tdf>") -> Tournament:
    """Parse a TDF's bytes (see :func:`read_tdf`)."""
    root = _parse_xml(data, name)
    if root.tag != "tournament":
        raise InputError(f"the root element is <{root.tag}>, not <tournament>", file=name, line=root.line)
    meta = root.find("data")
    players: dict[str, TdfPlayer] = {}
    for holder in root.findall("players"):
        for node in holder.findall("player"):
            userid = _userid(node, name)
            drop = node.find("dropped")
            dropped = None
            if drop is not None:
                dropped = _int(drop.child_text("round"), name, drop.line, "dropped/round")
            players[userid] = TdfPlayer(
                userid, node.child_text("firstname"), node.child_text("lastname"), dropped
            )
    matches: list[TdfMatch] = []
    pod_division: dict[str, str] = {}
    for pods in root.findall("pods"):
        for pod in pods.findall("pod"):
            category = pod.attrs.get("category", "").strip()
            for rounds in pod.findall("rounds"):
                for rnd in rounds.findall("round"):
                    matches.extend(_round_matches(rnd, name, players, category))
            if category in DIVISIONS:  # a pod of one division: everyone seated or paired in it is in it
                seated = [
                    *_pod_players(pod, name),
                    *(u for m in matches if m.pod == category for u in m.players),
                ]
                pod_division.update((uid, DIVISIONS[category]) for uid in seated)
    standings = _standings(root, name, players)
    division = dict(pod_division)
    for div, places in standings.items():  # TOM's standings say the division even in a combined pod
        division.update((p.userid, div) for p in places)
    for uid, div in division.items():
        if uid in players:
            players[uid] = replace(players[uid], division=div)
    return Tournament(
        path=name,
        name=meta.child_text("name") if meta is not None else "",
        id=meta.child_text("id") if meta is not None else "",
        start=meta.child_text("startdate") if meta is not None else "",
        players=players,
        matches=matches,
        standings=standings,
    )


def _pod_players(pod: _Node, name: str) -> Iterator[str]:
    for subgroups in pod.findall("subgroups"):
        for subgroup in subgroups.findall("subgroup"):
            for holder in subgroup.findall("players"):
                for node in holder.findall("player"):
                    yield _userid(node, name)


def _standings(root: _Node, name: str, players: dict[str, TdfPlayer]) -> dict[str, list[TomPlace]]:
    """TOM's ``<standings>``: per division, the ``finished`` places in order, then the ``dnf`` ones."""
    out: dict[str, list[TomPlace]] = {}
    for holder in root.findall("standings"):
        for pod in holder.findall("pod"):
            category = pod.attrs.get("category", "").strip()
            if category not in DIVISIONS:
                raise InputError(
                    f"unknown age division {category!r} (0 Juniors, 1 Seniors, 2 Masters)",
                    file=name,
                    line=pod.line,
                    field="standings/pod/@category",
                )
            finished = pod.attrs.get("type", "finished") != "dnf"
            for node in pod.findall("player"):
                uid = node.attrs.get("id", "").strip()
                if not uid or (players and uid not in players):
                    raise InputError(
                        f"player {uid!r} is not among <players>",
                        file=name,
                        line=node.line,
                        field="standings/player/@id",
                    )
                place = _int(node.attrs.get("place", ""), name, node.line, "standings/player/@place")
                out.setdefault(DIVISIONS[category], []).append(TomPlace(uid, place, finished, node.line))
    for places in out.values():
        places.sort(key=lambda p: (not p.finished, p.place))
    return out


def _round_matches(rnd: _Node, name: str, players: dict[str, TdfPlayer], pod: str = "") -> Iterator[TdfMatch]:
    number = _int(rnd.attrs.get("number", ""), name, rnd.line, "round/@number")
    stage = "single_elimination" if rnd.attrs.get("type") == SINGLE_ELIMINATION_TYPE else "swiss"
    for holder in rnd.findall("matches"):
        for m in holder.findall("match"):
            outcome = _int(m.attrs.get("outcome", ""), name, m.line, "match/@outcome")
            seats = [m.find("player1"), m.find("player2")]
            if outcome == 5 or seats == [None, None]:
                bye = m.find("player")
                if bye is None:
                    raise InputError("a bye names no <player>", file=name, line=m.line, field="match/player")
                ids: tuple[str, ...] = (_userid(bye, name),)
            else:
                if seats[0] is None or seats[1] is None:
                    raise InputError(
                        "a match needs <player1> and <player2>", file=name, line=m.line, field="match/player2"
                    )
                ids = (_userid(seats[0], name), _userid(seats[1], name))
            for userid in ids:
                if players and userid not in players:
                    raise InputError(
                        f"player {userid} is not among <players>", file=name, line=m.line, field="userid"
                    )
            table_text = m.child_text("tablenumber")
            table = _int(table_text, name, m.line, "tablenumber") if table_text else None
            yield TdfMatch(number, stage, ids, outcome, table, m.line, pod)


def _userid(node: _Node, name: str) -> str:
    userid = node.attrs.get("userid", "").strip()
    if not userid:
        raise InputError(f"<{node.tag}> has no userid", file=name, line=node.line, field="userid")
    return userid


def _int(text: str, name: str, line: int, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise InputError(f"expected a whole number, got {text!r}", file=name, line=line, field=what) from None


def _parse_xml(data: bytes, name: str) -> _Node:
    parser = expat.ParserCreate()
    stack: list[_Node] = []
    root: list[_Node] = []

    def doctype(*_: Any) -> None:
        # No DTD: nothing can declare an entity, so nothing can expand (billion laughs, external files).
        raise InputError(
            "document type declarations are not accepted", file=name, line=parser.CurrentLineNumber
        )

    def start(tag: str, attrs: dict[str, str]) -> None:
        node = _Node(tag, attrs, parser.CurrentLineNumber)
        if stack:
            stack[-1].children.append(node)
        else:
            root.append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        stack.pop()

    def text(chunk: str) -> None:
        if stack:
            stack[-1].text += chunk

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise InputError(
            f"not valid XML: {expat.ErrorString(exc.code)}", file=name, line=exc.lineno
        ) from None
    if not root:
        raise InputError("empty file: no <tournament>", file=name)
    return root[0]


# ------------------------------------------------------------------------------------------ names


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[-_.]+", " ", text).lower().split())


class PlayerIndex:
    """Finds a TDF player for a player id in the game records: the userid itself, the full name, or the
    first name when only one player has it (case, spaces, dots, dashes and underscores ignored)."""

    def __init__(self, players: Iterable[TdfPlayer]) -> None:
        self._by: dict[str, str] = {}
        firsts: dict[str, list[str]] = {}
        for p in players:
            self._by[p.userid] = p.userid
            self._by[_norm(p.name)] = p.userid
            firsts.setdefault(_norm(p.first), []).append(p.userid)
        for first, ids in firsts.items():
            if len(ids) == 1:
                self._by.setdefault(first, ids[0])

    def userid(self, player: str) -> str | None:
        """The userid of the record's ``player``, or None."""
        return self._by.get(player) or self._by.get(_norm(player))


# ------------------------------------------------------------------------------------------ writing


@dataclass(frozen=True)
class WriteRound:
    """A round to write: its number, stage and matches ``(outcome, userid1, userid2 or None, table)``."""

    number: int
    stage: str
    matches: list[tuple[int, str, str | None, int]]


def write_tdf(
    *,
    name: str,
    sanction_id: str,
    start: str,
    players: Iterable[TdfPlayer],
    rounds: Iterable[WriteRound],
    mode: str = "LEAGUECHALLENGE",
) -> bytes:
    """A TDF as TOM writes one (``start`` as MM/DD/YYYY): for simulated leagues and tests."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>']
    out.append(
        f'<tournament type="2" stage="5" version="1.80" gametype="TRADING_CARD_GAME" mode={quoteattr(mode)}>'
    )
    out += [
        "\t<data>",
        f"\t\t<name>{escape(name)}</name>",
        f"\t\t<id>{escape(sanction_id)}</id>",
        "\t\t<city>Pallet Town</city>",
        "\t\t<state></state>",
        "\t\t<country>Kanto</country>",
        "\t\t<roundtime>50</roundtime>",
        "\t\t<finalsroundtime>75</finalsroundtime>",
        '\t\t<organizer popid="1000001" name="Prizecheck Simulator"/>',
        f"\t\t<startdate>{escape(start)}</startdate>",
        "\t\t<lessswiss>false</lessswiss>",
        "\t\t<autotablenumber>true</autotablenumber>",
        "\t\t<overflowtablestart>0</overflowtablestart>",
        "\t</data>",
        "\t<timeelapsed>0</timeelapsed>",
        "\t<players>",
    ]
    for p in players:
        out += [
            f"\t\t<player userid={quoteattr(p.userid)}>",
            f"\t\t\t<firstname>{escape(p.first)}</firstname>",
            f"\t\t\t<lastname>{escape(p.last)}</lastname>",
            "\t\t\t<birthdate>02/27/2000</birthdate>",
            "\t\t\t<starter>true</starter>",
        ]
        if p.dropped is not None:
            out += ["\t\t\t<dropped>", "\t\t\t\t<status>1</status>", f"\t\t\t\t<round>{p.dropped}</round>"]
            out += ["\t\t\t</dropped>"]
        out += ["\t\t</player>"]
    out += ["\t</players>", "\t<pods>", '\t\t<pod category="2" stage="5">', "\t\t\t<rounds>"]
    for rnd in rounds:
        kind = SINGLE_ELIMINATION_TYPE if rnd.stage == "single_elimination" else SWISS_TYPE
        out.append(f'\t\t\t\t<round number="{rnd.number}" type="{kind}" stage="5">')
        out += ["\t\t\t\t\t<timeleft>0</timeleft>", "\t\t\t\t\t<matches>"]
        for outcome, a, b, table in rnd.matches:
            out.append(f'\t\t\t\t\t\t<match outcome="{outcome}">')
            if b is None:
                out.append(f"\t\t\t\t\t\t\t<player userid={quoteattr(a)}/>")
            else:
                out.append(f"\t\t\t\t\t\t\t<player1 userid={quoteattr(a)}/>")
                out.append(f"\t\t\t\t\t\t\t<player2 userid={quoteattr(b)}/>")
            out.append(f"\t\t\t\t\t\t\t<tablenumber>{table}</tablenumber>")
            out.append("\t\t\t\t\t\t</match>")
        out += ["\t\t\t\t\t</matches>", "\t\t\t\t</round>"]
    out += ["\t\t\t</rounds>", "\t\t</pod>", "\t</pods>", "</tournament>", ""]
    return "\n".join(out).encode("utf-8")
