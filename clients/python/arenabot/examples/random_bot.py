"""A bot for any game: a uniformly random legal action.

Run: ``python -m arenabot --bot random --target 127.0.0.1:50051 --token $TOKEN``.
"""

from __future__ import annotations

import random

from arenabot.bot import Bot


class RandomBot(Bot):
    """Chooses uniformly among the listed legal actions (answers with the id when
    the game has ids, else with the canonical text)."""

    name = "random-py"
    version = "0.1.0"

    def __init__(self, seed: int | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rng = random.Random(seed)

    def decide(self, request):  # type: ignore[no-untyped-def]
        choice = self.rng.choice(request.legal_actions)
        return choice.id if choice.HasField("id") else choice.text
