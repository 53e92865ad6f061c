"""The Redis backend, one module per role (:mod:`streams.store.roles`), composed into
:class:`streams.store.RedisStore`. Key names: :mod:`streams.store.keys`; layout and scripts: docs/storage.md.
"""
