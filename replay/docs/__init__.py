"""The documents the service serves, shipped as package data so that every install has them.

``rules.md`` is ``docs/rules.md`` (a link to it in a checkout, the file itself in a wheel or the Docker
image): ``GET /rules`` shows it, and every finding on the review page links to its section there.
"""

from __future__ import annotations

from pathlib import Path

#: docs/rules.md, wherever this package is installed.
RULES = Path(__file__).with_name("rules.md")
