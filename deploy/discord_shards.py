"""Discord's shards as Compose services, one process each: ``python3 deploy/discord_shards.py N`` prints a Compose
file with ``discord-shard-0`` ... ``discord-shard-<N-1>``, each running shard i of N (``DISCORD_SHARD_COUNT``,
``DISCORD_SHARD_IDS``) on the PostgreSQL database of docker-compose.yml's ``scaled`` profile, without Telegram (the
webhook processes run it). Use it beside the main file::

    python3 deploy/discord_shards.py 4 > docker-compose.shards.yml
    docker compose -f docker-compose.yml -f docker-compose.shards.yml up -d

Changing N means every shard restarts with the new count (Discord hands the guilds out again): run it with the new
N and ``up -d`` again; ``--remove-orphans`` removes the shards past it. ``--per-process K`` runs K shards in each
process (N must be a multiple of K). Standard library only: it runs on the host, outside the bot's environment."""

from __future__ import annotations

import argparse
import json


def shards_file(count: int, per_process: int = 1) -> str:
    """The Compose file (YAML; JSON is YAML) for ``count`` shards, ``per_process`` in each process."""
    if count < 1 or per_process < 1 or count % per_process:
        raise ValueError("the shard count must be a positive multiple of the shards per process")
    services = {}
    for first in range(0, count, per_process):
        ids = ",".join(str(shard) for shard in range(first, first + per_process))
        services[f"discord-shard-{first}"] = {
            "build": ".",
            "env_file": ".env",
            "restart": "unless-stopped",
            "profiles": ["scaled"],
            "healthcheck": {"test": ["CMD", "tripeaks", "health"], "interval": "30s", "timeout": "10s",
                            "retries": 3, "start_period": "60s"},
            "environment": {
                "DATABASE_URL": "postgresql+asyncpg://tripeaks:tripeaks@postgres:5432/tripeaks",
                "HEARTBEAT_FILE": "/tmp/tripeaks-heartbeat",
                "TELEGRAM_TOKEN": "",
                "DISCORD_SHARD_COUNT": str(count),
                "DISCORD_SHARD_IDS": ids,
            },
            "depends_on": {"migrate": {"condition": "service_completed_successfully"}},
        }
    header = f"# {count} Discord shard(s), {per_process} a process: made by deploy/discord_shards.py\n"
    return header + json.dumps({"services": services}, indent=2) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("count", type=int, help="DISCORD_SHARD_COUNT: Discord requires one shard per 2,500 guilds")
    parser.add_argument("--per-process", type=int, default=1, help="shards each process runs")
    args = parser.parse_args()
    try:
        print(shards_file(args.count, args.per_process), end="")
    except ValueError as error:
        parser.error(str(error))


if __name__ == "__main__":
    main()
