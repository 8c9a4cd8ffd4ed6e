"""`tripeaks` with no command prints its usage and every command on stderr, with exit status 2 (a usage error:
nothing was done, as for any mistake on the command line), never a bare "arguments are required"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import EXIT_USAGE, build_parser, main

REPO = Path(__file__).resolve().parent.parent


def commands() -> list[str]:
    return list(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def test_no_command_prints_the_usage_and_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: tripeaks ")
    assert all(f"    {command} " in captured.err or f"    {command}\n" in captured.err for command in commands())


def test_the_command_alone_does_the_same(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "bot.cli"], capture_output=True, text=True, cwd=tmp_path,
                          env=os.environ | {"PYTHONPATH": str(REPO)}, timeout=60, check=False)
    assert done.returncode == EXIT_USAGE and done.stdout == ""
    assert done.stderr.startswith("usage: tripeaks ") and "console" in done.stderr and "Traceback" not in done.stderr
