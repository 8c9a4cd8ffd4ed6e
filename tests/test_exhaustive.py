"""Every case is handled: each match on commands, effects, contents, outcomes and errors ends in ``assert_never``, so
a new case added to one of their unions and handled nowhere fails ``mypy --strict`` where it is matched. Checked by
running mypy with the unions' modules shadowed by copies that add one new case each (``--shadow-file``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bot.app import errors
from bot.app.outcomes import Mishap, Unforeseen, mishap

ROOT = Path(__file__).resolve().parent.parent

#: Each union, the module it is declared in, how a copy adds a new case to it, and every module that must then fail.
NEW_CASES = {
    "NewButton": ("bot/app/commands.py", "ButtonCommand = ",
                  ["bot/app/flow.py", "bot/app/codec.py", "bot/render/console.py"]),
    "NewTyped": ("bot/app/commands.py", "Command = ", ["bot/app/flow.py"]),
    "NewRequest": ("bot/app/commands.py", "StartRequest = ",
                   ["bot/app/starts.py", "bot/app/codec.py", "bot/render/lifecycle.py"]),
    "NewSetting": ("bot/app/commands.py", "SettingChange = ", ["bot/app/players.py", "bot/app/codec.py"]),
    "NewEffect": ("bot/app/effects.py", "Effect = ",
                  # Telegram's executor sees a chat's effects only: its rounds' module hands it them (ChatEffect)
                  ["bot/adapters/telegram/rounds.py", "bot/adapters/discord/executor.py", "bot/adapters/console.py",
                   "bot/adapters/web/screens.py"]),
    "NewShown": ("bot/app/effects.py", "Shown = ", ["bot/render/effects.py", "bot/adapters/console.py"]),
    "NewNote": ("bot/app/effects.py", "Note = ", ["bot/render/effects.py", "bot/adapters/console.py"]),
    "NewReport": ("bot/app/effects.py", "Report = ", ["bot/app/flow.py", "bot/app/outbox.py"]),
    "NewPosted": ("bot/app/effects.py", "Posted = ", ["bot/app/daily_posts.py"]),
    "NewTapped": ("bot/app/outcomes.py", "Tapped = ", ["bot/app/flow.py"]),
    "NewStart": ("bot/app/outcomes.py", "Start = ", ["bot/app/flow.py"]),
    "NewMishap": ("bot/app/outcomes.py", "Mishap = (", ["bot/render/replies.py"]),
    "NewOwnerCommand": ("bot/app/commands.py", "OwnerCommand = ", ["bot/app/flow.py", "bot/app/owner.py"]),
    "NewOwnerResult": ("bot/app/owner.py", "OwnerResult = ", ["bot/render/owner.py"]),
}


def _shadowed(path: str, cases: list[tuple[str, str]]) -> str:
    """The module at ``path`` with each new case declared and added to its union (before its other members)."""
    text = (ROOT / path).read_text()
    for name, union in cases:
        declared = re.search(rf"^{re.escape(union)}", text, re.MULTILINE)
        assert declared is not None, f"{union!r} is no longer declared in {path}"
        case = f"@dataclass(frozen=True)\nclass {name}:\n    pass\n\n\n"
        text = text[:declared.start()] + case + union + f"{name} | " + text[declared.end():]
    return text


def test_a_new_case_handled_nowhere_fails_mypy(tmp_path: Path) -> None:
    """mypy names the new case in every module that matches its union."""
    by_module: dict[str, list[tuple[str, str]]] = {}
    for name, (module, union, _) in NEW_CASES.items():
        by_module.setdefault(module, []).append((name, union))
    shadows = []
    for module, cases in by_module.items():
        copy = tmp_path / module.replace("/", "_")
        copy.write_text(_shadowed(module, cases))
        shadows += ["--shadow-file", module, str(copy)]
    checked = sorted({module for _, _, matching in NEW_CASES.values() for module in matching})
    run = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache" / "exhaustive"),
                          *shadows, *checked], cwd=ROOT, capture_output=True, text=True, timeout=600)
    unhandled = {(module, case) for module, cases in re.findall(
        r'^(\S+\.py):\d+: error: Argument 1 to "assert_never" has incompatible type "([\w| ]+)"', run.stdout,
        re.MULTILINE) for case in cases.split(" | ")}
    expected = {(module, name) for name, (_, _, matching) in NEW_CASES.items() for module in matching}
    assert run.returncode == 1 and expected <= unhandled, run.stdout


def test_every_error_is_told_in_words_of_its_own() -> None:
    """Every error the service raises is a member of the family the renderer matches, so a new one must be worded;
    any other exception is told as unforeseen."""
    def subclasses(cls: type) -> set[type]:
        return {cls, *(grand for sub in cls.__subclasses__() for grand in subclasses(sub))}

    raised = {cls for cls in subclasses(errors.BotError) - {errors.BotError} if cls.__module__ == errors.__name__}
    assert raised and all(issubclass(cls, Mishap) for cls in raised)
    assert mishap(errors.BotError("x")) == Unforeseen(ours=True)
    assert mishap(RuntimeError("x")) == Unforeseen(ours=False)
    busy = errors.Busy()
    assert mishap(busy) is busy
