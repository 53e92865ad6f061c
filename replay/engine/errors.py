"""Errors that reach users: each names where the problem is (file, line, match, seq, field)."""

from __future__ import annotations


class InputError(Exception):
    """Bad input. The CLI prints it (no traceback) and exits with status 2.

    ``str(exc)`` reads ``FILE:LINE: field FIELD: MESSAGE`` with the parts that are known.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        match: str | None = None,
        seq: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.match = match
        self.seq = seq
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(self.file if self.line is None else f"{self.file}:{self.line}")
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.match is not None:
            where.append(f"match {self.match}" + (f" seq {self.seq}" if self.seq is not None else ""))
        elif self.seq is not None:
            where.append(f"seq {self.seq}")
        if self.field is not None:
            where.append(f"field {self.field}")
        prefix = ": ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class EventError(InputError):
    """An event that does not satisfy the contract (schemas/events.schema.json)."""


# Here, beside InputError, rather than in validate.py where they are raised: a class compiled by mypyc
# cannot be subclassed by an interpreted one (validate.py is not compiled), and InputError is compiled.
class RecordError(InputError):
    """An end-of-game record that does not satisfy ``schemas/record.schema.json``."""


class RulesetError(InputError):
    """A ruleset document that does not satisfy ``schemas/ruleset.schema.json``."""
