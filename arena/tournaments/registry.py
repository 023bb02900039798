"""The registry of tournament formats: ``tournament.format`` name -> format class.

A format module registers its classes when it is imported
(:func:`arena.tournaments.rounds.register_format`); the built-in modules are
imported on first need (:data:`BUILTIN_MODULES`). The registry imports none of
them by name, so the configuration (which checks ``tournament.format`` against
:func:`format_names`) and the standings (which ask a format for its own table)
sit below the formats instead of importing them back.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["BUILTIN_MODULES", "register", "unregister", "format_names", "format_class", "sections", "build"]

_REGISTRY: dict[str, type[Any]] = {}
BUILTIN_MODULES: tuple[str, ...] = ("arena.tournaments.rounds", "arena.tournaments.swiss",
                                    "arena.tournaments.ladder")
"""Modules whose import registers formats (a new format module adds itself here)."""


def register(name: str, cls: type[Any]) -> None:
    """Register ``cls`` under ``tournament.format = name``."""
    _REGISTRY[name] = cls


def unregister(name: str) -> None:
    """Remove a registered format (tests that register their own)."""
    _REGISTRY.pop(name, None)


def _load() -> None:
    for module in BUILTIN_MODULES:
        importlib.import_module(module)


def format_names() -> list[str]:
    """Registered format names, in registration order (the built-in ones first)."""
    _load()
    return list(_REGISTRY)


def format_class(name: str) -> type[Any]:
    """The class registered under ``name``.

    :raises ValueError: for an unregistered format name.
    """
    _load()
    cls = _REGISTRY.get(name)
    if cls is None:
        raise ValueError(f"unknown tournament format {name!r}; known: {', '.join(_REGISTRY)}")
    return cls


def sections() -> dict[str, str]:
    """Every registered format's own TOML table (its class's ``section``) -> the format's
    name: the tables a tournament file may hold besides ``[tournament]`` and
    ``[[entrants]]``, each only with its own format."""
    _load()
    return {cls.section: name for name, cls in _REGISTRY.items() if getattr(cls, "section", None)}


def build(config: Any) -> Any:
    """The format object of ``config`` (an instance of its registered class).

    :raises ValueError: for an unregistered format name.
    """
    return format_class(config.format)(config)
