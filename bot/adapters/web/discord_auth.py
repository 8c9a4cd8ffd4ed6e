"""Who opened the table as a Discord Activity: the OAuth2 code the Embedded App SDK's ``authorize`` gave the page,
exchanged on the server with the application's client secret (``POST {api}/oauth2/token``), then the user it names
(``GET {api}/users/@me``); and whether they are in the Activity instance the page names
(``GET {api}/applications/{id}/activity-instances/{instance}``, with the bot's token). The API's address is a
setting, so tests answer it locally."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import aiohttp

from bot.adapters.web.auth import Unauthorised, WebUser
from bot.app.effects import PlayerKey

#: How long Discord's API may take to answer (seconds).
API_TIMEOUT = 10.0
#: What an OAuth2 code can look like (Discord's are 30 letters and digits): anything else is not forwarded.
CODE_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Codes forwarded to Discord at once at most, and then a second: sign-ins are anonymous, so a flood of forged codes
#: must not become a flood of calls on the application's behalf (Discord would limit or ban it).
SIGN_IN_BURST = 20
SIGN_IN_RATE = 5.0
#: What an Activity instance's id can look like (Discord's are like ``i-1234567890123456789-gc-...``).
INSTANCE_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,48}")


class SignIns:
    """The allowance of codes this process forwards to Discord: :data:`SIGN_IN_BURST` at once, refilled at
    :data:`SIGN_IN_RATE` a second (``clock``: seconds, monotonic)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._left = float(SIGN_IN_BURST)
        self._at = clock()

    def take(self, code: str) -> bool:
        """Whether ``code`` may be forwarded now: it has a code's shape and the allowance has room."""
        now = self._clock()
        self._left = min(float(SIGN_IN_BURST), self._left + (now - self._at) * SIGN_IN_RATE)
        self._at = now
        if not CODE_SHAPE.fullmatch(code) or self._left < 1:
            return False
        self._left -= 1
        return True


@dataclass(frozen=True)
class DiscordOAuth:
    """The application's OAuth2 client on Discord's API at ``api_url``."""

    client_id: str
    client_secret: str
    api_url: str

    async def user(self, code: str) -> tuple[WebUser, str]:
        """The Discord user who authorised the Activity with ``code``, and the access token the page hands to the
        SDK's ``authenticate``; :class:`Unauthorised` when Discord refuses the code."""
        form = {"client_id": self.client_id, "client_secret": self.client_secret,
                "grant_type": "authorization_code", "code": code}
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=API_TIMEOUT)) as session:
                async with session.post(f"{self.api_url}/oauth2/token", data=form) as response:
                    token = (await response.json()).get("access_token") if response.status == 200 else None
                if not isinstance(token, str) or not token:
                    raise Unauthorised("Discord refused the code")
                async with session.get(f"{self.api_url}/users/@me",
                                       headers={"Authorization": f"Bearer {token}"}) as response:
                    me = await response.json() if response.status == 200 else {}
        except (aiohttp.ClientError, TimeoutError, ValueError):
            raise Unauthorised("Discord could not be asked") from None
        if not str(me.get("id", "")).isdigit():
            raise Unauthorised("Discord named no user")
        name = str(me.get("global_name") or me.get("username") or "")
        return WebUser(PlayerKey("discord", str(me["id"])), name, me.get("locale")), token


class InstanceCheck(Protocol):
    """Whether a Discord user is in an Activity instance now."""

    async def __call__(self, instance_id: str, user_id: str) -> bool: ...


@dataclass(frozen=True)
class ActivityInstances:
    """The application's Activity instances on Discord's API at ``api_url``, asked with the bot's token."""

    application_id: str
    bot_token: str
    api_url: str

    async def __call__(self, instance_id: str, user_id: str) -> bool:
        """Whether Discord lists ``user_id`` among the users of the instance ``instance_id`` (False for an instance
        it does not know, or an answer it could not give)."""
        if not INSTANCE_SHAPE.fullmatch(instance_id):
            return False
        url = f"{self.api_url}/applications/{self.application_id}/activity-instances/{instance_id}"
        try:
            async with (aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=API_TIMEOUT)) as session,
                        session.get(url, headers={"Authorization": f"Bot {self.bot_token}"}) as response):
                instance = await response.json() if response.status == 200 else {}
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return False
        users = instance.get("users") if isinstance(instance, dict) else None
        return isinstance(users, list) and user_id in map(str, users)
