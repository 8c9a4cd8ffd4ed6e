"""Stopping the console game as a person does: Ctrl-C (SIGINT to the terminal's whole process group, solver workers
included), SIGTERM (a service manager), Ctrl-D (end of input). Real processes in a session of their own, fed by pipes
(test_console_terminal.py does it on a terminal); each stop ends the process (within a moment on a quiet machine),
prints no traceback, leaves no process of ours behind (solver workers, multiprocessing's resource tracker) and keeps
the game."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.app.assembly import App
from bot.app.model import PlayerKey
from bot.store.database import open_database
from tests.processes import descendants, in_group, still_running

REPO = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(120)


def start(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "LOG_LEVEL"))}
    env |= {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'games.db'}", "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # its own process group, as a terminal's foreground job


async def stored_moves(tmp_path: Path, user: str) -> int | None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    if not (tmp_path / "games.db").exists():
        return None
    try:
        async with App(await open_database(url, migrate=False), owns_database=True) as service:
            stored = await service.games.current_game(PlayerKey("console", user))
    except Exception:  # not migrated yet
        return None
    return None if stored is None else stored.game.moves


async def play_one_draw(tmp_path: Path, process: subprocess.Popen[bytes], user: str) -> set[int]:
    """Type a draw; once it is in the database, the processes the console started (the solver workers and the
    resource tracker)."""
    assert process.stdin is not None
    process.stdin.write(b"d\n")
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while await stored_moves(tmp_path, user) != 1:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the draw never reached the database"
        await asyncio.sleep(0.1)
    ours = descendants(process.pid)
    assert ours, "the solver workers run in processes of their own"
    return ours


def stop_and_wait(process: subprocess.Popen[bytes], send: object) -> tuple[str, str]:
    """Send the stop; what the process printed once it ended (a stuck one fails after a generous minute: how
    quickly it stops is a figure for a quiet machine, not an assertion on a shared one)."""
    send()  # type: ignore[operator]
    out, err = process.communicate(timeout=60)
    return out.decode(), err.decode()


@pytest.mark.parametrize(("how", "status"), [("ctrl-c", 130), ("sigterm", 143), ("ctrl-d", 0)])
@pytest.mark.parametrize("command", [("console", "--user", "ann"), ("run",)])
async def test_the_console_stops_cleanly(tmp_path: Path, how: str, status: int,
                                                     command: tuple[str, ...]) -> None:
    process = start(tmp_path, *command)
    user = "ann" if "--user" in command else None
    try:
        if user is None:  # `tripeaks run` without a token: the login name plays
            import getpass

            user = getpass.getuser()
        ours = await play_one_draw(tmp_path, process, user)

        def end_of_input() -> None:
            assert process.stdin is not None
            process.stdin.close()
            process.stdin = None  # communicate() must not flush it

        senders = {
            "ctrl-c": lambda: os.killpg(process.pid, signal.SIGINT),  # the terminal signals the whole group
            "sigterm": lambda: process.send_signal(signal.SIGTERM),
            "ctrl-d": end_of_input,
        }
        out, err = stop_and_wait(process, senders[how])
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == status, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err == "", err  # logs stay out of the way: warnings only, and there were none
    assert out.rstrip().endswith("Goodbye! Your game is saved."), out[-300:]
    assert still_running(ours) == {}
    assert await stored_moves(tmp_path, user) == 1


async def test_ctrl_c_while_starting_up_is_quiet_too(tmp_path: Path) -> None:
    """A Ctrl-C in the first moments: right after the console's first line (where the games are saved), printed
    as it starts to open the database (migrating it) and the solver workers."""
    process = start(tmp_path, "console", "--user", "bob")
    try:
        assert process.stdout is not None
        first = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), timeout=60)
        assert first.startswith(b"Games are saved in "), first
        out, err = stop_and_wait(process, lambda: os.killpg(process.pid, signal.SIGINT))
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    # whatever it had started (solver workers, the resource tracker) is in its process group, and ends with it
    assert still_running(in_group(process.pid)) == {}


def test_run_without_a_token_and_without_a_terminal_says_so(tmp_path: Path) -> None:
    """As in a container or under a service manager (stdin is /dev/null): no console game that would end at once
    (and be restarted in a loop), but one line and exit status 2."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
    env |= {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'games.db'}", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "bot.cli", "run"], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "DISCORD_TOKEN" in done.stderr and "TELEGRAM_TOKEN" in done.stderr
    assert done.stdout == ""


async def test_after_kill_9_the_solver_workers_end_by_themselves(tmp_path: Path) -> None:
    """``kill -9`` (or the OOM killer) gives the bot no chance to stop its workers: they notice it is gone and end
    within seconds, even the one busy with a hint, rather than running on as orphans."""
    process = start(tmp_path, "console", "--user", "kim")
    try:
        ours = await play_one_draw(tmp_path, process, "kim")
        assert process.stdin is not None
        process.stdin.write(b"h\n")  # a worker searching when the bot dies
        process.stdin.flush()
        process.kill()
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    try:
        assert still_running(ours, timeout=30) == {}
    finally:
        for pid in ours:  # nothing of ours outlives a failed test
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
