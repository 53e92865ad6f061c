"""Importers: sources that are not contract events, turned into contract events (docs/importers.md).

- ``ptcgl``: Pokémon TCG Live battle-log exports (``parse_ptcgl``); ``locales``: their localised headers.
- ``sheet``: match sheets of paper games, from a judge's app or a scanning step (``parse_sheet``).
- ``cards``: card kinds from names and the optional HP catalogue (``parse_catalogue``).
- ``synthetic``: generated battle logs for tests, benchmarks and the demo (never players' logs).
- ``cli``: ``prizecheck import ptcgl|sheet``, the only module that reads files.
"""
