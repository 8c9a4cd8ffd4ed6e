"""Who opened the table as a Discord Activity: the OAuth2 code the Embedded App SDK's ``authorize`` gave the page,
exchanged on the server with the application's client secret (``POST {api}/oauth2/token``), then the user it names
(``GET {api}/users/@me``). The API's address is a setting, so tests answer it locally."""

from __future__ import annotations

from dataclasses import dataclass

import aiohttp

from bot.adapters.web.auth import Unauthorised, WebUser
from bot.app.effects import PlayerKey

#: How long Discord's API may take to answer (seconds).
API_TIMEOUT = 10.0


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
