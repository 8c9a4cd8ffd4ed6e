"""Who is at the table: a Telegram Mini App's ``initData`` checked as Telegram specifies, and the table's own signed
tokens (a Discord "Open the table" link, the console's link, a session).

- ``initData`` (:func:`telegram_user`): ``hash`` must be the hex HMAC-SHA256 of the data-check-string (every other
  field ``key=value``, sorted by key, joined by newlines) under the key HMAC-SHA256("WebAppData", bot token), and
  ``auth_date`` at most :data:`INIT_DATA_MAX_AGE` old.
- A token (:class:`Signer`): ``<payload>.<signature>``, the payload the base64url JSON of who, until when and for
  what (``kind``: a link or a session), the signature the HMAC-SHA256 of the payload under the server's secret. A
  token names one user; a changed byte, another kind or a past expiry is refused.

Every refusal is :class:`Unauthorised` (the server answers 401 and changes nothing).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl

from bot.app.effects import PlayerKey

#: How old a Mini App's ``initData`` may be (seconds): a day, as Telegram's documentation suggests.
INIT_DATA_MAX_AGE = 86_400
#: How long an "Open the table" link works (seconds).
LINK_LIFETIME = 15 * 60
#: How long a session at the table lasts (seconds) before the page must be opened again.
SESSION_LIFETIME = 12 * 3600

Clock = Callable[[], float]


class Unauthorised(Exception):  # noqa: N818 - an outcome named as the server answers it
    """The request does not say who sends it, or says it falsely: 401."""


@dataclass(frozen=True)
class WebUser:
    """A player at the table: their key, the name to store, and their language as the platform says."""

    player: PlayerKey
    name: str
    locale: str | None = None


def telegram_user(init_data: str, bot_token: str, *, now: float | None = None,
                  max_age: int = INIT_DATA_MAX_AGE) -> WebUser:
    """The Telegram user a Mini App's ``initData`` names, once checked; :class:`Unauthorised` otherwise."""
    fields = dict(parse_qsl(init_data, keep_blank_values=True))
    received = fields.pop("hash", "")
    if not received or not hmac.compare_digest(_init_data_hash(fields, bot_token), received):
        raise Unauthorised("initData is not signed by the bot")
    try:
        age = (time.time() if now is None else now) - int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError):
        raise Unauthorised("initData names no user") from None
    if not -60 <= age <= max_age:  # a minute of clock difference allowed
        raise Unauthorised("initData is too old, or from the future")
    name = " ".join(str(user.get(part) or "") for part in ("first_name", "last_name")).strip()
    return WebUser(PlayerKey("telegram", str(user_id)), name or str(user.get("username") or ""),
                   user.get("language_code"))


def sign_init_data(fields: dict[str, str], bot_token: str) -> str:
    """``fields`` as a Mini App's ``initData``, signed with ``bot_token`` as Telegram signs it (for tests and the
    benchmark, which play Telegram's part)."""
    from urllib.parse import urlencode

    return urlencode({**fields, "hash": _init_data_hash(fields, bot_token)})


def _init_data_hash(fields: dict[str, str], bot_token: str) -> str:
    """The hex HMAC-SHA256 of the data-check-string (``key=value`` sorted by key, one a line) under the key
    HMAC-SHA256("WebAppData", bot token)."""
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    return hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Signer:
    """Signs and reads the table's tokens with ``secret``; ``clock`` gives the time (tests move it)."""

    def __init__(self, secret: bytes, clock: Clock = time.time) -> None:
        self._secret = secret
        self._clock = clock

    def sign(self, user: WebUser, kind: str, lifetime: int) -> str:
        """A token of ``kind`` (``link``, ``session``) for ``user``, good for ``lifetime`` seconds."""
        payload = _b64(json.dumps({"k": kind, "p": user.player.platform, "u": user.player.user_id,
                                   "n": user.name, "l": user.locale, "e": int(self._clock()) + lifetime},
                                  separators=(",", ":")).encode())
        return f"{payload}.{self._signature(payload)}"

    def read(self, token: str, kind: str) -> WebUser:
        """The user a token of ``kind`` names; :class:`Unauthorised` for a forged, altered, other or expired one."""
        payload, _, signature = token.partition(".")
        if not signature or not hmac.compare_digest(self._signature(payload), signature):
            raise Unauthorised("the token is not ours")
        try:
            fields = json.loads(_unb64(payload))
            user = WebUser(PlayerKey(str(fields["p"]), str(fields["u"])), str(fields["n"]), fields["l"])
            expires, token_kind = int(fields["e"]), fields["k"]
        except (KeyError, ValueError, TypeError, binascii.Error):
            raise Unauthorised("the token is malformed") from None
        if token_kind != kind:
            raise Unauthorised(f"not a {kind} token")
        if expires < self._clock():
            raise Unauthorised("the token has expired")
        return user

    def _signature(self, payload: str) -> str:
        return _b64(hmac.new(self._secret, payload.encode(), hashlib.sha256).digest())


def derived_secret(*parts: str | None) -> bytes:
    """A signing secret every process of one deployment shares without being told one: derived from its settings'
    secrets (WEB_SECRET, else the bot tokens); None of them set (the console): a random one for this process."""
    given = [part for part in parts if part]
    if not given:
        import secrets

        return secrets.token_bytes(32)
    return hmac.new(b"tripeaks web table", "\n".join(given).encode(), hashlib.sha256).digest()
