"""What a command says when an optional extra is not installed, and the installed version: read by every
command (the missing-extra line, ``--version``), so this module imports nothing of the engine's
(issue 40 item 2: it was in :mod:`replay.codec`, whose import costs msgspec and the event types)."""

from __future__ import annotations


def installed_version() -> str | None:
    """The installed distribution's version (``0.1.0``), None in a checkout that was never installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("prizecheck")
    except PackageNotFoundError:
        return None


def needs_extra(reason: object, *extras: str) -> str:
    """What a command says when an optional extra is not installed: ``needs the archive extra, which this
    installation lacks (No module named 'pyarrow'): pip install '.[archive]' in a checkout, or ...``.

    It names the install from a checkout and from the wheel ``make dist`` builds, never a bare package
    name: Prizecheck is not on the package index, and a name there is anyone's to register (README,
    "Install")."""
    built = installed_version() or "VERSION"
    names = ",".join(extras)
    which = " and ".join(extras) + (" extras" if len(extras) > 1 else " extra")
    return (
        f"needs the {which}, which this installation lacks ({reason}): pip install '.[{names}]' in a "
        f"checkout, or 'dist/prizecheck-{built}-py3-none-any.whl[{names}]' from make dist"
    )
