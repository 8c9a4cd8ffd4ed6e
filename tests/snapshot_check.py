"""Text snapshots in ``tests/snapshots/``: a test's output compared with the file the last reviewed run wrote.

With ``UPDATE_SNAPSHOTS=1`` a snapshot that differs (or is missing) is written anew and the test still FAILS,
showing what changed, so a regenerated snapshot is read before it lands; the next run, without the variable, passes
on the new file. A snapshot that did not change passes either way.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


def updating() -> bool:
    return os.environ.get("UPDATE_SNAPSHOTS") == "1"


def changes(old: str, new: str, name: str) -> str:
    """What changed from ``old`` to ``new``, as a unified diff of lines."""
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"{name} (before)", tofile=f"{name} (now)"))


def compare_snapshot(name: str, text: str, *, folder: Path = SNAPSHOTS, update: bool | None = None) -> None:
    """Fail unless ``text`` is the snapshot ``name``; when updating, write it first, then fail with the diff."""
    path = folder / name
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if text == old:
        return
    if update if update is not None else updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        shown = "(a new file)\n" + text if old is None else changes(old, text, name)
        pytest.fail(f"snapshot {name} rewritten; read what changed, then run again without UPDATE_SNAPSHOTS:\n"
                    f"{shown}", pytrace=False)
    if old is None:
        pytest.fail(f"no snapshot {name}: run with UPDATE_SNAPSHOTS=1 and read what it writes", pytrace=False)
    pytest.fail(f"{name} differs from its snapshot (UPDATE_SNAPSHOTS=1 rewrites it, to be read):\n"
                f"{changes(old, text, name)}", pytrace=False)
