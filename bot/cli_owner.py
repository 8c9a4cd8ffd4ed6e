"""``tripeaks owner``: the deployment owner's commands at the shell, on the configured database (the same the
running bot reads, so every process sees a change within :data:`bot.app.owner.FRESH` seconds): ``stats [--json]``,
``notice TEXT...``, ``notice off``, ``block PLATFORM:ID``, ``unblock PLATFORM:ID``."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.cli_deals import UsageError
from bot.config import Config

if TYPE_CHECKING:  # every tripeaks command imports this module: the commands only when the owner's are run
    from bot.app.commands import OwnerCommand


def add_owner_parser(sub: Any, handler: Callable[[argparse.Namespace], int]) -> None:
    """The ``owner`` command and its words, run by ``handler``."""
    owner = sub.add_parser("owner", help="the owner's commands: bot-wide stats, a notice to players, blocking an "
                                         "account")
    owner.add_argument("action", choices=["stats", "notice", "block", "unblock"])
    owner.add_argument("words", nargs="*", metavar="TEXT|off|PLATFORM:ID",
                       help="notice: its text (up to 120 characters), or off; block, unblock: the account, such as "
                            "telegram:123 or discord:456")
    owner.add_argument("--json", action="store_true", help="stats: as JSON")
    owner.set_defaults(handler=handler)


def owner_command(action: str, words: list[str]) -> OwnerCommand:
    """The typed owner command the words ask for; :class:`UsageError` when they do not.

    >>> owner_command("notice", ["off"]), owner_command("block", ["telegram:1"])
    (OwnerNotice(text=None), OwnerBlock(account='telegram:1', on=True))
    """
    from bot.app.commands import OwnerBlock, OwnerNotice, OwnerStats

    if action == "stats" and not words:
        return OwnerStats()
    if action == "notice" and words:
        return OwnerNotice(None if words == ["off"] else " ".join(words))
    if action in ("block", "unblock") and len(words) == 1:
        return OwnerBlock(words[0], action == "block")
    raise UsageError("owner: stats | notice TEXT... | notice off | block PLATFORM:ID | unblock PLATFORM:ID")


async def run_owner(args: argparse.Namespace, config: Config) -> int:
    """``tripeaks owner ...`` on the configured database (upgraded first, as every start of the bot does)."""
    from bot.app.daily import utc_clock
    from bot.app.errors import BadOwnerCommand
    from bot.app.owner import OwnerFigures, Owners
    from bot.render.owner import owner_text
    from bot.store.database import open_database

    command = owner_command(args.action, args.words)
    db = await open_database(config.database_url)
    try:
        result = await Owners(db, config.owner_ids, utc_clock).answer(command)
    except BadOwnerCommand as error:
        raise UsageError(f"owner {args.action}: write it as {error.usage}") from None
    finally:
        await db.close()
    if args.json and isinstance(result, OwnerFigures):
        print(json.dumps(dataclasses.asdict(result)))
    else:
        print(owner_text(result, config.default_locale))
    return 0
