"""Answers to solver questions kept for every process of a deployment (``kept_answers``): a text under a key, until
it expires. Expired rows are read as missing and swept now and then (:func:`sweep`), so the table holds at most the
answers of the last :data:`bot.app.questions.ANSWER_SECONDS`."""

from __future__ import annotations

from sqlalchemy import delete, select

from bot.store.engine import Transaction, conflict_insert
from bot.store.schema import kept_answers


async def answer(tx: Transaction, key: str, now: float) -> str | None:
    """The answer kept under ``key``, unless it expired by ``now``."""
    found = await tx.execute(select(kept_answers.c.answer).where(kept_answers.c.key == key,
                                                                 kept_answers.c.expires > now))
    return found.scalar()


async def keep(tx: Transaction, key: str, text: str, expires: float) -> None:
    """Keep ``text`` under ``key`` until ``expires`` (replacing what was there: the same question's answer)."""
    statement = conflict_insert(tx, kept_answers).values(key=key, answer=text, expires=expires)
    await tx.execute(statement.on_conflict_do_update(
        index_elements=["key"], set_={"answer": statement.excluded.answer, "expires": statement.excluded.expires}))


async def sweep(tx: Transaction, now: float) -> int:
    """Drop the answers expired by ``now``; how many."""
    return (await tx.execute(delete(kept_answers).where(kept_answers.c.expires <= now))).rowcount
