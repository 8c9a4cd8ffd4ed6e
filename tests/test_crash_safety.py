"""Crash safety: a bot process killed with SIGKILL in the middle of a stream of actions loses nothing it has
acknowledged and leaves nothing half-applied."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select, text
from sqlalchemy.engine import URL

from bot.app.assembly import App
from bot.app.model import PlayerKey
from bot.store.database import open_database
from bot.store.schema import games
from core.game import UNDO, Action, Game, Undo

REPO = Path(__file__).resolve().parents[1]
PLAYER = PlayerKey("console", "crash")
CODE = "TP1-E-AAAAAAB"
#: Actions forward, then as many undos back to the deal, again and again: every action applies, and the stream
#: never ends (20 actions cannot win or block a game).
PHASE = 20
#: The test kills the child once it has acknowledged this many actions.
KILL_AFTER = 57


def next_action(game: Game, version: int) -> Action:
    """What the child plays at ``version``: the first fitting tap (else a draw), or an undo going back."""
    if (version // PHASE) % 2:
        return UNDO
    return next(a for a in game.legal_actions() if not isinstance(a, Undo))


def expected_after(actions: int) -> Game:
    game = Game.from_code(CODE)
    for version in range(actions):
        assert game.apply(next_action(game, version)).ok
    return game


CHILD = """
import asyncio, sys
from concurrent.futures import ThreadPoolExecutor
from bot.app.codec import game_command
from bot.app.assembly import App
from bot.store.database import open_database
from tests.test_crash_safety import PLAYER, next_action
from tests.app_helpers import act

async def main(url, game_id):
    db = await open_database(url, migrate=False)
    with ThreadPoolExecutor(1) as executor:
        service = App(db, executor=executor, owns_database=True)
        snapshot = await service.games.game(game_id)
        while True:
            action = next_action(snapshot.game, snapshot.version)
            snapshot = await act(service, PLAYER, "Crash", game_command(game_id, snapshot.version, str(action)))
            assert snapshot.outcome.ok
            print("ack", snapshot.version, action, flush=True)  # only after the action's commit

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def test_the_policy_runs_forever_on_applied_actions() -> None:
    game = expected_after(4 * PHASE)
    assert game.to_text() == Game.from_code(CODE).to_text().replace(";0;", f";{2 * PHASE};")


async def test_acknowledged_actions_survive_sigkill(db_url: URL) -> None:
    async with App(await open_database(db_url, migrate=False), owns_database=True) as service:
        game_id = (await service.starts.new_game(PLAYER, "Crash", code=CODE)).game_id

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, db_url.render_as_string(hide_password=False), str(game_id)],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    acknowledged: list[int] = []
    try:
        assert child.stdout is not None
        for line in child.stdout:
            acknowledged.append(int(line.split()[1]))
            if len(acknowledged) == KILL_AFTER:
                child.send_signal(signal.SIGKILL)  # mid-stream: the child is busy with the next action
                break
        rest, errors = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGKILL, errors
    acknowledged += [int(line.split()[1]) for line in rest.splitlines() if line.startswith("ack ")]
    assert acknowledged == list(range(1, len(acknowledged) + 1))
    last = acknowledged[-1]

    reopened = await open_database(db_url, migrate=False)
    try:
        async with reopened.engine.connect() as connection:
            if reopened.is_sqlite:
                assert (await connection.execute(text("PRAGMA integrity_check"))).scalar() == "ok"
            row = (await connection.execute(
                select(games.c.state, games.c.version, games.c.score, games.c.moves, games.c.status)
                .where(games.c.id == game_id))).one()
    finally:
        await reopened.close()

    # every acknowledged action is there; at most one more committed before the kill but was not yet reported
    assert row.version in (last, last + 1)
    stored = Game.from_text(row.state)  # replays cleanly
    assert stored.to_text() == expected_after(row.version).to_text()
    # and the row's other columns were written with that same state, not half of one action
    assert (row.score, row.moves, row.status) == (stored.score, stored.moves, stored.status.value)

