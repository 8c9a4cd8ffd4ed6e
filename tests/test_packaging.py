"""The installed package (what the Docker image runs) carries everything the bot reads at run time."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_the_migrations_and_the_catalogues(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(tmp_path),
                           str(REPO)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    (wheel,) = tmp_path.glob("tripeaks_bot-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    migrations = {p.relative_to(REPO).as_posix() for p in (REPO / "migrations").rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts}
    assert migrations <= names
    assert {"migrations/env.py", "migrations/script.py.mako", "migrations/versions/0001_initial.py"} <= names
    for locale in ("en", "uk", "ru", "ja"):
        assert f"bot/locales/{locale}/LC_MESSAGES/messages.po" in names
    assert any(name.endswith("entry_points.txt") for name in names)


def test_make_install_rebuilds_the_kernel_when_its_source_changed() -> None:
    """Upgrading with `git pull && make install`: a changed core/_kernel.c is built again (the installed one would
    otherwise stay the old build, or the solver fall back to pure Python)."""
    planned = subprocess.run(["make", "-n", "-W", "core/_kernel.c", "install"], cwd=REPO, capture_output=True,
                             text=True, timeout=60, check=False)
    assert planned.returncode == 0, planned.stderr
    assert "pip install --quiet --no-deps -e ." in planned.stdout
