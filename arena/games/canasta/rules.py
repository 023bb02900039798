"""Canasta options, presets, card kinds and values (pure data, no state).

Every option the engine accepts is in :data:`DEFAULT_OPTIONS` (the ``classic``
values); :data:`PRESETS` overrides them per preset. :class:`Rules` is the
validated, derived view the state uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_OPTIONS", "PRESETS", "Rules", "KEYS", "KEY_ORDER", "NATURAL_RANKS",
           "CANASTA_REQUIRED", "is_wild", "is_red3", "is_black3", "is_natural", "card_value",
           "opening_table_value", "SIDE_MODES"]

NATURAL_RANKS = "456789TJQKA"
"""Ranks that form natural melds (keys), lowest first."""
KEYS: tuple[str, ...] = tuple(NATURAL_RANKS) + ("WILD", "BLACK3")
"""Meld keys in canonical order."""
KEY_ORDER: dict[str, int] = {k: i for i, k in enumerate(KEYS)}
CANASTA_REQUIRED = -1
"""Opening requirement meaning "a canasta is required" (hungarian at 4000 or more)."""
SIDE_MODES = ("individual", "pairs", "two_teams")

DEFAULT_OPTIONS: dict[str, Any] = {
    "players": 4,
    "sides": "pairs",                  # individual | pairs | two_teams (rules section 3)
    "decks": 2,                        # 52-card packs; 0 = by table size (2 / 3 / 4 for <=4 / <=6 / <=8)
    "jokers_per_deck": 2,
    "hand_size": 11,
    "stock_draw": 1,
    "canastas_to_go_out": 1,
    "target": 5000,
    "opening_table": "classic",        # classic | hungarian (section 1.2)
    "opening_wild_value": "face",      # face | substituted (section 8)
    "canasta_meets_opening": False,
    "wild_limit": "max3",              # max3 | max3_and_ratio (section 7.1)
    "natural_plus_wild_pickup": True,
    "red3_upcard_freezes": True,
    "dealt_red3_timing": "at_deal",    # at_deal | first_turn
    "red3_double_threshold": 4,
    "red3_penalty_doubles": True,
    "black3_in_hand_value": 5,
    "wild_meld_allowed": False,
    "wild_canasta_bonus": 1000,
    "concealed_out_doubles_opponents": False,
    "concealed_canasta_bonus": 0,
    "exhaustion_mode": "continue",     # continue | one_last_take (section 11)
    "black3_block": "next_player",     # next_player | full_round
    "deals": 0,                        # rules' fixed_hands: play exactly N hands; 0 = play to target
    "max_hands": 60,                   # arena safeguard (section 13)
    "max_actions": 40000,              # arena safety cap on actions per match (see docstring)
    "first_dealer": 0,
}

PRESETS: dict[str, dict[str, Any]] = {
    "classic": {},
    "classic-2p": {"players": 2, "sides": "individual", "hand_size": 15, "stock_draw": 2,
                   "canastas_to_go_out": 2},
    "classic-3p": {"players": 3, "sides": "individual", "hand_size": 13, "stock_draw": 2,
                   "canastas_to_go_out": 2},
    "classic-004": {"wild_limit": "max3_and_ratio", "concealed_canasta_bonus": 100,
                    "red3_upcard_freezes": False},
    "hungarian": {"players": 4, "sides": "individual", "decks": 0, "jokers_per_deck": 3,
                  "opening_table": "hungarian", "opening_wild_value": "substituted",
                  "canasta_meets_opening": True, "wild_limit": "max3_and_ratio",
                  "natural_plus_wild_pickup": False, "red3_upcard_freezes": False,
                  "dealt_red3_timing": "first_turn", "red3_penalty_doubles": False,
                  "black3_in_hand_value": 100, "wild_meld_allowed": True,
                  "concealed_out_doubles_opponents": True, "exhaustion_mode": "one_last_take"},
}

_CHOICES: dict[str, tuple[str, ...]] = {
    "sides": SIDE_MODES,
    "opening_table": ("classic", "hungarian"),
    "opening_wild_value": ("face", "substituted"),
    "wild_limit": ("max3", "max3_and_ratio"),
    "dealt_red3_timing": ("at_deal", "first_turn"),
    "exhaustion_mode": ("continue", "one_last_take"),
    "black3_block": ("next_player", "full_round"),
}
_BOOLS = ("canasta_meets_opening", "natural_plus_wild_pickup", "red3_upcard_freezes",
          "red3_penalty_doubles", "wild_meld_allowed", "concealed_out_doubles_opponents")


WILDS = frozenset({"JK", "2C", "2D", "2H", "2S"})
RED3 = frozenset({"3H", "3D"})
BLACK3 = frozenset({"3C", "3S"})
NATURALS = frozenset(r + s for r in NATURAL_RANKS for s in "CDHS")


def is_wild(card: str) -> bool:
    """Jokers and 2s."""
    return card in WILDS


def is_red3(card: str) -> bool:
    return card in RED3


def is_black3(card: str) -> bool:
    return card in BLACK3


def is_natural(card: str) -> bool:
    """A card that can be a natural in a meld (4 to A)."""
    return card in NATURALS


_RANK_VALUE = {"A": 20, "K": 10, "Q": 10, "J": 10, "T": 10, "9": 10, "8": 10,
               "7": 5, "6": 5, "5": 5, "4": 5, "2": 20, "3": 5}


VALUES: dict[str, int] = {r + s: (0 if r == "3" and s in "DH" else v) for r, v in _RANK_VALUE.items()
                          for s in "CDHS"}
VALUES["JK"] = 50


def card_value(card: str) -> int:
    """Scoring value of a melded card (black three: +5; red threes are bonuses, 0 here)."""
    return VALUES[card]


def rank_value(rank: str) -> int:
    """Value of a natural rank (for the hungarian substituted opening value)."""
    return _RANK_VALUE[rank]


def opening_table_value(table: str, score: int) -> int:
    """The opening requirement from a cumulative score (section 1.2)."""
    if score < 0:
        return 15 if table == "classic" else 0
    if score < 1500:
        return 50
    if score < 3000:
        return 90
    if score < 4000 or table == "classic":
        return 120
    return CANASTA_REQUIRED


@dataclass(frozen=True)
class Rules:
    """Validated options with derived facts."""

    players: int
    sides_mode: str
    packs: int
    jokers: int
    hand_size: int
    stock_draw: int
    canastas_to_go_out: int
    target: int
    opening_table: str
    substituted: bool
    canasta_meets_opening: bool
    ratio: bool
    natural_plus_wild_pickup: bool
    red3_upcard_freezes: bool
    first_turn_red3: bool
    red3_double_threshold: int
    red3_penalty_doubles: bool
    black3_in_hand_value: int
    wild_meld_allowed: bool
    wild_canasta_bonus: int
    concealed_out_doubles: bool
    concealed_canasta_bonus: int
    last_take: bool
    full_round_block: bool
    deals: int
    max_hands: int
    max_actions: int
    first_dealer: int
    side_of: tuple[int, ...]
    num_sides: int

    @property
    def deck_size(self) -> int:
        return 52 * self.packs + self.jokers

    @classmethod
    def from_options(cls, o: Mapping[str, Any]) -> Rules:
        for key, choices in _CHOICES.items():
            if o[key] not in choices:
                raise ValueError(f"canasta: option {key}={o[key]!r}; choose one of {', '.join(choices)}")
        for key in _BOOLS:
            if not isinstance(o[key], bool):
                raise ValueError(f"canasta: option {key} must be true or false, got {o[key]!r}")
        ints = ("players", "decks", "jokers_per_deck", "hand_size", "stock_draw", "canastas_to_go_out",
                "target", "red3_double_threshold", "black3_in_hand_value", "wild_canasta_bonus",
                "concealed_canasta_bonus", "deals", "max_hands", "max_actions", "first_dealer")
        for key in ints:
            if isinstance(o[key], bool) or not isinstance(o[key], int):
                raise ValueError(f"canasta: option {key} must be an integer, got {o[key]!r}")
        n = o["players"]
        if not 2 <= n <= 8:
            raise ValueError(f"canasta: players={n}; 2 to 8 players are supported")
        if o["opening_table"] == "classic" and n not in (2, 3, 4):
            raise ValueError("canasta: the classic family is defined for 2, 3 or 4 players "
                             "(rules Decision 28); use preset hungarian for more")
        mode = o["sides"]
        if mode == "individual":
            side_of = tuple(range(n))
        elif n not in (4, 6, 8):
            raise ValueError(f"canasta: sides={mode} needs 4, 6 or 8 players (rules section 3)")
        elif mode == "pairs":
            side_of = tuple(s % (n // 2) for s in range(n))
        else:
            side_of = tuple(s % 2 for s in range(n))
        packs = o["decks"] or (2 if n <= 4 else 3 if n <= 6 else 4)
        if not 1 <= packs <= 4:
            raise ValueError(f"canasta: decks={packs}; 1 to 4 packs are supported")
        if o["hand_size"] < 1 or o["stock_draw"] < 1 or o["canastas_to_go_out"] < 0:
            raise ValueError("canasta: hand_size and stock_draw must be positive")
        jokers = o["jokers_per_deck"] * packs
        if n * o["hand_size"] + 10 > 52 * packs + jokers:
            raise ValueError("canasta: not enough cards for this table")
        if o["deals"] < 0 or o["max_hands"] < 1 or o["max_actions"] < 1:
            raise ValueError("canasta: deals >= 0, max_hands >= 1 and max_actions >= 1 are required")
        if not 0 <= o["first_dealer"] < n:
            raise ValueError(f"canasta: first_dealer must be a seat 0..{n - 1}")
        return cls(
            players=n, sides_mode=mode, packs=packs, jokers=jokers, hand_size=o["hand_size"],
            stock_draw=o["stock_draw"], canastas_to_go_out=o["canastas_to_go_out"], target=o["target"],
            opening_table=o["opening_table"], substituted=o["opening_wild_value"] == "substituted",
            canasta_meets_opening=o["canasta_meets_opening"], ratio=o["wild_limit"] == "max3_and_ratio",
            natural_plus_wild_pickup=o["natural_plus_wild_pickup"],
            red3_upcard_freezes=o["red3_upcard_freezes"],
            first_turn_red3=o["dealt_red3_timing"] == "first_turn",
            red3_double_threshold=o["red3_double_threshold"],
            red3_penalty_doubles=o["red3_penalty_doubles"],
            black3_in_hand_value=o["black3_in_hand_value"], wild_meld_allowed=o["wild_meld_allowed"],
            wild_canasta_bonus=o["wild_canasta_bonus"],
            concealed_out_doubles=o["concealed_out_doubles_opponents"],
            concealed_canasta_bonus=o["concealed_canasta_bonus"],
            last_take=o["exhaustion_mode"] == "one_last_take",
            full_round_block=o["black3_block"] == "full_round",
            deals=o["deals"], max_hands=o["max_hands"], max_actions=o["max_actions"],
            first_dealer=o["first_dealer"], side_of=side_of, num_sides=max(side_of) + 1,
        )
