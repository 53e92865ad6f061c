"""An in-process backend with the same contract as the Redis one (unit tests): one class made of the
roles' modules in ``streams/store/memory/`` (:mod:`streams.store.roles`)."""

from __future__ import annotations

from streams.store.memory.access import MemoryAccess
from streams.store.memory.index import MemoryIndex
from streams.store.memory.live import MemoryLive
from streams.store.memory.reader import MemoryReader
from streams.store.memory.writer import MemoryWriter


class MemoryStore(MemoryWriter, MemoryReader, MemoryIndex, MemoryAccess, MemoryLive):
    """An in-process backend with the same contract as :class:`RedisStore` (for unit tests): every role
    (:class:`~streams.store.roles.Store`). ``clock``: when an archive entry arrives
    (:attr:`~streams.store.ArchivedEvent.at`), a clock a test may set."""
