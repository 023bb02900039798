"""Bridge scoring: duplicate (Law 77), IMPs (Law 78B), matchpoints, rubber pieces, boards.

Stable helpers:

* :func:`duplicate_score` -- ``duplicate_score("4SX", vulnerable, tricks)``, the score of
  the declaring side (negative when the contract is defeated); ``"Pass"`` scores 0.
* :func:`imps` -- the IMP scale, signed like the difference.
* :func:`matchpoints` -- 2 per score beaten and 1 per tie (Law 78A, PBN ``MP1``).
* :func:`rubber_deal` -- what one deal writes in rubber bridge: (declarer below,
  declarer above, defenders above).
* :func:`board_dealer`, :func:`board_vulnerability` -- the 16-board cycle.
* :func:`honours_bonus` -- optional rubber honours.
* :class:`RubberScore` -- games, lines, vulnerability, rubber and unfinished-rubber bonuses.

Contract text: ``<level><strain>[X|XX]`` with strain ``C D H S N`` (``NT`` accepted).

>>> duplicate_score("3NT", False, 9), duplicate_score("4SX", False, 7), imps(-720)
(400, -500, -12)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

__all__ = [
    "parse_contract", "format_contract", "trick_points", "undertrick_penalty",
    "duplicate_score", "duplicate_score_parts", "imps", "matchpoints", "rubber_deal",
    "honours_bonus", "board_dealer", "board_vulnerability", "VULNERABILITY_NAMES", "RubberScore",
]

_STRAINS = "CDHSN"


def parse_contract(text: str) -> tuple[int, int, int]:
    """``(level, strain, doubled)`` of a contract text; ``Pass`` gives ``(0, -1, 0)``.

    :raises ValueError: for malformed text.

    >>> parse_contract("7NTXX"), parse_contract("2h"), parse_contract("Pass")
    ((7, 4, 2), (2, 2, 0), (0, -1, 0))
    """
    t = text.strip().upper()
    if t in ("PASS", "P", ""):
        return 0, -1, 0
    doubled = 0
    if t.endswith("XX"):
        doubled, t = 2, t[:-2]
    elif t.endswith("X"):
        doubled, t = 1, t[:-1]
    if t.endswith("NT"):
        t = t[:-1]
    if len(t) != 2 or t[0] not in "1234567" or t[1] not in _STRAINS:
        raise ValueError(f"{text!r} is not a contract (like 3NT, 4SX, 7HXX or Pass)")
    return int(t[0]), _STRAINS.index(t[1]), doubled


def format_contract(level: int, strain: int, doubled: int, *, nt: str = "NT") -> str:
    """Contract text, e.g. ``format_contract(4, 3, 1) == '4SX'`` (``Pass`` for level 0)."""
    if level == 0:
        return "Pass"
    return f"{level}{nt if strain == 4 else _STRAINS[strain]}{'X' * doubled}"


def trick_points(level: int, strain: int, doubled: int) -> int:
    """Trick score of a made contract: only the tricks bid, times 1, 2 or 4."""
    per = 20 if strain < 2 else 30
    return (per * level + (10 if strain == 4 else 0)) << doubled


def undertrick_penalty(down: int, doubled: int, vulnerable: bool) -> int:
    """Points the defenders get for ``down`` undertricks (positive)."""
    if down <= 0:
        return 0
    if doubled == 0:
        return (100 if vulnerable else 50) * down
    if vulnerable:
        pen = 200 + 300 * (down - 1)
    else:
        pen = 100 if down == 1 else 300 if down == 2 else 500 + 300 * (down - 3)
    return pen * doubled  # redoubled: twice the doubled value


def _made_premiums(level: int, strain: int, doubled: int, vulnerable: bool,
                   overtricks: int) -> tuple[int, int, int]:
    """(overtrick points, insult bonus, slam bonus) of a made contract."""
    if doubled == 0:
        over = overtricks * (20 if strain < 2 else 30)
    else:
        over = overtricks * (200 if vulnerable else 100) * doubled
    insult = 50 * doubled
    slam = 0
    if level == 6:
        slam = 750 if vulnerable else 500
    elif level == 7:
        slam = 1500 if vulnerable else 1000
    return over, insult, slam


def duplicate_score_parts(level: int, strain: int, doubled: int, vulnerable: bool,
                          tricks: int) -> int:
    """Duplicate score of the declaring side from numbers (level 0 = passed out)."""
    if level == 0:
        return 0
    diff = tricks - level - 6
    if diff < 0:
        return -undertrick_penalty(-diff, doubled, vulnerable)
    tp = trick_points(level, strain, doubled)
    over, insult, slam = _made_premiums(level, strain, doubled, vulnerable, diff)
    bonus = (500 if vulnerable else 300) if tp >= 100 else 50
    return tp + bonus + over + insult + slam


def duplicate_score(contract: str, vulnerable: bool, tricks: int) -> int:
    """Duplicate score for the declaring side (Law 77); negative when defeated.

    :param contract: e.g. ``3NT``, ``4SX``, ``7HXX``; ``Pass`` for a passed-out board.
    :param vulnerable: the declaring side's vulnerability.
    :param tricks: tricks taken by the declaring side, 0..13.
    :raises ValueError: for a malformed contract or a trick count outside 0..13.

    >>> duplicate_score("2SX", True, 9), duplicate_score("7NTXX", True, 13)
    (870, 2980)
    """
    if not 0 <= tricks <= 13:
        raise ValueError(f"tricks must be 0..13, got {tricks}")
    level, strain, doubled = parse_contract(contract)
    return duplicate_score_parts(level, strain, doubled, vulnerable, tricks)


_IMP_THRESHOLDS = (15, 45, 85, 125, 165, 215, 265, 315, 365, 425, 495, 595, 745, 895, 1095,
                   1295, 1495, 1745, 1995, 2245, 2495, 2995, 3495, 3995)


def imps(difference: int) -> int:
    """IMPs for a point difference (Law 78B), with the sign of the difference.

    >>> imps(10), imps(20), imps(450), imps(4000), imps(-1430)
    (0, 1, 10, 24, -16)
    """
    d = abs(difference)
    n = bisect_left(_IMP_THRESHOLDS, d + 1)  # thresholds <= d
    return n if difference >= 0 else -n


def matchpoints(scores: Sequence[float]) -> list[int]:
    """Matchpoints of each score among ``scores`` (2 per score beaten, 1 per tie).

    >>> matchpoints([620, 620, 650, 170, -100, 620, 140])
    [8, 8, 12, 4, 0, 8, 2]
    """
    return [sum(2 if s > o else 1 if s == o else 0 for o in scores) - 1 for s in scores]


def rubber_deal(contract: str, vulnerable: bool, tricks: int) -> tuple[int, int, int]:
    """Rubber points one deal writes: (declarer below, declarer above, defenders above).

    Rubber and game bonuses and honours are not included.

    >>> rubber_deal("1C XX", True, 9), rubber_deal("4H X", True, 8)
    ((80, 900, 0), (0, 0, 500))
    """
    level, strain, doubled = parse_contract(contract.replace(" ", ""))
    if level == 0:
        return 0, 0, 0
    diff = tricks - level - 6
    if diff < 0:
        return 0, 0, undertrick_penalty(-diff, doubled, vulnerable)
    over, insult, slam = _made_premiums(level, strain, doubled, vulnerable, diff)
    return trick_points(level, strain, doubled), over + insult + slam, 0


def honours_bonus(hand_mask: int, strain: int) -> int:
    """Honours held in one hand (a 52-bit card mask): 100, 150 or 0.

    Suit contract: 4 of the 5 trump honours A K Q J T = 100, all 5 = 150.
    Notrump: all 4 aces = 150.
    """
    if strain == 4:
        aces = sum(1 for s in range(4) if hand_mask >> (13 * s + 12) & 1)
        return 150 if aces == 4 else 0
    held = bin((hand_mask >> (13 * strain + 8)) & 0x1F).count("1")
    return 150 if held == 5 else 100 if held == 4 else 0


VULNERABILITY_NAMES = ("None", "NS", "EW", "All")
"""PBN names of the vulnerability codes 0..3 (none, N-S, E-W, both)."""


def board_dealer(board: int) -> int:
    """Dealer seat (N=0 .. W=3) of a board number >= 1.

    >>> [board_dealer(b) for b in (1, 2, 3, 4, 5, 16)]
    [0, 1, 2, 3, 0, 3]
    """
    if board < 1:
        raise ValueError(f"board numbers start at 1, got {board}")
    return (board - 1) % 4


def board_vulnerability(board: int) -> tuple[bool, bool]:
    """``(N-S vulnerable, E-W vulnerable)`` of a board number >= 1.

    >>> board_vulnerability(1), board_vulnerability(13), board_vulnerability(18)
    ((False, False), (True, True), (True, False))
    """
    if board < 1:
        raise ValueError(f"board numbers start at 1, got {board}")
    i = board - 1
    code = (i + (i // 4) % 4) % 4
    return code in (1, 3), code in (2, 3)


class RubberScore:
    """The score of one rubber (rules/bridge.md section 8), updated deal by deal.

    Sides are 0 (N-S) and 1 (E-W). Lists hold one entry per side.

    >>> r = RubberScore()
    >>> r.record_deal(0, "4S", 10)["note"], r.games, r.vulnerable(0)
    ('game NS', [1, 0], True)
    """

    __slots__ = ("games", "parts", "below", "above", "deals", "over")

    def __init__(self) -> None:
        self.games = [0, 0]
        """Games won."""
        self.parts = [0, 0]
        """Below-the-line points in the current game."""
        self.below = [0, 0]
        """Below-the-line totals of the rubber."""
        self.above = [0, 0]
        """Above-the-line totals of the rubber."""
        self.deals = 0
        """Deals scored, passed-out deals included."""
        self.over = False
        """Whether the rubber has ended (two games, or :meth:`finish_incomplete`)."""

    def copy(self) -> RubberScore:
        """An independent copy."""
        other = RubberScore.__new__(RubberScore)
        other.games, other.parts = list(self.games), list(self.parts)
        other.below, other.above = list(self.below), list(self.above)
        other.deals, other.over = self.deals, self.over
        return other

    def vulnerable(self, side: int) -> bool:
        """A side is vulnerable once it has won a game."""
        return self.games[side] >= 1

    def totals(self) -> tuple[int, int]:
        """Below plus above the line, per side."""
        return self.below[0] + self.above[0], self.below[1] + self.above[1]

    def record_deal(self, side: int, contract: str, tricks: int,
                    honours: tuple[int, int] = (0, 0)) -> dict[str, Any]:
        """Score a played deal declared by ``side``; returns the points it wrote.

        :param honours: honours points of (N-S, E-W), already computed (see
            :func:`honours_bonus`).
        :returns: ``below`` and ``above`` (per side, this deal) and ``note``.
        """
        if self.over:
            raise ValueError("the rubber is over")
        below = [0, 0]
        above = [honours[0], honours[1]]
        notes = []
        b, a, d = rubber_deal(contract, self.vulnerable(side), tricks)
        below[side] += b
        above[side] += a
        above[1 - side] += d
        self.parts[side] += b
        if self.parts[side] >= 100:
            self.games[side] += 1
            self.parts = [0, 0]
            notes.append(f"game {'NS' if side == 0 else 'EW'}")
            if self.games[side] == 2:
                bonus = 700 if self.games[1 - side] == 0 else 500
                above[side] += bonus
                notes.append(f"rubber bonus {bonus}")
                self.over = True
        return self._write(below, above, notes)

    def record_passed_out(self) -> dict[str, Any]:
        """A passed-out deal: no score (it still counts towards the deal cap)."""
        if self.over:
            raise ValueError("the rubber is over")
        return self._write([0, 0], [0, 0], ["passed out"])

    def finish_incomplete(self) -> dict[str, Any]:
        """End an unfinished rubber (Law 80): 300 for the only side with a game,
        100 for the only side with a part-score in the current game."""
        above = [0, 0]
        notes = []
        g0, g1 = self.games
        if (g0 >= 1) != (g1 >= 1):
            w = 0 if g0 > g1 else 1
            above[w] += 300
            notes.append(f"unfinished rubber: 300 {'NS' if w == 0 else 'EW'}")
        p0, p1 = self.parts
        if (p0 > 0) != (p1 > 0):
            w = 0 if p0 > 0 else 1
            above[w] += 100
            notes.append(f"part-score in unfinished game: 100 {'NS' if w == 0 else 'EW'}")
        self.over = True
        self.deals -= 1  # _write counts a deal; this is not one
        return self._write([0, 0], above, notes)

    def _write(self, below: list[int], above: list[int], notes: list[str]) -> dict[str, Any]:
        self.deals += 1
        for s in (0, 1):
            self.below[s] += below[s]
            self.above[s] += above[s]
        return {"below": below, "above": above, "note": "; ".join(notes)}
