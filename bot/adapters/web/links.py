"""The table's links for a chat platform to hand out: signed by the secret every process of one deployment shares,
without the web server (a Discord process signs a link another process may serve)."""

from __future__ import annotations

from bot.adapters.web.auth import LINK_LIFETIME, Signer, WebUser, derived_secret
from bot.app.effects import PlayerKey
from bot.config import Config


def table_signer(config: Config) -> Signer:
    """The signer every process of the deployment shares: WEB_SECRET alone when set (processes that differ in
    tokens, as a second Discord shard without the Telegram token, share it too); else derived from the bot
    tokens."""
    if config.web_secret:
        return Signer(derived_secret(config.web_secret))
    return Signer(derived_secret(config.telegram_token, config.discord_token))


def table_link(config: Config, player: PlayerKey, name: str, locale: str | None) -> str:
    """An "Open the board" link at PUBLIC_URL for ``player`` alone, good for
    :data:`~bot.adapters.web.auth.LINK_LIFETIME` seconds."""
    assert config.public_url is not None
    token = table_signer(config).sign(WebUser(player, name, locale), "link", LINK_LIFETIME)
    return f"{config.public_url}/#token={token}"
