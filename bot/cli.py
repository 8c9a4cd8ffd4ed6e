"""The ``tripeaks`` command line: play or check a deal without a chat, run the bot, manage the database.

Every mistake in the input (a malformed code, card or action, a bad setting) is one line on stderr and exit
status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, NoReturn

from bot.cli_db import add_copy_options, copy_deployment, db_backup, db_restore, existing_sqlite_file
from bot.cli_deals import (
    UsageError,
    cmd_advise,
    cmd_deal,
    cmd_hint,
    cmd_play,
    cmd_review,
    cmd_show,
    cmd_solve,
)
from bot.cli_owner import add_owner_parser, run_owner
from bot.config import (
    Config,
    ConfigError,
    PortTaken,
    load_config,
    load_dotenv_file,
    redact,
    redact_url,
    solver_forced_pure,
)
from bot.i18n import SUPPORTED_LOCALES
from core.solver import solver_description, use_pure_solver

EXIT_USAGE = 2
#: Standard output was closed by its reader (``tripeaks play ... | head -3``): 128 + SIGPIPE, as a shell reports it.
EXIT_BROKEN_PIPE = 141


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _load_config() -> Config:
    dotenv_path = load_dotenv_file()  # the real environment wins over .env
    try:
        return load_config(dotenv_path=dotenv_path)
    except ConfigError as error:
        raise UsageError(str(error)) from None


def _run_async(work: Coroutine[Any, Any, int], url: str) -> int:
    """Run ``work``; a database that cannot be opened is a one-line error, not a traceback."""
    import asyncio

    from bot.store.engine import DatabaseError
    from bot.store.migrate import NewerDatabase
    from bot.store.probe import DatabaseUnusable

    try:
        return asyncio.run(work)
    except KeyboardInterrupt:  # before or after the stop signals were handled by the loop
        return 130
    except BrokenPipeError:
        raise
    except (DatabaseUnusable, NewerDatabase) as error:  # damaged, read-only, or newer than this code: one line,
        raise UsageError(str(error)) from None  # and an exit status the service manager does not restart
    except (OSError, DatabaseError) as error:
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise UsageError(f"cannot open the database {redact_url(url)}: {reason}") from None


def cmd_run(args: argparse.Namespace) -> int:
    from bot.logs import configure_logging
    from bot.runner import run_bot

    config = _load_config()
    configure_logging(config)
    return _run_async(run_bot(config), config.database_url)


def cmd_console(args: argparse.Namespace) -> int:
    from bot.adapters.stdin import is_terminal
    from bot.i18n import SUPPORTED_LOCALES, supported_locale
    from bot.logs import configure_logging
    from bot.runner import run_console_session

    config = _load_config()
    lang = None if args.lang is None else supported_locale(args.lang)
    if args.lang is not None and lang is None:
        raise UsageError(f"--lang must be one of {', '.join(SUPPORTED_LOCALES)}, not {args.lang!r}")
    configure_logging(config, console=True)
    url = _console_database_url(args.database_url) if args.database_url else config.database_url
    # the table in the browser too, with its link, as the console game without tokens has it
    table = config if config.web_port_set or is_terminal(sys.stdin) else None
    return _run_async(run_console_session(url, locale=config.default_locale, lang=lang, user=args.user,
                                          table=table), url)


def _console_database_url(given: str) -> str:
    """``console --database-url``: a database URL, or a SQLite file's path; a relative path (in a URL too) is
    relative to the current directory, as a path typed on a command line is."""
    from bot.config import resolve_sqlite_path

    if "://" not in given:
        return f"sqlite+aiosqlite:///{Path(given).expanduser().absolute()}"
    return resolve_sqlite_path(given, Path.cwd())


def cmd_db(args: argparse.Namespace) -> int:
    if args.action == "copy":
        return _db_copy(args)
    if args.to is not None:
        raise UsageError(f"db {args.action} takes no --to")
    if args.action in ("backup", "restore"):
        if args.revision is None:
            raise UsageError(f"db {args.action} needs a FILE")
        url = _load_config().database_url
        return db_backup(url, args.revision) if args.action == "backup" else db_restore(url, args.revision)
    if args.action == "downgrade":
        if args.revision is None:
            raise UsageError("db downgrade needs a target: -1 (one step), a revision, or base --yes (drops every "
                             "table and all the games)")
        if args.revision == "base" and not args.yes:
            raise UsageError("db downgrade base drops every table and all the games: add --yes if you mean it")
    elif args.revision is not None and args.action != "upgrade":
        raise UsageError(f"db {args.action} takes no revision")
    url = _load_config().database_url
    if args.action != "upgrade":
        existing_sqlite_file(url)  # reading or undoing creates no database
    # Alembic only now: a mistake on the command line is told at once
    from bot.store.migrate import (
        DowngradeDrops,
        MigrationError,
        current_revision,
        downgrade_database,
        in_use,
        upgrade_database,
    )

    async def main() -> int:
        dropped: list[str] = []
        if args.action == "downgrade" and await in_use(url):
            raise UsageError("db downgrade: the database is in use (is the bot or a console game running? stop it "
                             "first, then start the version of the bot that matches): nothing was changed")
        try:
            if args.action == "upgrade":
                await upgrade_database(url, args.revision or "head")
            elif args.action == "downgrade":
                dropped = await downgrade_database(url, args.revision, allow_drops=args.yes)
        except DowngradeDrops as refused:  # columns or tables with their values: only with the operator's yes
            raise UsageError(f"db downgrade {args.revision}: {refused}: add --yes if you mean it") from None
        except MigrationError as error:  # an unknown revision, or a move that is not possible from here
            raise UsageError(f"db {args.action} {args.revision or 'head'}: {error}") from None
        if dropped:
            print(f"dropped {', '.join(dropped)}")
        at = await current_revision(url)
        print(f"database at revision {at}" if at is not None else
              "database at base: no tables of the bot (`tripeaks db upgrade` makes them)")
        return 0

    return _run_async(main(), url)


def _db_copy(args: argparse.Namespace) -> int:
    if args.to is None or args.revision is not None:
        raise UsageError("db copy needs --to URL (the new database: a URL, or a SQLite file's path) and nothing "
                         "else")
    source = _load_config().database_url
    path = existing_sqlite_file(source)
    if path is not None:
        from bot.store.backup import in_use

        if in_use(path):  # a copy while games are played would miss their last moves, as restore is refused
            raise UsageError(f"db copy: the database {path} is in use (is the bot or a console game running? stop "
                             "it first): nothing was copied")
    return _run_async(copy_deployment(source, _console_database_url(args.to)), source)


def cmd_health(args: argparse.Namespace) -> int:
    """``tripeaks health``: whether the bot running with the same settings is up (its ``GET /readyz`` where it serves
    the web port, else its heartbeat, see :mod:`bot.heartbeat`), exit status 0 when it is, 1 when it is not; then
    which solver this installation runs."""
    from bot.heartbeat import check_health, check_ready

    config = _load_config()
    if config.public_url or config.web_port_set:  # the bot answers GET /readyz on its web port
        host = "127.0.0.1" if config.web_host in ("", "0.0.0.0", "::") else config.web_host
        health = check_ready(f"http://{'[' + host + ']' if ':' in host else host}:{config.web_port}/readyz")
    elif config.heartbeat_file is None:  # not up as far as anyone can tell: 1, as the README says (never 2)
        print("tripeaks: HEARTBEAT_FILE is not set, so the bot writes no heartbeat to check (see .env.example), "
              "and no WEB_PORT for GET /readyz", file=sys.stderr)
        return 1
    else:
        health = check_health(config.heartbeat_file)
    print(health.message)
    print(f"solver: {solver_description()}")
    return 0 if health.healthy else 1


def cmd_daily(args: argparse.Namespace) -> int:
    """The daily deal's code: it depends on the deployment's secret, so it is read from the configured database
    (upgraded first, as every start of the bot does)."""
    import datetime as dt

    from bot.app.daily import daily_code, today

    if args.date is None:
        day = today()
    else:
        try:
            day = dt.date.fromisoformat(args.date)
        except ValueError:
            raise UsageError(f"not a date: {args.date!r} (expected YYYY-MM-DD)") from None
    url = _load_config().database_url
    existing_sqlite_file(url)  # another folder's database would have another secret
    from bot.store import deployment
    from bot.store.database import open_database

    async def main() -> int:
        db = await open_database(url)
        try:
            async with db.transaction() as tx:
                secret = await deployment.daily_secret(tx)
        finally:
            await db.close()
        code = daily_code(day, secret)
        if args.json:
            print(json.dumps({"date": day.isoformat(), "code": str(code)}))
        else:
            print(f"{day.isoformat()}  {code}")
        return 0

    return _run_async(main(), url)


def cmd_owner(args: argparse.Namespace) -> int:
    """``tripeaks owner ...``: the owner's commands on the configured database (:mod:`bot.cli_owner`)."""
    config = _load_config()
    existing_sqlite_file(config.database_url)  # another folder's database is not the bot's
    return _run_async(run_owner(args, config), config.database_url)


Handler = Callable[[argparse.Namespace], int]


def _position_options(command: argparse.ArgumentParser) -> None:
    """A position to work on: a code or a typed-in layout, and the actions played first (solve, advise and show)."""
    command.add_argument("code", nargs="?", help="a game code such as TP1-E-AAAAAAB")
    command.add_argument("--after", dest="actions", nargs="+", default=[], metavar="ACTION",
                         help="actions played first: slot 0-27, d (draw) or u (undo)")
    command.add_argument("--layout", help="instead of a code, 52 cards: the 28 tableau cards in slot order, the "
                                          "waste card and the 23 stock cards (next drawn first)")
    command.add_argument("--rules", choices=["easy", "classic"], help="with --layout (default easy)")


def _version_line() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("tripeaks-bot")
    except PackageNotFoundError:
        number = "(not installed)"
    return f"tripeaks {number}, solver: {solver_description()}"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tripeaks", description="TriPeaks solitaire: play, check deals, run the bot.")
    parser.add_argument("--version", action="version", version=_version_line(),
                        help="the version and which solver runs (the native kernel or the pure one)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    deal = sub.add_parser("deal", help="show the full layout of a deal")
    deal.add_argument("code", help="a game code such as TP1-E-AAAAAAB")
    deal.add_argument("--json", action="store_true", help="print JSON")
    deal.set_defaults(handler=cmd_deal)

    play = sub.add_parser("play", help="apply actions to a deal and show the result")
    play.add_argument("code", help="a game code such as TP1-E-AAAAAAB")
    play.add_argument("actions", nargs="*", help="slot 0-27, d (draw) or u (undo)")
    play.add_argument("--json", action="store_true", help="print JSON")
    play.set_defaults(handler=cmd_play)

    solve = sub.add_parser("solve", help="whether a deal (or the position after some actions) can be won, and how")
    _position_options(solve)
    solve.add_argument("--best", action="store_true", help="also the fewest draws and the best score")
    solve.add_argument("--time-budget", type=float, help="seconds; past it the answer is unknown")
    solve.add_argument("--json", action="store_true", help="print JSON")
    solve.set_defaults(handler=cmd_solve)

    hint = sub.add_parser("hint", help="the next action of a best line after some actions")
    hint.add_argument("code", help="a game code such as TP1-E-AAAAAAB")
    hint.add_argument("actions", nargs="*", help="the actions played so far: slot 0-27, d (draw) or u (undo)")
    hint.add_argument("--time-budget", type=float, default=10.0, help="seconds (default 10)")
    hint.add_argument("--json", action="store_true", help="print JSON")
    hint.set_defaults(handler=cmd_hint)

    advise = sub.add_parser("advise", help="the next action from what the player sees (not the hidden cards), "
                                           "and its chance to win")
    _position_options(advise)
    advise.add_argument("--samples", type=int, help="arrangements of the unseen cards to solve (default 64; "
                        "a close call gets as many again)")
    advise.add_argument("--seed", type=int, default=0, help="the same seed gives the same answer (default 0)")
    advise.add_argument("--time-budget", type=float,
                        help="seconds; when no arrangement is solved by then there is no advice (default: no limit)")
    advise.add_argument("--json", action="store_true", help="print JSON")
    advise.set_defaults(handler=cmd_advise)

    review = sub.add_parser("review", help="after a game: the score against the best, where it was lost, how")
    review.add_argument("code", help="a game code such as TP1-E-AAAAAAB")
    review.add_argument("actions", nargs="*", help="the actions played: slot 0-27, d (draw) or u (undo)")
    review.add_argument("--json", action="store_true", help="print JSON")
    review.set_defaults(handler=cmd_review)

    daily = sub.add_parser("daily", help="the daily deal's code for a date (UTC, default today), by the configured database's secret")
    daily.add_argument("date", nargs="?", help="YYYY-MM-DD")
    daily.add_argument("--json", action="store_true", help="print JSON")
    daily.set_defaults(handler=cmd_daily)

    show = sub.add_parser("show", help="the game message as Discord, Telegram or the console shows it, as JSON")
    _position_options(show)
    show.add_argument("moves", nargs="*", metavar="ACTION",
                      help="after the code: slot 0-27, d (draw) or u (undo); a refused one is shown refused")
    show.add_argument("--lang", default="en", help="the player's language (default en)")
    show.add_argument("--platform", choices=["discord", "telegram", "console"], default="telegram")
    show.add_argument("--board", choices=["picture", "text"], default="picture",
                      help="the player's board setting (default picture; the console is always text)")
    show.add_argument("--four-colour", action="store_true", help="the picture's four-colour deck")
    show.add_argument("--image", metavar="FILE", help="write the board's PNG there (the picture board)")
    show.add_argument("--json", action="store_true", help="print JSON (the only output there is)")
    show.set_defaults(handler=cmd_show)

    run = sub.add_parser("run", help="run the bot: Discord and Telegram, or the console without tokens")
    run.set_defaults(handler=cmd_run)

    health = sub.add_parser("health", help="whether the bot is up, from its heartbeat (HEARTBEAT_FILE): exit "
                                           "status 0 when it is, 1 when not (a health check)")
    health.set_defaults(handler=cmd_health)

    console = sub.add_parser("console", help="play in the terminal (scriptable from standard input)")
    console.add_argument("--lang", help=f"{', '.join(SUPPORTED_LOCALES)} (default: the saved one, else "
                                         "DEFAULT_LOCALE)")
    console.add_argument("--user", help="the player's name (default: your login name)")
    console.add_argument("--database-url", metavar="URL|PATH",
                         help="a database URL or a SQLite file's path (default: DATABASE_URL, else data/tripeaks.db)")
    console.set_defaults(handler=cmd_console)

    db = sub.add_parser("db", help="database migrations, backup and restore, and a copy to another database")
    db.add_argument("action", choices=["upgrade", "downgrade", "current", "backup", "restore", "copy"])
    db.add_argument("revision", nargs="?", default=None, metavar="REVISION|FILE",
                    help="upgrade: the target (default head); downgrade (required): -1, a revision, or base; "
                         "backup: the new file to write; restore: the backup to put in place of the database")
    db.add_argument("--yes", action="store_true",
                    help="confirm a downgrade that drops columns or tables with their values (base: every table)")
    add_copy_options(db)
    db.set_defaults(handler=cmd_db)

    add_owner_parser(sub, cmd_owner)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; every way out is an exit status and at most one line on stderr, redacted: 2 for bad input
    or settings (a rejected token too; no command at all prints the usage and the commands), 130/143 for Ctrl-C/SIGTERM, 141 when the reader of standard output went
    away, 1 for anything unexpected."""
    if solver_forced_pure():
        use_pure_solver("TRIPEAKS_SOLVER=pure")
    parser = build_parser()
    if not (sys.argv[1:] if argv is None else argv):  # no command at all: which there are, as a usage error
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
        handler: Handler = args.handler
        status = handler(args)
        sys.stdout.flush()  # a closed pipe shows up here, not at exit
        return status
    except (UsageError, ConfigError) as error:
        print(f"tripeaks: {redact(str(error))}", file=sys.stderr, flush=True)
        return EXIT_USAGE
    except PortTaken as error:  # the program holding it may be going: a service manager tries again
        print(f"tripeaks: {redact(str(error))}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Python would complain once more flushing stdout at exit: point it at /dev/null instead
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as error:
        from bot.logs import report_unexpected

        report_unexpected(error)
        return 1


if __name__ == "__main__":
    sys.exit(main())
