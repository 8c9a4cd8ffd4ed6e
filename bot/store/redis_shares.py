"""Players' shares and kept answers in Redis (``REDIS_URL``), for a deployment whose processes should not pay a
database statement for them: the same buckets as bot/store/shares.py (one script refills, takes one if there is
one, and says whether it did: atomic in Redis) and the same answers as bot/store/answers.py. Every key expires:
a bucket once it would be full again (a newcomer's), an answer after the seconds it is kept for. Any failure of
Redis is :class:`RedisDown` (the caller falls back to the database)."""

from __future__ import annotations

import math
from typing import Any

import redis.asyncio as redis
from redis.exceptions import RedisError

#: Every key the bot writes starts with this, so that one Redis may serve other things too.
PREFIX = "tripeaks:"
#: Seconds to connect and to answer, at most: a Redis that does not answer in time is down.
TIMEOUT = 2.0

_TAKE = """
local burst, refill, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(held[1]) or burst
local at = tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) / refill)
now = math.max(now, at)
local taken = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return {taken, tostring(tokens)}
"""


class RedisDown(Exception):  # noqa: N818 - an outcome named as the operator reads it
    """Redis could not be reached, or failed to answer."""


class RedisStore:
    """The shares and answers in the Redis of ``client``, under keys starting with ``prefix``."""

    def __init__(self, client: redis.Redis, prefix: str = PREFIX) -> None:
        self.client = client
        self.prefix = prefix
        self._take: Any = client.register_script(_TAKE)

    @classmethod
    async def connect(cls, url: str, prefix: str = PREFIX) -> RedisStore:
        """Connect to the Redis at ``url`` and check it answers (:class:`RedisDown` otherwise)."""
        try:
            client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=TIMEOUT,
                                          socket_connect_timeout=TIMEOUT)
        except ValueError as malformed:
            raise RedisDown(f"REDIS_URL is malformed: {malformed}") from None
        store = cls(client, prefix)
        try:
            await client.ping()
        except RedisError as error:
            await client.aclose()
            raise RedisDown(str(error)) from None
        return store

    async def close(self) -> None:
        await self.client.aclose()

    async def take(self, platform: str, user_id: str, kind: str, *, burst: int, refill_seconds: float,
                   now: float) -> float:
        """Take one of the player's ``kind`` tokens: 0 when one was there, else the seconds until one will be."""
        full_after_ms = math.ceil(burst * refill_seconds * 1000) + 1000
        try:
            taken, tokens = await self._take(keys=[self._share_key(platform, user_id, kind)],
                                             args=[burst, refill_seconds, now, full_after_ms])
        except RedisError as error:
            raise RedisDown(str(error)) from error
        return 0.0 if int(taken) else (1 - float(tokens)) * refill_seconds

    async def give_back(self, platform: str, user_id: str, kind: str) -> None:
        """The player's ``kind`` bucket full again (a hold released): no key is a full bucket."""
        try:
            await self.client.delete(self._share_key(platform, user_id, kind))
        except RedisError as error:
            raise RedisDown(str(error)) from error

    async def answer(self, key: str) -> str | None:
        """The answer kept under ``key``, unless it expired."""
        try:
            found = await self.client.get(self.prefix + "answer:" + key)
        except RedisError as error:
            raise RedisDown(str(error)) from error
        return None if found is None else str(found)  # decode_responses: always text

    async def keep(self, key: str, text: str, seconds: float) -> None:
        """Keep ``text`` under ``key`` for ``seconds``."""
        try:
            await self.client.set(self.prefix + "answer:" + key, text, px=max(1, math.ceil(seconds * 1000)))
        except RedisError as error:
            raise RedisDown(str(error)) from error

    def _share_key(self, platform: str, user_id: str, kind: str) -> str:
        return f"{self.prefix}share:{platform}:{user_id}:{kind}"
