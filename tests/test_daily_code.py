"""The promise of the daily deal: one code per UTC date and deployment secret, the same in every process and every
version; and a secret of the deployment's own, so no one without its database can compute a day's deal."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.app.daily import daily_code

#: A fixed secret for the golden values (a deployment's own is generated in its database: migration 0007).
TEST_SECRET = "test-secret"


@pytest.mark.parametrize(("day", "code"), [
    ("2026-01-01", "TP1-E-ARHNEPN"), ("2026-11-29", "TP1-E-UZJQVTE"), ("2026-12-01", "TP1-E-PFJNSIC"),
    ("2027-02-28", "TP1-E-OWWSEZS"), ("2030-06-15", "TP1-E-SDOMQCQ")])
def test_a_date_has_the_same_daily_deal_forever(day: str, code: str) -> None:
    """Golden values, with the real solver: a change here would give players of different versions different
    deals on the same day."""
    assert str(daily_code(dt.date.fromisoformat(day), TEST_SECRET)) == code


def test_another_deployments_secret_gives_other_deals() -> None:
    days = [dt.date(2026, 12, 2) + dt.timedelta(days=n) for n in range(3)]
    assert [daily_code(day, TEST_SECRET) for day in days] != [daily_code(day, "another-secret") for day in days]
