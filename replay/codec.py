"""Reading event files: JSON Lines (``.jsonl``, ``.json``), MessagePack streams (``.msgpack``) and stdin.

Every event is validated against the contract as it is read; a problem raises
:class:`replay.engine.errors.InputError` naming the file, the line (or the event's position in a MessagePack
stream) and the field, so nothing is silently dropped and no traceback reaches a user.

A file is read in two passes over its bytes, chunk by chunk (a few thousand events each), so that no list
of every decoded event is ever built:

- :meth:`EventFile.check` decodes each chunk straight into the contract's types, in C
  (:func:`replay.contract.validate.event_decoders`): one call per chunk, no dict per event. It yields each
  chunk's match ids and seqs, which is all a reader needs to know which game each event belongs to and
  whether a game's events come in order. Whatever that decoder refuses in a chunk is read the way every
  event used to be: decoded as a dict and checked by :func:`replay.contract.validate.validate_event`, which
  decides and words the error.
- :meth:`EventFile.events` then gives the same chunks' events for the engine: a MessagePack chunk as each
  message's own bytes (what ``Game.apply_msgpack`` takes: the hash chain hashes them as they are when they
  are canonical), a JSON Lines chunk as dicts.

A regular file is mapped into memory (``mmap``) rather than read into it; stdin is read whole.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import sys
from collections.abc import Iterator
from operator import attrgetter
from typing import Any, NamedTuple

import msgspec

from replay.contract.shape import MAX_DEPTH, edge_event
from replay.contract.validate import event_decoders, validate_event
from replay.engine import InputError

JSON_SUFFIXES = (".jsonl", ".json", ".ndjson")
MSGPACK_SUFFIXES = (".msgpack", ".mpk", ".msgp")

CHUNK_EVENTS = 4096
"""MessagePack events decoded per call (about 0.6 MB of client-stamped events)."""
CHUNK_BYTES = 1 << 19
"""JSON Lines bytes decoded per call (cut at the next line end)."""

# What in JSON text may decode to a value the edge refuses (replay.contract.validate.scalar_problem): 19
# digits or more (an integer beyond 64 bits), NaN / Infinity (Python's JSON reader takes them), a
# three-digit exponent (a float beyond the finite ones), a \uD800-\uDFFF escape (a lone surrogate).
# The same characters inside a string only cost the walk.
_RISKY = re.compile(r"[0-9]{19}|NaN|Infinity|[eE][+-]?[0-9]{3}|\\u[dD][89a-fA-F]")
_RISKY_BYTES = re.compile(_RISKY.pattern.encode())


def shallow_json(text: str | bytes) -> bool:
    """True when JSON ``text`` cannot nest deeper than :data:`MAX_DEPTH` (it has no more brackets than
    that, strings included) and holds no number or escape that could be refused (:data:`_RISKY`). Its
    events, as :func:`loads_json` reads them, then pass :func:`edge_event` without a walk: JSON keys
    are strings, and integral numbers are ints already."""
    if isinstance(text, str):
        return text.count("{") + text.count("[") <= MAX_DEPTH and _RISKY.search(text) is None
    return text.count(b"{") + text.count(b"[") <= MAX_DEPTH and _RISKY_BYTES.search(text) is None


_NOT_SPACE = re.compile(rb"[^ \t\n\r\x0b\x0c]")
_BOM = b"\xef\xbb\xbf"
_match_of = attrgetter("match")
_seq_of = attrgetter("seq")


class Checked(NamedTuple):
    """One chunk of a file, checked: its events' match ids and seqs, in file order."""

    matches: list[str]
    seqs: list[Any]
    """Each event's seq as sent (an int; a float such as ``5.0`` where the source wrote one)."""
    size: int
    """The chunk's bytes (for progress)."""


class _Chunk(NamedTuple):
    """Where a chunk is, for the second pass, and how it was read in the first."""

    start: int
    end: int
    events: int
    typed: bool  # every event read by the typed decoder (else: the dict way, event by event)
    first: int  # the chunk's first line (JSON Lines) or event position (MessagePack), from 1


class _Seen(NamedTuple):
    """An event read the dict way in the first pass: only what the second pass's order needs."""

    match: str
    seq: Any


def _frames_python(data: Any, start: int, limit: int, utf8: bool = False) -> list[bytes]:
    """:func:`replay.engine._link.frames` without the C extension: msgpack's own skipping (``utf8``: and
    its strict reading of each message's strings, as ``span`` checks them)."""
    import msgpack

    view = memoryview(data)[start:]
    unpacker = msgpack.Unpacker(max_buffer_size=max(len(view), 1))
    unpacker.feed(view)
    out: list[bytes] = []
    end = 0
    while len(out) < limit:
        try:
            unpacker.skip()
        except Exception:  # truncated or invalid: the caller reads it again, for its error
            break
        nxt = unpacker.tell()
        frame = bytes(view[end:nxt])
        if utf8:
            try:  # only the strings matter here: lists as tuples (hashable keys), ext types left alone
                msgpack.unpackb(frame, raw=False, strict_map_key=False, use_list=False, ext_hook=_ext)
            except UnicodeDecodeError:
                break
            except Exception:
                pass
        out.append(frame)
        end = nxt
    return out


def _ext(code: int, data: bytes) -> None:
    return None


def _span_python(data: Any, start: int, limit: int) -> tuple[int, int]:
    """:func:`replay.engine._link.span` without the C extension."""
    frames = _frames_python(data, start, limit, utf8=True)
    return len(frames), start + sum(map(len, frames))


def _c_frames() -> tuple[Any, Any]:
    try:
        from replay.engine import frames, span
    except ImportError:
        return _frames_python, _span_python
    return frames, span


_frames, _span = _c_frames()


def unreadable(exc: OSError, path: str) -> InputError:
    """Why ``path`` cannot be read, in the words of every command (README, "Exit status and messages"):
    ``FILE: no such file``, ``FILE: is a directory``, else ``FILE: cannot read: REASON``."""
    if isinstance(exc, FileNotFoundError | NotADirectoryError):
        return InputError("no such file", file=path)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory", file=path)
    return InputError(f"cannot read: {os_reason(exc)}", file=path)


def unwritable(exc: OSError, path: str) -> InputError:
    """Why ``path`` cannot be written: ``PATH: cannot write: no such directory`` (and the like)."""
    if isinstance(exc, FileNotFoundError):
        reason = "no such directory"
    elif isinstance(exc, NotADirectoryError):
        reason = "a part of the path is not a directory"
    elif isinstance(exc, IsADirectoryError):
        reason = "is a directory"
    else:
        reason = os_reason(exc)
    return InputError(f"cannot write: {reason}", file=path)


def os_reason(exc: OSError) -> str:
    """The system's reason for ``exc`` in lower case ("permission denied", "no space left on device")."""
    text = exc.strerror or str(exc) or type(exc).__name__
    return text[:1].lower() + text[1:]


def json_error(exc: json.JSONDecodeError) -> str:
    """A JSON syntax error in one phrase: ``not valid JSON: Expecting value (column 3)``."""
    return f"not valid JSON: {exc.msg} (column {exc.colno})"


def open_input(path: str) -> EventFile:
    """``path`` as an :class:`EventFile` (``-`` is stdin); InputError when it cannot be read."""
    if path == "-":
        return EventFile("<stdin>", sys.stdin.buffer.read())
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            try:
                data: Any = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
            except (ValueError, OSError):  # not a regular file (a pipe, a device): read it
                data = handle.read()
    except OSError as exc:
        raise unreadable(exc, path) from None
    return EventFile(path, data)


#: The first bytes of files that are often given by mistake, and what to say of each.
_NOT_EVENTS: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image, not events (a photo of a game sheet: prizecheck import scan)"),
    (b"\xff\xd8\xff", "a JPEG image, not events (a photo of a game sheet: prizecheck import scan)"),
    (b"%PDF-", "a PDF document, not events (a scanned game sheet: prizecheck import scan)"),
    (b"\x1f\x8b", "gzip-compressed: decompress it first (gunzip -k FILE), then give the .jsonl or .msgpack"),
    (b"PK\x03\x04", "a ZIP archive: unpack it first, then give the .jsonl or .msgpack files"),
    (b"\xff\xfe", "UTF-16 text: events are UTF-8 JSON Lines (convert it: iconv -f UTF-16 -t UTF-8)"),
    (b"\xfe\xff", "UTF-16 text: events are UTF-8 JSON Lines (convert it: iconv -f UTF-16 -t UTF-8)"),
)


def not_events(data: bytes | mmap.mmap) -> str | None:
    """What a file is when its first bytes say it is not events (an image, a compressed file, UTF-16
    text), else None: said before it is read as JSON or MessagePack, whose own errors would mislead."""
    head = bytes(data[:8])
    return next((why for magic, why in _NOT_EVENTS if head.startswith(magic)), None)


def looks_like_record(data: bytes | mmap.mmap) -> bool:
    """Whether the first line is a Prizecheck record (``replay --json`` output) rather than an event."""
    end = data.find(b"\n", 0, 1 << 20)
    first = bytes(data[: end if end >= 0 else 1 << 20])
    if not first.lstrip(b"\xef\xbb\xbf \t").startswith(b"{"):
        return False
    try:
        doc = json.loads(first.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False
    return isinstance(doc, dict) and "chain" in doc and "result" in doc and "type" not in doc


class EventFile:
    """One event file's bytes, read in two passes (see the module docstring)."""

    def __init__(self, name: str, data: bytes | mmap.mmap) -> None:
        why = not_events(data)
        if why is not None:
            raise InputError(why, file=name)
        if looks_like_record(data):
            raise InputError(
                "a record (replay --json output), not events: check it with prizecheck verify FILE "
                "[--events EVENTS], or report on it with prizecheck report --records FILE",
                file=name,
                line=1,
            )
        self.name = name
        self.data = data
        self.size = len(data)
        self.msgpack = sniff_msgpack(name, data)
        self.start = 3 if not self.msgpack and data[:3] == _BOM else 0
        self._chunks: list[_Chunk] = []

    def check(self) -> Iterator[Checked]:
        """First pass: validate every event, chunk by chunk (InputError names file, line and field)."""
        self._chunks.clear()
        yield from self._check_msgpack() if self.msgpack else self._check_jsonl()

    def events(self) -> Iterator[tuple[list[Any], bool]]:
        """Second pass (after :meth:`check`): each chunk's events in the same order, and whether they are
        MessagePack messages (bytes, for ``Game.apply_msgpack``) rather than dicts (``Game.apply``)."""
        for chunk in self._chunks:
            if self.msgpack:
                frames = _frames(self.data, chunk.start, chunk.events)
                if chunk.typed:
                    yield frames, True
                else:
                    first = chunk.first
                    yield (
                        [self._msgpack_dict(f, first + i, validate=False) for i, f in enumerate(frames)],
                        False,
                    )
            else:
                yield self._jsonl_dicts(chunk), False

    def numbered(self, *, validate: bool = True) -> Iterator[tuple[int, dict[str, Any]]]:
        """Every event as a dict with its line (MessagePack: its position), checked first (``validate``)."""
        if validate:
            for _ in self.check():
                pass
        if self.msgpack:
            pos, index = self.start, 0
            while pos < self.size:
                frames = _frames(self.data, pos, CHUNK_EVENTS)
                if not frames:
                    self._msgpack_error(pos, index)
                for frame in frames:
                    index += 1
                    yield index, self._msgpack_dict(frame, index, validate=False)
                pos += sum(map(len, frames))
            return
        text = self.data[self.start :]
        for lineno, raw in enumerate(text.split(b"\n"), 1):
            for event in _json_line(raw, self.name, lineno, validate=False):
                yield lineno, event

    def where(self, chunk: int, k: int) -> int:
        """The line (MessagePack: the position) of the ``k``-th event of chunk number ``chunk``."""
        part = self._chunks[chunk]
        if self.msgpack:
            return part.first + k
        text = self.data[part.start : part.end]
        for lineno, raw in enumerate(text.split(b"\n"), part.first):
            k -= len(_json_line(raw, self.name, lineno, validate=False))
            if k < 0:
                return lineno
        return part.first

    def as_dict(self, frame: bytes, position: int) -> dict[str, Any]:
        """A MessagePack event decoded as a dict by msgpack, as events were before the engine decoded
        their bytes itself (InputError, naming the position, where msgpack cannot read it)."""
        return self._msgpack_dict(frame, position, validate=False)

    def close(self) -> None:
        """Let go of the file's bytes (unmap it)."""
        if isinstance(self.data, mmap.mmap):
            self.data.close()
        self.data = b""

    # ------------------------------------------------------------------------------------- MessagePack
    def _check_msgpack(self) -> Iterator[Checked]:
        data = self.data
        decode_array = event_decoders().msgpack_array.decode
        accepts = event_decoders().accepts
        pos, index = self.start, 0  # index: events read so far
        while pos < self.size:
            n, end = _span(data, pos, CHUNK_EVENTS)
            if n == 0:
                self._msgpack_error(pos, index)
            try:
                items = decode_array(b"".join((_array_header(n), memoryview(data)[pos:end])))
                matches = list(map(_match_of, items))  # read once: for the check and for the reader
                typed = accepts(items, matches)
            except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
                # RecursionError: an event nested past msgspec's stack, which the compiled frame reader
                # (_link.span) passes on; each frame's own reader below names the event and the depth
                typed = False
            if not typed:
                frames = _frames(data, pos, n)
                items = [self._msgpack_one(f, index + i + 1) for i, f in enumerate(frames)]
                matches = list(map(_match_of, items))
            self._chunks.append(_Chunk(pos, end, n, typed, index + 1))
            yield Checked(matches, list(map(_seq_of, items)), end - pos)
            pos = end
            index += n

    def _msgpack_one(self, frame: bytes, position: int) -> Any:
        """One message the chunk's decoder refused: the typed decoder alone, else the dict way."""
        try:
            item = event_decoders().msgpack.decode(frame)
            if event_decoders().accepts([item]):
                return item
        except (msgspec.ValidationError, msgspec.DecodeError, RecursionError):
            pass  # the dict way names what is wrong (RecursionError: nested past msgspec's stack)
        event = self._msgpack_dict(frame, position)
        return _Seen(event["match"], event["seq"])

    def _msgpack_dict(self, frame: bytes, position: int, *, validate: bool = True) -> dict[str, Any]:
        """One message decoded by msgpack as a dict, and validated (``validate_event``)."""
        import msgpack

        try:
            item = msgpack.unpackb(frame, raw=False, strict_map_key=False)
        except (msgpack.StackError, RecursionError):
            raise InputError(
                f"not valid MessagePack at event {position}: nested deeper than {MAX_DEPTH} levels",
                file=self.name,
                line=position,
            ) from None
        except Exception as exc:
            raise InputError(
                f"not valid MessagePack at event {position}: {exc}", file=self.name, line=position
            ) from None
        if type(item) is dict:
            # the edge's rules (docs/events.md, "Limits"), in the fold too: integral floats become ints there
            edge_event(item, file=self.name, line=position)
        if validate:
            validate_event(item, file=self.name, line=position)
        elif not isinstance(item, dict):
            raise InputError("an event must be a map", file=self.name, line=position)
        event: dict[str, Any] = item
        return event

    def _msgpack_error(self, pos: int, index: int) -> None:
        """The message at byte ``pos`` (after ``index`` whole events) is truncated or not MessagePack."""
        import msgpack

        # msgpack's limits (items per map, bytes per string) follow its buffer size: its default one, as
        # when the whole file was read this way, unless what is left is larger
        size = max(self.size - pos, 100 * 1024 * 1024)
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=size)
        unpacker.feed(memoryview(self.data)[pos:])
        try:
            unpacker.unpack()
        except msgpack.OutOfData:
            raise InputError(
                f"truncated MessagePack after event {index} (byte {pos})", file=self.name, line=index + 1
            ) from None
        except (msgpack.StackError, RecursionError):  # its str() is empty: the limit, in words
            raise InputError(
                f"not valid MessagePack at event {index + 1}: nested deeper than {MAX_DEPTH} levels",
                file=self.name,
                line=index + 1,
            ) from None
        except Exception as exc:
            raise InputError(
                f"not valid MessagePack at event {index + 1}: {exc}", file=self.name, line=index + 1
            ) from None
        raise InputError(f"not valid MessagePack at event {index + 1}", file=self.name, line=index + 1)

    # -------------------------------------------------------------------------------------- JSON Lines
    def _check_jsonl(self) -> Iterator[Checked]:
        data = self.data
        decode_lines = event_decoders().json.decode_lines
        accepts = event_decoders().accepts
        pos, line = self.start, 1
        while pos < self.size:
            cut = data.find(b"\n", min(pos + CHUNK_BYTES, self.size - 1))
            end = self.size if cut < 0 else cut + 1
            text = data[pos:end]
            try:
                items: list[Any] = decode_lines(text)
                matches = list(map(_match_of, items))
                typed = accepts(items, matches) and _utf8(text)
            except (msgspec.ValidationError, msgspec.DecodeError):
                typed = False
            if not typed:
                items = list(self._jsonl_seen(text, line))
                matches = list(map(_match_of, items))
            self._chunks.append(_Chunk(pos, end, len(items), typed, line))
            yield Checked(matches, list(map(_seq_of, items)), end - pos)
            line += text.count(b"\n")
            pos = end

    def _jsonl_seen(self, text: bytes, first: int) -> Iterator[Any]:
        """A chunk line by line: the typed decoder where it accepts a line, else the dict way."""
        decode = event_decoders().json.decode
        for lineno, raw in enumerate(text.split(b"\n"), first):
            try:
                item = decode(raw)
                if event_decoders().accepts([item]) and _utf8(raw):
                    yield item
                    continue
            except (msgspec.ValidationError, msgspec.DecodeError):
                pass
            for event in _json_line(raw, self.name, lineno):
                yield _Seen(event["match"], event["seq"])

    def _jsonl_dicts(self, chunk: _Chunk) -> list[dict[str, Any]]:
        text = self.data[chunk.start : chunk.end]
        if chunk.typed:
            try:
                events: list[dict[str, Any]] = _json_dicts(text)
                return events
            except (msgspec.ValidationError, msgspec.DecodeError):
                pass  # e.g. a number beyond a float in a field the contract leaves open: the dict way
        return [
            event
            for lineno, raw in enumerate(text.split(b"\n"), chunk.first)
            for event in _json_line(raw, self.name, lineno, validate=False)
        ]


def _utf8(text: bytes) -> bool:
    """True when ``text`` is UTF-8 (the JSON decoder skips the fields it does not know unread)."""
    if text.isascii():
        return True
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _array_header(n: int) -> bytes:
    return b"\xdd" + n.to_bytes(4, "big")


def loads_json(text: str | bytes) -> Any:
    """One JSON value, numbers read as :func:`_number` reads them (the JSON reader of every transport).

    Raises ``ValueError`` (``json.JSONDecodeError``) for bad JSON, and ``ValueError`` naming the depth
    when the nesting is beyond the parser's own stack (the edge then refuses anything over MAX_DEPTH).
    """
    try:
        return json.loads(text, parse_float=_number)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None


def _number(text: str) -> float | int:
    """JSON numbers: an integral one written with a fraction (``1.0``) is the integer it equals, as JSON
    Schema counts it, so the same event has the same canonical bytes however it was written."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


# JSON Lines as the engine takes them: dicts, numbers read by _number as json.loads(parse_float=) does.
_json_dicts = msgspec.json.Decoder(dict[str, Any], float_hook=_number).decode_lines


def _json_line(raw: bytes, name: str, lineno: int, *, validate: bool = True) -> list[dict[str, Any]]:
    """The events of one JSON Lines line (none for a blank one; a line may hold a list of events),
    decoded with the standard library and validated by ``validate_event``."""
    raw = raw.strip()
    if not raw:
        return []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(
            "not UTF-8 text (is this a MessagePack file? name it .msgpack)", file=name, line=lineno
        ) from None
    try:
        value = json.loads(text, parse_float=_number)
    except json.JSONDecodeError as exc:
        raise InputError(json_error(exc), file=name, line=lineno) from None
    except RecursionError:  # the C parser's own bound, far above MAX_DEPTH
        raise InputError(f"nested deeper than {MAX_DEPTH} levels", file=name, line=lineno) from None
    items = value if isinstance(value, list) else [value]
    shallow = shallow_json(raw)  # JSON keys are strings, integral numbers ints: only the depth to check
    for item in items:
        if type(item) is dict and not shallow:
            edge_event(item, file=name, line=lineno)
        if validate:
            validate_event(item, file=name, line=lineno)
        elif not isinstance(item, dict):
            raise InputError("an event must be a map", file=name, line=lineno)
    return items


def sniff_msgpack(name: str, data: bytes | mmap.mmap) -> bool:
    """True when ``data`` should be read as MessagePack (by suffix, else by its first byte)."""
    lower = name.lower()
    if lower.endswith(MSGPACK_SUFFIXES):
        return True
    if lower.endswith(JSON_SUFFIXES):
        return False
    first = _NOT_SPACE.search(data)
    return first is not None and first.group() not in (b"{", b"[")


def read_events(path: str, *, validate: bool = True) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line, event)`` from ``path`` (``-`` is stdin; the format is sniffed there).

    For MessagePack the "line" is the event's 1-based position in the stream. With ``validate`` (the
    default) every event of the file is checked before the first is yielded.
    """
    yield from open_input(path).numbered(validate=validate)


def decode_events(
    data: bytes, *, name: str = "<input>", validate: bool = True
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Decode a whole file's bytes into events (see :func:`read_events`)."""
    yield from EventFile(name, data).numbered(validate=validate)


def encode_jsonl(events: list[dict[str, Any]]) -> bytes:
    """Events as JSON Lines (UTF-8, one event per line)."""
    return b"".join(json.dumps(e, ensure_ascii=False).encode("utf-8") + b"\n" for e in events)


def encode_msgpack(events: list[dict[str, Any]]) -> bytes:
    """Events as a MessagePack stream (concatenated maps)."""
    import msgpack

    packer = msgpack.Packer()
    return b"".join(packer.pack(e) for e in events)
