"""Generated sheets, filled and photographed, read back (one of three files, for xdist: see helpers).

``make test`` reads a sample of 10 here; ``make test-long`` sets PRIZECHECK_SCAN_SHEETS=80 (240 in all).
"""

from tests.scan.helpers import check_generated


def test_generated_photos_read_back_with_no_silent_misread() -> None:
    totals = check_generated(seed=301, default=10)
    print(totals)
