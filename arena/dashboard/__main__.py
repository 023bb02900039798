"""``python -m arena.dashboard --store URL --port N``: serve the dashboard with uvicorn."""

from __future__ import annotations

import argparse
import os


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m arena.dashboard", description="arena web dashboard")
    p.add_argument("--store", default=os.environ.get("ARENA_STORE_URL", "sqlite:///arena.db"),
                   help="store URL (default $ARENA_STORE_URL or sqlite:///arena.db)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--log-level", default="warning")
    args = p.parse_args(argv)

    import uvicorn

    from arena.dashboard import create_app
    from arena.store.engine import StoreURLError

    try:  # a viewer: the store is opened read-only (nothing created or migrated)
        app = create_app(args.store, readonly=True)
    except StoreURLError as exc:
        p.exit(2, f"{p.prog}: error: {exc}\n")
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
