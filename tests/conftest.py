"""Shared fixtures: databases on SQLite (always) and PostgreSQL (when a server answers).

PostgreSQL: ``TEST_POSTGRES_URL`` (default ``postgresql+asyncpg://postgres@127.0.0.1:5432/test``) names a database
to connect to; the tests create their own fresh databases next to it, named after the pytest-xdist worker and the
process (``tripeaks_<label>_<worker>_<pid>_<random>``: workers never share one), and drop them afterwards. When no
server answers, the PostgreSQL tests are skipped and the run's summary says why; with ``TEST_POSTGRES_REQUIRED=1``
(as ``.ci/run`` sets) they fail instead.
"""

from __future__ import annotations

import asyncio
import functools
import os
import secrets
import shutil
import sys
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy.engine import URL, make_url

from bot.app.assembly import App
from bot.app.model import DealVerdict, Hint
from bot.store.database import open_database
from bot.store.engine import Database
from bot.store.migrate import upgrade_database
from core.deal import GameCode
from core.game import Game

DEFAULT_POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
POSTGRES_URL = make_url(os.environ.get("TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL)
POSTGRES_REQUIRED = os.environ.get("TEST_POSTGRES_REQUIRED") == "1"
#: This pytest-xdist worker ("gw0", "gw1", ...), or "main" without xdist.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")

POSTGRES_UNREACHABLE = "PostgreSQL not reachable"
T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, even one called while an event loop runs (a fixture
    requested by an async fixture)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def _asyncpg_dsn(url: URL) -> str:
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


class PostgresServer:
    """Creates fresh databases on the test server and drops them at the end of the session."""

    def __init__(self, url: URL) -> None:
        self.url = url
        self.created: list[str] = []

    async def _admin(self, sql: str) -> None:
        import asyncpg

        connection = await asyncpg.connect(_asyncpg_dsn(self.url), timeout=10)
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    def create_database(self, label: str) -> URL:
        name = f"tripeaks_{label}_{WORKER}_{os.getpid()}_{secrets.token_hex(4)}"
        run_sync(self._admin(f'CREATE DATABASE "{name}"'))
        self.created.append(name)
        return self.url.set(database=name)

    def drop_database(self, url: URL) -> None:
        run_sync(self._admin(f'DROP DATABASE IF EXISTS "{url.database}" WITH (FORCE)'))
        if url.database in self.created:
            self.created.remove(url.database)

    def drop_all(self) -> None:
        for name in list(self.created):
            self.drop_database(self.url.set(database=name))


async def _probe(url: URL) -> str | None:
    """None when the server answers, else why not."""
    try:
        import asyncpg

        connection = await asyncpg.connect(_asyncpg_dsn(url), timeout=5)
        await connection.close()
    except Exception as error:  # any failure to connect means "not reachable" here
        return f"{type(error).__name__}: {error}"
    return None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    error = run_sync(_probe(POSTGRES_URL))
    shown = POSTGRES_URL.render_as_string(hide_password=True)
    if error is not None:
        reason = f"{POSTGRES_UNREACHABLE} at {shown} ({error})"
        if POSTGRES_REQUIRED:
            pytest.fail(f"{reason}, and TEST_POSTGRES_REQUIRED=1", pytrace=False)
        pytest.skip(reason)
    server = PostgresServer(POSTGRES_URL)
    yield server
    server.drop_all()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once why the PostgreSQL tests were skipped (read from the reports: under pytest-xdist the skips happen
    in the workers)."""
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if POSTGRES_UNREACHABLE in reason:
            reason = reason.removeprefix("Skipped: ")
            terminalreporter.write_line(f"PostgreSQL tests SKIPPED: {reason}; set TEST_POSTGRES_URL to run them.",
                                        yellow=True)
            return


@pytest.fixture(scope="session", autouse=True)
def one_tls_context_for_the_http_clients() -> Iterator[None]:
    """python-telegram-bot makes two HTTPX clients for each Application, and HTTPX loads the system's certificates
    into a new TLS context for each (some 40 ms of CPU, a hundred bots over the suite). The tests' Bot API is the
    fake one, over plain HTTP, so here the clients share one default context, loaded once: nothing a test sees
    changes. Only where HTTPX is already in use (not in `make check`)."""
    transports = sys.modules.get("httpx._transports.default")
    create = getattr(transports, "create_ssl_context", None)
    if transports is None or create is None:
        yield
        return
    shared = functools.cache(create)

    def reuse(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
        if verify is True and cert is None and trust_env:
            return shared()
        return create(verify=verify, cert=cert, trust_env=trust_env)

    transports.create_ssl_context = reuse
    yield
    transports.create_ssl_context = create


# --- which tests are end to end --------------------------------------------------------------------------------

#: The modules that play through real processes (the command line, the console, `tripeaks run`), SimCord or the fake
#: Bot API server, or break real parts (faults, migrations, the wheel). Their tests are marked ``e2e``: `make test`
#: runs them; `make check` (the quick edit loop, ``pytest --unit``) does not even import them, and leaves out the
#: PostgreSQL tests too.
E2E_MODULES = frozenset({
    "test_advisor_bench", "test_cli_backup", "test_cli_db", "test_cli_engine", "test_cli_show", "test_console",
    "test_console_session", "test_console_terminal", "test_crash_safety", "test_daily", "test_daily_discord",
    "test_daily_fair", "test_daily_fair_discord", "test_kernel_differential",
    "test_discord_challenge", "test_discord_e2e", "test_discord_lifecycle", "test_discord_picture", "test_faults",
    "test_health", "test_load_bench", "test_migration_data", "test_migration_lock", "test_migrations",
    "test_packaging", "test_readme", "test_runner", "test_scale", "test_secrets", "test_shutdown",
    "test_start_checks", "test_telegram_e2e", "test_telegram_fake", "test_telegram_inline", "test_telegram_lifecycle",
    "test_telegram_picture", "test_web_browser", "test_web_discord", "test_web_relay", "test_web_telegram",
    "test_crowd_telegram", "test_discord_pace", "test_telegram_pacing", "test_telegram_in_board",
    "test_discord_activity", "test_web_activity", "test_outbox_crash",
    "test_one_game_everywhere", "test_cli_copy", "test_exhaustive", "test_newcomer", "test_platform_down",
    "test_rounds_discord", "test_rounds_discord_group", "test_rounds_telegram", "test_telegram_taps",
    "test_boards_across_processes",
    "test_telegram_owner", "test_discord_owner", "test_cli_owner", "test_polling_stop", "test_web_rounds_browser",
    "test_deploy",
})


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--unit", action="store_true",
                     help="the unit tests only (`make check`): the e2e modules are not even imported, and the "
                          "PostgreSQL tests are left out")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.getoption("unit") and collection_path.suffix == ".py" and collection_path.stem in E2E_MODULES:
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in E2E_MODULES:
            item.add_marker(pytest.mark.e2e)
    if config.getoption("unit"):
        postgres = [item for item in items if item.get_closest_marker("postgres")]
        if postgres:
            config.hook.pytest_deselected(items=postgres)
            items[:] = [item for item in items if not item.get_closest_marker("postgres")]


# --- databases migrated to the latest schema --------------------------------------------------------------------


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once; each test gets a copy."""
    path = tmp_path_factory.mktemp("template") / "tripeaks.db"
    run_sync(upgrade_database(f"sqlite+aiosqlite:///{path}"))
    return path


@pytest.fixture(scope="session")
def postgres_migrated(postgres_server: PostgresServer) -> URL:
    """A PostgreSQL database migrated once for the session; each test starts with its tables emptied."""
    url = postgres_server.create_database("service")
    run_sync(upgrade_database(url))
    return url


async def _empty_tables(url: URL) -> None:
    import asyncpg

    connection = await asyncpg.connect(_asyncpg_dsn(url), timeout=10)
    try:
        await connection.execute("TRUNCATE games, players, daily_subscriptions, rounds, player_shares, "
                                 "blocked_accounts, kept_answers RESTART IDENTITY CASCADE")
        await connection.execute("DELETE FROM deployment WHERE name = 'owner_notice'")
    finally:
        await connection.close()


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def db_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> URL:
    """An empty, migrated database of each kind."""
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "tripeaks.db"
        shutil.copyfile(template, path)
        return make_url(f"sqlite+aiosqlite:///{path}")
    url: URL = request.getfixturevalue("postgres_migrated")
    await _empty_tables(url)
    return url


@pytest.fixture
def fresh_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[URL]:
    """A database of each kind with nothing in it, not even the schema."""
    if backend == "sqlite":
        yield make_url(f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}")
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.create_database("fresh")
    yield url
    server.drop_database(url)


@pytest.fixture
async def database(db_url: URL) -> AsyncIterator[Database]:
    db = await open_database(db_url, migrate=False)
    yield db
    await db.close()


# --- a stand-in solver ------------------------------------------------------------------------------------------
# Deterministic and instant, so the service's own logic is tested apart from the real solver (tested for real in
# test_service.py's solver tests).


def fake_winnable(code: str) -> bool:
    """The stand-in solver's verdict: deals whose number is a multiple of 7 are winnable."""
    return GameCode.parse(code).number % 7 == 0


def fake_best_score(code: str) -> int:
    return 700 + GameCode.parse(code).number % 50


def fake_verdict(code: str, budget: float, best: bool) -> DealVerdict:
    winnable = fake_winnable(code)
    return DealVerdict(winnable, fake_best_score(code) if best and winnable else None)


def fake_hint(state: str, budget: float) -> Hint:
    """The first legal action (taps first, then draw, then undo)."""
    game = Game.from_text(state)
    return Hint(next(iter(game.legal_actions()), None), None, None)


@pytest.fixture
async def service(database: Database) -> AsyncIterator[App]:
    # the fake hint answers at once: a budget no loaded test machine runs out of, so no hint comes back busy
    with ThreadPoolExecutor(2) as executor:
        async with App(database, executor=executor, hint_function=fake_hint, verdict_function=fake_verdict,
                       hint_budget=30) as svc:
            yield svc
