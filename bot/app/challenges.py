"""Challenges travel by reference: a challenge names the shared game and a key, never the deal's code (a code deals
every card, and ``tripeaks solve`` would play it offline). The key is the game's number signed with the
deployment's secret (:meth:`~bot.app.daily_codes.DailyCodes.secret`), so a guessed game number starts nothing.
When a game started from a challenge ends, the challenger is told the outcome once (the mark is in the database,
whichever process ends the game)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import replace

from bot.app.daily_codes import DailyCodes
from bot.app.effects import ChallengeAnswered, Tell
from bot.app.model import GameSnapshot
from bot.app.once import OnceOnly
from bot.app.records import owner_of, snapshot_of
from bot.store import games as stored_games
from bot.store.engine import Database
from bot.store.games import GameRecord

#: Characters of a key: 80 bits of the signature, in lower-case base32 (a link's start parameter takes them).
KEY_LENGTH = 16


def challenge_key(game_id: int, secret: str) -> str:
    """The key of the challenge of ``game_id`` under the deployment's ``secret``.

    >>> challenge_key(42, "test-secret")
    'byzbw5c72yfvwb4m'
    """
    digest = hmac.new(secret.encode(), f"challenge:{game_id}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()[:KEY_LENGTH]


def key_holds(shared: GameRecord, key: str | None, secret: str) -> bool:
    """Whether ``key`` is the key of the challenge of ``shared`` under ``secret``: nothing else opens a challenge
    (a link made before challenges were signed deals its code and challenges nobody:
    :func:`bot.app.codec.start_request`)."""
    return key is not None and hmac.compare_digest(key, challenge_key(shared.id, secret))


class Challenges:
    """Signing the games a player shares, checking the challenges tapped, and telling challengers the outcome."""

    def __init__(self, db: Database, daily_codes: DailyCodes, once: OnceOnly) -> None:
        self.db = db
        self.daily_codes = daily_codes
        self.once = once

    async def signed(self, snapshot: GameSnapshot) -> GameSnapshot:
        """``snapshot`` with the key its challenge carries (a custom deal, which has no code, has none)."""
        if not snapshot.game.code:
            return snapshot
        return replace(snapshot, challenge_key=challenge_key(snapshot.game_id, await self.daily_codes.secret()))

    async def told(self, snapshot: GameSnapshot) -> list[Tell]:
        """The challenger's message when ``snapshot``, a game started from their challenge, has just ended (won or
        blocked): once, whatever process ends it (an undo out of a block and a second end tell nothing more). It
        goes to the chat of the challenger's own game of the deal, where the bot has written to them before."""
        challenge = snapshot.challenge
        if challenge is None or not snapshot.game.is_over or snapshot.outcome is None or not snapshot.outcome.ok:
            return []
        async with self.db.reading() as tx:
            shared = await stored_games.load(tx, challenge.game_id)
        if shared is None or shared.chat_id is None or owner_of(shared) == snapshot.owner \
                or not await self.once.claim_told(snapshot.game_id):
            return []  # nobody to tell, nowhere known, or the challenger's own game of their deal
        return [Tell(shared.chat_id, ChallengeAnswered(snapshot_of(shared, today=self.daily_codes.today()),
                                                       snapshot, shared.seen_locale))]
