"""The examples in core's docstrings are true."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "core").glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(f"core.{name}"))
    assert result.failed == 0
