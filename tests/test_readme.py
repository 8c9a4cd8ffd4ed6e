"""What the README, `.env.example` and the help say is true.

Every `tripeaks` command line in the README's shell blocks is run as written (in a scratch folder with its own
database, no token, the console fed `quit`), and must succeed: the deal commands print what they say, no action in
them is refused, and every subcommand of the command line has an example. The other shell lines (make, git,
docker, psql) need the network, Docker or an administrator and are not run here, except the pg_dump and pg_restore
inside the Compose backup's lines: those run, from a terminal, against the test PostgreSQL server.
"""

from __future__ import annotations

import ast
import contextlib
import getpass
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from sqlalchemy.engine import URL

from bot.cli import build_parser, main
from bot.config import load_config
from bot.i18n import SUPPORTED_LOCALES
from bot.store.migrate import upgrade_database
from tests.conftest import PostgresServer, run_sync
from tests.test_cli_backup import _add_a_player, _player_names

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()


def shell_lines(text: str) -> list[str]:
    """The command lines of the ```sh blocks, a line continued with a backslash joined to the next."""
    lines: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```$", text, re.M | re.S):
        lines += [line.strip() for line in block.replace("\\\n", " ").splitlines() if line.strip()]
    return lines


def examples() -> list[list[str]]:
    """The README's `tripeaks` command lines as argument lists (without the comments), in the README's order."""
    found = []
    for line in shell_lines(README):
        words = shlex.split(line, comments=True)
        if words and words[0] in ("tripeaks", ".venv/bin/tripeaks"):
            found.append(words[1:])
    return found


EXAMPLES = examples()
#: Run as processes of their own: they read standard input and set up logging and signals.
INTERACTIVE = {"console", "run"}
#: No bot runs in the scratch folder: `tripeaks health` says it is not up, with exit status 1 (tests/test_health.py
#: checks a running one).
EXIT_STATUS = {"health": 1}


@pytest.fixture
def scratch(tmp_path: Path, sqlite_template: Path) -> Path:
    """A folder of its own for each example, as the README's reader has it by then: the database `tripeaks db
    upgrade` made (pytest-xdist runs the examples in any order, on any worker, so none may rely on another)."""
    shutil.copyfile(sqlite_template, tmp_path / "games.db")
    return tmp_path


def _environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "LOG_LEVEL", "TRIPEAKS_HOME"))}
    return env | {"DATABASE_URL": f"sqlite+aiosqlite:///{folder / 'games.db'}", "PYTHONPATH": str(REPO),
                  "HEARTBEAT_FILE": str(folder / "heartbeat")}


def run_example(args: list[str], folder: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    if args[0] in INTERACTIVE:
        done = subprocess.run([sys.executable, "-m", "bot.cli", *args], input="quit\n", capture_output=True,
                              text=True, cwd=folder, env=_environment(folder), timeout=120, check=False)
        return done.returncode, done.stdout, done.stderr
    for name in list(os.environ):
        if name.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_", "TRIPEAKS_HOME")):
            monkeypatch.delenv(name)
    for name in ("DATABASE_URL", "HEARTBEAT_FILE"):
        monkeypatch.setenv(name, _environment(folder)[name])
    monkeypatch.chdir(folder)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(args)
    return status, out.getvalue(), err.getvalue()


def test_the_readme_has_an_example_of_every_command() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert {args[0] for args in EXAMPLES} == set(commands)
    db_actions = next(action for action in commands["db"]._actions if action.dest == "action").choices
    assert {args[1] for args in EXAMPLES if args[0] == "db"} == set(db_actions)


def _needs_postgres(args: list[str]) -> bool:
    return any(arg.startswith("postgresql") for arg in args)


@pytest.mark.parametrize("args", [pytest.param(args, marks=[pytest.mark.postgres] * _needs_postgres(args))
                                  for args in EXAMPLES], ids=[" ".join(args)[:60] for args in EXAMPLES])
def test_every_readme_example_runs(args: list[str], scratch: Path, monkeypatch: pytest.MonkeyPatch,
                                   request: pytest.FixtureRequest) -> None:
    if _needs_postgres(args):  # the README's PostgreSQL database: a new one on the test server
        server: PostgresServer = request.getfixturevalue("postgres_server")
        new = server.create_database("readme").render_as_string(hide_password=False)
        args = [new if arg.startswith("postgresql") else arg for arg in args]
    if args[:2] == ["db", "restore"]:  # the backup the README's `db backup` made just before
        (scratch / args[2]).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(scratch / "games.db", scratch / args[2])
    status, out, err = run_example(args, scratch, monkeypatch)
    assert status == EXIT_STATUS.get(args[0], 0), out + err
    assert "Traceback" not in err
    if "--json" in args:
        printed = json.loads(out)
        refused = [step for step in printed.get("log", []) if not step["ok"]] if isinstance(printed, dict) else []
        assert not refused, f"the example plays a refused action: {refused}"
    if args[0] == "run":  # no token and no chat: the console game, as the README says
        assert "No DISCORD_TOKEN or TELEGRAM_TOKEN set: starting a console game instead" in out


def test_the_readme_says_how_to_reach_the_command_and_what_to_install() -> None:
    assert ".venv/bin/tripeaks" in README and ". .venv/bin/activate" in README
    assert re.search(r"^install: \$\(INSTALLED\)$", (REPO / "Makefile").read_text(), re.M)  # the venv and the kernel
    python = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    assert python == ">=3.11" and "Python 3.11 or newer" in README
    quick_start = README.split("## Quick start")[1].split("\n## ")[0]
    assert all(word in quick_start for word in ("`make`", "`python3-venv`", "package index"))


def _discord_permissions_listed() -> tuple[set[str], int]:
    """The bot permissions the README's Discord step names (as discord.Permissions names), and its integer."""
    step = README.split("**OAuth2 → URL Generator**")[1].split("\n4. ")[0].split("). ")[0]
    integer = int(re.search(r"permission integer\s+`(\d+)`", step).group(1))  # type: ignore[union-attr]
    listed = {name.lower().replace(" ", "_") for name in re.findall(r"\*([A-Z][A-Za-z ]+)\*", step)}
    return listed, integer


def test_the_discord_permissions_listed_make_the_integer_given() -> None:
    discord = pytest.importorskip("discord")
    listed, integer = _discord_permissions_listed()
    assert discord.Permissions(**dict.fromkeys(listed, True)).value == integer
    assert f"permissions={integer}" in README


def discord_permissions_used() -> set[str]:
    """The channel permissions the Discord adapter's calls with the bot's token need, read from its code: a call
    on a channel (or a message fetched from one), not through an interaction's own webhook, needs View Channel;
    ``send`` needs Send Messages; files or attachments need Attach Files; embeds Embed Links; reading older
    messages Read Message History."""
    needed: set[str] = set()
    for path in (REPO / "bot" / "adapters" / "discord").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            receiver = ast.unparse(node.func.value)
            if "channel" not in receiver or "interaction" in receiver:
                continue
            keywords = {keyword.arg for keyword in node.keywords}
            needed.add("view_channel")
            if node.func.attr == "send":
                needed.add("send_messages")
            if keywords & {"file", "files", "attachments"}:
                needed.add("attach_files")
            if keywords & {"embed", "embeds"}:
                needed.add("embed_links")
            if node.func.attr in ("fetch_message", "history", "pins"):
                needed.add("read_message_history")
    return needed


def test_the_discord_permissions_include_what_the_bot_uses() -> None:
    """The daily post is sent with the bot's token, and a board redrawn in place (a settings change, a board in
    another channel) is edited with its new PNG as an attachment: without Attach Files, Discord refuses it."""
    discord = pytest.importorskip("discord")
    used = discord_permissions_used()
    assert {"view_channel", "send_messages", "attach_files"} <= used  # what the adapter does today
    listed, integer = _discord_permissions_listed()
    assert used <= listed, used - listed
    assert discord.Permissions(integer) >= discord.Permissions(**dict.fromkeys(used, True))


def test_every_language_is_offered_and_accepted_as_written() -> None:
    example = (REPO / ".env.example").read_text()
    line = next(line for line in example.splitlines() if "language is unknown" in line)
    assert re.split(r", | or ", line.split(":", 1)[1].strip().rstrip(".")) == list(SUPPORTED_LOCALES)
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        main(["console", "--help"])
    assert all(code in help_text.getvalue() for code in SUPPORTED_LOCALES)
    for code in SUPPORTED_LOCALES:
        for written in (code, code.lower(), code.replace("_", "-")):
            assert load_config({"DEFAULT_LOCALE": written}).default_locale == code


def test_every_make_command_the_readme_names_is_a_target_of_the_makefile() -> None:
    """The README and the Makefile say the same thing: each ``make X`` of the README (a shell line or inline
    code) is a target (a phony one: no file of that name stops it from running)."""
    makefile = (REPO / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, re.M))
    named = {line.split()[1] for line in shell_lines(README) if line.startswith("make ")}
    named |= set(re.findall(r"`make ([a-z][\w-]*)", README))
    assert named <= targets, named - targets
    assert {"run", "install", "check", "test", "pytest"} <= named
    phony = set(re.search(r"^\.PHONY: (.*)$", makefile, re.M).group(1).split())  # type: ignore[union-attr]
    assert phony == targets


# --- the Docker Compose commands (no Docker engine here: the commands inside the containers are run plainly) -----


def compose_commands() -> list[str]:
    """The README's `docker compose` command lines: shell lines and inline code (a line break in it read as a
    space)."""
    inline = [" ".join(code.split()) for code in re.findall(r"`(docker compose [^`]+)`", README)]
    return [line for line in shell_lines(README) if line.startswith("docker compose ")] + inline


def test_every_compose_command_that_streams_a_file_gives_it_no_terminal() -> None:
    """`docker compose exec` gives the command a terminal unless told `-T`: binary output through it is altered."""
    streaming = [line for line in compose_commands()
                 if line.startswith(("docker compose exec ", "docker compose run ")) and re.search(r"[<>|]", line)]
    assert len(streaming) >= 2, streaming  # the PostgreSQL backup and its restore
    assert all(" -T " in line for line in streaming), streaming


def _compose_postgres_command(tool: str) -> list[str]:
    """The README's `docker compose exec -T postgres TOOL ...` line, as the words of the command run in the
    container and its redirection (``>`` or ``<`` and the file)."""
    line = next(line for line in compose_commands() if f"-T postgres {tool} " in line)
    return shlex.split(line.split(" postgres ", 1)[1])


def _on_the_test_server(words: list[str], server: URL) -> list[str]:
    """The command aimed at ``server``'s database instead of the Compose file's (user and database `tripeaks`)."""
    assert words.count("tripeaks") == 2, words  # -U tripeaks, and the database (positional or -d)
    words = [server.database or "" if word == "tripeaks" and words[i - 1] != "-U" else word
             for i, word in enumerate(words)]
    user = words.index("-U")
    return [*words[:user], "-h", server.host or "127.0.0.1", "-p", str(server.port or 5432), "-U",
            server.username or "postgres", *words[user + 2:]]


def _through_a_terminal(command: list[str], folder: Path) -> tuple[int, bytes]:
    """Run ``command`` with a pseudo-terminal as its standard input, output and error (a shell in a terminal
    window, or `docker compose exec` without -T); its exit status and every byte the terminal received."""
    master, slave = os.openpty()
    process = subprocess.Popen(command, cwd=folder, stdin=slave, stdout=slave, stderr=slave)
    os.close(slave)
    received = bytearray()
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the process and its children closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return process.wait(timeout=120), bytes(received)


@pytest.mark.postgres
def test_the_compose_backup_and_restore_commands_round_trip(tmp_path: Path, postgres_server: PostgresServer) -> None:
    """The pg_dump and pg_restore lines of the Compose backup, run from a terminal with their redirections as the
    README writes them, give the rows back; the same dump with a terminal as pg_dump's output (`exec` without -T)
    is not readable."""
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are not installed")
    source, target = postgres_server.create_database("compose_dump"), postgres_server.create_database("compose_restore")
    run_sync(upgrade_database(source))
    run_sync(_add_a_player(source))
    dump, restore = _compose_postgres_command("pg_dump"), _compose_postgres_command("pg_restore")
    assert dump[-2:] == [">", "tripeaks.dump"] and restore[-2:] == ["<", "tripeaks.dump"]

    status, said = _through_a_terminal(["bash", "-c", shlex.join(_on_the_test_server(dump[:-2], source))
                                        + " > tripeaks.dump"], tmp_path)
    assert status == 0, said
    status, said = _through_a_terminal(["bash", "-c", shlex.join(_on_the_test_server(restore[:-2], target))
                                        + " < tripeaks.dump"], tmp_path)
    assert status == 0, said
    assert run_sync(_player_names(target)) == ["ann"]

    # without -T: what reaches `> tripeaks.dump` is what pg_dump wrote to a terminal
    status, through_terminal = _through_a_terminal(_on_the_test_server(dump[:-2], source), tmp_path)
    assert status == 0
    (tmp_path / "through-a-terminal.dump").write_bytes(through_terminal)
    assert len(through_terminal) > (tmp_path / "tripeaks.dump").stat().st_size
    listed, whole = (subprocess.run(["pg_restore", "--list", name], cwd=tmp_path, capture_output=True, timeout=60,
                                    check=False) for name in ("through-a-terminal.dump", "tripeaks.dump"))

    def entries(listing: bytes) -> list[bytes]:
        """The archive's table of contents: what a restore would put back (the header lines start with ;)."""
        return [line for line in listing.splitlines() if line and not line.startswith(b";")]

    # unreadable, or read as an archive that has lost its contents (where the terminal's bytes fell decides which)
    assert whole.returncode == 0 and entries(whole.stdout)
    assert listed.returncode != 0 or entries(listed.stdout) != entries(whole.stdout)


def files_the_examples_write() -> set[str]:
    """The files the README's commands write in the project folder: the database (its default place), backups and
    copies, the board's picture, dumps and logs (redirections, in shell lines and inline code)."""
    written = {"data/tripeaks.db", "data/tripeaks.db.before-restore-20261201T000000Z"}
    for args in EXAMPLES:
        for option in ("--image", "--to"):
            if option in args:
                written.add(args[args.index(option) + 1])
        if args[:2] == ["db", "backup"]:
            written.add(args[2])
    prose = re.sub(r"^```.*?^```$", "", README, flags=re.M | re.S)
    lines = shell_lines(README) + re.findall(r"`([^`]+)`", prose)
    written |= {match for line in lines for match in re.findall(r"(?:^|\s)\d?>>? ?([\w./-]+)", line)}
    return {path for path in written if "://" not in path and not path.startswith(("/", "&"))}


def test_git_ignores_what_the_readme_examples_write() -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    written = files_the_examples_write()
    assert {"backups/tripeaks-2026-12-01.db", "board.png", "tripeaks.dump", "tripeaks.log"} <= written, written
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(sorted(written)),
                             capture_output=True, text=True, cwd=REPO, timeout=60, check=False).stdout.split()
    assert set(ignored) == written, written - set(ignored)


def test_the_readme_says_what_the_console_shows(tmp_path: Path, sqlite_template: Path) -> None:
    """The console's buttons, as the README describes them: a card by its name and an action by its key, each in
    brackets before its label."""
    shutil.copyfile(sqlite_template, tmp_path / "games.db")
    done = subprocess.run([sys.executable, "-m", "bot.cli", "console", "--user", "ann"], input="quit\n",
                          capture_output=True, text=True, cwd=tmp_path, env=_environment(tmp_path), timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    said = " ".join(README.split("### 3. Configure and start")[1].split("\n## ")[0].split())
    shown = re.findall(r"`(\[[^]`]+\] [^`]+)`", said)
    assert len(shown) >= 2 and "numbered" not in said, shown
    card, action = shown[0], shown[1]
    assert action in done.stdout
    assert re.search(r"\[[2-9tjqka]\d?[hdcs]\] [2-9TJQKA]\d?[♥♦♣♠]", done.stdout)  # a card: [7h] 7♥
    assert re.fullmatch(r"\[[2-9tjqka]\d?[hdcs]\] [2-9TJQKA]\d?[♥♦♣♠]", card)


def test_systemd_accepts_the_unit_the_readme_shows(tmp_path: Path) -> None:
    """`systemd-analyze verify` on deploy/tripeaks.service (tests/test_deploy.py checks what it says), its paths
    and user those of this machine."""
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed")
    command = Path(sys.executable).parent / "tripeaks"  # the installed command, as make install puts it
    here = (REPO / "deploy" / "tripeaks.service").read_text().replace("/opt/tripeaks/.venv/bin/tripeaks", str(command))
    here = here.replace("User=tripeaks", f"User={getpass.getuser()}").replace("/opt/tripeaks", str(tmp_path))
    (tmp_path / "tripeaks.service").write_text(here)
    done = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "tripeaks.service")], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
