"""`make check` (pytest --unit) stays the quick part: every test module that starts a process or plays through
SimCord or the fake Bot API server is listed as end to end in tests/conftest.py, and the list names only modules
that exist."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import E2E_MODULES

TESTS = Path(__file__).resolve().parent
#: What makes a module end to end: a process started (the command line, a terminal), SimCord, the fake Bot API.
END_TO_END = re.compile(r"^\s*(import subprocess|from tests\.(discord_harness|terminal|fakes\.telegram_bot_api) import"
                        r"|import simcord|from simcord)", re.M)


def test_every_module_that_starts_processes_or_platforms_is_marked_e2e() -> None:
    modules = {path.stem: path.read_text(encoding="utf-8") for path in TESTS.glob("test_*.py")}
    assert not E2E_MODULES - modules.keys(), E2E_MODULES - modules.keys()
    unmarked = sorted(name for name, text in modules.items() if END_TO_END.search(text) and name not in E2E_MODULES)
    assert unmarked == [], f"add them to E2E_MODULES in tests/conftest.py: {unmarked}"
