"""The roles a token grants (docs/deployment.md, docs/web.md): names only, apart from the token
book that grants them (streams/tokens.py), so that ``prizecheck token --help`` lists them without importing
the book's hashing and files (issue 40 item 2: a command's own start-up under 150 ms)."""

from __future__ import annotations

ROLES: tuple[str, ...] = ("ingest", "judge", "organizer", "recorder", "stream", "public")
ADMIN = "admin"
#: What ``--role`` accepts: the roles, and ``admin`` (all of them).
GRANTABLE: tuple[str, ...] = (*ROLES, ADMIN)
