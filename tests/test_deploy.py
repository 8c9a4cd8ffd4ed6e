"""The Docker files as far as this machine can check them without a Docker engine: the compose file's healthcheck
goes over TCP, no bot service restarts without end, the second process is a Discord shard without Telegram, and the
build context leaves out the local environment, data and secrets. (`docker compose config` needs the compose
plugin; the file is also parsed as YAML when PyYAML is there.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COMPOSE = (REPO / "docker-compose.yml").read_text()


def test_the_postgres_healthcheck_asks_over_tcp() -> None:
    assert '"pg_isready", "-h", "127.0.0.1", "-U", "tripeaks", "-d", "tripeaks"' in COMPOSE


def test_no_bot_restarts_in_a_loop_and_no_scaling_of_one_service() -> None:
    assert "unless-stopped" not in COMPOSE.split("services:")[0]  # the bots' shared settings
    assert re.search(r"^  restart: on-failure:\d+$", COMPOSE, re.M)
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
    assert all(services[name]["restart"] == "on-failure:3" for name in ("bot", "bot-pg", "bot-pg-shard-1"))


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
    port = "${TELEGRAM_WEBHOOK_PORT:-8443}"
    for name in ("bot", "bot-pg"):  # the processes that may run Telegram
        assert services[name]["ports"] == [f"127.0.0.1:{port}:{port}"], name
    assert "ports" not in services["bot-pg-shard-1"]  # no Telegram there
    readme = (REPO / "README.md").read_text()
    compose_part = readme.split("### Docker Compose")[1].split("\n## ")[0]
    assert "reverse proxy" in compose_part and "TLS" in compose_part and "127.0.0.1" in compose_part
