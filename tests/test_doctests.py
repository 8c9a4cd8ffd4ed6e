"""The examples in the docstrings of core/ and bot/ are true."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _modules(package: str) -> list[str]:
    names = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


MODULES = _modules("core") + _modules("bot")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0


def test_the_examples_are_found() -> None:
    """Some modules of both packages have examples, so the test above is not vacuous."""
    with_examples = {name.split(".")[0] for name in MODULES
                     if doctest.DocTestFinder().find(importlib.import_module(name))
                     and any(test.examples for test in doctest.DocTestFinder().find(importlib.import_module(name)))}
    assert with_examples == {"core", "bot"}
