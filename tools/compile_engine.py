"""Compile the engine's and the PTCGL importer's hot modules with mypyc, in place (``make compile``; ``make
install`` runs it).

    python tools/compile_engine.py                   # build both parts' *.so next to their sources
    python tools/compile_engine.py --part importer   # one part: engine (replay/engine/) or importer
    python tools/compile_engine.py --clean           # remove them: plain Python again

The importer's part is the battle-log walk (replay/sources/ptcgl/: the lines, the walk and its handlers, the
window, the stream, the log's cards; issue 40 item 2), built as a group of its own so that changing one
part does not rebuild the other (the Makefile has a rule for each).

The compiled modules are extension modules next to their ``.py`` files (Python imports an extension
before a source file of the same name), plus one shared library inside the package,
``replay/engine/fold__mypyc.*.so`` (mypyc's runtime and the code of every compiled module; the importer's:
``replay/sources/walk__mypyc.*.so``). Nothing else changes: without them, the same ``.py`` files run as
plain Python (the wheel on PyPI ships no ``.so``). Each part's ``_compiled.manifest``
(``replay/engine/``, ``replay/sources/ptcgl/``) records the sha256 of each source compiled, so a test can
tell a stale build.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import sysconfig

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Every module of the engine's folder (replay/engine/): the pure fold. Left out, with the reason:
EXCLUDED = {
    "__init__.py": "the package marker",
    # Raised, never in the fold's hot path; other modules subclass InputError in Python (RecordError,
    # RulesetError, the importers' errors), which a class compiled by mypyc refuses.
    "errors.py": "the errors that reach users (subclassed by interpreted modules)",
    # msgspec reads a Struct's field types from its annotations, which mypyc does not keep (it turns
    # `str | None` into `type`); these are built once per output, not per event.
    "outputs.py": "the typed outputs (msgspec Structs need their annotations)",
    # A command's --ruleset choices: loading the compiled engine's shared library for three names cost a
    # command's start-up ~30 ms of CPU (issue 40 item 2).
    "ruleset_ids.py": "the ruleset ids (read by the command line without loading the compiled engine)",
}
MODULES = sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "replay" / "engine").glob("*.py") if p.name not in EXCLUDED
)
C_EXTENSION = "replay/engine/_link.c"
GROUP = "replay.engine.fold"  # the shared library: replay/engine/fold__mypyc.<abi>.so
MANIFEST = ROOT / "replay" / "engine" / "_compiled.manifest"

# The PTCGL importer's per-line walk (issue 40 item 2: one Python object or call per line, event and
# finding, none above ~20 % of a profile). Left in plain Python, with the reason:
#   __init__.py   the package (parse_ptcgl's stages, once a log)
#   sentences.py, language.py, locales.py   the template table and the language's detection: compiled
#                 they saved nothing measurable (their time is in the re module) for ~30 s more build
#   replay/sources/common.py  shared by every importer; compiled it saved nothing measurable
IMPORTER_DIR = ROOT / "replay" / "sources" / "ptcgl"
IMPORTER_MODULES = [
    *(f"replay/sources/ptcgl/{name}.py"
      for name in ("cards", "events", "facts", "importer", "lines", "moves", "play", "turns", "walk",
                   "window", "zones")),
    "replay/sources/table.py",  # the board and its counts, which the walk asks at every event
]  # fmt: skip
# replay/sources/walk__mypyc.<abi>.so: beside table.py, not in the ptcgl package, so that loading it (as the
# sheet importer's table.py does) does not import the whole battle-log importer (~50 ms of a sheet's start)
IMPORTER_GROUP = "replay.sources.walk"
IMPORTER_MANIFEST = IMPORTER_DIR / "_compiled.manifest"

SETUP = """\
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="prizecheck-engine",
    ext_modules=mypycify({modules!r}, opt_level="3", debug_level="0", group_name={group!r}),
)
"""
SETUP_C = """\
from setuptools import Extension, setup

setup(
    name="prizecheck-link",
    ext_modules=[
        Extension(
            "replay.engine._link",
            [{source!r}],
            libraries=["crypto"],
            # SHA256_Init/Update/Final: deprecated in OpenSSL 3 but the fast path (no provider context)
            extra_compile_args=["-O2", "-Wno-deprecated-declarations"],
        )
    ],
)
"""


def _suffixes() -> tuple[str, ...]:
    return (sysconfig.get_config_var("EXT_SUFFIX") or ".so", ".so", ".pyd")


def built() -> list[pathlib.Path]:
    """The engine's compiled files now in the package."""
    return sorted({p for s in _suffixes() for p in (ROOT / "replay" / "engine").glob(f"*{s}")})


def built_importer() -> list[pathlib.Path]:
    """The importer's compiled files now in its package (its modules' and its group's, nothing else)."""
    group = ROOT.joinpath(*IMPORTER_GROUP.split("."))  # replay/sources/walk: its library walk__mypyc.*.so
    stems = {(ROOT / m).with_suffix("") for m in IMPORTER_MODULES} | {group.with_name(group.name + "__mypyc")}
    return sorted(
        {p for stem in stems for s in _suffixes() for p in stem.parent.glob(f"{stem.name}.*{s}")}
        | {p for stem in stems for s in _suffixes() if (p := stem.with_name(stem.name + s)).exists()}
    )


def clean() -> None:
    for path in built():
        path.unlink()
    MANIFEST.unlink(missing_ok=True)


def clean_importer() -> None:
    for path in built_importer():
        path.unlink()
    IMPORTER_MANIFEST.unlink(missing_ok=True)


def build_ext(setup_text: str, name: str) -> subprocess.CompletedProcess[str]:
    """Run ``setup.py build_ext --inplace`` for ``setup_text`` from the project root."""
    build = ROOT / "build" / "mypyc"
    build.mkdir(parents=True, exist_ok=True)
    setup_py = build / f"{name}.py"
    setup_py.write_text(setup_text, "utf-8")
    # mypyc writes its C files under build/ relative to the working directory, and build_ext --inplace
    # puts each extension next to its source: both run from the project root.
    cmd = [sys.executable, str(setup_py), "build_ext", "--inplace", "--build-temp", str(build / name)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)


def compile_engine() -> int:
    clean()
    proc = build_ext(SETUP.format(modules=MODULES, group=GROUP), "setup_engine")
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-20000:] + proc.stderr[-20000:])
        clean()
        return proc.returncode
    sources = list(MODULES)
    link = build_ext(SETUP_C.format(source=C_EXTENSION), "setup_link")
    if link.returncode == 0:
        sources.append(C_EXTENSION)
    else:
        print(f"note: {C_EXTENSION} not built (OpenSSL headers?); the chain links with hashlib")
    digests = {m: hashlib.sha256((ROOT / m).read_bytes()).hexdigest() for m in sources}
    MANIFEST.write_text(json.dumps({"group": GROUP, "modules": digests}, indent=1) + "\n", "utf-8")
    names = ", ".join(p.name.split(".")[0] for p in built())
    print(f"compiled with mypyc: {names}")
    return 0


def compile_importer() -> int:
    clean_importer()
    setup = SETUP.format(modules=IMPORTER_MODULES, group=IMPORTER_GROUP).replace(
        "prizecheck-engine", "prizecheck-ptcgl"
    )
    proc = build_ext(setup, "setup_importer")
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-20000:] + proc.stderr[-20000:])
        clean_importer()
        return proc.returncode
    digests = {m: hashlib.sha256((ROOT / m).read_bytes()).hexdigest() for m in IMPORTER_MODULES}
    IMPORTER_MANIFEST.write_text(
        json.dumps({"group": IMPORTER_GROUP, "modules": digests}, indent=1) + "\n", "utf-8"
    )
    names = ", ".join(p.name.split(".")[0] for p in built_importer())
    print(f"compiled with mypyc (the PTCGL importer): {names}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clean", action="store_true", help="remove the compiled modules")
    ap.add_argument("--part", choices=("engine", "importer"), help="only this part (both without it)")
    args = ap.parse_args()
    parts = [args.part] if args.part else ["engine", "importer"]
    if args.clean:
        if "engine" in parts:
            clean()
        if "importer" in parts:
            clean_importer()
        shutil.rmtree(ROOT / "build" / "mypyc", ignore_errors=True)
        return 0
    for part in parts:
        rc = compile_engine() if part == "engine" else compile_importer()
        if rc != 0:
            return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
