"""The distribution users install (pip install ., the Dockerfile) holds every module and data file."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).parent.parent


def test_wheel_holds_every_module_and_data_file(tmp_path: pathlib.Path) -> None:
    # Build from a clean copy: a build/ folder left by an earlier build would hide a missing package.
    src = tmp_path / "src"
    skip = (
        ".git",
        ".venv",
        "build",
        "dist",
        "*.egg-info",
        "__pycache__",
        "prizecheck-data",
        ".*_cache",
        ".hypothesis",
    )
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*skip))
    out = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = out.glob("prizecheck-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = [
        p.relative_to(ROOT).as_posix()
        for pkg in ("replay", "streams", "schemas")
        for p in (ROOT / pkg).rglob("*")
        if p.is_file() and p.suffix in {".py", ".json", ".lua", ".yaml", ".html", ".css", ".js", ".typed"}
        and "__pycache__" not in p.parts
    ]  # fmt: skip
    assert "replay/cli/replay.py" in wanted
    missing = [w for w in wanted if w not in names]
    assert missing == []
    # The wheel is plain Python, even when built from a tree with the engine compiled in place (make compile).
    assert [n for n in names if n.endswith((".so", ".pyd", ".manifest"))] == []
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "prizecheck = replay.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
