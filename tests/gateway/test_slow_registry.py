"""A slow bot registry (the store across a network) must not stall the gateway:
a bot connecting while its token is being checked leaves the decisions of the
bots already connected flowing."""

from __future__ import annotations

import threading
import time
from typing import Any

from arena.bots.base import MatchInfo
from arena.gateway import Gateway
from arena.store.registry import InMemoryRegistry
from arena.testing.toy import HighcardGame

from gateway.helpers import BotThread  # noqa: I001 - tests/ is on sys.path (package tests)
from arenabot import RandomBot


class SlowRegistry(InMemoryRegistry):
    """Checks tokens in ``delay`` seconds (after ``slow`` is set)."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.slow = threading.Event()
        self.checking = threading.Event()

    def authenticate(self, token: str) -> Any:
        if self.slow.is_set():
            self.checking.set()
            time.sleep(self.delay)
        return super().authenticate(token)


def test_a_slow_token_check_does_not_stall_connected_bots() -> None:
    registry = SlowRegistry(delay=1.5)
    with Gateway("127.0.0.1:0", registry=registry) as gw:
        _, fast_token = registry.register("fast")
        _, slow_token = registry.register("late")
        fast = BotThread(RandomBot(seed=1), gw.target, fast_token).start()
        late: BotThread | None = None
        try:
            assert gw.wait_connected("fast", 10)
            agent = gw.agent("fast")
            agent.start_match(MatchInfo(match_id="m", game="highcard", seat=0, num_players=2,
                                        deadline_ms=5000))
            state = HighcardGame().new_initial_state(seed=1)
            obs, legal = state.observation(0), state.legal_actions()
            registry.slow.set()
            late = BotThread(RandomBot(seed=2), gw.target, slow_token).start()
            assert registry.checking.wait(5), "the late bot's token was never checked"
            start = time.monotonic()
            times = []
            while time.monotonic() - start < 1.0:  # within the 1.5 s token check
                t = time.monotonic()
                assert agent.act(obs, legal) in legal
                times.append(time.monotonic() - t)
            assert len(times) >= 20 and max(times) < 0.5, (len(times), max(times))
            assert not gw.is_connected("late")  # still being checked
            assert gw.wait_connected("late", 5)
        finally:
            fast.stop()
            if late is not None:
                late.stop()
