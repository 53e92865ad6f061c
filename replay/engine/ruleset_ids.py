"""The rulesets the engine knows, by id (docs/rules.md §7): names only, apart from the rules themselves.

Left interpreted (tools/compile_engine.py): a command's options (``--ruleset``) and the import page list
these ids without loading the compiled engine's shared library (issue 40 item 2: a command's own start-up
under 150 ms)."""

from __future__ import annotations

KNOWN_RULESETS = ("kr-1.0", "jp-3.4", "play-2026")
