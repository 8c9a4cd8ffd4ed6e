"""Challenges travel by reference: a challenge names the shared game and a key, never the deal's code (a code deals
every card, and ``tripeaks solve`` would play it offline). The key is the game's number signed with the
deployment's secret (:meth:`~bot.app.daily_codes.DailyCodes.secret`), so a guessed game number starts nothing.
When a game started from a challenge ends, the challenger is told the outcome once, through the outbox
(:func:`bot.app.outbox.ask_tell`, in the transaction that ends the game)."""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import replace

from bot.app.daily_codes import DailyCodes
from bot.app.model import GameSnapshot
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
    """Signing the games a player shares and checking the challenges tapped."""

    def __init__(self, db: Database, daily_codes: DailyCodes) -> None:
        self.db = db
        self.daily_codes = daily_codes

    async def signed(self, snapshot: GameSnapshot) -> GameSnapshot:
        """``snapshot`` with the key its challenge carries (a custom deal, which has no code, has none)."""
        if not snapshot.game.code:
            return snapshot
        return replace(snapshot, challenge_key=challenge_key(snapshot.game_id, await self.daily_codes.secret()))
