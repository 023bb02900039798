"""A deterministic SDK bot: always the first legal action (its decisions do not
depend on timing or on which process answers)."""

from __future__ import annotations

from typing import Any

from arenabot.examples.random_bot import RandomBot


class FirstActionBot(RandomBot):
    """Answers every request with its first legal action."""

    def decide(self, request: Any) -> int | str:  # type: ignore[override]
        first = request.legal_actions[0]
        return int(first.id) if first.HasField("id") else str(first.text)


class SlowFirstActionBot(FirstActionBot):
    """:class:`FirstActionBot` taking 20 ms per decision (so a fault finds requests in flight)."""

    async def decide(self, request: Any) -> int | str:  # type: ignore[override]
        import asyncio

        await asyncio.sleep(0.02)
        return super().decide(request)
