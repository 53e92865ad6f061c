"""The cycle collector paused while a block builds many objects that live on after it.

CPython's cyclic garbage collector runs a collection every few hundred allocations and, every few of
those, walks everything alive. A block that builds a large structure (every record of a report, every
step of a 50,000-event game for the review page) then pays for walking what it has built again and
again: 11-12 s of a 14 s review fold of a 50,000-event game, for instance (docs/performance.md). Paused,
the block allocates without collections; cycles it leaves are collected after it, as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused(pause: bool = True) -> Iterator[None]:
    """The cycle collector off for the block when ``pause`` (back on after it; left alone if it was off)."""
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
