"""The arena's web dashboard (``arena serve``'s pages): :func:`create_app`.

Run it with ``python -m arena.dashboard --store URL --port N``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["create_app"]

if TYPE_CHECKING:
    from fastapi import FastAPI


def create_app(store_url: str, *, readonly: bool = False) -> FastAPI:
    """The dashboard app on a store (see :mod:`arena.dashboard.app`)."""
    from arena.dashboard.app import create_app as _create

    return _create(store_url, readonly=readonly)

