"""Links into the service's web pages: the judges' review page of a match, at an event (docs/web.md)."""

from __future__ import annotations

import re
from urllib.parse import quote

_PLAIN_ID = re.compile(r"^[A-Za-z0-9._:/-]*$")  # docs/events.md: a match id needs no quoting in a path


def review_link(base_url: str, match: str, seq: int | None = None) -> str:
    """The review page of ``match`` under ``base_url`` (``/review/{match}``), at event ``seq`` when given
    (``#seq=N``, where the page opens)."""
    path = match if _PLAIN_ID.match(match) else quote(match, safe="/:")
    url = f"{base_url.rstrip('/')}/review/{path}"
    return f"{url}#seq={seq}" if seq is not None else url
