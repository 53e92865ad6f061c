"""The contract at the edge: what every event must be before anything else reads it (docs/events.md).

One path for every transport (files, HTTP bodies, Kafka messages, the console, held events read back from
the store, ``prizecheck check``): :func:`replay.contract.admit.admit` decodes an event (bytes: one
MessagePack map), checks its shape (:func:`replay.contract.shape.edge_event`: string keys, nesting,
64-bit integers, finite floats, Unicode text), checks it against the JSON Schema
(:func:`replay.contract.validate.validate_event`) and gives its canonical bytes, the ones archived and
chained. Errors are :class:`replay.engine.errors.EventError`, worded the same at every edge.

The package sits above the engine (it reads the engine's errors and canonical encoding) and the engine
imports nothing of it: the callers hand ``validate_event`` in to a game, the check of an amended event
(``Game(check_amendment=...)``; pyproject.toml, the layers contract). Its
modules are imported one by one (this ``__init__`` imports nothing): a command that never reads an event
does not build the validator's types.
"""
