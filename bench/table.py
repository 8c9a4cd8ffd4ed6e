"""The table on a phone, measured in headless chromium (Debian's, driven by Playwright). Run by hand:

    .venv/bin/python bench/table.py [--games 3] [--json]

The bot's application on a fresh SQLite file and the table's server on a free port, as ``tripeaks run`` starts
them; a Mini App page at 360 x 740 (a phone held upright) and at 740 x 360 (turned sideways), both at double
density. Each plays ``--games`` whole deals the solver wins (TP1-E-AAAAAAB, then the next deals it wins), by
clicking as a player does: a hint first, a refused card, a move and its undo, then the solver's line to the win.
Per screen:

- shift: how far (CSS px) the felt, the stock, each control's place and each start button moved over the games,
  from where each was first seen (the browser tests require at most 2);
- card: the narrowest card of the peaks (CSS px);
- click to drawn: from a click on a card or the stock to the next frame after the server's board is drawn
  (``tableStats.taps``, measured by the page), p50 and p90, for cards and the stock apart;
- flights: how many cards flew to the waste and how many landed (none cut short by the server's board).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.app.assembly import App  # noqa: E402
from core.game import Game  # noqa: E402
from core.solver import solve  # noqa: E402
from tests.web_harness import mini_app_url, play_line, settled, start_deal, table_in_browser  # noqa: E402

SCREENS = {"360x740": {"width": 360, "height": 740}, "740x360": {"width": 740, "height": 360}}
#: Where the things the player aims at are (as tests/test_web_browser.py's PLACES).
PLACES = """() => {
  const box = (node) => { const r = node.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
  const places = { felt: box(document.getElementById("table")) };
  const stock = document.getElementById("stock");
  if (stock) places.stock = box(stock);
  document.querySelectorAll("#controls > *").forEach((node, i) => { places[`control ${i}`] = box(node); });
  document.querySelectorAll("#starts > *").forEach((node, i) => { places[`start ${i}`] = box(node); });
  return places;
}"""


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * share))], 1) if ordered else 0.0


def winnable_codes(count: int) -> list[tuple[str, tuple[Any, ...]]]:
    """The first ``count`` Easy deals from TP1-E-AAAAAAB that the solver wins, with their winning lines."""
    found = []
    number = 1
    while len(found) < count:
        code = f"TP1-E-AAAAA{chr(65 + number // 26)}{chr(65 + number % 26)}"
        line = solve(Game.from_code(code)).line
        if line:
            found.append((code, tuple(line)))
        number += 1
    return found


async def measure(table: Any, screen: str, games: list[tuple[str, tuple[Any, ...]]], user: int) -> dict[str, Any]:
    page = await table.page(mini_app_url(table.port, user), {"viewport": SCREENS[screen], "device_scale_factor": 2,
                                                            "has_touch": True})
    seen: dict[str, list[float]] = {}
    shift = 0.0
    narrowest = 1e9

    async def note() -> None:
        nonlocal shift
        for name, box in (await page.evaluate(PLACES)).items():
            first = seen.setdefault(name, box)
            shift = max(shift, *(abs(a - b) for a, b in zip(first, box, strict=True)))

    for code, line in games:
        await start_deal(page, code)
        await note()
        for box in [await card.bounding_box() for card in await page.locator("#table .card[data-slot]").all()]:
            if box:
                narrowest = min(narrowest, box["width"])
        await page.locator("#controls button[data-kind='hint']").click()
        await settled(page)
        await note()
        refused = page.locator("#table .card[data-payload]:not([data-mark])")
        if await refused.count():
            await refused.first.click()
            await settled(page)
            await note()
        await play_line(page, line[:1])
        await page.locator("#controls button[data-kind='undo']").click()
        await settled(page)
        await note()
        for step in range(len(line)):
            await play_line(page, line[step:step + 1])
            await note()
    await page.evaluate("Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)))")
    stats = await page.evaluate("tableStats")
    await page.close()
    taps: dict[str, list[float]] = {"card": [], "stock": []}
    for tap in stats["taps"]:
        if tap.get("kind") in taps:  # the cards and the stock; not the buttons
            taps[tap["kind"]].append(tap["ms"])
    flights = stats["flights"]
    return {"shift_px": round(shift, 2), "card_px": round(narrowest, 1),
            "click_to_drawn_ms": {kind: {"n": len(values), "p50": percentile(values, 0.5),
                                         "p90": percentile(values, 0.9)} for kind, values in taps.items()},
            "flights": {"flown": len(flights), "landed": sum(1 for f in flights if f["completed"])}}


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    games = winnable_codes(args.games)
    with tempfile.TemporaryDirectory() as folder:
        app = await App.open(f"sqlite+aiosqlite:///{folder}/bench.db")
        async with app, table_in_browser(app.flow) as table:
            return {screen: await measure(table, screen, games, user) for user, screen in enumerate(SCREENS, start=1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(result))
        return 0
    for screen, figures in result.items():
        clicks = "; ".join(f"{kind} p50 {f['p50']} ms, p90 {f['p90']} ms ({f['n']})"
                           for kind, f in figures["click_to_drawn_ms"].items())
        print(f"{screen}: shift {figures['shift_px']} px, card {figures['card_px']} px, click to drawn: {clicks}; "
              f"flights landed {figures['flights']['landed']} of {figures['flights']['flown']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
