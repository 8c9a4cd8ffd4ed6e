"""Snapshot updates are read before they land: UPDATE_SNAPSHOTS=1 writes a changed snapshot and fails with the
diff, instead of passing by comparing the new file with itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.snapshot_check import compare_snapshot


def test_an_unchanged_snapshot_passes_with_or_without_updating(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    compare_snapshot("a.txt", "one\ntwo\n", folder=tmp_path, update=False)
    compare_snapshot("a.txt", "one\ntwo\n", folder=tmp_path, update=True)


def test_a_changed_snapshot_fails_and_is_left_alone_without_updating(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception) as failure:
        compare_snapshot("a.txt", "one\n2\n", folder=tmp_path, update=False)
    assert "-two" in str(failure.value) and "+2" in str(failure.value)
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "one\ntwo\n"


def test_updating_writes_the_snapshot_then_fails_with_what_changed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception) as failure:
        compare_snapshot("a.txt", "one\n2\n", folder=tmp_path, update=True)
    message = str(failure.value)
    assert "a.txt rewritten" in message and "-two" in message and "+2" in message and "-one" not in message
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "one\n2\n"
    compare_snapshot("a.txt", "one\n2\n", folder=tmp_path, update=False)  # the next run passes on the new file


def test_a_missing_snapshot_is_written_when_updating_and_still_fails(tmp_path: Path) -> None:
    with pytest.raises(pytest.fail.Exception, match="no snapshot b.txt"):
        compare_snapshot("b.txt", "new\n", folder=tmp_path, update=False)
    assert not (tmp_path / "b.txt").exists()
    with pytest.raises(pytest.fail.Exception, match="(?s)b.txt rewritten.*a new file.*new"):
        compare_snapshot("b.txt", "new\n", folder=tmp_path, update=True)
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "new\n"
