"""The deployment's owner (OWNER_IDS): the bot-wide figures, a maintenance notice every player is shown, and the
accounts blocked (their commands refused, nothing stored from them). All of it in the database, so every process
answers the same; each process trusts what it last read of the blocks and the notice for :data:`FRESH` seconds, so a
block made in another process (or at the shell: ``tripeaks owner``) holds everywhere within that time, and at once in
the process that made it."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import assert_never

from bot.app.commands import OwnerBlock, OwnerCommand, OwnerHelp, OwnerNotice, OwnerStats
from bot.app.daily import Clock, today
from bot.app.errors import BadOwnerCommand
from bot.app.model import PlayerKey, account_key
from bot.store import owner as stored
from bot.store.engine import Database
from bot.store.schema import utcnow

#: How long (seconds) a process trusts its last read of the blocked accounts and the notice.
FRESH = 5.0
#: The longest notice: a few lines on a phone's board, in any language's framing.
NOTICE_MAX = 120
#: How the owner commands are written.
OWNER_USAGE = "stats | notice <text> | notice off | block <platform:id> | unblock <platform:id>"
#: How the owner writes an account to block.
ACCOUNT_USAGE = "platform:id (telegram:123, discord:456)"


@dataclass(frozen=True)
class OwnerFigures:
    """The bot-wide figures: players, games (today by UTC, ever), games won, daily attempts today, live rounds
    running, outbox rows not yet delivered, accounts blocked; the notice shown now."""

    players: int
    games_today: int
    games_total: int
    wins: int
    dailies_today: int
    live_rounds: int
    outbox_backlog: int
    blocked: int
    notice: str | None


@dataclass(frozen=True)
class NoticeSet:
    """The notice players are shown from now on (None: none)."""

    text: str | None


@dataclass(frozen=True)
class BlockChanged:
    """``account`` blocked (``on``) or unblocked; ``changed``: it was not so already."""

    account: PlayerKey
    on: bool
    changed: bool


#: What an owner command answers.
OwnerResult = OwnerFigures | NoticeSet | BlockChanged


def notice_text(text: str) -> str:
    """The notice as it is kept: one line, without control or format characters; :class:`BadOwnerCommand` when empty or past
    :data:`NOTICE_MAX`."""
    cleaned = " ".join("".join(ch for ch in text if not unicodedata.category(ch).startswith("C")).split())
    if not cleaned or len(cleaned) > NOTICE_MAX:
        raise BadOwnerCommand(f"notice <text of 1-{NOTICE_MAX} characters> | notice off")
    return cleaned


class Owners:
    """The owners ``owner_ids`` of the deployment over ``db``; ``clock`` says the day, ``monotonic`` how old a read
    is."""

    def __init__(self, db: Database, owner_ids: frozenset[PlayerKey], clock: Clock,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self.db = db
        self.owner_ids = owner_ids
        self.clock = clock
        self.monotonic = monotonic
        self._blocked: frozenset[tuple[str, str]] = frozenset()
        self._notice: str | None = None
        self._read_at: float | None = None

    def is_owner(self, player: PlayerKey) -> bool:
        return player in self.owner_ids

    async def blocked(self, player: PlayerKey) -> bool:
        """Whether ``player``'s account is blocked (as this process read it at most :data:`FRESH` seconds ago)."""
        await self._fresh()
        return (player.platform, player.user_id) in self._blocked

    async def notice(self) -> str | None:
        """The owner's notice players are shown now, or None."""
        await self._fresh()
        return self._notice

    async def answer(self, command: OwnerCommand) -> OwnerResult:
        """What ``command`` does (the caller has checked it comes from an owner)."""
        match command:
            case OwnerStats():
                return await self.figures()
            case OwnerNotice(text):
                return await self.set_notice(text)
            case OwnerBlock(account, on):
                key = account_key(account)
                if key is None:
                    raise BadOwnerCommand(f"{'block' if on else 'unblock'} {ACCOUNT_USAGE}")
                return await self.block(key, on)
            case OwnerHelp():
                raise BadOwnerCommand(OWNER_USAGE)
            case unhandled:
                assert_never(unhandled)

    async def figures(self) -> OwnerFigures:
        async with self.db.reading() as tx:
            counts = await stored.counts(tx, today(self.clock()))
            notice = await stored.notice(tx)
        return OwnerFigures(**counts, notice=notice)

    async def set_notice(self, text: str | None) -> NoticeSet:
        kept = None if text is None else notice_text(text)
        async with self.db.transaction() as tx:
            await stored.set_notice(tx, kept)
        self._read_at = None  # this process shows it at once
        return NoticeSet(kept)

    async def block(self, account: PlayerKey, on: bool) -> BlockChanged:
        async with self.db.transaction() as tx:
            if on:
                changed = await stored.block(tx, account.platform, account.user_id, utcnow())
            else:
                changed = await stored.unblock(tx, account.platform, account.user_id)
        self._read_at = None
        return BlockChanged(account, on, changed)

    async def _fresh(self) -> None:
        now = self.monotonic()
        if self._read_at is not None and now - self._read_at < FRESH:
            return
        async with self.db.reading() as tx:
            self._blocked = await stored.blocked(tx)
            self._notice = await stored.notice(tx)
        self._read_at = now
