"""The ``prizecheck`` command line (README, "The command line").

Each subcommand lives in its own module, which exposes ``configure(parser)`` and ``run(args) -> int``.
The table below is the only place that lists them, so a module can be added without touching the others.
Exit status: 0 ok, 1 violations with ``--strict`` (or a check that failed), 2 anything that kept the command
from doing its work (one line on stderr naming what and where, never a traceback; README, "Exit status
and messages").
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from replay.cli.parser import N_, Parser, UsageError, parse, usage_error
from replay.engine import InputError

# Nothing else at the top: ``prizecheck --help`` imports this module alone (issue 40 item 2). A command's
# module is imported when that command is parsed (build_parser).

# name -> (module, help). The module provides configure(parser) and run(args) -> int. Each help is a
# message of the catalogues (N_), shown in the command line's language (replay.cli.parser.Formatter).
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("replay.cli.replay", N_("fold event files and print the end-of-game record")),
    "verify": ("replay.cli.verify", N_("check a record's signature and hash chain against its events")),
    "simulate": ("replay.cli.simulate", N_("generate plausible full games as contract events")),
    "import": ("replay.cli.import_", N_("turn a battle log or a match sheet into contract events")),
    "sheet": (
        "replay.cli.sheet",
        N_("print game sheets for paper games (PDF or PNG), to read back with import scan"),
    ),
    "decks": (
        "replay.cli.decks",
        N_("register deck lists (PTCGL export, Limitless JSON, CSV) for deck checks"),
    ),
    "report": (
        "replay.cli.report",
        N_("league audit report: text, HTML, CSV or JSON; reconcile with a .tdf"),
    ),
    "serve": ("replay.cli.serve", N_("run the HTTP service with the embedded ingest core")),
    "worker": ("replay.cli.worker", N_("run a Faust worker consuming prizecheck.events")),
    "produce": ("replay.cli.produce", N_("send event files to Kafka, keyed by match")),
    "show": ("replay.cli.show", N_("print a match's record stored in Redis")),
    "demo": ("replay.cli.demo", N_("simulate and import a few games and show their records")),
    "token": ("replay.cli.token", N_("create, list or revoke the service's bearer tokens")),
    "keys": ("replay.cli.keys", N_("print the service's public signing keys, or rotate to a new key")),
    "audit-log": ("replay.cli.audit_log", N_("show the access audit log (writes, hidden reads, refusals)")),
    "check": ("replay.cli.check", N_("check the service's invariants over Redis and the Kafka topic")),
    "archive": (
        "replay.cli.archive",
        N_("move finished matches from Redis to Parquet files (the cold archive)"),
    ),
    "alarms": (
        "replay.cli.alarms",
        N_("list the tamper alarms, or clear one once a judge has looked into it"),
    ),
}


#: Top-level modules of this project: an ImportError naming one of them is a bug, not a missing extra.
OWN = ("replay", "streams", "schemas")


def needs_service(command: str, exc: ImportError) -> str:
    """The one line a command gives when the service extra is not installed (README, "Install")."""
    from replay.cli.common import language
    from replay.extras import needs_extra

    why = needs_extra(exc, "service")
    lang = language()
    if lang != "en":
        from replay.i18n.errors import message

        why = message(lang, why)
    return f"{command}: {why}"


def build_parser(command: str | None = None) -> Parser:
    """The parser of every command; only ``command``'s module is imported (none for an unknown name, all of
    them for None).

    A command's module imports what it runs on (the engine, the service, Kafka...): importing all of them
    to parse one command line would cost the command more than its own work on a small input.
    """
    parser = Parser(
        prog="prizecheck",
        description="Replay and audit Pokémon TCG games.",
        epilog="prizecheck help COMMAND (or prizecheck COMMAND --help) shows a command's options.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and the engine's, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if command is not None and name != command:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:  # an optional extra (the service) is not installed
            p.set_defaults(_unavailable=_unavailable(name, exc))
            p.add_argument("_rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
            continue
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def _unavailable(command: str, exc: ImportError) -> str:
    """The line for a command whose module, or what it imports to run, is missing: an optional extra (the
    service) not installed; the ImportError again when the module is one of our own (a bug: let it show)."""
    if (exc.name or "").split(".")[0] in OWN:
        raise exc
    return needs_service(command, exc)


class _Version(argparse.Action):
    """``--version``: the line is made when asked for (the engine is not imported to parse a command)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(version_line())
        parser.exit()


def version_line() -> str:
    """``prizecheck 0.1.0 (engine N)``: the installed distribution's version and the engine's."""
    from replay.engine import ENGINE_VERSION
    from replay.extras import installed_version

    return f"prizecheck {installed_version() or '(not installed)'} (engine {ENGINE_VERSION})"


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status (README, "Exit status and messages")."""
    entry = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["help"]:  # prizecheck help [COMMAND [SUBCOMMAND]]: that command's --help
        argv = [*argv[1:], "--help"]
    # the command is the first argument that is not an option (the top level has only -h)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command or "")
    try:
        args = parse(parser, argv)  # a usage error: the (sub)command's usage and one line, exit 2
    except SystemExit as exc:  # (argparse's way out; as a return, for callers in the same process)
        return exc.code if isinstance(exc.code, int) else 0
    if args.command is None:
        parser.print_help()
        return 2
    unavailable = getattr(args, "_unavailable", None)
    if unavailable:
        print(f"prizecheck {unavailable}", file=sys.stderr)
        return 2
    if entry:
        quiet_libraries()
    try:
        code: int = args._run(args)
    except ImportError as exc:  # what the command imports when it runs: an optional extra not installed
        print(f"prizecheck {_unavailable(args.command, exc)}", file=sys.stderr)
        return 2
    except InputError as exc:
        from replay.cli.common import error_line

        print(f"prizecheck {args.command}: {error_line(exc)}", file=sys.stderr)
        return 2
    except UsageError as exc:
        try:
            usage_error(args, parser, str(exc))
        except SystemExit as done:
            return done.code if isinstance(done.code, int) else 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly, and let the exit flush nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        line = environment_failure(exc)
        if line is None:
            raise  # a bug: its traceback is what a report needs
        print(f"prizecheck {args.command}: {line}", file=sys.stderr)
        return 2
    return code


def quiet_libraries() -> None:
    """No library's log on stderr (aiokafka's "Unable connect to ...", asyncio's "Unclosed ..."): a command
    says what failed in its own one line. A handler on the root logger keeps Python from printing records
    nobody handles; the services configure their logs themselves once they run (serve's replaces it, the
    worker's Faust adds its own)."""
    import logging

    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.NullHandler())


def environment_failure(exc: BaseException) -> str | None:
    """One line for a failure of what the command runs on (a file system, Redis, Kafka) that escaped the
    command's own handling, or None for anything else (a bug)."""
    from replay.cli.services import describe, service_of

    try:
        from streams.store.parquet import ArchiveUnavailable
    except ImportError:  # no service installed: it cannot have been raised
        pass
    else:
        if isinstance(exc, ArchiveUnavailable):
            return str(exc)  # one line naming the extra to install
    service = service_of(exc)
    if service is not None:
        return f"{service}: {describe(exc)}"
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{describe(exc)}"
    return None


if __name__ == "__main__":
    sys.exit(main())
