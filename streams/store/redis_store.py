"""The Redis backend of the store (production): one class made of the roles' modules in
``streams/store/redis/`` (:mod:`streams.store.roles`), Lua scripts for the atomic steps.

Key layout and the scripts' steps: docs/storage.md; every key name: :mod:`streams.store.keys`.
"""

from __future__ import annotations

from streams.store.redis.access import RedisAccess
from streams.store.redis.archive import RedisArchive
from streams.store.redis.live import RedisLive
from streams.store.redis.reader import RedisReader
from streams.store.redis.search import RedisSearch


class RedisStore(RedisArchive, RedisReader, RedisSearch, RedisAccess, RedisLive):
    """The Redis backend: every role (:class:`~streams.store.roles.Store`) and the
    :class:`~streams.store.roles.Archive` of ``prizecheck check`` and ``prizecheck archive``.

    ``client`` must be a ``redis.asyncio.Redis`` or ``RedisCluster`` returning bytes
    (``decode_responses=False``). ``prefix`` namespaces every key and channel (tests use a unique prefix
    per test).
    """
