"""No secret in any output: tokens, the webhook secret and database passwords are redacted from every log line,
exception text and traceback, and a token the platform rejects is one line naming the variable (exit status 2)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from bot import cli, logs, runner
from bot.config import Config, TokenRejected, load_config, redact, register_secret
from tests.app_helpers import act, set_settings
from tests.fakes.telegram_bot_api import FakeBotAPI

REPO = Path(__file__).resolve().parent.parent
DISCORD_TOKEN = "MTAwMDAwMDAwMDAwMDAwMDAx.GAbCdE.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "LOG_"))}
    return env | {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}", "PYTHONPATH": str(REPO)} | extra


# --- the one redaction -------------------------------------------------------------------------------------------


def test_redact_takes_out_tokens_secrets_and_passwords_known_or_not() -> None:
    register_secret("webhook-secret-xyz")
    text = ("url http://127.0.0.1/bot7000000001:AAFakeTokenForTripeaksTestsOnly0000/getMe "
            f"discord {DISCORD_TOKEN} db postgresql+asyncpg://bot:pa55w0rd@db:5432/x hook webhook-secret-xyz")
    cleaned = redact(text)
    for secret in ("AAFakeTokenForTripeaksTestsOnly0000", DISCORD_TOKEN, "pa55w0rd", "webhook-secret-xyz"):
        assert secret not in cleaned
    assert "postgresql+asyncpg://bot:***@db:5432/x" in cleaned
    assert redact("score 500, moves 12, TP1-E-AAAAAAB at 09:00") == "score 500, moves 12, TP1-E-AAAAAAB at 09:00"


def test_load_config_registers_every_secret_it_reads() -> None:
    load_config({"TELEGRAM_WEBHOOK_URL": "https://example.org/hook", "TELEGRAM_WEBHOOK_SECRET": "s3cr3t-Hook_1",
                 "DATABASE_URL": "postgresql+asyncpg://bot:Sh0rtish@db/x"})
    assert redact("secret s3cr3t-Hook_1 and Sh0rtish alone") == "secret *** and *** alone"


def test_a_traceback_in_a_log_line_is_redacted_too(monkeypatch: pytest.MonkeyPatch) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    stream = io.StringIO()
    logs.configure_logging(Config(log_level="INFO"), stream)
    token = "7000000002:AAOtherTokenThatMustNeverBeShown000"
    try:
        raise RuntimeError(f"request to /bot{token}/getMe failed")
    except RuntimeError:
        logging.getLogger("httpx.test").error("failed: %s", f"/bot{token}/getMe", exc_info=True)
    entry = json.loads(stream.getvalue())
    assert token not in stream.getvalue() and token.split(":")[1] not in stream.getvalue()
    assert "RuntimeError: request to /bot***/getMe failed" in entry["exception"]
    assert entry["message"] == "failed: /bot***/getMe"


# --- a rejected token -------------------------------------------------------------------------------------------


async def test_a_token_telegram_rejects_is_one_line_naming_the_variable(tmp_path: Path) -> None:
    async with FakeBotAPI() as api:
        api.revoke_token()
        env = clean_env(tmp_path, TELEGRAM_TOKEN=api.token, TELEGRAM_API_URL=api.base_url, LOG_LEVEL="WARNING")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), timeout=60)
        assert api.calls("getMe"), "the bot never asked Telegram"
    output = out.decode() + err.decode()
    assert process.returncode == 2, output
    assert err.decode() == "tripeaks: TELEGRAM_TOKEN was rejected by Telegram (401)\n"
    assert out.decode() == ""
    assert api.token not in output and api.token.split(":")[1] not in output


@pytest.fixture
async def discord_rejecting(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[list[str]]:
    """discord.py's real HTTP client pointed at a local server that answers 401 to the login, as Discord does to
    a revoked token."""
    import discord.http

    seen: list[str] = []

    async def unauthorized(request: web.Request) -> web.Response:
        seen.append(f"{request.method} {request.path}")
        return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", unauthorized)
    app_runner = web.AppRunner(app)
    await app_runner.setup()
    site = web.TCPSite(app_runner, "127.0.0.1", 0)
    await site.start()
    port = app_runner.addresses[0][1]
    monkeypatch.setattr(discord.http.Route, "BASE", f"http://127.0.0.1:{port}/api/v10")
    try:
        yield seen
    finally:
        await app_runner.cleanup()


async def test_a_token_discord_rejects_is_token_rejected(tmp_path: Path, discord_rejecting: list[str]) -> None:
    config = Config(discord_token=DISCORD_TOKEN, database_url=f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}")
    with pytest.raises(TokenRejected) as raised:
        await asyncio.wait_for(runner.run_bot(config), timeout=60)
    assert str(raised.value) == "DISCORD_TOKEN was rejected by Discord"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    assert discord_rejecting == ["GET /api/v10/users/@me"]


def test_main_turns_a_rejected_token_into_one_line_and_status_2(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    def rejected(args: object) -> int:
        raise TokenRejected("DISCORD_TOKEN was rejected by Discord")

    monkeypatch.setattr(cli, "cmd_run", rejected)
    assert cli.main(["run"]) == 2
    assert capsys.readouterr().err == "tripeaks: DISCORD_TOKEN was rejected by Discord\n"


# --- anything unexpected ----------------------------------------------------------------------------------------


def test_an_unexpected_error_is_one_redacted_line_and_status_1(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    token = "7000000003:AAYetAnotherTokenNobodyMayRead000000"

    def broken(args: object) -> int:
        raise ValueError(f"cannot reach https://api.telegram.org/bot{token}/getMe\nsecond line")

    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    monkeypatch.setattr(cli, "cmd_deal", broken)
    assert cli.main(["deal", "TP1-E-AAAAAAB"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "tripeaks: unexpected error: ValueError: cannot reach https://api.telegram.org/bot***/getMe\n"
    assert token.split(":")[1] not in captured.out + captured.err


async def test_an_unexpected_error_of_the_bot_is_one_json_line_without_the_token(tmp_path: Path) -> None:
    """getMe answered with something that is not JSON: python-telegram-bot raises an error nobody maps; the bot
    ends with status 1, every stderr line is a JSON log entry (the traceback inside one), and no token shows."""

    async def garbage(request: web.Request) -> web.Response:
        return web.Response(text="<html>oops</html>", status=200)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", garbage)
    app_runner = web.AppRunner(app)
    await app_runner.setup()
    site = web.TCPSite(app_runner, "127.0.0.1", 0)
    await site.start()
    token = "7000000004:AATokenOfABotWhoseApiIsBroken0000000"
    try:
        env = clean_env(tmp_path, TELEGRAM_TOKEN=token,
                        TELEGRAM_API_URL=f"http://127.0.0.1:{app_runner.addresses[0][1]}/bot")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "run", cwd=tmp_path, env=env, stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    finally:
        await app_runner.cleanup()
    assert process.returncode == 1, err.decode()
    lines = err.decode().splitlines()
    entries = [json.loads(line) for line in lines]  # every line is one JSON entry: no raw traceback
    last = entries[-1]
    assert last["level"] == "CRITICAL" and last["message"].startswith("unexpected error: ")
    assert "Traceback" in last["exception"]
    assert token not in out.decode() + err.decode() and token.split(":")[1] not in out.decode() + err.decode()


def test_a_password_in_the_database_url_never_shows_in_an_error(tmp_path: Path) -> None:
    env = clean_env(tmp_path, DATABASE_URL="postgresql+asyncpg://nobody:Hunter2Secret@127.0.0.1:9/none")
    done = subprocess.run([sys.executable, "-m", "bot.cli", "console"], input="", capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    assert "Hunter2Secret" not in done.stdout + done.stderr
    assert done.stderr.count("\n") == 1


# --- what the Telegram error handler logs ---------------------------------------------------------------------


async def test_a_failed_update_is_logged_by_update_and_chat_id_not_by_name_or_text(
        tmp_path: Path, sqlite_template: Path, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from tests.test_telegram_e2e import HANDLED, running_bot

    path = tmp_path / "bot.db"
    shutil.copyfile(sqlite_template, path)
    HANDLED.clear()
    async with FakeBotAPI() as api, running_bot(api, f"sqlite+aiosqlite:///{path}") as service:
        async def broken(*args: object, **kwargs: object) -> None:
            raise RuntimeError("the store fell over")

        monkeypatch.setattr(service.starts, "new_game", broken)
        zelda = api.user("Zelda", last_name="Secretname", username="zelda_secret")
        chat = api.private_chat(zelda)
        with caplog.at_level(logging.ERROR):
            handle = api.send_text(zelda, chat, "/tripeaks TP1-E-AAAAAAB my private words")
            await api.wait_until(lambda: handle.update_id in HANDLED, what="the failed update")
            apology = await handle.reply(timeout=10)
    assert apology.text  # the player still hears something
    (record,) = [r for r in caplog.records if r.getMessage().startswith("error handling update")]
    logged = record.getMessage() + logging.Formatter().formatException(record.exc_info)  # type: ignore[arg-type]
    assert record.getMessage() == f"error handling update {handle.update_id} in chat {chat.id}"
    assert "the store fell over" in logged
    for private in ("Zelda", "Secretname", "zelda_secret", "my private words"):
        assert private not in logged


# --- credentials in any URL form, SQL parameters, the libraries' DEBUG logs, names ----------------------------------


@pytest.mark.parametrize("url", [
    "postgresql+asyncpg://bot@db:5432/x?password=Hunter2Secret",
    "postgresql://bot@db/x?sslmode=require&sslpassword=Hunter2Secret",
    "postgresql://bot:Hunter2Secret@db/x?PWD=Hunter2Secret&passwd=Hunter2Secret",
    "postgresql://bot:Hunt@r2Secret@db/x",
    "postgresql://bot@db/x?token=Hunter2Secret;sslmode=disable",
    "host=db user=bot password=Hunter2Secret dbname=x",
])
def test_every_credential_of_a_database_url_is_redacted(url: str) -> None:
    from bot.config import redact_url

    for cleaned in (redact(url), redact_url(url), redact(f"cannot open {url}: refused"), repr(Config(database_url=url))):
        assert "Hunter2Secret" not in cleaned and "Hunt@r2Secret" not in cleaned and "r2Secret" not in cleaned, cleaned
    assert "@db" in redact(url) or "host=db" in redact(url)  # where it points stays readable


def test_a_password_in_the_query_is_never_shown_by_the_bot_at_any_level(tmp_path: Path) -> None:
    """The INFO line naming the database and the warning that it cannot be reached (the bot waits for it), at
    LOG_LEVEL=DEBUG."""
    url = "postgresql+asyncpg://nobody@127.0.0.1:9/none?password=Hunter2Secret"
    env = clean_env(tmp_path, DATABASE_URL=url, LOG_LEVEL="DEBUG",
                    TELEGRAM_TOKEN="7000000005:AAQueryPasswordTestTokenNotUsed00000",
                    TELEGRAM_API_URL="http://127.0.0.1:9/bot")
    process = subprocess.Popen([sys.executable, "-m", "bot.cli", "run"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env)
    assert process.stderr is not None
    said = []
    try:
        while not said or "database: try 1 failed" not in said[-1]:  # the warning, then the first retry's line
            said.append(process.stderr.readline())
            assert said[-1], "the bot ended: " + "".join(said)
        process.send_signal(signal.SIGTERM)
        out, rest = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    err = "".join(said) + rest
    assert process.returncode == 143, err
    assert "Hunter2Secret" not in out + err
    assert "nobody@127.0.0.1:9/none?password=***" in err  # the INFO line, redacted
    warning = next(json.loads(line) for line in err.splitlines() if '"WARNING"' in line)
    assert warning["message"].startswith("the database postgresql+asyncpg://nobody@127.0.0.1:9/none?password=*** "
                                         "cannot be reached (")


async def test_a_failing_statement_never_shows_its_parameters(database: object) -> None:
    """A statement that fails carries its SQL in the error (and so in the traceback logged), never the values:
    they hold players' names."""
    from sqlalchemy import text

    from bot.store.engine import Database, DatabaseError

    assert isinstance(database, Database)
    with pytest.raises(DatabaseError) as raised:
        async with database.transaction() as tx:
            await tx.execute(text("INSERT INTO no_such_table (name) VALUES (:name)"), {"name": "Zelda Secretname"})
    assert "no_such_table" in str(raised.value)
    assert "Zelda Secretname" not in str(raised.value)


def test_at_debug_the_chat_libraries_log_no_update(monkeypatch: pytest.MonkeyPatch) -> None:
    """python-telegram-bot logs every update it receives at DEBUG, discord.py every gateway event, SQLAlchemy every
    result row: with LOG_LEVEL=DEBUG the bot's own records come through, theirs only from INFO up."""
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    touched = ("telegram", "discord", "httpx", "httpcore", "sqlalchemy", "asyncpg", "aiosqlite")
    for name in touched:
        monkeypatch.setattr(logging.getLogger(name), "level", logging.getLogger(name).level)
    stream = io.StringIO()
    logs.configure_logging(Config(log_level="DEBUG", log_level_set=True), stream)
    update = "{'message': {'from': {'first_name': 'Zelda'}, 'text': 'my private words'}}"
    logging.getLogger("telegram.ext.Updater").debug("Got update %s", update)
    logging.getLogger("telegram.Bot").debug("Call to Bot API endpoint `getUpdates` finished with return value %s",
                                            update)
    logging.getLogger("discord.gateway").debug("For Shard ID None: WebSocket Event: %s", update)
    logging.getLogger("sqlalchemy.engine.Engine").debug("Row ('Zelda', 'my private words')")
    logging.getLogger("tripeaks").debug("update 42 in chat 7: a tap")
    logging.getLogger("telegram.ext.Application").info("Application started")
    logged = stream.getvalue()
    assert "Zelda" not in logged and "my private words" not in logged, logged
    assert "update 42 in chat 7: a tap" in logged and "Application started" in logged


def test_env_example_says_what_debug_logs() -> None:
    text = (REPO / ".env.example").read_text()
    assert "LOG_LEVEL=DEBUG" in text and "never a token, a password, a name or a message's text" in text


@pytest.mark.parametrize("name", ["Ann\x00Lee", "Ann\nLee\x1b[2J", "\u202eeeL nnA", "x" * 300, "Ann\ud800Lee"])
async def test_a_name_with_control_characters_is_cleaned_and_every_command_works(
        service: object, name: str) -> None:
    """A display name holding a NUL byte (which PostgreSQL refuses), a newline, an escape, a bidi override or a
    lone surrogate: every command still works and the stored name is clean and bounded."""
    from bot.app.assembly import App
    from bot.app.commands import Move
    from bot.app.model import NAME_MAX, PlayerKey
    from core.game import Draw

    assert isinstance(service, App)
    player = PlayerKey("telegram", "77")
    started = await service.starts.new_game(player, name)
    moved = await act(service, player, name, Move(started.game_id, started.version, Draw()))
    await set_settings(service, player, name=name, explain_refusals=False)
    assert moved.game.moves == 1
    stored = moved.owner_name
    assert stored and len(stored) <= NAME_MAX
    assert not any(ch in stored for ch in "\x00\n\x1b\u202e\ud800"), repr(stored)
