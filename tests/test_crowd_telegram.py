"""A crowd at the table on Telegram (issue 39): a flood of one account's inline queries past its share is told once
when to try again, then not answered at all (no request to Telegram), while another user's are answered."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.app.questions import ASKS_BURST
from tests.fakes.telegram_bot_api import FakeBotAPI
from tests.test_telegram_e2e import HANDLED, db_url, running_bot  # noqa: F401  (db_url: a fixture)

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def api() -> AsyncIterator[FakeBotAPI]:
    HANDLED.clear()
    async with FakeBotAPI(supports_inline_queries=True) as server:
        yield server


async def test_on_telegram_inline_queries_past_the_share_are_told_once_then_not_answered(
        api: FakeBotAPI, db_url: str) -> None:  # noqa: F811
    async with running_bot(api, db_url) as service:
        service.questions.clock = lambda: 100.0  # no time passes: nothing refills
        mallory = api.user("Mallory")
        flood = [api.inline_query(mallory, "") for _ in range(ASKS_BURST + 3)]
        await api.wait_until(lambda: all(query.update["update_id"] in HANDLED for query in flood),
                             what="every inline query handled")
        answers = [query.record.answer for query in flood]
        offered = [answer for answer in answers if answer is not None and answer.results]
        told = [answer for answer in answers if answer is not None and not answer.results]
        assert (len(offered), len(told), answers.count(None)) == (ASKS_BURST, 1, 2)
        # another user's inline query is answered with their offers all the same
        assert (await api.inline_query(api.user("Bob"), "").answer()).results
