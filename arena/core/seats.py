"""Seats.

Seats are integers ``0 .. n-1``; play passes to seat ``(i + 1) mod n``. Four-seat
partnership games name them with bridge words through :class:`Seat`
(N=0, E=1, S=2, W=3; partners are two apart).

>>> Seat.N.lho, Seat.N.partner, Seat.N.rho
(<Seat.E: 1>, <Seat.S: 2>, <Seat.W: 3>)
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Seat", "next_seat"]


def next_seat(seat: int, n: int, k: int = 1) -> int:
    """The seat ``k`` places after ``seat`` at a table of ``n``."""
    return (seat + k) % n


class Seat(IntEnum):
    """A seat at a four-handed table, in play order."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def lho(self) -> Seat:
        """Left-hand opponent: the next seat in play order."""
        return Seat((self + 1) % 4)

    @property
    def partner(self) -> Seat:
        """The seat opposite."""
        return Seat((self + 2) % 4)

    @property
    def rho(self) -> Seat:
        """Right-hand opponent: the previous seat in play order."""
        return Seat((self + 3) % 4)

    def next(self, k: int = 1) -> Seat:
        """The seat ``k`` places later in play order."""
        return Seat((self + k) % 4)

    @classmethod
    def parse(cls, text: str) -> Seat:
        """``N``/``E``/``S``/``W`` (any case) or ``0``..``3``."""
        t = text.strip().upper()
        if t in cls.__members__:
            return cls[t]
        if t.isdigit() and 0 <= int(t) < 4:
            return cls(int(t))
        raise ValueError(f"{text!r} is not a seat (N, E, S, W)")

    def __str__(self) -> str:
        return self.name
