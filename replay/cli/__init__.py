"""The ``prizecheck`` command line (README, "The command line").

Each subcommand lives in its own module, which exposes ``configure(parser)`` and ``run(args) -> int``.
The table below is the only place that lists them, so a module can be added without touching the others.
Exit status: 0 ok, 1 violations with ``--strict``, 2 bad input (a message on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from replay.engine.errors import InputError

# name -> (module, help). The module provides configure(parser) and run(args) -> int.
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("replay.cli.replay", "fold event files and print the end-of-game record"),
    "verify": ("replay.cli.verify", "check a record's signature and hash chain against its events"),
    "simulate": ("replay.cli.simulate", "generate plausible full games as contract events"),
    "import": ("replay.cli.import_", "turn a battle log or a match sheet into contract events"),
    "sheet": (
        "replay.cli.sheet",
        "print game sheets for paper games (PDF or PNG), to read back with import scan",
    ),
    "report": ("replay.cli.report", "league audit report: text, HTML, CSV or JSON; reconcile with a .tdf"),
    "serve": ("replay.cli.serve", "run the HTTP service with the embedded ingest core"),
    "worker": ("replay.cli.worker", "run a Faust worker consuming prizecheck.events"),
    "produce": ("replay.cli.produce", "send event files to Kafka, keyed by match"),
    "show": ("replay.cli.show", "print a match's record stored in Redis"),
    "demo": ("replay.cli.demo", "simulate and import a few games and show their records"),
    "token": ("replay.cli.token", "create, list or revoke the service's bearer tokens"),
    "audit-log": ("replay.cli.audit_log", "show the access audit log (writes, hidden reads, refusals)"),
    "check": ("replay.cli.check", "check the service's invariants over Redis and the Kafka topic"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; only ``command``'s module is imported (none for an unknown name, all of
    them for None).

    A command's module imports what it runs on (the engine, the service, Kafka...): importing all of them
    to parse one command line would cost the command more than its own work on a small input.
    """
    parser = argparse.ArgumentParser(prog="prizecheck", description="Replay and audit Pokémon TCG games.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if command is not None and name != command:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:  # an optional extra (e.g. the service) is not installed
            p.set_defaults(_unavailable=f"{name}: not available in this installation ({exc})")
            continue
        module.configure(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # the command is the first argument that is not an option (the top level has only -h)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command or "")
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    unavailable = getattr(args, "_unavailable", None)
    if unavailable:
        print(f"prizecheck: {unavailable}", file=sys.stderr)
        return 2
    try:
        code: int = args._run(args)
    except InputError as exc:
        print(f"prizecheck {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (| head): stop quietly, and let the exit flush nothing
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
