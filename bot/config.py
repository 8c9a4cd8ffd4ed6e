"""Settings from the environment (and `.env`). A wrong value is a :class:`ConfigError` with one clear line.

This module is also the one place that knows the secrets (the tokens, the webhook secret, database passwords):
:func:`redact` takes them out of any text, and every log line and error message goes through it.

Where the SQLite file is: a relative path in ``DATABASE_URL`` (the default is ``data/tripeaks.db``) is relative to
``TRIPEAKS_HOME`` when set, else to the folder of the ``.env`` file in use (found in the current directory or the
nearest folder above it: the project folder for ``make run``), else to the current directory. So the bot finds the
same games whichever folder it is started from.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from bot.i18n import SUPPORTED_LOCALES, supported_locale

if TYPE_CHECKING:  # every tripeaks command reads the settings: the engine's types only when owners are named
    from bot.app.model import PlayerKey

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///data/tripeaks.db"
#: The folder relative SQLite paths are resolved against (see the module docstring).
HOME_VARIABLE = "TRIPEAKS_HOME"
_DISCORD_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
_TELEGRAM_TOKEN_RE = re.compile(r"^\d{3,}:[A-Za-z0-9_-]{30,}$")
_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
#: The most solver workers of each kind the settings may ask for.
MAX_SOLVER_WORKERS = 256


class ConfigError(ValueError):
    """A setting is missing or malformed; the message names the variable and what is expected."""


class TokenRejected(ConfigError):  # noqa: N818 - an outcome named as the operator reads it
    """A well-formed token that the platform refused at start-up (revoked, or another bot's): one line, exit 2."""


class PortTaken(Exception):
    """A port the bot is set to listen on is taken by another program: one line naming the port and its setting,
    and exit status 1 (a service manager tries again: the program holding it may be the bot's previous run)."""


class Unreachable(Exception):  # noqa: N818 - an outcome named as the operator reads it
    """A chat platform or a database server that cannot be reached at start-up (the network not up yet, the server
    down): tried again."""


# --- redaction ---------------------------------------------------------------------------------------------------

#: Shapes of secrets redacted wherever they appear, known or not: Telegram bot tokens (``123456:AA...``), Discord
#: bot tokens (three dot-separated base64 parts), and the password of any URL (``scheme://user:PASSWORD@host``).
_SECRET_PATTERNS = (
    re.compile(r"(?<!\d)\d{3,}:[A-Za-z0-9_-]{30,}"),  # also inside URLs: .../bot123456:AA.../getMe
    re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}"),
)
#: A URL's userinfo password: ``scheme://user:PASSWORD@host`` (up to the last ``@`` before the host, so a password
#: holding an ``@`` goes too).
_URL_PASSWORD = re.compile(r"(//[^:/@\s]*:)\S*@(?=[^@/\s]*(?:[/?#\s]|$))")
#: A credential given as a query parameter (``?password=...``, ``&sslpassword=...``, ``?token=...``) or a libpq
#: keyword (``host=db password=...``).
_QUERY_SECRET = re.compile(
    r"((?<![\w-])(?:ssl)?(?:password|passwd|pass|pwd|passphrase|token|access_token|auth_token|secret|api_?key)=)"
    r"[^&;#\s'\"]*", re.IGNORECASE)
_known_secrets: set[str] = set()
REDACTED = "***"


def register_secret(*secrets: str | None) -> None:
    """Redact these values from now on (each at least 4 characters: shorter ones would blank out ordinary text)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            _known_secrets.add(secret)
            if ":" in secret and secret.split(":", 1)[1]:  # a Telegram token's secret half on its own
                _known_secrets.add(secret.split(":", 1)[1])


def redact(text: str) -> str:
    """``text`` with every registered secret and every token- or password-shaped part replaced by ``***``. The one
    redaction every log line, traceback and error message of the bot goes through."""
    for secret in sorted(_known_secrets, key=len, reverse=True):
        if secret in text:
            text = text.replace(secret, REDACTED)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return redact_url(text)


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
    #: Whether LOG_LEVEL was set: the console game logs only warnings unless it was.
    log_level_set: bool = False
    #: HEARTBEAT_FILE: where the running bot writes its heartbeat for ``tripeaks health`` (None: nowhere).
    heartbeat_file: Path | None = None
    #: The table in the browser (:mod:`bot.adapters.web`): served on WEB_HOST:WEB_PORT, reached by players at
    #: PUBLIC_URL (None: no table button in the chats); WEB_SECRET signs its links (else derived from the tokens);
    #: TELEGRAM_MINI_APP: the Mini App's short name (BotFather /newapp), for the table's link in groups.
    web_host: str = "127.0.0.1"
    web_port: int = 8080
    web_port_set: bool = False
    public_url: str | None = None
    web_secret: str | None = None
    telegram_mini_app: str | None = None
    #: The Discord Activity: the application's OAuth2 client (its id, its secret), and Discord's API (tests answer it)
    discord_client_id: str | None = None
    discord_client_secret: str | None = None
    discord_api_url: str = "https://discord.com/api/v10"
    #: SOLVER_WORKERS, SOLVER_BACKGROUND_WORKERS: the solver's worker processes for what players wait on (hints,
    #: reviews) and for background verdicts (defaults: :func:`default_solver_workers`)
    solver_workers: int = 1
    solver_background_workers: int = 1
    #: OWNER_IDS: the deployment's owners, who may use the owner commands (``/owner``): platform-qualified ids
    owner_ids: frozenset[PlayerKey] = frozenset()
    #: REDIS_URL: where every process of a deployment holds the players' shares and the answers kept (None: in the
    #: database; a Redis that cannot be reached at start is a warning, and the database holds them)
    redis_url: str | None = None

    def __repr__(self) -> str:  # never show a token, not even in a traceback or a log line
        return (f"Config(discord={'set' if self.discord_token else 'unset'}, "
                f"telegram={'set' if self.telegram_token else 'unset'}, database_url={redact_url(self.database_url)!r})")


def redact_url(url: str) -> str:
    """``url`` (or any text holding URLs) with every credential replaced by ``***``: the userinfo's password and
    the values of query parameters such as ``password``, ``sslpassword`` or ``token``.

    >>> redact_url("postgresql://bot:pa55@db/x?sslmode=require&password=Sh0rt&sslpassword=k3y")
    'postgresql://bot:***@db/x?sslmode=require&password=***&sslpassword=***'
    """
    url = _URL_PASSWORD.sub(rf"\1{REDACTED}@", url)
    return _QUERY_SECRET.sub(rf"\1{REDACTED}", url)


def _url_passwords(url: str) -> list[str]:
    """The credentials written in ``url`` (see :func:`redact_url`), percent-decoded as well as raw."""
    from urllib.parse import unquote

    found = [match.group(0)[len(match.group(1)):-1] for match in _URL_PASSWORD.finditer(url)]
    found += [match.group(0)[len(match.group(1)):] for match in _QUERY_SECRET.finditer(url)]
    return [form for secret in found for form in {secret, unquote(secret)}]


def resolve_sqlite_path(url: str, base: Path) -> str:
    """``url`` with a relative SQLite file path made absolute against ``base``; other URLs unchanged.

    >>> resolve_sqlite_path("sqlite+aiosqlite:///data/tripeaks.db", Path("/srv/bot"))
    'sqlite+aiosqlite:////srv/bot/data/tripeaks.db'
    >>> resolve_sqlite_path("sqlite+aiosqlite:////var/games.db", Path("/srv/bot"))
    'sqlite+aiosqlite:////var/games.db'
    """
    match = re.match(r"^(sqlite(?:\+aiosqlite)?:///)(.*)$", url)
    if match is None:
        return url
    path, _, query = match.group(2).partition("?")
    if not path or path == ":memory:" or path.startswith(("/", "file:")):
        return url
    return f"{match.group(1)}{base / path}" + (f"?{query}" if query else "")


def load_dotenv_file() -> Path | None:
    """Load the ``.env`` of the current directory or the nearest folder above it (the real environment wins over
    it); returns its path, or None when there is none."""
    from dotenv import find_dotenv, load_dotenv

    found = find_dotenv(usecwd=True)
    if not found:
        return None
    load_dotenv(found, override=False)
    return Path(found).resolve()


def home_folder(env: Mapping[str, str], dotenv_path: Path | None) -> Path:
    """The folder relative SQLite paths are resolved against: ``TRIPEAKS_HOME``, else the folder of the ``.env``
    file in use, else the current directory."""
    home = _get(env, HOME_VARIABLE)
    if home:
        return Path(home).expanduser().resolve()
    if dotenv_path is not None:
        return dotenv_path.parent
    return Path.cwd()


def _get(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def start_warnings(config: Config) -> list[str]:
    """Settings that are valid alone but do nothing together, said once at start."""
    warnings = []
    if config.discord_client_id and config.public_url is None:
        warnings.append("DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET are set but PUBLIC_URL is not: the Discord "
                        "Activity is served from PUBLIC_URL, so it stays off until PUBLIC_URL is set")
    return warnings


def load_config(env: Mapping[str, str] | None = None, *, dotenv_path: Path | None = None) -> Config:
    """Read the settings; raise :class:`ConfigError` naming the first bad one. Every secret read is registered for
    :func:`redact`. ``dotenv_path`` is the ``.env`` file loaded, if any (see :func:`home_folder`)."""
    env = os.environ if env is None else env
    register_secret(_get(env, "DISCORD_TOKEN"), _get(env, "TELEGRAM_TOKEN"), _get(env, "TELEGRAM_WEBHOOK_SECRET"),
                    _get(env, "WEB_SECRET"), _get(env, "DISCORD_CLIENT_SECRET"))
    register_secret(*_url_passwords(_get(env, "DATABASE_URL") or ""))
    register_secret(*_url_passwords(_get(env, "REDIS_URL") or ""))
    discord_token = _get(env, "DISCORD_TOKEN")
    if discord_token and not _DISCORD_TOKEN_RE.match(discord_token):
        raise ConfigError("DISCORD_TOKEN is malformed: expected the bot token from the Discord developer portal "
                          "(three dot-separated parts)")
    telegram_token = _get(env, "TELEGRAM_TOKEN")
    if telegram_token and not _TELEGRAM_TOKEN_RE.match(telegram_token):
        raise ConfigError("TELEGRAM_TOKEN is malformed: expected the token from @BotFather, like 123456:ABC-DEF...")
    database_url = _get(env, "DATABASE_URL") or DEFAULT_DATABASE_URL
    if "://" not in database_url:  # a SQLite file's path (data/tripeaks.db), as the README's way back suggests
        database_url = f"sqlite+aiosqlite:///{database_url}"
    if not re.match(r"^(sqlite(\+aiosqlite)?|postgres(ql)?(\+asyncpg)?)://", database_url):
        raise ConfigError(f"DATABASE_URL is not supported: {redact_url(database_url)!r}: use "
                          "sqlite+aiosqlite:///path/to/file.db or postgresql+asyncpg://user@host/db")
    database_url = resolve_sqlite_path(database_url, home_folder(env, dotenv_path))
    locale_text = _get(env, "DEFAULT_LOCALE") or "en"
    locale = supported_locale(locale_text)
    if locale is None:
        raise ConfigError(f"DEFAULT_LOCALE must be one of {', '.join(SUPPORTED_LOCALES)}, not {locale_text!r}")
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
    public_url = _get(env, "PUBLIC_URL")
    if public_url and not re.match(r"^https?://[^/?#\s]+(/[^?#\s]*)?$", public_url):
        raise ConfigError(f"PUBLIC_URL must be the http(s) address players reach the table at, not {public_url!r}")
    mini_app = _get(env, "TELEGRAM_MINI_APP")
    if mini_app and not re.match(r"^[A-Za-z0-9_]{3,30}$", mini_app):
        raise ConfigError("TELEGRAM_MINI_APP must be the Mini App's short name from @BotFather (3-30 A-Z a-z 0-9 _)")
    web_secret = _get(env, "WEB_SECRET")
    if web_secret and len(web_secret) < 16:
        raise ConfigError("WEB_SECRET must be at least 16 characters")
    web_port = _int(env, "WEB_PORT", 8080, 1, 65535)
    client_id, client_secret = _get(env, "DISCORD_CLIENT_ID"), _get(env, "DISCORD_CLIENT_SECRET")
    if client_id and not client_id.isdigit():
        raise ConfigError("DISCORD_CLIENT_ID must be the application's id from the Discord developer portal (digits)")
    if bool(client_id) != bool(client_secret):
        raise ConfigError("DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET go together (OAuth2 for the Discord Activity)")
    discord_api = (_get(env, "DISCORD_API_URL") or Config.discord_api_url).rstrip("/")
    if not re.match(r"^https?://", discord_api):
        raise ConfigError(f"DISCORD_API_URL must be an http(s) URL, not {discord_api!r}")
    redis_url = _get(env, "REDIS_URL")
    if redis_url and not _redis_url_ok(redis_url):
        raise ConfigError(f"REDIS_URL is malformed: {redact_url(redis_url)!r}: use redis://host:6379/0 "
                          "(rediss:// for TLS, unix:///path/to/redis.sock)")
    interactive, background = default_solver_workers(machine_cores())
    return Config(
        owner_ids=owner_ids(_get(env, "OWNER_IDS") or ""),
        discord_token=discord_token, telegram_token=telegram_token, database_url=database_url,
        default_locale=locale, daily_post_time=post_time, log_level=log_level, telegram_api_url=api_url,
        telegram_webhook_url=webhook_url, telegram_webhook_secret=webhook_secret,
        telegram_webhook_listen=_get(env, "TELEGRAM_WEBHOOK_LISTEN") or "0.0.0.0",
        telegram_webhook_port=port if port is not None else 8443,
        discord_shard_count=shard_count, discord_shard_ids=shard_ids, log_level_set=_get(env, "LOG_LEVEL") is not None,
        heartbeat_file=_heartbeat_file(env, dotenv_path),
        web_host=_get(env, "WEB_HOST") or "127.0.0.1", web_port=web_port if web_port is not None else 8080,
        web_port_set=_get(env, "WEB_PORT") is not None, public_url=public_url.rstrip("/") if public_url else None,
        web_secret=web_secret, telegram_mini_app=mini_app, discord_client_id=client_id,
        discord_client_secret=client_secret, discord_api_url=discord_api,
        solver_workers=_int(env, "SOLVER_WORKERS", interactive, 1, MAX_SOLVER_WORKERS) or interactive,
        solver_background_workers=_int(env, "SOLVER_BACKGROUND_WORKERS", background, 1, MAX_SOLVER_WORKERS)
        or background,
        redis_url=redis_url or None,
    )


def owner_ids(text: str) -> frozenset[PlayerKey]:
    """OWNER_IDS read: comma-separated ``platform:id`` (``telegram:123,discord:456``); :class:`ConfigError` for one
    that is not.

    >>> sorted(key.user_id for key in owner_ids(" telegram:123, discord:456 "))
    ['123', '456']
    """
    from bot.app.model import account_key

    owners = set()
    for part in filter(None, (part.strip() for part in text.split(","))):
        key = account_key(part)
        if key is None:
            raise ConfigError(f"OWNER_IDS must be comma-separated platform:id (telegram:123,discord:456), not {part!r}")
        owners.add(key)
    return frozenset(owners)


def _redis_url_ok(url: str) -> bool:
    """Whether ``url`` reads as a Redis address: redis:// or rediss:// with a host, a port if any and a database
    number if any, or unix:// with a path."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        return False
    if parts.scheme == "unix":
        return bool(parts.path)
    database = parts.path.lstrip("/")
    return parts.scheme in ("redis", "rediss") and bool(parts.hostname) and (not database or database.isdigit())


def machine_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_solver_workers(cores: int) -> tuple[int, int]:
    """The solver's workers on a machine with ``cores`` cores, for what players wait on and for the background: one
    core kept for the bot itself, the rest for players; the background gets a third of those, at least one.

    >>> default_solver_workers(1), default_solver_workers(2), default_solver_workers(8)
    ((1, 1), (1, 1), (7, 2))
    """
    return max(1, cores - 1), max(1, (cores - 1) // 3)


def _heartbeat_file(env: Mapping[str, str], dotenv_path: Path | None) -> Path | None:
    """HEARTBEAT_FILE, a relative path relative to the same folder as a relative SQLite path."""
    text = _get(env, "HEARTBEAT_FILE")
    return None if text is None else home_folder(env, dotenv_path) / Path(text).expanduser()


def _int(env: Mapping[str, str], name: str, default: int | None, low: int, high: int) -> int | None:
    text = _get(env, name)
    if text is None:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise ConfigError(f"{name} must be a whole number from {low} to {high}, not {text!r}")
    return int(text)


def solver_forced_pure(env: Mapping[str, str] | None = None) -> bool:
    """``TRIPEAKS_SOLVER=pure``: run the pure-Python solver even where its native kernel is built."""
    return ((os.environ if env is None else env).get("TRIPEAKS_SOLVER") or "").strip().lower() == "pure"


def terminal_colour(out: TextIO, env: Mapping[str, str] | None = None) -> bool:
    """Whether the console may print in colour to ``out``: a terminal, without ``NO_COLOR`` set or ``TERM=dumb``."""
    env = os.environ if env is None else env
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False
