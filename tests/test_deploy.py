"""The Docker and systemd files as far as this machine can check them without a Docker engine or a running systemd:
the compose file's healthcheck goes over TCP, every bot comes back by itself (also after the Docker daemon restarts),
the second process is a Discord shard without Telegram, and the build context leaves out the local environment,
data and secrets; the systemd unit the README shows is the one in deploy/, restarts the bot without a limit except
when its settings stop it, and counts a stop as clean. (The compose file is parsed as YAML when PyYAML is there, the
unit checked by `systemd-analyze verify` in tests/test_readme.py, which runs processes.)"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COMPOSE = (REPO / "docker-compose.yml").read_text()


def test_the_postgres_healthcheck_asks_over_tcp() -> None:
    assert '"pg_isready", "-h", "127.0.0.1", "-U", "tripeaks", "-d", "tripeaks"' in COMPOSE


def test_every_bot_comes_back_and_no_scaling_of_one_service() -> None:
    """`on-failure` gives up after its count and is not applied again after the Docker daemon restarts: a bot whose
    network was not up at boot stayed down. `unless-stopped` starts it again whatever ended it, until stopped."""
    shared = COMPOSE.split("services:")[0]  # the bots' shared settings
    assert re.findall(r"^  restart: (.*)$", shared, re.M) == ["unless-stopped"]
    assert "on-failure" not in COMPOSE.replace("# ", "")
    assert "--scale" not in COMPOSE and "up -d --scale" not in (REPO / "README.md").read_text()


def test_the_second_process_is_discord_shard_1_without_telegram() -> None:
    shard = COMPOSE.split("  bot-pg-shard-1:")[1].split("\nvolumes:")[0]
    assert 'TELEGRAM_TOKEN: ""' in shard and 'DISCORD_SHARD_IDS: "1"' in shard and 'DISCORD_SHARD_COUNT: "2"' in shard


def test_the_build_context_leaves_out_the_environment_data_and_secrets() -> None:
    ignored = set((REPO / ".dockerignore").read_text().split())
    assert {".venv/", "data/", ".env", ".git/", "__pycache__/", ".mypy_cache/", ".pytest_cache/"} <= ignored


def test_the_compose_file_is_valid_yaml() -> None:
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load(COMPOSE)["services"]
    assert services["bot-pg-shard-1"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert all(services[name]["restart"] == "unless-stopped" for name in ("bot", "bot-pg", "bot-pg-shard-1"))
    assert services["migrate"]["restart"] == "no"  # a one-off job


BOTS = ("bot", "bot-pg", "bot-pg-shard-1")


def test_every_bot_has_a_health_check_that_reads_its_heartbeat() -> None:
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load(COMPOSE)["services"]
    for name in BOTS:
        assert services[name]["healthcheck"]["test"] == ["CMD", "tripeaks", "health"], name
        assert services[name]["environment"]["HEARTBEAT_FILE"].startswith("/tmp/"), name  # not a shared volume
    assert services["migrate"]["healthcheck"] == {"disable": True}  # a one-off job, done when it exits


def test_the_telegram_webhook_port_is_published_for_a_local_reverse_proxy() -> None:
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load(COMPOSE)["services"]
    port, web = "${TELEGRAM_WEBHOOK_PORT:-8443}", "${WEB_PORT:-8080}"
    for name in ("bot", "bot-pg"):  # the processes that may run Telegram, and the board in the browser
        assert services[name]["ports"] == [f"127.0.0.1:{port}:{port}", f"127.0.0.1:{web}:{web}"], name
        assert services[name]["environment"]["WEB_HOST"] == "0.0.0.0", name  # inside its container
    assert "ports" not in services["bot-pg-shard-1"]  # no Telegram there
    readme = (REPO / "README.md").read_text()
    compose_part = readme.split("### Docker Compose")[1].split("\n## ")[0]
    assert "reverse proxy" in compose_part and "TLS" in compose_part and "127.0.0.1" in compose_part


# --- the systemd unit -------------------------------------------------------------------------------------------

UNIT_FILE = REPO / "deploy" / "tripeaks.service"


def unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=True, comment_prefixes=("#",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd's keys are case-sensitive
    parser.read_string(UNIT_FILE.read_text())
    return parser


def test_the_readme_shows_the_systemd_unit_as_it_is() -> None:
    readme = (REPO / "README.md").read_text()
    assert f"```ini\n{UNIT_FILE.read_text()}```\n" in readme
    assert "deploy/tripeaks.service" in readme.split("### systemd")[1].split("\n## ")[0]


def test_the_systemd_unit_restarts_the_bot_without_a_limit_except_for_its_settings() -> None:
    service, start = unit()["Service"], unit()["Unit"]
    assert service["Restart"] in ("always", "on-failure")
    # systemd's default start limit (5 starts in 10 s) ends the restarts for good: no limit at all
    assert start["StartLimitIntervalSec"] == "0"
    assert float(service["RestartSec"]) >= 1
    assert service["ExecStart"].endswith("/.venv/bin/tripeaks run")
    assert "network-online.target" in start["Wants"] and "network-online.target" in start["After"]
    assert unit()["Install"]["WantedBy"] == "multi-user.target"


def test_the_systemd_unit_lets_the_bot_open_files_for_thousands_of_players() -> None:
    """systemd's default (1,024 open files) is what one account's thousand connections took from the bot; the
    table caps its connections below whatever the unit allows (:mod:`bot.adapters.web.gate`)."""
    from bot.adapters.web.gate import connections_cap

    files = int(unit()["Service"]["LimitNOFILE"])
    assert files >= 65_536 and connections_cap(files) >= 10_000 and connections_cap(files) < files


def test_the_systemd_unit_knows_the_bots_exit_statuses() -> None:
    """A stop (SIGTERM, SIGINT) ends the bot with 128 + the signal: clean, not a failure; the exit status of its
    settings (a missing or refused token) is not restarted, so its one line stays the last in the journal."""
    from bot.cli import EXIT_USAGE
    from bot.runner import STOP_SIGNALS

    service = unit()["Service"]
    assert set(service["SuccessExitStatus"].split()) == {str(128 + signum) for signum in STOP_SIGNALS}
    assert service["RestartPreventExitStatus"].split() == [str(EXIT_USAGE)]


# --- several processes: the "scaled" profile, nginx, Discord's shards ----------------------------------------------

NGINX = (REPO / "deploy" / "nginx.conf").read_text()


def test_the_scaled_profile_runs_webhook_processes_by_a_number_behind_nginx() -> None:
    yaml = pytest.importorskip("yaml")
    services = yaml.safe_load(COMPOSE)["services"]
    webhook = services["telegram-webhook"]
    assert webhook["profiles"] == ["scaled"] and webhook["deploy"]["replicas"] == "${TELEGRAM_PROCESSES:-2}"
    assert webhook["environment"]["DISCORD_TOKEN"] == ""  # Discord is the shards'
    assert webhook["environment"]["DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert "ports" not in webhook  # reached through nginx only
    assert webhook["healthcheck"]["test"] == ["CMD", "tripeaks", "health"]
    assert {"postgres", "migrate"} <= {name for name, service in services.items()
                                       if "scaled" in service.get("profiles", [])}
    assert "scaled" not in services["bot-pg"]["profiles"]  # it would poll Telegram beside the webhook
    nginx = services["nginx"]
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in nginx["volumes"]
    assert nginx["ports"] == ["127.0.0.1:${TELEGRAM_WEBHOOK_PORT:-8443}:8443", "127.0.0.1:${WEB_PORT:-8080}:8080"]


def test_nginx_spreads_the_webhook_and_the_table_over_the_processes_and_streams_unbuffered() -> None:
    upstreams = dict(re.findall(r"upstream (\w+) \{(.*?)\}", NGINX, re.S))
    assert "server telegram-webhook:8443" in upstreams["telegram_webhook"]
    assert "server telegram-webhook:8080" in upstreams["table"] and "least_conn" in upstreams["table"]
    assert re.findall(r"listen (\d+);", NGINX) == ["8443", "8080"]
    events = NGINX.split("location /api/events")[1].split("}")[0]
    assert "proxy_buffering off" in events and "proxy_read_timeout 1h" in events
    assert "non_idempotent" not in NGINX  # an update is never posted twice by nginx


def test_the_nginx_config_passes_nginx_t(tmp_path: Path) -> None:
    """``nginx -t`` on the config, the Compose service's name (resolved only inside Compose) read as 127.0.0.1."""
    import shutil
    import subprocess

    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if nginx is None:
        pytest.skip("nginx is not installed here (apt-get install nginx-light)")
    (tmp_path / "nginx.conf").write_text(NGINX.replace("server telegram-webhook:", "server 127.0.0.1:"))
    checked = subprocess.run([nginx, "-t", "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path), "-g",
                              f"pid {tmp_path}/nginx.pid; error_log {tmp_path}/error.log;"],
                             capture_output=True, text=True, timeout=30, check=False)
    assert checked.returncode == 0 and "syntax is ok" in checked.stderr, checked.stderr


@pytest.mark.parametrize(("count", "per_process"), [(1, 1), (4, 1), (8, 2)])
def test_the_discord_shards_file_runs_every_shard_once_without_telegram(count: int, per_process: int) -> None:
    yaml = pytest.importorskip("yaml")
    from deploy.discord_shards import shards_file

    services = yaml.safe_load(shards_file(count, per_process))["services"]
    assert len(services) == count // per_process
    ids = [int(shard) for service in services.values()
           for shard in service["environment"]["DISCORD_SHARD_IDS"].split(",")]
    assert sorted(ids) == list(range(count))
    for service in services.values():
        assert service["environment"]["DISCORD_SHARD_COUNT"] == str(count)
        assert service["environment"]["TELEGRAM_TOKEN"] == "" and service["profiles"] == ["scaled"]
        assert service["restart"] == "unless-stopped"
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    with pytest.raises(ValueError):
        shards_file(3, 2)
