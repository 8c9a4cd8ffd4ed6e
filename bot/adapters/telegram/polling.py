"""The bot's last getUpdates on stopping, made quick.

On stopping, PTB's Updater cancels the long poll in flight and calls getUpdates once more with the same offset and
no timeout, so that the updates it fetched are confirmed. Telegram holds a getUpdates repeated within 3 s with the
same offset (telegram-bot-api's ``process_get_updates_query``), and was seen holding it past PTB's 5-s read timeout
(a player's report: a stop of 5.3 s, and PTB's ERROR line). That call confirms nothing new when the long poll that
was cancelled carried the same offset and had been sent long enough ago to have reached Telegram (the offset of a
getUpdates confirms the updates before it as soon as Telegram receives it), so it is skipped then. Otherwise it is
made with a short read timeout (half a second), and its timing out (or another network error) is logged as
information, not as an error: the updates of the last batch may then be handed over again at the next start.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Sequence

from telegram import Update
from telegram._utils.defaultvalue import DEFAULT_NONE
from telegram._utils.types import JSONDict, ODVInput, TimePeriod
from telegram.error import NetworkError
from telegram.ext import ExtBot
from telegram.request import BaseRequest

log = logging.getLogger(__name__)

#: A long poll open this long has reached Telegram, which then took its offset as confirmation.
REACHED_AFTER = 1.0
#: The read timeout of the last getUpdates, when it is made: Telegram answers it at once unless it holds it.
LAST_POLL_READ_TIMEOUT = 0.5


def _seconds(timeout: TimePeriod | None) -> float:
    return timeout.total_seconds() if isinstance(timeout, dt.timedelta) else float(timeout or 0)


class PollingBot(ExtBot[None]):
    """The application's bot: PTB's own, with a last getUpdates on stopping that does not make the stop wait."""

    __slots__ = ("_long_poll",)

    def __init__(self, token: str, base_url: str, base_file_url: str, request: BaseRequest,
                 get_updates_request: BaseRequest) -> None:
        super().__init__(token, base_url=base_url, base_file_url=base_file_url, request=request,
                         get_updates_request=get_updates_request)
        self._long_poll: tuple[int | None, float] | None = None  # the latest long poll's offset and when it was sent

    async def get_updates(
        self,
        offset: int | None = None,
        limit: int | None = None,
        timeout: TimePeriod | None = None,
        allowed_updates: Sequence[str] | None = None,
        *,
        read_timeout: ODVInput[float] = DEFAULT_NONE,
        write_timeout: ODVInput[float] = DEFAULT_NONE,
        connect_timeout: ODVInput[float] = DEFAULT_NONE,
        pool_timeout: ODVInput[float] = DEFAULT_NONE,
        api_kwargs: JSONDict | None = None,
    ) -> tuple[Update, ...]:
        now = asyncio.get_running_loop().time()
        if _seconds(timeout) > 0:
            self._long_poll = (offset, now)
        elif self._long_poll is not None and self._long_poll[0] == offset and now - self._long_poll[1] >= REACHED_AFTER:
            log.debug("the long poll cancelled had confirmed the updates up to %s", offset)
            return ()
        else:
            read_timeout = LAST_POLL_READ_TIMEOUT
        try:
            return await super().get_updates(
                offset=offset, limit=limit, timeout=timeout, allowed_updates=allowed_updates,
                read_timeout=read_timeout, write_timeout=write_timeout, connect_timeout=connect_timeout,
                pool_timeout=pool_timeout, api_kwargs=api_kwargs)
        except NetworkError as error:  # TimedOut among them
            if _seconds(timeout) > 0:
                raise  # a long poll that failed is tried again by the Updater
            log.info("the last getUpdates failed (%s); the updates up to %s may come again at the next start",
                     error.message, offset)
            return ()
