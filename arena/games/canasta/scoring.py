"""Scoring one hand for one side, step by step (rules section 12)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.games.canasta.rules import Rules, card_value, is_black3, is_wild

__all__ = ["HandScore", "score_side", "is_canasta", "canasta_bonus"]


@dataclass(frozen=True, slots=True)
class HandScore:
    """One side's hand score, item by item (section 12, items 1 to 5)."""

    canastas: int
    red_threes: int
    going_out: int
    melded: int
    in_hand: int

    @property
    def total(self) -> int:
        return self.canastas + self.red_threes + self.going_out + self.melded + self.in_hand

    def to_dict(self) -> dict[str, int]:
        """The items in field order, then ``total`` (what ``dataclasses.asdict`` gives, and
        the total; built directly: ``asdict`` copies recursively)."""
        return {"canastas": self.canastas, "red_threes": self.red_threes, "going_out": self.going_out,
                "melded": self.melded, "in_hand": self.in_hand, "total": self.total}


def is_canasta(key: str, cards: Sequence[str]) -> bool:
    """A meld of 7 or more cards that is not a BLACK3 meld."""
    return len(cards) >= 7 and key != "BLACK3"


def canasta_bonus(rules: Rules, key: str, cards: Sequence[str], concealed: bool) -> int:
    """Bonus of one meld (0 if it is not a canasta)."""
    if not is_canasta(key, cards):
        return 0
    if key == "WILD":
        bonus = rules.wild_canasta_bonus
    else:
        bonus = 300 if any(is_wild(c) for c in cards) else 500
    return bonus + (rules.concealed_canasta_bonus if concealed else 0)


def score_side(rules: Rules, melds: Mapping[str, Sequence[str]], concealed: Iterable[str],
               red_threes: int, went_out: bool, out_concealed: bool,
               hand_cards: Iterable[str], doubled: bool) -> HandScore:
    """Score one side.

    :param melds: the side's melds by key.
    :param concealed: keys of the side's concealed canastas (``concealed_canasta_bonus``).
    :param red_threes: number of red threes placed by the side.
    :param went_out: a player of this side went out; ``out_concealed``: concealed.
    :param hand_cards: every card left in the hands of the side's players.
    :param doubled: hand cards count double (hungarian concealed going out by another side).
    """
    hidden = set(concealed)
    bonus = sum(canasta_bonus(rules, k, c, k in hidden) for k, c in melds.items())
    k = red_threes
    if melds:
        red = (200 if k >= rules.red3_double_threshold else 100) * k
    else:
        doubles = rules.red3_penalty_doubles and k >= rules.red3_double_threshold
        red = -(200 if doubles else 100) * k
    out = (200 if out_concealed else 100) if went_out else 0
    melded = sum(card_value(c) for cs in melds.values() for c in cs)
    penalty = sum(rules.black3_in_hand_value if is_black3(c) else card_value(c) for c in hand_cards)
    if doubled:
        penalty *= 2
    return HandScore(bonus, red, out, melded, -penalty)
