"""The SDK's random bot, slowed down so a test can disconnect it mid-match."""

from __future__ import annotations

import asyncio
from typing import Any

from arenabot.examples.random_bot import RandomBot


class SlowRandomBot(RandomBot):
    """:class:`RandomBot` that takes 20 ms per decision."""

    async def decide(self, request: Any) -> int | str:  # type: ignore[override]
        await asyncio.sleep(0.02)
        return super().decide(request)  # type: ignore[no-any-return]
