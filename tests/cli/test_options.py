"""Every option of every command, against the README's table (README, "The command line").

For each command (a row of :data:`CASES`; a new command is one row):

- its options are exactly the ones its README row documents, and each has a help text;
- no option is taken for another: every option's abbreviation, and a typo of it, is refused with the
  command's own usage and a "did you mean" naming it (argparse would have expanded the abbreviation);
- its out-of-range values and its conflicting or ignored options are refused, each with the command's usage
  and one ``prizecheck CMD: error: ...`` line, exit 2, before the command does anything.

The cases run in this process (``replay.cli.main``): a refusal happens before any work.
"""

from __future__ import annotations

import re

import pytest

from replay.cli import main
from tests.cli.commands import leaf_parsers, options_of, readme_commands

# command -> the arguments a valid call needs (its positionals, its required options)
NEEDS: dict[str, list[str]] = {
    "replay": ["g.jsonl"],
    "verify": ["r.jsonl"],
    "import ptcgl": ["log.txt"],
    "import sheet": ["s.csv"],
    "import scan": ["photo.jpg"],
    "produce": ["g.jsonl"],
    "show": ["m1"],
    "token create": ["--name", "n", "--role", "judge"],
    "token revoke": ["0123456789ab"],
    "archive": ["--to", "arch"],
    "decks import": ["deck.txt", "--event", "Cup", "--player", "ash"],
}

# command -> the cases that must be refused: (arguments after the command, the error's words, a regex)
CASES: dict[str, list[tuple[list[str], str]]] = {
    "replay": [
        (["--until", "0", "g.jsonl"], r"argument --until: must be >= 1, got 0"),
        (["--until", "-5", "g.jsonl"], r"argument --until: must be >= 1, got -5"),
        (["--until", "x", "g.jsonl"], r"argument --until: expected an integer, got 'x'"),
        (["--until", "3", "--timeline", "g.jsonl"], r"--until and --timeline cannot be combined"),
        (["--due", "--timeline", "g.jsonl"], r"--due and --timeline cannot be combined"),
    ],
    "verify": [
        (["--events"], r"argument --events: expected at least one argument"),
        (["--keys", "k.json"], r"give RECORD or --receipts FILE \(one of them\)"),
        (["r.jsonl", "--receipts", "a.jsonl"], r"give RECORD or --receipts FILE \(one of them\)"),
        (
            ["--receipts", "a.jsonl", "--checkpoints", "c.log"],
            r"--receipts cannot be combined with --checkpoints",
        ),
    ],
    "simulate": [
        (["--matches", "-1"], r"argument --matches: must be >= 0, got -1"),
        (["--matches", "2", "--league", "X"], r"--matches and --league cannot be combined"),
        (["--league", "X", "--faults", "prize_count"], r"--faults is for --matches corpora"),
        (["--faults", "nope"], r"argument --faults: unknown nope"),
        (["--players", "8"], r"--players needs --league"),
        (["--rounds", "2", "--tdf-out", "x.tdf"], r"--rounds, --tdf-out need --league"),
        (["--season", "2026"], r"--season needs --league"),
        (["--event", "Cup"], r"--event needs --league"),
        (["--league", "X", "--players", "1"], r"argument --players: must be >= 2, got 1"),
        (["--league", "X", "--rounds", "0"], r"argument --rounds: must be >= 1, got 0"),
        (["--league", "X", "--top-cut", "3"], r"argument --top-cut: invalid choice: 3"),
        (
            ["--ruleset", "play-2025"],
            r"argument --ruleset: invalid choice: 'play-2025' .*did you mean play-2026",
        ),
        (["--out", "x.msgpack", "--format", "jsonl"], r"--format jsonl does not fit --out x.msgpack"),
        (["--seed", "s"], r"argument --seed: invalid int value"),
    ],
    "import ptcgl": [
        (["log.txt", "--format", "json"], r"argument --format: invalid choice: 'json'"),
        (["log.txt", "--ruleset", "x"], r"argument --ruleset: invalid choice"),
        (["log.txt", "--min-confidence", "0.5"], r"unrecognized arguments: --min-confidence"),
    ],
    "import sheet": [
        (["s.csv", "--min-confidence", "2"], r"argument --min-confidence: must be 0 to 1, got 2"),
        (["s.csv", "--min-confidence", "-0.1"], r"argument --min-confidence: must be 0 to 1, got -0.1"),
        (["s.csv", "--partial"], r"unrecognized arguments: --partial"),
    ],
    "report": [
        (["--parquet", "arch", "--from-store"], r"--parquet and --from-store cannot be combined"),
        (["--parquet", "arch", "g.jsonl"], r"--parquet and FILE\.\.\. cannot be combined"),
        (["--from-store", "--records"], r"--records and --from-store cannot be combined"),
        (["--from-store", "g.jsonl"], r"give FILE\.\.\. or --from-store, not both"),
        (["g.jsonl", "--redis-prefix", "x"], r"--redis-prefix is for --from-store"),
        (["g.jsonl", "--json", "--format", "csv"], r"--json and --format csv cannot be combined"),
        (
            ["--from-store", "--redis", "redis://x"],
            r"unrecognized arguments: --redis \(the address is given by the environment, not an option: "
            r"REDIS_URL=URL prizecheck report \.\.\.\)",
        ),
        ([], r"no files given"),
        (["g.jsonl", "--format", "pdf"], r"argument --format: invalid choice: 'pdf'"),
    ],
    "serve": [
        (["--port", "70000"], r"argument --port: must be 0 to 65535, got 70000"),
        (["--port", "-1"], r"argument --port: must be >= 0, got -1"),
    ],
    "worker": [
        (["--web-port", "0"], r"argument --web-port: must be >= 1, got 0"),
        (["--connect-wait", "-1"], r"argument --connect-wait: must be >= 0, got -1"),
        (["--batch-size", "0"], r"argument --batch-size: must be >= 1, got 0"),
        (["--batch-within", "0"], r"argument --batch-within: must be > 0, got 0"),
        (["--batch-idle", "-1"], r"argument --batch-idle: must be > 0, got -1"),
        (["--batch-lag", "-1"], r"argument --batch-lag: must be >= 0, got -1"),
        (["--loglevel", "loud"], r"argument --loglevel: one of debug, info, warning, error, critical"),
    ],
    "produce": [(["--topic", "a topic", "g.jsonl"], r"argument --topic: not a Kafka topic name")],
    "show": [
        (["m1", "--version", "0"], r"argument --version: must be >= 1, got 0"),
        (["m1", "--history", "--version", "1"], r"argument --version: not allowed with argument --history"),
    ],
    "demo": [(["--seed", "x"], r"argument --seed: invalid int value")],
    "token create": [
        (["--name", "n"], r"the following arguments are required: --role"),
        (["--name", "n", "--role", "root"], r"argument --role: invalid choice: 'root'"),
    ],
    "token list": [(["--redis-prefix", "x"], r"unrecognized arguments: --redis-prefix")],
    "keys": [(["--rotate", "now"], r"unrecognized arguments: now")],
    "token revoke": [([], r"the following arguments are required: id")],
    "audit-log": [
        (["--count", "0"], r"argument --count: must be >= 1, got 0"),
        (["--after", "yesterday"], r"argument --after: expected an entry id as printed"),
    ],
    "sheet print": [
        (["--count", "0"], r"argument --count: must be 1 to 500, got 0"),
        (["--dpi", "50"], r"argument --dpi: must be 100 to 600, got 50"),
        (["--round", "0"], r"argument --round: must be >= 1, got 0"),
        (["--players", "Mara"], r"argument --players: two names separated by a comma"),
        (["--match", "bad id"], r"argument --match: a match id is 1-128 characters"),
    ],
    "import scan": [
        (["photo.jpg", "--min-confidence", "2"], r"argument --min-confidence: must be 0 to 1, got 2"),
        (["photo.jpg", "--players", "Kai"], r"argument --players: two different names"),
        (
            ["photo.jpg", "--players", "Kai,Yuki", "--players-file", "names.txt"],
            r"--players and --players-file cannot be combined",
        ),
    ],
    "archive": [
        ([], r"the following arguments are required: --to"),
        (["--to", "a", "--before", "soon"], r"argument --before: expected a date as YYYY-MM-DD, got 'soon'"),
    ],
    "decks import": [
        (["deck.txt", "--event", "Cup"], r"the following arguments are required: --player"),
        (
            ["deck.txt", "--event", "Cup", "--player", "a", "--format", "pdf"],
            r"argument --format: invalid choice",
        ),
        (
            ["deck.txt", "--event", "Cup", "--player", "a", "--match", "bad id"],
            r"argument --match: a match id is",
        ),
    ],
    "alarms": [
        (["--clear", "m1", "--note", "restored"], r"--clear needs --by: the judge who looked into the alarm"),
        (["--clear", "m1", "--by", "Ada"], r"--clear needs --note: what was found"),
        (["--by", "Ada"], r"--by and --note go with --clear"),
        (["--clear", "m 1", "--by", "Ada", "--note", "x"], r"argument --clear: not a match id: 'm 1'"),
    ],
    "check": [
        (["--redis-only", "--kafka", "kafka://k:9092"], r"--redis-only and --kafka cannot be combined"),
        (
            ["--redis-only", "--topic", "t", "--dlq-topic", "d"],
            r"--redis-only and --topic, --dlq-topic cannot",
        ),
    ],
}


def refused(capsys: pytest.CaptureFixture[str], command: str, args: list[str]) -> tuple[str, str]:
    """Run ``prizecheck COMMAND ARGS``; it must exit 2 with the command's usage and one error line."""
    code = main([*command.split(), *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (command, args, out, err)
    usage, _, last = err.rstrip("\n").rpartition("\n")
    assert usage.startswith(f"usage: prizecheck {command} "), (command, args, err)
    assert last.startswith(f"prizecheck {command}: error: "), (command, args, err)
    return usage, last


def test_every_command_has_a_row_and_every_option_is_documented() -> None:
    commands = leaf_parsers()
    assert set(CASES) == set(commands)  # a new command: a row here, and one in the README's table
    documented = readme_commands()
    for name, parser in commands.items():
        assert documented.get(name) == options_of(parser), name
        for action in parser._actions:
            assert action.help, (name, action.option_strings or action.dest)


@pytest.mark.parametrize("command", sorted(CASES))
def test_no_option_is_taken_for_another(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = leaf_parsers()[command]
    longs = sorted(o for o in options_of(parser) if o.startswith("--"))
    assert longs or command == "token revoke"
    for option in longs:
        prefix = option[: max(3, len(option) - 2)]  # what argparse expanded: --tim -> --timeline
        if any(o == prefix for o in longs):
            continue
        _, line = refused(capsys, command, [*NEEDS.get(command, []), prefix])
        assert f"unrecognized arguments: {prefix} (did you mean " in line and option in line, line
        typo = option[:-1] + ("x" if option[-1] != "x" else "y")  # a typo at the end
        if typo not in longs:
            _, line = refused(capsys, command, [*NEEDS.get(command, []), typo])
            assert re.search(rf"unrecognized arguments: {typo} \(did you mean .*{option}\b", line), line


@pytest.mark.parametrize("command", sorted(CASES))
def test_out_of_range_and_conflicting_options_are_refused(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for args, words in CASES[command]:
        _, line = refused(capsys, command, args)
        assert re.search(words, line), (command, args, line)


def test_a_mistyped_command_gets_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replya", "g.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: prizecheck ") and err.rstrip().endswith("(did you mean replay?)")
    assert main(["import", "ptcg", "log.txt"]) == 2
    assert capsys.readouterr().err.rstrip().endswith("(did you mean ptcgl?)")


def test_until_1_shows_the_setup_not_turn_0(tmp_path: pytest.TempPathFactory) -> None:
    """``--until 1`` is the board before the first turn, not "turn 0 (None)"."""
    import subprocess
    import sys
    from pathlib import Path

    from replay.codec import encode_jsonl
    from tests.engine.games import full_game

    path = Path(str(tmp_path)) / "g.jsonl"
    path.write_bytes(encode_jsonl(full_game().events))
    out = subprocess.run(
        [sys.executable, "-m", "replay.cli", "replay", "--until", "1", str(path)],
        capture_output=True,
        text=True,
    )
    first = out.stdout.splitlines()[0]
    assert out.returncode == 0 and first == "m1 at seq 1: setup, before the first turn, in_progress", first
    assert "None" not in out.stdout
