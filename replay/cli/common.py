"""Shared by the commands: loading event files, signing records with the configured key, writing outputs,
the one JSON style of the command line, and option values checked as they are parsed."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

from replay.cli.parser import UsageError as UsageError  # where the commands import it from
from replay.cli.words import error_line as error_line
from replay.cli.words import language as language
from replay.cli.words import tr as tr
from replay.cli.words import why as why
from replay.engine import InputError, RecordError

# Every command imports this module to parse its options (at_least, UsageError): what reads and writes
# records and events (msgspec, the engine's chain) is imported where it is used (issue 40 item 2).

if TYPE_CHECKING:
    from replay.records import Record
    from replay.signing import KeyRing, PublicKeys


def json_line(value: Any) -> str:
    """One JSON value as the command line prints JSON everywhere: the style of a record's canonical JSON
    (``replay --json``): sorted keys, no spaces (``","`` and ``":"``), UTF-8 as is."""
    from replay.engine import dumps

    return dumps(value).decode("utf-8")


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file: the same path, a symbolic or a hard link to it (its identity, not
    its spelling), or, for a path not there yet, the same absolute path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def _inside(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def refuse_output_onto_input(path: str | None, inputs: Iterable[str | None], flag: str = "--out") -> None:
    """InputError before any work when the output ``path`` is one of ``inputs`` (or inside an input
    folder): writing it would destroy what is being read. stdin and stdout (``-``) are never the same
    file."""
    if path is None or path == "-":
        return
    for given in inputs:
        if given is None or given == "-":
            continue
        if _same_file(path, given) or (os.path.isdir(given) and _inside(path, given)):
            raise InputError(
                tr(
                    "{path} is the same file as {given}, which this command also uses: writing it would "
                    "destroy it; choose another file",
                    path=path,
                    given=given,
                ),
                field=flag,
            )


@contextlib.contextmanager
def output(
    path: str | None, *, inputs: Iterable[str | None] = (), flag: str = "--out"
) -> Iterator[IO[bytes]]:
    """stdout (``None`` or ``-``) or the file at ``path``.

    An output that is one of ``inputs`` (the same file through any link) is refused first
    (:func:`refuse_output_onto_input`), so a command never reads its input into its own output.

    The file is opened at once (a temporary file beside it, renamed over it when the command is done), so
    an output that cannot be written is refused before any work, with InputError ``PATH: cannot write:
    ...`` (also for a write that fails later, e.g. on a full disk), and a command that fails half-way
    leaves no half-written file and the old one as it was. A path that is not a regular file (a FIFO,
    ``/dev/stdout``) is written directly.
    """
    refuse_output_onto_input(path, inputs, flag)
    if path is None or path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    direct = os.path.exists(path) and not os.path.isfile(path)
    if os.path.isdir(path):
        raise InputError(tr("cannot write: {reason}", reason=tr("is a directory")), file=path)
    target = (
        path
        if direct
        else os.path.join(os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}.part")
    )
    try:
        fh = open(target, "wb")  # noqa: SIM115  (closed below, and the errors of the writes named too)
    except OSError as exc:
        from replay.codec import unwritable  # here: the codec (msgspec, the schemas) costs a start-up

        raise unwritable(exc, path) from None
    done = False
    try:
        with fh:
            yield fh
        if not direct:
            os.replace(target, path)
        done = True
    except OSError as exc:
        from replay.codec import unwritable  # here: the codec (msgspec, the schemas) costs a start-up

        raise unwritable(exc, path) from None
    finally:
        if not done and not direct:
            with contextlib.suppress(OSError):
                os.unlink(target)


def _number(kind: Callable[[str], float], text: str) -> float:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            tr("expected an integer, got {text}", text=repr(text))
            if kind is int
            else tr("expected a number, got {text}", text=repr(text))
        ) from None


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer >= ``minimum`` (``--until 0``: ``must be >= 1, got 0``)."""

    def parse(text: str) -> int:
        value = int(_number(int, text))
        if value < minimum:
            raise argparse.ArgumentTypeError(
                tr("must be >= {minimum}, got {text}", minimum=minimum, text=text)
            )
        return value

    parse.__name__ = "integer"
    return parse


def within(low: float, high: float, kind: Callable[[str], float] = float) -> Callable[[str], float]:
    """An argparse type: a number from ``low`` to ``high`` (``--min-confidence 2``: ``must be 0 to 1``)."""

    def parse(text: str) -> float:
        value = _number(kind, text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                tr("must be {low} to {high}, got {text}", low=f"{low:g}", high=f"{high:g}", text=text)
            )
        return value

    parse.__name__ = "number"
    return parse


def positive(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    value = _number(float, text)
    if not value > 0:
        raise argparse.ArgumentTypeError(tr("must be > 0, got {text}", text=text))
    return value


def write_events(events: Iterable[dict[str, Any]], out: IO[bytes], fmt: str) -> None:
    """An importer's events to ``out``: a MessagePack stream (``fmt`` ``msgpack``) or JSON Lines."""
    if fmt == "msgpack":
        import msgpack

        pack = msgpack.Packer(use_bin_type=True)
        for ev in events:
            out.write(pack.pack(ev))
    else:
        # msgspec writes the bytes json.dumps(ensure_ascii=False, separators=(",", ":")) wrote (keys in
        # order, UTF-8 as is, the same escapes) five times faster: a 200-log batch spent 0.37 s of its
        # ~1.9 s of CPU in json.dumps (issue 40 item 2; tests/cli/test_import_cli.py compares the two).
        # Only a float's exponent is spelled otherwise (1e16, not 1e+16: the same number); the contract's
        # events hold integers and strings
        import msgspec

        encode = msgspec.json.Encoder().encode
        for ev in events:
            out.write(encode(ev) + b"\n")


def replayed_records(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Every match's record from event files, settled from its playoff games (InputError names file, line
    and field), as its JSON (``prizecheck verify`` compares documents byte for byte). Only the records are
    kept, not the games or their events."""
    from replay.files import replay_files

    return {done.match: done.record.to_json() for done in replay_files(paths)}


def signing_key() -> tuple[bytes, str] | None:
    """(key, key_id) from PRIZECHECK_SIGNING_KEY / PRIZECHECK_KEY_ID, or None when unset: the HMAC secret
    of records signed before Ed25519."""
    key = os.environ.get("PRIZECHECK_SIGNING_KEY")
    if not key:
        return None
    return key.encode("utf-8"), os.environ.get("PRIZECHECK_KEY_ID", "default")


def key_ring(path: str | None = None, *, create: bool = False) -> KeyRing | None:
    """The Ed25519 key ring in ``path`` (default PRIZECHECK_KEYS_DIR), or None when no directory is named
    or it holds no key (made when ``create``). InputError naming the file for a key that cannot be read.

    Offline commands (replay, verify, report over files) use a key directory only when it is named: a
    service's data directory is the service's (:func:`service_keys_dir`)."""
    path = path or os.environ.get("PRIZECHECK_KEYS_DIR")
    if not path:
        return None  # before the import: the signing module loads cryptography (~40 ms of a start)
    from replay.signing import KeyFileError, KeyRing

    try:
        return KeyRing.open(path, create=create)
    except (KeyFileError, OSError) as exc:
        raise InputError(tr("the signing keys: {reason}", reason=why(exc))) from None


def service_keys_dir() -> str | None:
    """The key directory of the service this command reads the store or the log of (the service's
    settings: PRIZECHECK_KEYS_DIR, else ``keys`` in its data directory); None in an install without the
    service (the command says so itself when it reaches the store)."""
    try:
        from streams.settings import Settings
    except ImportError:
        return None
    return Settings.from_env().keys_path


def verifying_keys(path: str | None = None, *, ring: str | None = None) -> PublicKeys:
    """What signatures are checked with: the public keys document ``path`` (``--keys``: no secret), else
    the public keys of the key ring ``ring`` (default PRIZECHECK_KEYS_DIR: :func:`key_ring`); and the HMAC
    secret of records signed before (PRIZECHECK_SIGNING_KEY), when set."""
    from replay.signing import KeyFileError, PublicKeys

    if path is not None:
        try:
            keys = PublicKeys.from_file(path)
        except KeyFileError as exc:
            raise InputError(str(exc)) from None
    else:
        found = key_ring(ring)
        keys = found.public if found is not None else PublicKeys()
    legacy = signing_key()
    if legacy is not None:
        keys.hmac[legacy[1]] = legacy[0]
    return keys


def maybe_sign(record: Record) -> Record:
    """``record`` signed when a key is configured: the Ed25519 key of PRIZECHECK_KEYS_DIR, else the HMAC
    secret PRIZECHECK_SIGNING_KEY (as records were signed before)."""
    return record_signer()(record)


def record_signer() -> Callable[[Record], Record]:
    """:func:`maybe_sign` for a command that signs a record per game: the key is looked up at the first
    record (where an unreadable key is said, as before), then kept, not read again for every record."""
    from replay.records import signed

    kept: list[Callable[[Record], Record]] = []

    def sign(record: Record) -> Record:
        if not kept:
            ring = key_ring()
            key = signing_key() if ring is None else None
            if ring is not None:
                signer = ring.signer
                kept.append(lambda rec: signed(rec, signer))
            elif key is not None:
                secret, key_id = key
                kept.append(lambda rec: signed(rec, secret, key_id))
            else:
                kept.append(_unsigned)
        return kept[0](record)

    return sign


def _unsigned(record: Record) -> Record:
    return record


def read_records(paths: list[str]) -> list[dict[str, Any]]:
    """The record documents of JSON Lines files (as ``replay --json`` prints them), as they are: what
    ``prizecheck verify`` checks byte for byte, every field included (readers take :func:`iter_records`).
    InputError names file and line."""
    return [_document(path, lineno, raw) for path, lineno, raw in _record_lines(paths)]


def iter_records(paths: list[str]) -> Iterator[Record]:
    """The records of JSON Lines files as typed values (:mod:`replay.records`, decoded once, in C), one
    line in memory at a time.

    A file without any record (empty, or blank lines only) is bad input, as an event file without events
    is for ``replay``: InputError ``FILE: is empty: no records``. A line that is not a record is an
    InputError naming the file, the line and the field.
    """
    from replay.records import from_json_line

    for path, lineno, raw in _record_lines(paths):
        try:
            rec = from_json_line(raw, file=path, line=lineno)
        except RecordError:
            _document(path, lineno, raw)  # not JSON, or no record at all: said in the reader's own words
            raise  # a record with a field of the wrong type: named by the typed decoder
        if not rec.chain:
            raise InputError(tr("not a Prizecheck record"), file=path, line=lineno, field="match")
        yield rec


def _record_lines(paths: list[str]) -> Iterator[tuple[str, int, bytes]]:
    """Each non-blank line of the files, with its file and line number. A MessagePack file (a record as
    ``GET /matches/{m}/record`` serves it with ``Accept: application/msgpack``, or several back to back)
    gives each record as its canonical JSON line, numbered from 1."""
    from replay.codec import unreadable

    for path in paths:
        try:
            fh = open(path, "rb")  # noqa: SIM115  (closed below; a generator cannot hold a with across yields cleanly)
        except OSError as exc:
            raise unreadable(exc, path) from None
        with fh:
            if _msgpack_map(fh.peek(1)[:1]):
                yield from _msgpack_records(path, fh)
                continue
            found = False
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                found = True
                yield path, lineno, raw
            if not found:
                raise InputError(tr("is empty: no records"), file=path)


#: The largest MessagePack record file read (a record with every version of a long match fits many times).
MAX_RECORD_FILE = 256 * 1024 * 1024


def _msgpack_map(first: bytes) -> bool:
    """Whether a file's first byte starts a MessagePack map (a fixmap, map 16 or map 32): never ``{``, a
    space or a UTF-8 BOM, with which a JSON record file starts."""
    return bool(first) and (0x80 <= first[0] <= 0x8F or first[0] in (0xDE, 0xDF))


def _msgpack_records(path: str, fh: IO[bytes]) -> Iterator[tuple[str, int, bytes]]:
    import msgpack

    from replay.engine import dumps

    # as bounded as the service's own answer: one record, or a match's versions, back to back
    data = fh.read(MAX_RECORD_FILE + 1)
    if len(data) > MAX_RECORD_FILE:
        raise InputError(tr("larger than {n} MiB of MessagePack records", n=MAX_RECORD_FILE >> 20), file=path)
    rest, number = data, 0
    while rest:
        number += 1
        try:  # one record at a time: a stream cut short is an error, never a record fewer
            doc, rest = msgpack.unpackb(rest, raw=False, strict_map_key=True), b""
        except msgpack.ExtraData as more:
            doc, rest = more.unpacked, more.extra
        except (ValueError, msgpack.UnpackException) as exc:
            raise InputError(
                tr("not a MessagePack record ({reason})", reason=exc), file=path, line=number
            ) from None
        yield path, number, dumps(doc)


def _document(path: str, lineno: int, raw: bytes) -> dict[str, Any]:
    """A line as a record's JSON document; InputError when it is not JSON or not a record."""
    from replay.codec import json_error

    try:
        rec = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(tr("not UTF-8 JSON"), file=path, line=lineno) from None
    except json.JSONDecodeError as exc:
        raise InputError(json_error(exc), file=path, line=lineno) from None
    except RecursionError:
        raise InputError(tr("not a Prizecheck record: nested far too deep"), file=path, line=lineno) from None
    if not isinstance(rec, dict) or "match" not in rec or "chain" not in rec:
        raise InputError(tr("not a Prizecheck record"), file=path, line=lineno, field="match")
    return rec
