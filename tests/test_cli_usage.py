"""`tripeaks` with no command prints its usage and every command on stderr, with exit status 2 (a usage error:
nothing was done, as for any mistake on the command line), never a bare "arguments are required"."""

from __future__ import annotations

import sys

import pytest

from bot.cli import EXIT_USAGE, build_parser, main


def commands() -> list[str]:
    return list(build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def test_no_command_prints_the_usage_and_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: tripeaks ")
    assert all(f"    {command} " in captured.err or f"    {command}\n" in captured.err for command in commands())


def test_the_command_alone_does_the_same(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """``tripeaks`` typed alone: main() reads the command line itself."""
    monkeypatch.setattr(sys, "argv", ["tripeaks"])
    assert main() == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("usage: tripeaks ") and "console" in captured.err
