"""Match specs: what a tournament's format yields and what a worker plays.

A :class:`MatchSpec` names everything needed to play one match and nothing that
depends on where it runs: the game and its options, the seed (derived from the
tournament seed and the deal), the bot at each seat and the deadline. Its
``match_id`` is stable (``"<tournament_id>:<index:06d>"``), so a retried or
re-delivered match writes the same row, exactly once.

Bot references (``bots``) are ``"<kind>:<name>"``: ``"builtin:<name>"`` for a
built-in bot (``arena.bots.make_bot``), ``"remote:<bot_id>"`` for an external bot
reached through the gateway, ``"bluechip:<team>"`` for Blue Chip robots (every kind:
:mod:`arena.tournaments.routes`). ``entrants`` names the tournament entrant at each seat (the
same entrant may hold several seats, e.g. both seats of a partnership).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["MatchSpec", "make_match_id", "parse_bot_ref"]


def make_match_id(tournament_id: str, index: int) -> str:
    """The stable id of the ``index``-th match of a tournament."""
    return f"{tournament_id}:{index:06d}"


def parse_bot_ref(ref: str) -> tuple[str, str]:
    """``(kind, name)`` of a bot reference ``<kind>:<name>`` (the kinds, and what each
    reaches: :mod:`arena.tournaments.routes`).

    :raises ValueError: for any other form.
    """
    kind, sep, name = ref.partition(":")
    if not sep or not kind.isidentifier() or not name:
        raise ValueError(f"bot reference {ref!r} must be '<kind>:<name>' ('builtin:<name>', "
                         "'remote:<bot id>' or 'bluechip:<team>')")
    return kind, name


@dataclass(frozen=True)
class MatchSpec:
    """One match to play; see the module docstring."""

    match_id: str
    tournament_id: str
    index: int
    game: str
    preset: str | None
    options: dict[str, Any]
    seed: int
    entrants: tuple[str, ...]
    """Entrant id at each seat."""
    bots: tuple[str, ...]
    """Bot reference at each seat (``builtin:<name>`` or ``remote:<bot_id>``)."""
    init: dict[str, Any] = field(default_factory=dict)
    """Extra ``new_initial_state`` arguments (bridge: ``{"board": n}``)."""
    deal: int = 0
    """Index of the seeded deal (the duplicate group: same deal, same cards)."""
    rotation: int = 0
    """Which seating of the deal this is."""
    table: int = 0
    """Which table (entrant combination) of the tournament."""
    deadline_ms: float = 10_000.0
    tags: dict[str, Any] = field(default_factory=dict)
    round: int = 0
    """Which round of the tournament's format (0: the first; one-round formats
    have only round 0)."""
    max_retries: int | None = None
    """Further attempts after a refused action (the tournament's ``max_retries``);
    ``None``: the game's rule (rummy and auction: none, a refused play is a pass)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (``round`` only when it is not 0 and ``max_retries`` only
        when set, so specs read exactly as those stored before these existed)."""
        d = asdict(self)
        d["entrants"] = list(self.entrants)
        d["bots"] = list(self.bots)
        if not self.round:
            del d["round"]
        if self.max_retries is None:
            del d["max_retries"]
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSpec:
        """Inverse of :meth:`to_dict`."""
        data = dict(data)
        data["entrants"] = tuple(data["entrants"])
        data["bots"] = tuple(data["bots"])
        return cls(**data)
