"""The table in the browser: how long a tap takes. Run by hand:

    .venv/bin/python bench/web.py [--taps 400] [--clicks 200] [--json]

The bot's application on a fresh SQLite file (each tap committed with synchronous=FULL, as the bot runs) and the
table's server on a free port of 127.0.0.1, as `tripeaks run` starts them. Two figures:

- server: ``--taps`` taps sent over HTTP by a client on the same machine, each the payload of a card that fits
  (else the stock; a new deal when a game ends) with a Mini App's initData checked on every request: the time from
  sending the request to reading the answer's JSON (so the server's whole work, HTTP included), p50 and p99, the
  CPU time a tap, and the part of it spent through the door (the command, its transaction, the JSON drawn);
- browser: ``--clicks`` clicks in headless chromium (Debian's, driven by Playwright) on a 360-px phone page, from
  the click to the next frame drawn with the card on its way to the waste: a card that fits (flying at once,
  before the server answers) and the stock (whose card only the server knows: a round trip), p50 and p99 each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bot.adapters.web.server import TableServer  # noqa: E402
from bot.app.assembly import App  # noqa: E402
from tests.web_harness import PHONE, init_data_header, mini_app_url, settled, start_deal, table_in_browser  # noqa: E402

#: Clicks a card that fits (else the stock) and resolves, at the next frame drawn after the card is on its way to
#: the waste (a card that fits flies at once; the stock's card, known only to the server, after its answer is
#: drawn), with what was clicked and the milliseconds since the click.
CLICK = """async () => {
  const card = document.querySelector("#table .card[data-mark='fits']:not(.flying)");
  const target = card || document.getElementById("stock");
  const answered = tableStats.taps.length;
  const started = performance.now();
  target.click();
  while (card ? !card.classList.contains("flying") : tableStats.taps.length === answered) {
    await new Promise((resolve) => requestAnimationFrame(resolve));
  }
  await new Promise((resolve) => requestAnimationFrame(resolve));
  return [card ? "card" : "stock", performance.now() - started];
}"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50": round(percentile(values, 0.5), 2), "p99": round(percentile(values, 0.99), 2)}


async def server_taps(port: int, taps: int) -> tuple[list[float], float]:
    """Each tap's milliseconds, and the CPU milliseconds of this process a tap (the server and the client both:
    an upper bound of the server's, steadier than the wall clock on a busy machine)."""
    headers = init_data_header(1)
    times: list[float] = []
    cpu = time.process_time()
    async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as session:
        async with session.get("/api/table", headers=headers) as response:
            board = (await response.json())["board"]
        while len(times) < taps:
            fits = [slot["payload"] for slot in board["slots"] if slot.get("mark") == "fits"]
            payload = fits[0] if fits else board["stock"]["payload"]
            if board["over"] or payload is None:
                payload = "tp:b:n:e:0"  # a new Easy deal
            started = time.perf_counter()
            async with session.post("/api/act", json={"payload": payload}, headers=headers) as response:
                answer = await response.json()
            times.append((time.perf_counter() - started) * 1000)
            board = answer["board"] or board
    return times, (time.process_time() - cpu) * 1000 / taps


async def browser_clicks(table: Any, clicks: int) -> dict[str, list[float]]:
    page = await table.page(mini_app_url(table.port, 2), PHONE)
    times: dict[str, list[float]] = {"card": [], "stock": []}
    number = 0
    while sum(map(len, times.values())) < clicks:
        if await page.evaluate("state.board.over"):  # won or blocked: a new deal
            await start_deal(page, f"TP1-E-{chr(ord('A') + number // 26)}AAAAA{chr(ord('A') + number % 26)}")
            number += 1
            continue
        kind, elapsed = await page.evaluate(CLICK)
        times[kind].append(elapsed)
        await settled(page)
    return times


def timed_door(handled: list[float]) -> None:
    """Note the milliseconds of each request's work through the door (the command, its transaction, the answer's
    JSON drawn), without the HTTP around it."""
    through = TableServer._through_the_door

    async def timed(self: TableServer, user: Any, command: Any, **kwargs: Any) -> dict[str, Any]:
        started = time.perf_counter()
        try:
            return await through(self, user, command, **kwargs)
        finally:
            handled.append((time.perf_counter() - started) * 1000)

    TableServer._through_the_door = timed  # type: ignore[method-assign]


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    handled: list[float] = []
    timed_door(handled)
    with tempfile.TemporaryDirectory() as folder:
        app = await App.open(f"sqlite+aiosqlite:///{folder}/bench.db")
        async with app, table_in_browser(app.flow) as table:
            server, cpu = await server_taps(table.port, args.taps)
            door = handled[1:]  # the taps (the first request opened the table)
            browser = await browser_clicks(table, args.clicks)
    return {"server_ms": {**summary(server), "cpu_per_tap": round(cpu, 2)}, "door_ms": summary(door),
            "browser_ms": {kind: summary(values) for kind, values in browser.items() if values}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--taps", type=int, default=400)
    parser.add_argument("--clicks", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(result))
        return 0
    server = result["server_ms"]
    door = result["door_ms"]
    print(f"server, a tap over HTTP: p50 {server['p50']} ms, p99 {server['p99']} ms ({server['n']} taps; "
          f"{server['cpu_per_tap']} ms of CPU a tap, server and client); its work through the door: "
          f"p50 {door['p50']} ms, p99 {door['p99']} ms")
    for kind, figures in result["browser_ms"].items():
        what = "a card that fits" if kind == "card" else "the stock (a round trip)"
        print(f"browser, click to the card on its way to the waste, {what}: p50 {figures['p50']} ms, "
              f"p99 {figures['p99']} ms ({figures['n']} clicks)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
