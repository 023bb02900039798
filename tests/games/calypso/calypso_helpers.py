"""Stacked-deck helpers for the Calypso tests (not a test module)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from arena.core.cards import parse_cards, standard_deck
from arena.games.calypso import CalypsoGame, CalypsoState

SEATS = {"N": 0, "E": 1, "S": 2, "W": 3}
N, E, S, W = 0, 1, 2, 3

# (leader, cards in playing order from the leader, winner, what the row covers).
# Trumps: N hearts, E diamonds, S spades, W clubs. Play goes N -> E -> S -> W.
WINNER_TABLE = [
    # The six worked examples of rules 5.2.
    (E, "9S KS 9S AS", N, "ex1 all follow; S's KS follows suit, not a trump"),
    (N, "5H TH AH KH", N, "ex2 own-trump lead, nobody trumps: leader wins"),
    (N, "5H 7D AH 7C", E, "ex3 own-trump lead, two void trumps; 7D before 7C"),
    (W, "QS 2H QS QS", N, "ex4 2H the only trump; S's QS follows suit"),
    (S, "JD JD JD 4D", S, "ex5 identical JDs, the first wins; E's 4D follows suit"),
    (E, "3D 9H 5D 2H", E, "ex6 S's 9H is a discard; leader's 3D beats N's trump 2H"),
    # Non-trump lead, nobody trumps: highest card of the suit led; identical: first.
    (N, "2C 5C KC 9C", S, "highest of the suit led; W's 9C follows, not a trump"),
    (N, "AC AC AC AC", N, "four identical cards: the first wins"),
    (E, "2C AC 3C AC", S, "two identical winners: the earlier wins"),
    (N, "5C 2H 2D 6C", W, "void discards in other players' suits never win"),
    # Non-trump lead, one void player trumps: that player wins.
    (N, "AC 2D KC QC", E, "a 2 of own trump beats the ace of the suit led"),
    (S, "AH 2C KH QH", W, "W void in hearts trumps; N's KH follows, not a trump"),
    # Non-trump lead, several void trumps: highest trump; equal rank: earlier.
    (W, "AS 9H 3D 2S", N, "trumps 9H and 3D: 9H wins"),
    (W, "KS 2H 3D AS", E, "trumps 2H and 3D: 3D wins; the led ace does not count"),
    (S, "AC KC 8H 8D", N, "equal-rank trumps of N and E: N played first"),
    # Leader leads own trump, nobody trumps: the leader wins whatever the ranks.
    (S, "2S AS AS KS", S, "all follow the leader's trump with higher cards"),
    (W, "2C 5D AH AC", W, "void followers throw non-trumps; S follows with AC"),
    # Leader leads own trump, void players trump: highest trump, leader's included.
    (E, "9D 4S AD 8H", E, "leader's 9D beats trumps 4S and 8H; W's AD follows"),
    (E, "5D 4S 2D KH", N, "N's KH beats the leader's 5D"),
    (E, "KD KS AD KH", E, "equal-rank trumps: the leader played first"),
    (N, "TH JD AH 3C", E, "E's JD beats TH and 3C; S's AH follows, not a trump"),
    # A void player's card of another player's trump suit, or of another suit: discard.
    (N, "3C AS AH 2C", N, "E's AS (S's suit) and S's AH (N's suit) are discards"),
    (S, "2D AH AS AC", S, "W's AH, N's AS, E's AC are discards: 2D wins"),
]



def stacked_deck(hands: dict[str, str], *, first_dealer: int = 0,
                 avoid: dict[str, str] | None = None) -> list[str]:
    """A 208-card pack whose first deal gives each seat the listed cards.

    ``hands`` maps a seat letter to cards (text); each hand is filled up to 13 with
    cards from the remaining pool (canonical order) whose suit letter is not in
    ``avoid[seat]`` (default: any suit), which makes a seat void where needed.
    Positions follow rules 4: the i-th card of a deal goes to seat
    ``(dealer + 1 + i) mod 4``; the other 156 cards follow in canonical order.
    """
    avoid = avoid or {}
    pool = Counter(standard_deck(packs=4))
    full: dict[int, list[str]] = {}
    for letter, text in hands.items():
        cards = parse_cards(text)
        pool.subtract(cards)
        assert all(v >= 0 for v in pool.values()), f"too many copies in {text}"
        full[SEATS[letter]] = cards
    for seat in range(4):
        cards = full.setdefault(seat, [])
        banned = set(avoid.get("NESW"[seat], ""))
        for tok in sorted(pool, key=lambda t: ("CDHS".index(t[1]), "23456789TJQKA".index(t[0]))):
            while len(cards) < 13 and pool[tok] > 0 and tok[1] not in banned:
                cards.append(tok)
                pool[tok] -= 1
        assert len(cards) == 13, f"seat {seat}: cannot fill the hand"
    deal = [""] * 52
    for seat, cards in full.items():
        offset = (seat - first_dealer - 1) % 4
        for j, tok in enumerate(cards):
            deal[4 * j + offset] = tok
    rest = list(pool.elements())
    deck = deal + rest
    assert len(deck) == 208
    return deck


def new_state(deck: Sequence[str], **options: object) -> CalypsoState:
    state = CalypsoGame(**options).new_initial_state(deck=deck)
    assert isinstance(state, CalypsoState)
    return state


def play(state: CalypsoState, cards: Iterable[str]) -> None:
    """Play cards in order (each must be legal for the player to act)."""
    for tok in parse_cards(" ".join(cards) if not isinstance(cards, str) else cards):
        state.apply_action(state.string_to_action(tok))
