"""A bot written against the generated protocol stubs only (``arena.bot.v1.bot_pb2``
and ``bot_pb2_grpc``, generated from ``proto/arena/bot/v1/``): no SDK, nothing else
of arena. It is the second bot of the soak drill (:mod:`drills.drill_soak`), standing
for a bot author who had nothing but the ``.proto`` files.

What it does, as ``proto/arena/bot/v1/bot.proto`` documents the session:

* one ``BotService.Connect`` stream; the first message is a ``Hello`` with the
  token, the program name and version, no game list (any game) and
  ``max_concurrent_decisions`` (``--max-concurrent``);
* ``Welcome``: the session is accepted (the granted concurrency is kept);
* ``DecisionRequest``: answered at once with a ``Decision`` carrying the same
  ``request_id`` and one of the listed legal actions, its ``action_id`` when it has
  one, else its ``action_text``;
* ``Ping``: answered with a ``Pong`` of the same nonce;
* ``DecisionError``: counted and written to stderr; when ``retry_allowed`` the
  arena sends a new request (``attempt`` + 1), which is answered like any other;
* ``MatchStarted`` / ``MatchEnded``: counted;
* the stream ending: UNAUTHENTICATED, INVALID_ARGUMENT, PERMISSION_DENIED and
  UNIMPLEMENTED stop the bot (exit 2, one line on stderr: connecting again would
  be refused again); ABORTED (a newer stream of the same bot replaced this one)
  stops it too (exit 1): another process plays as this bot now. Anything else
  (the gateway not up yet, restarted, UNAVAILABLE, RESOURCE_EXHAUSTED) is retried
  with exponential backoff from 0.1 s to 5 s, reset after each ``Welcome``.

The choice is deterministic: a function of the request's contents that do not
depend on timing (seat, attempt, the legal actions' texts and the observation, not
the request id or the deadline): index ``crc32(salt | seat | attempt | texts |
observation) mod len(legal_actions)``. The same match played twice gets the same
actions, which is what lets the drill compare its records with an embedded run.

SIGTERM and SIGINT end the stream and the process (exit 0) after printing the
counters on stderr. ``--give-up-after S``: exit 1 if no stream was accepted for
``S`` seconds in a row (0: never), so that a bot left behind does not retry forever.

Usage::

    python tests/drills/stub_bot.py --target 127.0.0.1:50051 --token "$TOKEN"
"""

from __future__ import annotations

import argparse
import queue
import signal
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from typing import Any

import grpc

from arena.bot.v1 import bot_pb2, bot_pb2_grpc

FATAL = {grpc.StatusCode.UNAUTHENTICATED: 2, grpc.StatusCode.INVALID_ARGUMENT: 2,
         grpc.StatusCode.PERMISSION_DENIED: 2, grpc.StatusCode.UNIMPLEMENTED: 2,
         grpc.StatusCode.ABORTED: 1}
"""Stream endings after which connecting again is pointless, with the exit code."""


def choose(request: bot_pb2.DecisionRequest, salt: bytes = b"stub") -> bot_pb2.Decision:
    """The answer to ``request``: a listed legal action picked by a hash of the
    request's timing-free contents (see the module docstring)."""
    legal = request.legal_actions
    kind = request.WhichOneof("observation")
    observation = getattr(request, kind).SerializeToString(deterministic=True) if kind else b""
    key = b"|".join([salt, str(request.seat).encode(), str(request.attempt).encode(),
                     "\x1f".join(a.text for a in legal).encode(), observation])
    action = legal[zlib.crc32(key) % len(legal)]
    if action.HasField("id"):
        return bot_pb2.Decision(request_id=request.request_id, action_id=action.id)
    return bot_pb2.Decision(request_id=request.request_id, action_text=action.text)


class StubBot:
    """One bot process: sessions one after another until stopped or refused."""

    def __init__(self, target: str, token: str, max_concurrent: int, give_up_after: float) -> None:
        self.target, self.token = target, token
        self.max_concurrent, self.give_up_after = max_concurrent, give_up_after
        self.stopping = threading.Event()
        self.call: Any = None
        """The stream in progress (a grpc call: cancel() ends it)."""
        self.counts = {"sessions": 0, "decisions": 0, "errors": 0, "pings": 0, "started": 0, "ended": 0}

    def stop(self) -> None:
        self.stopping.set()
        call = self.call
        if call is not None:
            call.cancel()

    def run(self) -> int:
        delay, last_welcome = 0.1, time.monotonic()
        while not self.stopping.is_set():
            welcomed, code, details = self.session()
            if self.stopping.is_set():
                return 0
            if code in FATAL:
                print(f"stub_bot: stream refused: {code.name}: {details}", file=sys.stderr)
                return FATAL[code]
            if welcomed:
                delay, last_welcome = 0.1, time.monotonic()
            elif self.give_up_after and time.monotonic() - last_welcome > self.give_up_after:
                print(f"stub_bot: no session accepted for {self.give_up_after:.0f} s "
                      f"(last: {code.name if code else 'none'}: {details})", file=sys.stderr)
                return 1
            self.stopping.wait(delay)
            delay = min(5.0, delay * 2)
        return 0

    def session(self) -> tuple[bool, grpc.StatusCode | None, str]:
        """One stream until it ends: (whether a Welcome came, the status code, its details)."""
        outbox: queue.SimpleQueue[bot_pb2.BotMessage | None] = queue.SimpleQueue()

        def outgoing() -> Iterator[bot_pb2.BotMessage]:
            while (message := outbox.get()) is not None:
                yield message

        outbox.put(bot_pb2.BotMessage(hello=bot_pb2.Hello(
            token=self.token, bot_name="soak-stub-bot", bot_version="1",
            max_concurrent_decisions=self.max_concurrent)))
        welcomed = False
        with grpc.insecure_channel(self.target) as channel:
            call = bot_pb2_grpc.BotServiceStub(channel).Connect(outgoing())
            self.call = call
            if self.stopping.is_set():
                call.cancel()
            try:
                for message in call:
                    kind = message.WhichOneof("kind")
                    if kind == "decision_request":
                        outbox.put(bot_pb2.BotMessage(decision=choose(message.decision_request)))
                        self.counts["decisions"] += 1
                    elif kind == "ping":
                        outbox.put(bot_pb2.BotMessage(pong=bot_pb2.Pong(nonce=message.ping.nonce)))
                        self.counts["pings"] += 1
                    elif kind == "welcome":
                        welcomed = True
                        self.counts["sessions"] += 1
                    elif kind == "decision_error":
                        error = message.decision_error
                        self.counts["errors"] += 1
                        print(f"stub_bot: decision {error.request_id} refused "
                              f"({bot_pb2.DecisionErrorCode.Name(error.code)}, retry "
                              f"{'allowed' if error.retry_allowed else 'not allowed'}): {error.reason}",
                              file=sys.stderr, flush=True)
                    elif kind == "match_started":
                        self.counts["started"] += 1
                    elif kind == "match_ended":
                        self.counts["ended"] += 1
                return welcomed, grpc.StatusCode.OK, ""
            except grpc.RpcError as exc:
                return welcomed, exc.code(), exc.details() or ""
            finally:
                self.call = None
                outbox.put(None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="127.0.0.1:50051", help="gateway host:port")
    ap.add_argument("--token", required=True, help="the bot's token (arena bots register)")
    ap.add_argument("--max-concurrent", type=int, default=64, help="Hello.max_concurrent_decisions (1..1024)")
    ap.add_argument("--give-up-after", type=float, default=0.0,
                    help="exit 1 after this many seconds without an accepted stream (0: never)")
    args = ap.parse_args(argv)
    if not 1 <= args.max_concurrent <= 1024:
        ap.error("--max-concurrent must be 1..1024")
    bot = StubBot(args.target, args.token, args.max_concurrent, args.give_up_after)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: bot.stop())
    code = bot.run()
    print("stub_bot: " + ", ".join(f"{k} {v}" for k, v in bot.counts.items()), file=sys.stderr, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
