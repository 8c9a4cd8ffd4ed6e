"""A console game in a pseudo-terminal, as a person runs it: the pty is its controlling terminal and its
foreground process group, so Ctrl-C (the byte ``\\x03`` typed) is turned into SIGINT by the terminal for the
whole group, solver workers included, exactly as in tmux or a terminal window."""

from __future__ import annotations

import asyncio
import fcntl
import os
import signal
import struct
import subprocess
import sys
import termios
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The console's prompt on a terminal: printed when it waits for a line, so a test knows it is ready.
PROMPT = "\n> "


def seed_game(tmp_path: Path, user: str, code: str) -> None:
    """The console player ``user`` has the deal ``code`` in progress in ``tmp_path/games.db``: the console opens on
    it."""
    from bot.app.assembly import App
    from bot.app.commands import DealByCode
    from bot.app.model import PlayerKey
    from bot.store.database import open_database

    async def seed() -> None:
        db = await open_database(f"sqlite+aiosqlite:///{tmp_path / 'games.db'}")
        with ThreadPoolExecutor(1) as threads:  # no worker process of the test's own
            async with App(db, owns_database=True, executor=threads) as service:
                await service.starts.start(PlayerKey("console", user), user, DealByCode(code))

    asyncio.run(seed())


def _make_controlling_terminal() -> None:  # pragma: no cover - runs in the child, after setsid
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """``tripeaks ARGS`` (or ``command``, run in ``cwd``) on a pty of ``columns`` x ``rows``; everything it prints
    is kept in :attr:`screen`."""

    def __init__(self, tmp_path: Path, *args: str, columns: int = 80, rows: int = 40,
                 env: dict[str, str] | None = None, command: list[str] | None = None,
                 cwd: Path | None = None) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "LOG_LEVEL", "COLUMNS", "LINES"))}
        base |= {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'games.db'}", "PYTHONPATH": str(REPO),
                 "TERM": "xterm", "NO_COLOR": "1", "XDG_STATE_HOME": str(tmp_path / "state")}
        self.process = subprocess.Popen(command or [sys.executable, "-m", "bot.cli", *args], cwd=cwd or tmp_path,
                                        env=base | (env or {}),
                                        stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                                        preexec_fn=_make_controlling_terminal)
        os.close(slave)
        self.master = master
        self._output = bytearray()
        self._changed = threading.Condition()
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: every process holding the terminal has ended
                chunk = b""
            with self._changed:
                if not chunk:
                    self._closed = True
                    self._changed.notify_all()
                    return
                self._output += chunk
                self._changed.notify_all()

    @property
    def screen(self) -> str:
        """All that was printed, with the terminal's CR LF as LF."""
        with self._changed:
            return self._output.decode(errors="replace").replace("\r\n", "\n")

    def wait_for(self, text: str, count: int = 1, timeout: float = 90) -> str:
        """Wait until ``text`` has been printed ``count`` times in all (the console's readiness: its prompt)."""
        with self._changed:
            done = self._changed.wait_for(lambda: self.screen.count(text) >= count or self._closed, timeout)
        screen = self.screen
        assert done and screen.count(text) >= count, f"never printed {text!r} x{count}:\n{screen[-3000:]}"
        return screen

    def ready(self) -> str:
        """Wait for the next prompt (one more than now)."""
        return self.wait_for(PROMPT, self.screen.count(PROMPT) + 1)

    def type(self, line: str) -> str:
        """Type ``line`` and Enter; what was printed once the console waits again."""
        before = len(self.screen)
        prompts = self.screen.count(PROMPT)
        os.write(self.master, line.encode() + b"\r")
        return self.wait_for(PROMPT, prompts + 1)[before:]

    def ctrl_c(self) -> None:
        os.write(self.master, b"\x03")

    def wait(self, timeout: float = 90) -> int:
        """The exit status (128 + the signal for a process killed by one, as a shell says)."""
        try:
            status = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running after {timeout} s:\n{self.screen[-3000:]}") from None
        with self._changed:
            self._changed.wait_for(lambda: self._closed, 10)
        return 128 - status if status < 0 else status

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        os.close(self.master)
