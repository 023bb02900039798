"""Double-dummy solving for the search bots, through endplay's DDS bindings.

endplay (https://github.com/dominicprice/endplay) ships Bo Haglund and Soren
Hein's DDS as a compiled library with ctypes bindings. It is an optional
dependency of arena, the ``search`` extra (``pip install 'arena[search]'``):
:func:`require_endplay` raises :class:`SearchDependencyError`, which says so,
when it is missing. Nothing else in arena imports endplay at module level.

Cards here are arena's card ids (``suit * 13 + rank``, suits C D H S = 0..3,
ranks 2..A = 0..12) and hands are 52-bit masks of them (bit ``id``). The
adapter fills DDS's ``deal`` struct (``remainCards[hand][suit]`` with DDS suits
S H D C = 0..3 and rank bits 2..14, ``currentTrickSuit/Rank``, ``first``,
``trump`` with 4 = no trump) directly: building an endplay ``Deal`` from text
would cost more than a late-trick solve. That struct is DDS's C API, which
endplay mirrors unchanged; the version range of the extra pins it.

>>> solve([1 << 51, 1 << 50, 1 << 49, 1 << 48], trump=-1, leader=0, trick=[])
{51: 1}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["SearchDependencyError", "require_endplay", "solve", "available"]


class SearchDependencyError(ImportError):
    """A search bot needs a package that is not installed."""


_DDS: Any = None
_MASK13 = (1 << 13) - 1


def require_endplay() -> Any:
    """endplay's DDS module (``endplay._dds``), imported once.

    The first import also solves a one-card deal: DDS allocates its memory on the
    first solve (seconds on this machine), which must not land in a timed decision.

    :raises SearchDependencyError: when endplay is not installed, with the
        command that installs it.
    """
    global _DDS
    if _DDS is None:
        try:
            import endplay._dds as dds  # the compiled DDS library and its ctypes structs
        except ImportError as exc:
            raise SearchDependencyError(
                "the bridge 'pimc' bot solves deals double dummy with endplay's DDS, which is "
                "not installed: pip install 'arena[search]' (or pip install 'endplay>=0.5.12,<0.6')"
            ) from exc
        _DDS = dds
        solve([1 << 51, 1 << 50, 1 << 49, 1 << 48], trump=-1, leader=0, trick=[])
    return _DDS


def available() -> bool:
    """Whether endplay can be imported."""
    try:
        require_endplay()
    except SearchDependencyError:
        return False
    return True


def solve(hands: Sequence[int], trump: int, leader: int, trick: Sequence[int]) -> dict[int, int]:
    """Tricks the side to play wins from here on (the trick in progress included),
    for each legal card of the hand to play.

    :param hands: the four hands' remaining cards as masks, by seat (N E S W);
        the cards of the trick in progress are *not* in them.
    :param trump: 0..3 (C D H S) or -1 for no trump.
    :param leader: seat that led the trick in progress (or leads the next one).
    :param trick: cards already played to the trick in progress, in order (0..3).
    :raises SearchDependencyError: without endplay.
    """
    dds = require_endplay()
    dl = dds.deal()
    dl.trump = 4 if trump < 0 else 3 - trump
    dl.first = leader
    for i, c in enumerate(trick):
        dl.currentTrickSuit[i] = 3 - c // 13
        dl.currentTrickRank[i] = c % 13 + 2
    for seat in range(4):
        h = hands[seat]
        row = dl.remainCards[seat]
        for s in range(4):
            row[3 - s] = ((h >> (13 * s)) & _MASK13) << 2
    fut = dds.futureTricks()
    dds.SolveBoard(dl, -1, 3, 1, fut, 0)
    out: dict[int, int] = {}
    for i in range(fut.cards):
        score = fut.score[i]
        if score < 0:
            continue
        suit = 3 - fut.suit[i]
        holding = (1 << fut.rank[i]) | fut.equals[i]
        for r in range(2, 15):
            if holding >> r & 1:
                out[suit * 13 + r - 2] = score
    return out
