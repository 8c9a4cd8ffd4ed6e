"""Redraw the screenshots in this folder: the real bot on SimCord, its preview page, Debian's chromium.

    .venv/bin/python docs/screenshots/capture.py

Needs ``simcord[preview]`` and ``chromium`` with ``fonts-noto-color-emoji`` (see /work/shared/TESTING.md).
Writes ``discord-fresh-deal.png`` (``/tripeaks new TP1-E-AAAAAAB``) and ``discord-mid-game.png`` (eleven moves
of a winning line, then a card that does not fit, with its explanation in the status line).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

import simcord

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bot.store.migrate import upgrade_database  # noqa: E402
from core.game import Game, Tap  # noqa: E402
from tests.core_helpers import winning_line  # noqa: E402
from tests.discord_harness import button, make_bot, open_service  # noqa: E402

CODE = "TP1-E-AAAAAAB"
WIDTH, HEIGHT = 1100, 760
HERE = Path(__file__).resolve().parent


async def shoot(url: str, target: Path, profile: Path) -> None:
    process = await asyncio.create_subprocess_exec(
        "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=10000",
        f"--screenshot={target}", url,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    await process.wait()
    print("wrote", target)


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        template = work / "template.db"
        await upgrade_database(f"sqlite+aiosqlite:///{template}")
        async with open_service(template, work / "tripeaks.db") as service, \
                simcord.run(make_bot(service)) as env:
            guild = env.create_guild("Card room")
            channel = guild.create_text_channel("tripeaks")
            alice = guild.add_member(env.create_user("alice", global_name="Alice"))
            result = await alice.slash(channel, "tripeaks new", code=CODE)
            message = result.response
            assert message is not None
            async with env.preview(channel, viewers=[alice], layout="channel", display="fixed",
                                   width=WIDTH, height=HEIGHT) as preview:
                await shoot(preview.url, HERE / "discord-fresh-deal.png", work / "chrome1")
            game = Game.from_code(CODE)
            for action in winning_line(CODE)[:11]:
                game.push(action)
                command = str(action) if isinstance(action, Tap) else "d"
                await alice.click(message, custom_id=button(message, command=command)["custom_id"])
            refused = next(s for s in game.playable_slots() if not game.fits(s))
            await alice.click(message, custom_id=button(message, command=str(refused))["custom_id"])
            async with env.preview(channel, viewers=[alice], layout="channel", display="fixed",
                                   width=WIDTH, height=HEIGHT) as preview:
                await shoot(preview.url, HERE / "discord-mid-game.png", work / "chrome2")


if __name__ == "__main__":
    asyncio.run(main())
