"""The gateway's event loop: uvloop when installed, else asyncio's own.

Every decision that crosses the gateway costs several loop turns (the Redis pull,
the session's outbox, the gRPC read and write, the reply). uvloop (libuv, from
MagicStack, used by uvicorn) runs them with less CPU than asyncio's pure-Python
loop: measured on the remote route with ``tests/benchmarks/bench_remote_route.py``
(see ``deploy/README.md``). grpc.aio runs on any asyncio-compatible loop; the
gateway's test suite runs on both (``ARENA_GATEWAY_EVENT_LOOP``).

>>> event_loop_factory("asyncio") is asyncio.new_event_loop
True
>>> event_loop_factory("tokio")
Traceback (most recent call last):
...
ValueError: event loop must be one of auto, asyncio, uvloop; got 'tokio'
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

__all__ = ["EVENT_LOOPS", "event_loop_factory"]

EVENT_LOOPS = ("auto", "asyncio", "uvloop")
"""Accepted values of ``GatewayConfig.event_loop`` / ``arena serve --event-loop``."""


def event_loop_factory(kind: str = "auto") -> Callable[[], asyncio.AbstractEventLoop]:
    """What creates the gateway's loop: ``uvloop``, ``asyncio``, or ``auto`` (uvloop
    when it can be imported, else asyncio).

    :raises ValueError: for an unknown kind.
    :raises RuntimeError: for ``uvloop`` when it is not installed.
    """
    if kind not in EVENT_LOOPS:
        raise ValueError(f"event loop must be one of {', '.join(EVENT_LOOPS)}; got {kind!r}")
    if kind != "asyncio":
        try:
            import uvloop
        except ImportError:
            if kind == "uvloop":
                raise RuntimeError("uvloop is not installed (pip install uvloop)") from None
        else:
            factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
            return factory
    return asyncio.new_event_loop
