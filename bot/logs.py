"""The process's logs, redacted: one JSON object a line on stderr for the bot; plain lines, warnings only unless
``LOG_LEVEL`` says otherwise, for the console game: on stderr when it is not a terminal, else in a file
(:func:`console_log_path`), so that none lands between the lines of the board. Every line, exception text and
traceback included, goes through :func:`bot.config.redact`; the chat and database libraries are held at
:data:`LIBRARY_FLOORS`, and an error that keeps coming logs its traceback once a :data:`TRACEBACK_REPEAT_WINDOW`.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from bot.config import Config, redact

log = logging.getLogger("tripeaks")

class _JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message (and the exception, if any), all redacted."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(record.getMessage()),
        }
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exception"] = redact(record.exc_text)
        if record.stack_info:
            entry["stack"] = redact(self.formatStack(record.stack_info))
        return json.dumps(entry, ensure_ascii=False)


class _TextFormatter(logging.Formatter):
    """``tripeaks: LEVEL logger: message`` for the console game; the exception follows, redacted."""

    def __init__(self) -> None:
        super().__init__("tripeaks: %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _Redact(logging.Filter):
    """Redacts a record in place before any handler or formatter sees it (the message, its arguments and the
    formatted exception), so that even a handler added later by a library prints no secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


#: How long the traceback of an error already logged is left out when the same error comes again (seconds).
TRACEBACK_REPEAT_WINDOW = 600.0


class _RepeatedTraceback(logging.Filter):
    """Logs the traceback of an error once a :data:`TRACEBACK_REPEAT_WINDOW`: the same error again (its type, its
    first line and where it was raised), tap after tap on a broken database say, keeps its log line, with the
    error's one-line summary instead of the same 8 KB traceback."""

    def __init__(self) -> None:
        super().__init__()
        self._shown: dict[tuple[str, str, str], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is None:
            return True
        key = _error_key(error)
        last = self._shown.get(key)
        if last is not None and record.created - last < TRACEBACK_REPEAT_WINDOW:
            record.msg = f"{record.getMessage()} ({key[0]}: {key[1]}, as before: traceback not repeated)"
            record.args, record.exc_info, record.exc_text = None, None, None
            return True
        if len(self._shown) >= 1000:
            self._shown.clear()
        self._shown[key] = record.created
        return True


def _error_key(error: BaseException) -> tuple[str, str, str]:
    """An error's type, first line and the place it was raised: what makes two errors "the same"."""
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    where = f"{frame.tb_frame.f_code.co_filename}:{frame.tb_lineno}" if frame is not None else ""
    first = (str(error).strip().splitlines() or [""])[0]
    return type(error).__name__, first, where


#: The least a library's logger logs, whatever ``LOG_LEVEL`` says: below these levels the chat libraries log whole
#: updates and requests (players' names and messages' text), SQLAlchemy statements and result rows, httpx every request
#: URL (Telegram's hold the token) and aiosqlite every call. ``LOG_LEVEL=DEBUG`` is the bot's own details.
LIBRARY_FLOORS = {
    "telegram": logging.INFO,
    "discord": logging.INFO,
    "httpx": logging.WARNING,
    "httpcore": logging.INFO,
    "aiohttp": logging.INFO,
    "websockets": logging.INFO,
    "sqlalchemy": logging.WARNING,
    "asyncpg": logging.INFO,
    "aiosqlite": logging.INFO,
}


def quiet_libraries(level: int) -> None:
    """Cap the libraries' loggers at :data:`LIBRARY_FLOORS` (or ``level``, if higher)."""
    for name, floor in LIBRARY_FLOORS.items():
        logging.getLogger(name).setLevel(max(floor, level))


def console_log_path() -> Path:
    """Where the console game logs when it plays on a terminal: ``$XDG_STATE_HOME/tripeaks/console.log``
    (``~/.local/state/tripeaks/console.log`` by default)."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(state) / "tripeaks" / "console.log"


def _console_handler(stream: TextIO) -> logging.Handler:
    """The console game's log: on a terminal, which shows the game, a file (:func:`console_log_path`), so that no
    warning (a slow solver, say) lands in the middle of the board; else ``stream`` (a script's stderr)."""
    try:
        on_terminal = stream.isatty()
    except (AttributeError, ValueError):
        on_terminal = False
    if on_terminal:
        path = console_log_path()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return logging.FileHandler(path, encoding="utf-8", delay=True)
        except OSError:  # nowhere to write it: the terminal it is
            pass
    return logging.StreamHandler(stream)


def configure_logging(config: Config, stream: TextIO = sys.stderr, *, console: bool = False) -> None:
    """Send every log record to ``stream``, redacted: JSON lines for the bot, or plain lines for the console game
    (at WARNING unless ``LOG_LEVEL`` is set; to :func:`console_log_path` when ``stream`` is a terminal)."""
    handler = _console_handler(stream) if console else logging.StreamHandler(stream)
    handler.setFormatter(_TextFormatter() if console else _JsonFormatter())
    handler.addFilter(_RepeatedTraceback())
    handler.addFilter(_Redact())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(config.log_level if config.log_level_set or not console else logging.WARNING)
    quiet_libraries(root.level)
    if console and root.level > logging.DEBUG:  # the migrations' chatter would land above the board
        logging.getLogger("alembic").setLevel(logging.WARNING)


def logs_json() -> bool:
    """Whether the bot's JSON log handler is installed (``tripeaks run`` with a token)."""
    return any(isinstance(handler.formatter, _JsonFormatter) for handler in logging.getLogger().handlers)


def report_unexpected(error: BaseException, stream: TextIO | None = None) -> None:
    """An exception nobody expected, at the top of ``tripeaks``: one line, redacted. Under ``tripeaks run`` it is
    one JSON log line holding the traceback; elsewhere one plain line (the traceback with ``LOG_LEVEL=DEBUG``)."""
    summary = redact(f"{type(error).__name__}: {error}".strip().splitlines()[0])
    if logs_json():
        log.critical("unexpected error: %s", summary, exc_info=error)
        return
    print(f"tripeaks: unexpected error: {summary}", file=stream or sys.stderr, flush=True)
    if log.isEnabledFor(logging.DEBUG):
        log.debug("the traceback", exc_info=error)
