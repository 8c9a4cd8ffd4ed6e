"""The promise of the daily deal: one code per UTC date, the same in every process and every version."""

from __future__ import annotations

import datetime as dt

import pytest

from bot.app.daily import daily_code


@pytest.mark.parametrize(("day", "code"), [
    ("2026-01-01", "TP1-E-ZLPCPGZ"), ("2026-11-29", "TP1-E-ARLEYAR"), ("2026-12-01", "TP1-E-ADNGGSV"),
    ("2027-02-28", "TP1-E-HSMUPQW"), ("2030-06-15", "TP1-E-KORLKEC")])
def test_a_date_has_the_same_daily_deal_forever(day: str, code: str) -> None:
    """Golden values, with the real solver: a change here would give players of different versions different
    deals on the same day."""
    assert str(daily_code(dt.date.fromisoformat(day))) == code
