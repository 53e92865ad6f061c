"""A least-recently-used cache bounded by bytes (:class:`ByteBoundLRU`): the review page's kept answers and
folds (:mod:`streams.http.pages`, :mod:`streams.http.review_window`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class ByteBoundLRU(Generic[K, V]):
    """Values by key, the least recently used dropped while their bytes in all (each as ``measure`` gives
    it) pass ``limit``; the most recently used one is never dropped.

    A value's bytes are measured when it is put and again at each :meth:`trim`: a value that grows while it
    is used (a review fold read a window at a time) is put, grows, and the cache is trimmed after. A value
    already larger than ``limit`` when it is put is refused (it would drop every other and still pass).
    """

    def __init__(self, limit: int, measure: Callable[[V], int]) -> None:
        self.limit = limit
        #: The bytes of the values kept, as last measured (at their put or the last :meth:`trim`).
        self.size = 0
        self._measure = measure
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: K) -> V | None:
        """The value kept under ``key`` (now the most recently used), or None."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        self._entries.move_to_end(key)
        return entry[0]

    def put(self, key: K, value: V) -> bool:
        """Keep ``value`` under ``key`` as the most recently used, dropping the least recently used others
        past the limit; False (and nothing changed) when the value alone is larger than the limit."""
        size = self._measure(value)
        if size > self.limit:
            return False
        old = self._entries.pop(key, None)
        if old is not None:
            self.size -= old[1]
        self._entries[key] = (value, size)
        self.size += size
        self._drop_past_limit()
        return True

    def trim(self) -> None:
        """Measure every value again (any may have grown since it was put) and drop the least recently used
        ones while the bytes kept pass the limit, the most recently used one kept whatever its size."""
        # Every value is measured: any one kept may have grown since (two windows of two games at once).
        # The values kept are a few games, so this is a handful of calls.
        self.size = 0
        for key, (value, _) in list(self._entries.items()):
            size = self._measure(value)
            self._entries[key] = (value, size)
            self.size += size
        self._drop_past_limit()

    def _drop_past_limit(self) -> None:
        while len(self._entries) > 1 and self.size > self.limit:
            _, (_, size) = self._entries.popitem(last=False)
            self.size -= size
