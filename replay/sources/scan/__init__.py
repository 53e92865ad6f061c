"""Scanned game sheets: a printed sheet a spotter fills with a pen, and its photo read back as events.

One job per module, like the other importers' stages (docs/importers.md, "Scanned game sheets"):

- :mod:`layout`: where everything is on the sheet (pure geometry, in millimetres) and what the QR code holds;
- :mod:`marks`: the marks read from a sheet -> a match sheet of the sheet importer (pure);
- :mod:`printer`: the sheet as PDF (fpdf2, segno) and PNG (pypdfium2);
- :mod:`reader`: a photo or scan -> the sheet's header, each mark box's fill, the crops (OpenCV);
- :mod:`photo`: a whole file (JPEG, PNG, PDF) -> events of the existing sheet importer, with findings;
- :mod:`generate`: filled and photographed sheets for the tests and the bench.

Everything but :mod:`layout` and :mod:`marks` needs the ``scan`` extra (``pip install '.[scan]'`` in a
checkout).
"""
