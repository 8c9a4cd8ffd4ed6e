"""Settings from the environment (and `.env`). A wrong value is a :class:`ConfigError` with one clear line."""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from bot.i18n import SUPPORTED_LOCALES

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///data/tripeaks.db"
_DISCORD_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
_TELEGRAM_TOKEN_RE = re.compile(r"^\d{3,}:[A-Za-z0-9_-]{30,}$")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names the variable and what is expected."""


@dataclass(frozen=True)
class Config:
    discord_token: str | None = None
    telegram_token: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    default_locale: str = "en"
    daily_post_time: dt.time = dt.time(9, 0)
    log_level: str = "INFO"
    telegram_api_url: str = "https://api.telegram.org/bot"
    telegram_webhook_url: str | None = None
    telegram_webhook_secret: str | None = None
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int = 8443
    discord_shard_count: int | None = None
    discord_shard_ids: tuple[int, ...] | None = None

    def __repr__(self) -> str:  # never show a token, not even in a traceback or a log line
        return (f"Config(discord={'set' if self.discord_token else 'unset'}, "
                f"telegram={'set' if self.telegram_token else 'unset'}, database_url={redact_url(self.database_url)!r})")


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    return re.sub(r"(//[^:/@]+:)[^@]*@", r"\1***@", url)


def _get(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Read the settings; raise :class:`ConfigError` naming the first bad one."""
    env = os.environ if env is None else env
    discord_token = _get(env, "DISCORD_TOKEN")
    if discord_token and not _DISCORD_TOKEN_RE.match(discord_token):
        raise ConfigError("DISCORD_TOKEN is malformed: expected the bot token from the Discord developer portal "
                          "(three dot-separated parts)")
    telegram_token = _get(env, "TELEGRAM_TOKEN")
    if telegram_token and not _TELEGRAM_TOKEN_RE.match(telegram_token):
        raise ConfigError("TELEGRAM_TOKEN is malformed: expected the token from @BotFather, like 123456:ABC-DEF...")
    database_url = _get(env, "DATABASE_URL") or DEFAULT_DATABASE_URL
    if not re.match(r"^(sqlite(\+aiosqlite)?|postgres(ql)?(\+asyncpg)?)://", database_url):
        raise ConfigError(f"DATABASE_URL is not supported: {redact_url(database_url)!r}: use "
                          "sqlite+aiosqlite:///path/to/file.db or postgresql+asyncpg://user@host/db")
    locale = (_get(env, "DEFAULT_LOCALE") or "en").lower()
    if locale not in SUPPORTED_LOCALES:
        raise ConfigError(f"DEFAULT_LOCALE must be one of {', '.join(SUPPORTED_LOCALES)}, not {locale!r}")
    post_time_text = _get(env, "DAILY_POST_TIME") or "09:00"
    try:
        post_time = dt.time.fromisoformat(post_time_text)
    except ValueError:
        raise ConfigError(f"DAILY_POST_TIME must be HH:MM in UTC, not {post_time_text!r}") from None
    log_level = (_get(env, "LOG_LEVEL") or "INFO").upper()
    if log_level not in _LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(_LOG_LEVELS)}, not {log_level!r}")
    api_url = _get(env, "TELEGRAM_API_URL") or Config.telegram_api_url
    if not re.match(r"^https?://", api_url):
        raise ConfigError(f"TELEGRAM_API_URL must be an http(s) URL, not {api_url!r}")
    webhook_url = _get(env, "TELEGRAM_WEBHOOK_URL")
    webhook_secret = _get(env, "TELEGRAM_WEBHOOK_SECRET")
    if webhook_url and not webhook_secret:
        raise ConfigError("TELEGRAM_WEBHOOK_SECRET is required with TELEGRAM_WEBHOOK_URL "
                          "(1-256 characters A-Z a-z 0-9 _ -)")
    if webhook_secret and not re.match(r"^[A-Za-z0-9_-]{1,256}$", webhook_secret):
        raise ConfigError("TELEGRAM_WEBHOOK_SECRET must be 1-256 characters A-Z a-z 0-9 _ -")
    port = _int(env, "TELEGRAM_WEBHOOK_PORT", 8443, 1, 65535)
    shard_count = _int(env, "DISCORD_SHARD_COUNT", None, 1, 10000)
    shard_ids_text = _get(env, "DISCORD_SHARD_IDS")
    shard_ids = None
    if shard_ids_text:
        try:
            shard_ids = tuple(int(part) for part in shard_ids_text.split(","))
        except ValueError:
            raise ConfigError(f"DISCORD_SHARD_IDS must be comma-separated numbers, not {shard_ids_text!r}") from None
        if shard_count is None or any(not 0 <= i < shard_count for i in shard_ids):
            raise ConfigError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT, and each id below it")
    return Config(
        discord_token=discord_token, telegram_token=telegram_token, database_url=database_url,
        default_locale=locale, daily_post_time=post_time, log_level=log_level, telegram_api_url=api_url,
        telegram_webhook_url=webhook_url, telegram_webhook_secret=webhook_secret,
        telegram_webhook_listen=_get(env, "TELEGRAM_WEBHOOK_LISTEN") or "0.0.0.0",
        telegram_webhook_port=port if port is not None else 8443,
        discord_shard_count=shard_count, discord_shard_ids=shard_ids,
    )


def _int(env: Mapping[str, str], name: str, default: int | None, low: int, high: int) -> int | None:
    text = _get(env, name)
    if text is None:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, not {text!r}")
    return int(text)
