"""Version-stable seeded shuffling and seed derivation.

Every game shuffles with this module and nothing else, so a seed means the same
deal on every platform, Python version and release of the arena. Golden-deal
tests (``tests/core/test_dealing.py``) pin the streams; changing anything here is
a breaking change for every stored record and every duplicate event.

Algorithm
---------
*Source.* SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014), used as a counter-based generator: the k-th output
(k = 1, 2, ...) of a stream with 64-bit key ``s`` is ``mix(s + k * 0x9E3779B97F4A7C15 mod 2**64)``
with ::

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 mod 2**64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB mod 2**64
    z =  z ^ (z >> 31)

*Bounded integers.* ``below(n)`` draws 64-bit words and rejects those at or above
``2**64 - (2**64 mod n)``, then returns the word mod ``n`` (exactly uniform).

*Shuffle.* Fisher-Yates, Durstenfeld's in-place form: for ``i`` from ``len-1``
down to 1, ``j = below(i + 1)`` and swap positions ``i`` and ``j``. Position 0 of
the result is the top of the deck.

*Seeds.* A seed is any integer (or string) chosen by the arena. ``derive_seed(seed,
*labels)`` is the first 8 bytes, big-endian, of SHA-256 over the UTF-8 text
``"arena-seed/v1|" + "|".join(str(x) for x in (seed, *labels))``; it names
sub-streams such as ``(match_seed, "shuffle", k)`` or ``(event_seed, "board", n)``.
The key of a stream made from an integer seed is ``derive_seed(seed)``.

Seeds are never sent to bots.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["SeedStream", "derive_seed", "shuffled", "Dealer"]

T = TypeVar("T")

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_LIMITS = [0] + [(1 << 64) - ((1 << 64) % n) for n in range(1, 257)]
"""Rejection limits of :meth:`SeedStream.below` for small bounds."""


def derive_seed(seed: int | str, *labels: object) -> int:
    """A 64-bit seed derived from ``seed`` and ``labels`` (stable across versions).

    >>> derive_seed(1) == derive_seed(1), derive_seed(1) == derive_seed(1, 'x')
    (True, False)
    """
    text = "arena-seed/v1|" + "|".join(str(x) for x in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


class SeedStream:
    """A SplitMix64 stream keyed by ``derive_seed(seed)``; see the module docstring."""

    __slots__ = ("_state",)

    def __init__(self, seed: int | str) -> None:
        self._state = derive_seed(seed)

    def next64(self) -> int:
        """The next 64-bit output."""
        self._state = z = (self._state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n`` must be in ``1 .. 2**64``."""
        if not 0 < n <= 1 << 64:
            raise ValueError(f"bound {n} out of range")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def random(self) -> float:
        """A float in ``[0, 1)`` with 53 random bits."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def shuffle(self, items: list[T]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates, Durstenfeld).

        The same stream as calling :meth:`below` for each position, inlined
        because every deal of every game goes through here.
        """
        state = self._state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < len(_LIMITS) else (1 << 64) - ((1 << 64) % n)
            while True:
                state = z = (state + _GAMMA) & _MASK
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
                z ^= z >> 31
                if z < limit:
                    break
            j = z % n
            items[i], items[j] = items[j], items[i]
        self._state = state

    def choice(self, items: Sequence[T]) -> T:
        """A uniformly chosen element of a non-empty sequence."""
        return items[self.below(len(items))]


def shuffled(items: Sequence[T], seed: int | str) -> list[T]:
    """A shuffled copy of ``items`` for ``seed``.

    >>> shuffled(list('abcdef'), 7) == shuffled(list('abcdef'), 7)
    True
    """
    out = list(items)
    SeedStream(seed).shuffle(out)
    return out


class Dealer:
    """The source of every shuffle of one match.

    The k-th shuffle of a match (k = 0, 1, ...) is either the k-th stacked deck the
    caller supplied (validated as a permutation of the cards being shuffled) or
    ``shuffled(cards, derive_seed(seed, "shuffle", k))``. Every realized order is
    kept in :attr:`realized`, so a record can replay the match without the seed and a
    test can rebuild it with some cards exchanged.
    """

    __slots__ = ("seed", "stacked", "realized")

    def __init__(self, seed: int | str | None = None,
                 decks: Sequence[Sequence[str]] | None = None) -> None:
        self.seed = 0 if seed is None else seed
        self.stacked: list[list[str]] = [list(d) for d in decks or ()]
        self.realized: list[list[str]] = []

    def shuffle(self, cards: Sequence[str]) -> list[str]:
        """The next shuffle of ``cards`` (a canonical list); position 0 is the top."""
        from arena.core.cards import check_same_cards

        k = len(self.realized)
        if k < len(self.stacked):
            deck = list(self.stacked[k])
            check_same_cards(deck, cards, what=f"stacked deck {k}")
        else:
            deck = shuffled(cards, derive_seed(self.seed, "shuffle", k))
        self.realized.append(deck)
        return list(deck)
