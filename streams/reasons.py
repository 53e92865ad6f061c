"""Why a call to Redis or Kafka failed, in a few plain words, for the one-line messages of the command line
and the service's log ("connection refused", "the server closed the connection"), without the client
libraries' reprs. Imports nothing: the command line uses it in any install."""

from __future__ import annotations

import os
import re


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def describe(exc: BaseException) -> str:
    """Why ``exc`` happened: the system's reason when there is one, else the library's message, cleaned."""
    for cause in (exc, exc.__cause__, exc.__context__):
        if isinstance(cause, OSError) and cause.errno is not None and cause.errno > 0:
            return _lower(os.strerror(cause.errno))
    text = str(exc).strip()
    found = re.match(r"Error (\d+) connecting to", text)  # redis-py's words for a failed connect
    if found and int(found[1]) > 0:
        return _lower(os.strerror(int(found[1])))
    if "Connection closed by server" in text:
        return "the server closed the connection"
    if isinstance(exc, TimeoutError) or type(exc).__name__ == "TimeoutError":
        return "no answer in time"
    if "Unable to bootstrap" in text or type(exc).__name__ == "KafkaConnectionError":
        return "no broker answered"
    for cause in (exc, exc.__cause__, exc.__context__):
        if isinstance(cause, OSError) and cause.strerror:
            return _lower(str(cause.strerror))
    text = re.sub(r"<[^<>]* object at 0x[0-9a-f]+>", "", text).strip()  # never an object's repr
    return _lower(text.rstrip(".")) or type(exc).__name__


def redact(url: str) -> str:
    """``url`` without its password (``redis://:secret@host`` -> ``redis://:***@host``), for messages and
    logs."""
    return re.sub(r"(//[^/@:]*:)[^/@]*@", r"\1***@", url)
