"""What is the deployment's own: the secret every daily code depends on (migration 0007 generates it)."""

from __future__ import annotations

import secrets

from sqlalchemy import insert, select

from bot.store.engine import Transaction, conflict_insert
from bot.store.schema import deployment

DAILY_SECRET = "daily_secret"


async def daily_secret(tx: Transaction) -> str:
    """The deployment's daily secret; one is generated if the row was ever lost (the first writer's is kept)."""
    query = select(deployment.c.value).where(deployment.c.name == DAILY_SECRET)
    found = (await tx.execute(query)).scalar_one_or_none()
    if found is not None:
        return str(found)
    values = {"name": DAILY_SECRET, "value": secrets.token_hex(32)}
    if tx.dialect.name in ("postgresql", "sqlite"):
        await tx.execute(conflict_insert(tx, deployment).values(**values).on_conflict_do_nothing())
    else:
        await tx.execute(insert(deployment).values(**values))
    return str((await tx.execute(query)).scalar_one())
