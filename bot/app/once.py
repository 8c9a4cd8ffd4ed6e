"""What must happen once happens once in the database: a Share or Review tapped twice (in any process) acts once,
New game tapped twice on one board asks once, Yes after No under the same question does nothing. (A challenger is told once through the outbox,
:func:`bot.app.outbox.ask_tell`, under the same ``told`` mark.)"""

from __future__ import annotations

from bot.app.errors import TappedTwice
from bot.store import once as marks
from bot.store.engine import Database
from bot.store.schema import utcnow


class OnceOnly:
    """The marks of ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def claim_share(self, game_id: int, within: float) -> bool:
        """Whether this Share of ``game_id`` is to post: not when one did within ``within`` seconds."""
        return await self._claim(game_id, marks.SHARE, within)

    async def share(self, game_id: int, within: float) -> None:
        """This Share of ``game_id`` is to post; :class:`TappedTwice` when one did within ``within`` seconds."""
        if not await self.claim_share(game_id, within):
            raise TappedTwice(TappedTwice.SHARED)

    async def claim_review(self, game_id: int, within: float) -> bool:
        """Whether this Review of ``game_id`` is to answer: not when one did within ``within`` seconds."""
        return await self._claim(game_id, marks.REVIEW, within)

    async def review_closed(self, game_id: int) -> None:
        """The review of ``game_id`` is no longer shown (Back on the board's message): Review may answer again."""
        async with self.db.transaction() as tx:
            await marks.forget(tx, game_id, marks.REVIEW)

    async def asked(self, game_id: int, version: int, within: float | None) -> bool:
        """The player is asked about abandoning ``game_id`` at ``version``; False when they were asked at that
        version within ``within`` seconds (a double tap: ask once). An earlier No no longer holds."""
        async with self.db.transaction() as tx:
            if not await marks.claim(tx, game_id, marks.ASK, utcnow().timestamp(), within, version=version):
                return False
            await marks.forget(tx, game_id, marks.KEPT)
        return True

    async def keep(self, game_id: int) -> None:
        """No under the question about ``game_id``: Yes under it does nothing from now on, and New game on its board
        asks again at once."""
        async with self.db.transaction() as tx:
            await marks.claim(tx, game_id, marks.KEPT, utcnow().timestamp(), None)
            await marks.forget(tx, game_id, marks.ASK)

    async def was_kept(self, game_id: int) -> bool:
        """Whether the player answered No to the question about ``game_id`` since it was last asked."""
        async with self.db.reading() as tx:
            return await marks.marked(tx, game_id, marks.KEPT)

    async def _claim(self, game_id: int, kind: str, within: float) -> bool:
        async with self.db.transaction() as tx:
            return await marks.claim(tx, game_id, kind, utcnow().timestamp(), within)
