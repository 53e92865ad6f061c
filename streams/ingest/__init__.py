"""The ingest core: one function that takes events and lands them in the store, whoever delivered them.

``prizecheck serve`` (HTTP, embedded) and the Kafka workers both call :meth:`IngestCore.ingest_many`;
the core is one class built from one module per guarantee (docs/architecture.md), each over the one
below it (pyproject.toml, the ingest core's layers contract):

- :mod:`streams.ingest.core`: the public calls, and the decision for each event of a batch;
- :mod:`streams.ingest.write`: the write path (runs of events, one atomic store call each);
- :mod:`streams.ingest.rebuild`: a match's game read again from the archive, and checked;
- :mod:`streams.ingest.playoffs`: the playoff family (stubs, parents settled from their children);
- :mod:`streams.ingest.held`: events held behind a gap (handed the write path, never importing it);
- :mod:`streams.ingest.index`: the league index step of each write;
- :mod:`streams.ingest.integrity`: checkpoints, the checks of what the store holds, tamper alarms;
- :mod:`streams.ingest.memory`: per-match memory, locks and eviction;
- :mod:`streams.ingest.state`: the shared state, outcomes and bounds.

Events are admitted at the one edge every transport shares (:func:`replay.contract.admit.admit`).
"""

from streams.ingest.core import IngestCore
from streams.ingest.integrity import clear_alarm
from streams.ingest.state import CONTENTION, TAMPERED, Outcome, Status, StoreContention

# The bounds (MAX_RUN, MAX_ATTEMPTS...) are not re-exported: each module that reads one imports it by name
# from streams.ingest.state, so changing a copy here would change nothing (a test patches the module that
# reads it: tests/streams/ingest/test_write.py).
__all__ = [
    "CONTENTION",
    "TAMPERED",
    "IngestCore",
    "Outcome",
    "Status",
    "StoreContention",
    "clear_alarm",
]
