"""The distribution users install (``pip install .``, the Dockerfile) holds every module and data file, builds
without warnings, and works where it is installed: with the service, ``/rules`` is served from the
package; without it, a service command says how to get it and the demo suggests only what runs.

The wheel is built once, from a clean copy of the tree, and installed with pip into scratch virtual
environments outside the checkout. Their dependencies are this environment's own, made visible by a
``.pth`` line (no network): all of them for the service install, and for the plain ``pip install .``
only the base dependencies (msgpack, msgspec, fastjsonschema, rich and what they need), linked one by one.
"""

from __future__ import annotations

import importlib.metadata
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from collections.abc import Iterator

import pytest

ROOT = pathlib.Path(__file__).parent.parent
SKIP = (
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
PURELIB = pathlib.Path(sysconfig.get_paths()["purelib"])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[pathlib.Path, str]]:
    """The wheel built from a clean copy of the tree (a build/ folder left by an earlier build would hide a
    missing package), and what the build printed."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*SKIP), symlinks=True)
    out = tmp / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    (whl,) = out.glob("prizecheck-*.whl")
    yield whl, built.stdout + built.stderr


def test_wheel_holds_every_module_and_data_file(wheel: tuple[pathlib.Path, str]) -> None:
    names = set(zipfile.ZipFile(wheel[0]).namelist())
    wanted = [
        p.relative_to(ROOT).as_posix()
        for pkg in ("replay", "streams", "schemas")
        for p in (ROOT / pkg).rglob("*")
        if p.is_file() and p.suffix in {".py", ".json", ".lua", ".yaml", ".html", ".css", ".js", ".typed",
                                        ".md", ".po"}
        and "__pycache__" not in p.parts
    ]  # fmt: skip
    assert "replay/cli/replay.py" in wanted and "replay/docs/rules.md" in wanted
    assert "replay/i18n/locale/ja/LC_MESSAGES/messages.po" in wanted  # the catalogues (replay/i18n)
    missing = [w for w in wanted if w not in names]
    assert missing == []
    # docs/rules.md itself, not the checkout's link to it
    rules = zipfile.ZipFile(wheel[0]).read("replay/docs/rules.md")
    assert rules == (ROOT / "docs" / "rules.md").read_bytes()
    # The wheel is plain Python, even when built from a tree with the engine compiled in place (make compile).
    assert [n for n in names if n.endswith((".so", ".pyd", ".manifest"))] == []
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "prizecheck = replay.cli:main" in zipfile.ZipFile(wheel[0]).read(entry).decode()


def test_the_build_prints_no_warning(wheel: tuple[pathlib.Path, str]) -> None:
    """Current setuptools reads the metadata without a deprecation banner (project.license as SPDX)."""
    printed = "\n".join(line for line in wheel[1].splitlines() if not line.startswith("WARNING: Location"))
    assert "Warning" not in printed and "!!" not in printed, printed
    meta = next(n for n in zipfile.ZipFile(wheel[0]).namelist() if n.endswith("METADATA"))
    assert "License-Expression: Apache-2.0" in zipfile.ZipFile(wheel[0]).read(meta).decode()


def test_an_editable_install_prints_no_banner(tmp_path: pathlib.Path) -> None:
    """make install's editable install: the checkout on sys.path (one .pth line), no setuptools banner."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*SKIP), symlinks=True)
    venv = _venv(tmp_path / "venv", [PURELIB])
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps",
         "--no-build-isolation", "-e", str(src)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = "\n".join(
        line for line in (done.stdout + done.stderr).splitlines() if not line.startswith("WARNING: Location")
    )
    assert "!!" not in printed and "Warning" not in printed, printed


def _venv(path: pathlib.Path, deps: list[pathlib.Path]) -> pathlib.Path:
    """A virtual environment without pip whose site-packages sees ``deps`` (a .pth line each)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, timeout=120)
    site = next((path / "lib").glob("python3*/site-packages"))
    (site / "_deps.pth").write_text("".join(f"{d}\n" for d in deps))
    return path


def _install(venv: pathlib.Path, whl: pathlib.Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps",
         "--no-index", str(whl)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip


def _base_deps(tmp: pathlib.Path) -> pathlib.Path:
    """A folder with links to the base dependencies only (``pip install .`` without the service extra)."""
    wanted = [r for r in importlib.metadata.requires("prizecheck") or [] if "extra ==" not in r]
    names = [re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0] for r in wanted]
    out = tmp / "base-deps"
    out.mkdir()
    seen: set[str] = set()
    while names:
        name = names.pop().lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        dist = importlib.metadata.distribution(name)
        for top in {pathlib.Path(str(f)).parts[0] for f in dist.files or []}:
            src = pathlib.Path(str(dist.locate_file(top)))
            if (
                src.exists()
                and not top.endswith(".pth")
                and top != "__pycache__"
                and not (out / top).exists()
            ):
                (out / top).symlink_to(src)
        for r in dist.requires or []:
            if "extra ==" not in r:
                names.append(re.split(r"[<>=!~ ;\[(]", r, maxsplit=1)[0])
    return out


def _env(tmp: pathlib.Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PRIZECHECK_DATA_DIR"] = str(tmp / "data")
    return env


@pytest.mark.redis
def test_the_installed_wheel_serves_the_rules(
    wheel: tuple[pathlib.Path, str], tmp_path: pathlib.Path
) -> None:
    """pip install '.[service]' elsewhere than the checkout: /rules is docs/rules.md, found in the package."""
    venv = _venv(tmp_path / "venv", [PURELIB])
    _install(venv, wheel[0])
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import replay.docs; print(replay.docs.RULES)"],
        capture_output=True, text=True, cwd=tmp_path, timeout=60, check=True,
    ).stdout.strip()  # fmt: skip
    assert where.startswith(str(venv)) and not os.path.islink(where)  # the installed copy, not the checkout
    proc = subprocess.Popen(
        [str(venv / "bin" / "prizecheck"), "serve", "--port", "0"], cwd=tmp_path, env=_env(tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://" in line, proc.stderr.read() if proc.stderr else ""
        url = line.split("listening on ")[1].split()[0]
        with urllib.request.urlopen(f"{url}/rules", timeout=30) as answer:
            page = answer.read().decode()
        assert answer.status == 200 and "The rules the engine implements" in page and 'id="s1"' in page
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=60) == 0


def test_without_the_service_a_service_command_says_how_to_get_it(
    wheel: tuple[pathlib.Path, str], tmp_path: pathlib.Path
) -> None:
    """pip install . (no extra): the command line works, a service command is one line naming the extra,
    and the demo runs offline and suggests only commands this install can run (the one it shows, run)."""
    venv = _venv(tmp_path / "venv", [_base_deps(tmp_path)])
    _install(venv, wheel[0])
    cli = str(venv / "bin" / "prizecheck")
    env = _env(tmp_path)
    for command in (["serve"], ["serve", "--port", "1"], ["show", "m1"], ["worker"], ["produce", "x.jsonl"],
                    ["token", "list"], ["audit-log"], ["check"]):  # fmt: skip
        p = subprocess.run([cli, *command], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
        assert p.returncode == 2 and p.stdout == "", command
        (line,) = p.stderr.splitlines()
        assert re.fullmatch(
            rf"prizecheck {command[0]}: needs the service extra, which this installation lacks \(No module "
            r"named '[a-z_.]+'\): pip install '\.\[service\]' in a checkout, or "
            r"'dist/prizecheck-0\.1\.0-py3-none-any\.whl\[service\]' from make dist",
            line,
        ), line
    demo = subprocess.run([cli, "demo"], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert demo.returncode == 0 and "Traceback" not in demo.stderr, demo.stderr
    assert "pip install '.[service]' in a checkout" in demo.stdout
    assert "--from-store" not in demo.stdout and " serve" not in demo.stdout  # nothing this install lacks
    suggested = demo.stdout.strip().splitlines()[-1]
    assert re.match(r"\((\S*/)?prizecheck report prizecheck-demo-league\.jsonl ", suggested), suggested
    again = subprocess.run(
        f"{suggested[1:-1]}", shell=True, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert again.returncode == 0, again.stderr
    p = subprocess.run([cli, "report", "--from-store"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode == 2 and "pip install '.[service]'" in p.stderr and p.stderr.count("\n") == 1
    archived = subprocess.run(
        [cli, "archive", "--to", "cold"], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert archived.returncode == 2 and archived.stderr.count("\n") == 1, archived.stderr
    assert "needs the service and archive extras" in archived.stderr and not (tmp_path / "cold").exists()
