"""The in-process backend, one module per role (:mod:`streams.store.roles`), composed into
:class:`streams.store.MemoryStore`."""
