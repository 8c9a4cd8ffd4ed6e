"""core/ is pure and synchronous: it imports only the standard library's pure modules and itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parent.parent / "core"
ALLOWED = {
    "__future__", "array", "bisect", "collections", "dataclasses", "enum", "functools", "heapq", "itertools",
    "math", "operator", "re", "string", "time", "typing", "core",
}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda p: p.name)
def test_core_imports_nothing_with_io(path: Path) -> None:
    assert imported_roots(path) <= ALLOWED, f"{path.name} imports {imported_roots(path) - ALLOWED}"


def test_the_check_itself_catches_forbidden_imports(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import asyncio\nfrom sqlalchemy import select\nfrom bot.app.service import X\n")
    assert imported_roots(sample) - ALLOWED == {"asyncio", "sqlalchemy", "bot"}
