"""``python -m arenabot``: run a bot against an arena gateway.

Examples::

    python -m arenabot --target 127.0.0.1:50051 --token "$ARENA_BOT_TOKEN" --bot random
    python -m arenabot --bot mypackage.mybot:MyBot --max-concurrent 8
    python -m arenabot --target arena.example.org:443 --tls --token "$ARENA_BOT_TOKEN"
    python -m arenabot --target localhost:50051 --ca-file gateway-cert.pem --token ...

Exit status: 0 when stopped (or, with ``--no-reconnect``, when an accepted stream
ends), 1 when it never got in (``--no-reconnect``: the gateway not reachable, a
TLS handshake that failed, plaintext against a TLS gateway; one line on stderr
says why), 2 when the arena refused the bot (a bad token) or an argument is wrong,
130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from arenabot.bot import EVENT_LOOPS, Bot, BotStopped, NotConnected, event_loop_factory, tls_credentials

BUILTIN = {"random": "arenabot.examples.random_bot:RandomBot"}


def load_bot_class(spec: str) -> type[Bot]:
    """``random`` or ``module:Class``."""
    spec = BUILTIN.get(spec, spec)
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise SystemExit(f"--bot must be 'random' or 'module:Class', got {spec!r}")
    cls = getattr(importlib.import_module(module_name), attr)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise SystemExit(f"{spec} is not an arenabot.Bot subclass")
    return cls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arenabot", description=__doc__.split("\n")[0])
    parser.add_argument("--target", default=os.environ.get("ARENA_TARGET", "127.0.0.1:50051"),
                        help="gateway host:port (default $ARENA_TARGET or 127.0.0.1:50051)")
    parser.add_argument("--token", default=os.environ.get("ARENA_BOT_TOKEN", ""),
                        help="bot token (default $ARENA_BOT_TOKEN)")
    parser.add_argument("--bot", default="random", help="'random' or module:Class")
    parser.add_argument("--max-concurrent", type=int, default=1)
    parser.add_argument("--no-reconnect", action="store_true",
                        help="exit when the stream ends (status 1, with the reason, if the arena "
                             "never accepted it)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the random bot")
    parser.add_argument("--event-loop", choices=EVENT_LOOPS,
                        default=os.environ.get("ARENABOT_EVENT_LOOP", "auto"),
                        help="auto (uvloop when installed), asyncio or uvloop "
                             "(default $ARENABOT_EVENT_LOOP or auto)")
    parser.add_argument("--tls", action="store_true",
                        help="connect over TLS, trusting the system's root certificates")
    parser.add_argument("--ca-file", default=None,
                        help="connect over TLS, trusting this PEM certificate (a CA or the gateway's "
                             "self-signed certificate)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        event_loop_factory(args.event_loop)
    except RuntimeError as exc:  # uvloop asked for and not installed
        print(f"arenabot: {exc}", file=sys.stderr)
        return 2
    cls = load_bot_class(args.bot)
    kwargs = {"max_concurrent": args.max_concurrent}
    if args.seed is not None:
        kwargs["seed"] = args.seed
    bot = cls(**kwargs)
    try:
        credentials = tls_credentials(args.ca_file) if args.tls or args.ca_file else None
    except OSError as exc:
        print(f"arenabot: cannot read --ca-file: {exc}", file=sys.stderr)
        return 2
    try:
        bot.run(args.target, args.token, reconnect=not args.no_reconnect, event_loop=args.event_loop,
                credentials=credentials)
    except BotStopped as exc:
        print(f"arenabot: {exc}", file=sys.stderr)
        return 2
    except NotConnected as exc:  # --no-reconnect and never accepted: say why, not exit 0
        print(f"arenabot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
