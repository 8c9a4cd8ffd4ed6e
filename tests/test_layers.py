"""The layers, checked from the code's imports: core imports nothing of the bot; adapters import neither SQLAlchemy
nor the store; only the store (and the migrations) import SQLAlchemy; only the Discord adapter imports discord, only
the Telegram adapter imports telegram; adapters use the application only through its door (the flow, commands,
effects, the codec); the app imports neither the renderer nor an adapter; the renderer draws typed
commands and never encodes them (only adapters import the payload codec's ``encode``); no module imports another
that imports it back, however indirectly; no class is put together from two or more of the project's classes
(collaborators are passed in, not mixed in)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "bot", "migrations")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names), wherever in the file the import is."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


MODULES = {module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")}
IMPORTS = {name: imports_of(path) for name, path in MODULES.items()}


def roots(name: str) -> set[str]:
    return {imported.split(".")[0] for imported in IMPORTS[name]}


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "core")))
def test_core_imports_nothing_of_the_bot(name: str) -> None:
    assert not roots(name) & {"bot", "asyncio", "sqlalchemy", "discord", "telegram", "migrations"}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "bot")))
def test_only_the_store_and_the_migrations_use_sqlalchemy(name: str) -> None:
    if under(name, "bot.store"):
        return
    assert "sqlalchemy" not in roots(name) and "alembic" not in roots(name)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "bot.adapters")))
def test_adapters_hold_no_sql_and_no_storage(name: str) -> None:
    assert not any(under(imported, "bot.store") for imported in IMPORTS[name])


@pytest.mark.parametrize("library", ["discord", "telegram"])
def test_only_its_adapter_imports_a_platform_library(library: str) -> None:
    users = {name for name in MODULES if library in roots(name)}
    assert users and all(under(name, f"bot.adapters.{library}") for name in users), users


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "bot.app") or under(n, "bot.render")))
def test_the_app_and_the_renderer_know_no_adapter(name: str) -> None:
    assert not any(under(imported, "bot.adapters") for imported in IMPORTS[name])


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "bot.app")))
def test_the_app_imports_no_renderer_and_no_adapter(name: str) -> None:
    assert not any(under(imported, "bot.render") or under(imported, "bot.adapters") for imported in IMPORTS[name])


#: What an adapter may import of the application: the one door, what goes in (commands), what comes out (effects)
#: the button payloads, and what each platform can do.
ADAPTER_DOOR = ("bot.app.flow", "bot.app.commands", "bot.app.effects", "bot.app.codec", "bot.app.abilities")


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "bot.adapters")))
def test_adapters_use_the_application_only_through_its_door(name: str) -> None:
    used = {imported for imported in IMPORTS[name] if under(imported, "bot.app")}
    assert all(any(under(imported, door) for door in ADAPTER_DOOR) for imported in used), used


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "bot.render")))
def test_the_renderer_does_not_encode_payloads(name: str) -> None:
    assert not any(under(imported, "bot.app.codec") for imported in IMPORTS[name])


def project_bases(path: Path) -> dict[str, list[str]]:
    """Each class defined in ``path`` and those of its bases that are the project's own classes (defined in the
    module, or imported from ``bot`` or ``core``)."""
    tree = ast.parse(path.read_text(), str(path))
    own: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in ("bot", "core")):
            own |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name.split(".")[0] in ("bot", "core")}
        elif isinstance(node, ast.ClassDef):
            own.add(node.name)
    found: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            names = [ast.unparse(base) for base in node.bases]
            found[node.name] = [n for n in names if n in own or n.rpartition(".")[0] in own | modules]
    return found


@pytest.mark.parametrize("name", sorted(n for n in MODULES if under(n, "bot")))
def test_no_class_mixes_in_two_project_classes(name: str) -> None:
    mixed = {cls: bases for cls, bases in project_bases(MODULES[name]).items() if len(bases) >= 2}
    assert not mixed, mixed


def test_the_renderer_reads_no_storage() -> None:
    for name in MODULES:
        if under(name, "bot.render"):
            assert not any(under(imported, "bot.store") for imported in IMPORTS[name]), name


def _internal_edges() -> dict[str, set[str]]:
    """Module -> the project modules it imports (``from a import b`` counts ``a.b`` when that is a module)."""
    edges: dict[str, set[str]] = {}
    for name in MODULES:
        targets = set()
        for imported in IMPORTS[name]:
            if imported in MODULES and imported != name:
                targets.add(imported)
        edges[name] = targets
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """A cycle of imports, as the list of modules along it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target):], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_no_import_cycles() -> None:
    edges = _internal_edges()
    # a package's __init__ importing its own modules is how packages work, not a cycle between layers
    for name in list(edges):
        edges[name] = {t for t in edges[name] if not under(name, t) or MODULES[t].name != "__init__.py"}
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges) or [])


def test_the_checks_catch_what_they_forbid(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import asyncio\nfrom sqlalchemy import select\nfrom bot.store import games\n")
    assert {"asyncio", "sqlalchemy", "bot.store", "bot.store.games"} <= imports_of(sample)
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    sample.write_text("from bot.x import A\nimport core.y as y\nclass B: ...\nclass C(A, B, dict): ...\n"
                      "class D(y.E, Exception): ...\n")
    assert project_bases(sample) == {"B": [], "C": ["A", "B"], "D": ["y.E"]}


def test_only_the_web_adapter_serves_web_pages() -> None:
    """aiohttp's web server (the table in the browser) is the web adapter's alone; the other adapters use aiohttp
    at most as a client."""
    users = {name for name in MODULES if any(under(imported, "aiohttp.web") for imported in IMPORTS[name])}
    assert users and all(under(name, "bot.adapters.web") for name in users), users
