"""Generators: games and files made from a seed, for the tests, the bench and the demo (never a source of
real events, which is what :mod:`replay.sources` holds).

- :mod:`simulate`: rule-correct contract streams, with faults injected on request (``prizecheck simulate``);
- :mod:`league`: a simulated league event (Swiss rounds, a top cut) of simulated games;
- :mod:`synthetic`: Pokémon TCG Live battle logs in the client's own templates;
- :mod:`scan`: filled and photographed game sheets (needs the ``scan`` extra).

Each is deterministic in its seed. They sit above the sources (a synthetic log is printed with the PTCGL
importer's templates, a generated sheet is drawn by the scan importer's printer) and nothing but the
command line, the tests, the bench and the tools imports them (pyproject.toml, import-linter).
"""
