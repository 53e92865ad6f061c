"""Every ``prizecheck`` command as the option and fault tests see it: the parser's leaf commands, and the
README's table of them. A new command (``sheet print``, ``import scan``) is a row in the README's table
and a row in each test's table (:data:`tests.cli.test_options.CASES`, :data:`tests.cli.test_faults.ROWS`);
these helpers find the rest.
"""

from __future__ import annotations

import argparse
import re

from replay.cli import build_parser
from replay.cli.parser import Parser
from tests.paths import ROOT


def leaf_parsers() -> dict[str, Parser]:
    """``{"replay": parser, "import ptcgl": parser, "token create": parser, ...}``: every command a user
    runs, each with the parser that reads its options."""
    out: dict[str, Parser] = {}

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            assert isinstance(parser, Parser), path  # no abbreviations, errors with the command's usage
            out[" ".join(path)] = parser
            return
        for name, sub in subs[0].choices.items():
            walk(sub, [*path, name])

    walk(build_parser(None), [])
    return out


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings of a command (``--json``, ``-o``...), without ``-h``/``--help``."""
    return {
        s
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)
        for s in action.option_strings
    }


def readme_commands() -> dict[str, set[str]]:
    """The README's command table: ``{"import ptcgl": {"--partial", "--out", "-o", ...}}``, from each row's
    synopses (the code spans of its first cell that start with ``prizecheck``)."""
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("## The command line", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    names = sorted(leaf_parsers(), key=len, reverse=True)
    for row in section.splitlines():
        if not row.startswith("| `prizecheck "):
            continue
        first = re.split(r"(?<!\\)\|", row)[1]
        for span in re.findall(r"`(prizecheck [^`]+)`", first):
            words = span.replace("\\|", "|")[len("prizecheck ") :]
            name = next(n for n in names if words == n or words.startswith(n + " "))
            table.setdefault(name, set()).update(re.findall(r"(?<![\w-])--?[a-z][a-z0-9-]*", words))
    return table
