"""The parser of every ``prizecheck`` command: no abbreviations, and errors in the command's own words.

argparse's defaults mislead on a command line that scripts rely on: an abbreviation is taken for whatever
option it begins (``report --redis URL`` was read as ``--redis-prefix``), and an unknown option is reported
with the top-level usage. :class:`Parser` turns abbreviations off (``allow_abbrev=False``, for every
command and subcommand: argparse gives a subparser the class of its parent), and :func:`parse` reports an
unknown option with the usage of the (sub)command it was given to, and the closest known option::

    usage: prizecheck replay [-h] [--json] [--until SEQ] [--timeline] [--strict] FILE [FILE ...]
    prizecheck replay: error: unrecognized arguments: --jsn (did you mean --json?)

Exit status 2, as for every usage error.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn


def N_(message: str) -> str:
    """Marks ``message`` for the catalogues (replay.i18n.N_: this module imports nothing at start-up)."""
    return message


#: argparse's own error messages (Python's words, ``%s`` written as fields), read back from the English
#: and shown in the command line's language (the options' names and values as given).
ARGPARSE: tuple[str, ...] = (
    N_("argument {argument}: {message}"),
    N_("unrecognized arguments: {arguments}"),
    N_("the following arguments are required: {arguments}"),
    N_("one of the arguments {arguments} is required"),
    N_("not allowed with argument {argument}"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("invalid choice: {value} (choose from {choices})"),
    N_("invalid {type} value: {value}"),
    N_("ignored explicit argument {value}"),
)


class UsageError(Exception):
    """Options that cannot go together, or one that would be ignored: the command prints its usage and the
    message (``prizecheck CMD: error: ...``) and exits 2, before it does anything."""


#: The attribute of the parsed arguments naming the innermost parser that took part (``import ptcgl``).
PARSER = "_parser"


#: argparse's own words in a help text (Python's, as 3.11 to 3.13 write them): the headings, the usage
#: line's prefix and ``-h``'s help, shown in the command line's language by :class:`Formatter`.
HEADINGS: tuple[str, ...] = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("optional arguments"),
    N_("show this help message and exit"),
)


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, saying every text it shows in the command line's language: the usage
    line's prefix, the headings, the description and epilog, each option's help (the catalogues hold them:
    tools/i18n.py extracts every literal ``help=``, ``description=``, ``epilog=`` and group title of
    replay/cli). The text is translated before argparse fills its ``%(default)s``; options, metavars and
    choices stay as they are typed. In English nothing is read and the text is byte for byte argparse's.

    Why here and not a translation of argparse's own ``gettext`` domain: argparse calls the process-wide
    ``gettext.gettext`` (no domain of its own), which reads compiled ``.mo`` files from the system's
    locale directory and would need the process's text domain changed; and our help texts need the
    formatter anyway. One class sees every string a help text holds, and loads one catalogue, lazily."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(prog, *args, **kwargs)
        from replay.cli.words import language

        self._lang = language()

    def _said(self, text: str) -> str:
        if self._lang == "en" or not text:
            return text
        from replay.i18n import gettext

        return gettext(self._lang, text)

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, self._said("usage: ") if prefix is None else prefix)

    def start_section(self, heading: str | None) -> None:
        super().start_section(self._said(heading) if heading else heading)

    def _format_text(self, text: str) -> str:
        return super()._format_text(self._said(text))

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return self._said(action.help) if action.help else action.help

    def _split_lines(self, text: str, width: int) -> list[str]:
        if self._lang == "en":
            return super()._split_lines(text, width)
        from replay.cli.columns import wrap  # Japanese and Korean take two columns a character

        return wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if self._lang == "en":
            return super()._fill_text(text, width, indent)
        from replay.cli.columns import wrap

        return "\n".join(indent + line for line in wrap(text, width - len(indent)))


def filled(action: argparse.Action, **fields: object) -> argparse.Action:
    """``action`` with ``fields`` for its help's ``%(name)s`` (argparse fills a help from the action's
    attributes): a help that names a constant stays one literal of the catalogues, not an f-string."""
    for name, value in fields.items():
        setattr(action, name, value)
    return action


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that never expands abbreviations, suggests the choice a typo meant and says
    its help in the command line's language (:class:`Formatter`; a subparser is made by the same class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["allow_abbrev"] = False
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        # a subparser returns first (its namespace is copied into its parent's): the innermost one wins
        if getattr(parsed, PARSER, None) is None:
            setattr(parsed, PARSER, self)
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        """Print the usage and ``PROG: error: MESSAGE`` (with a "did you mean" for a mistyped choice)."""
        import difflib  # on an error only: every command's start imports this module

        from replay.cli.words import language, tr

        found = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)$", message)
        lang = language()
        if lang != "en":  # argparse's own words (the options' names and values as they are)
            from replay.i18n.sentences import translate

            message = translate(lang, ARGPARSE, message, ARGPARSE) or message
        if found:
            choices = re.findall(r"'([^']*)'", found[2])
            close = difflib.get_close_matches(found[1], choices, n=1)
            if close:
                message += tr(" (did you mean {choice}?)", choice=close[0])
        self.print_usage(sys.stderr)
        self.exit(2, tr("{prog}: error: {message}", prog=self.prog, message=message) + "\n")

    def option_strings(self) -> list[str]:
        """Every option this parser knows (``--json``, ``-o``...)."""
        return [s for action in self._actions for s in action.option_strings]


#: Options people try for what the environment gives: the services' addresses are never options.
ENVIRONMENT = {
    "--redis": "REDIS_URL",
    "--redis-url": "REDIS_URL",
    "--kafka": "KAFKA_URL",
    "--kafka-url": "KAFKA_URL",
    "--broker": "KAFKA_URL",
}


def suggestion(parser: Parser, unknown: Sequence[str]) -> str:
    """`` (did you mean --json?)`` for the first unknown option close to a known one, else ``""``; for an
    option that is the command's own but came before the command, or a service's address given as an
    option, what to do instead."""
    import difflib

    from replay.cli.words import tr

    known = [s for s in parser.option_strings() if s.startswith("--")]
    for arg in unknown:
        if arg.startswith("--"):
            typed = arg.split("=", 1)[0]
            if typed in known:  # argparse took it before the command: only the top level reads those
                return tr(
                    " ({option} goes after the command: {command} {option} ...)",
                    option=typed,
                    command=parser.prog,
                )
            if typed in ENVIRONMENT:
                return tr(
                    " (the address is given by the environment, not an option: {name}=URL {command} ...)",
                    name=ENVIRONMENT[typed],
                    command=parser.prog,
                )
            # an abbreviation (no longer expanded) first: --redis -> --redis-prefix, then a typo
            close = [k for k in known if k.startswith(typed)] or difflib.get_close_matches(
                typed, known, n=1, cutoff=0.6
            )
            if close:
                return tr(" (did you mean {choice}?)", choice=tr(" or ").join(close[:3]))
    return ""


def parse(parser: Parser, argv: Sequence[str]) -> argparse.Namespace:
    """Parse ``argv``; an unknown argument is an error of the innermost command it was given to."""
    args, extras = parser.parse_known_args(argv)
    if extras and not getattr(args, "_unavailable", None):
        inner: Parser = getattr(args, PARSER, parser)
        # argparse's own words (i18n: read back in Parser.error by ARGPARSE)
        inner.error(f"unrecognized arguments: {' '.join(extras)}" + suggestion(inner, extras))
    return args


def usage_error(args: argparse.Namespace, fallback: Parser, message: str) -> NoReturn:
    """Exit 2 with the usage of the command ``args`` were parsed for, and ``message``."""
    inner: Parser = getattr(args, PARSER, fallback)
    inner.error(message)
