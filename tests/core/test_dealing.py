"""The seeded shuffle is pinned: these golden values must never change."""

from __future__ import annotations

import pytest
from scipy.stats import chisquare

from arena.core.cards import standard_deck
from arena.core.dealing import Dealer, SeedStream, derive_seed, shuffled
from arena.core.errors import InvalidActionError


def test_splitmix64_reference_output() -> None:
    s = SeedStream(0)
    s._state = 0  # the published SplitMix64 reference stream for state 0
    assert s.next64() == 0xE220A8397B1DCDAF
    assert s.next64() == 0x6E789E6AA1B965F4


def test_golden_seed_derivation() -> None:
    assert derive_seed(1) == 11676446231893807689
    assert derive_seed(1, "shuffle", 0) == 7923263567656417295


def test_golden_deals() -> None:
    assert shuffled(standard_deck(), 1)[:13] == \
        ["2D", "TS", "8C", "4S", "JS", "2C", "6H", "AH", "5C", "9H", "8H", "7C", "3H"]
    assert shuffled(standard_deck(), "board/7")[:13] == \
        ["QH", "AS", "9H", "8D", "AC", "3D", "TD", "9D", "JS", "QD", "AD", "6H", "9C"]
    assert shuffled(standard_deck(2, 6), derive_seed(5, "shuffle", 1))[:10] == \
        ["5H", "5H", "5D", "6S", "3D", "AD", "TS", "TD", "6D", "5C"]
    s = SeedStream(42)
    assert [s.next64() for _ in range(3)] == \
        [17458132027957813252, 12960351592867344988, 12927347822057515380]


def test_below_is_in_range_and_rejects_bad_bounds() -> None:
    s = SeedStream(3)
    assert all(0 <= s.below(7) < 7 for _ in range(1000))
    with pytest.raises(ValueError):
        s.below(0)


def test_shuffle_is_uniform_card_to_position() -> None:
    # Chi-square over where card 0 and card 51 land, across 5,200 seeds: a biased
    # Fisher-Yates (e.g. an off-by-one upper bound) fails this with p << 0.001.
    deck = list(range(52))
    first = [0] * 52
    last = [0] * 52
    for seed in range(5200):
        d = shuffled(deck, seed)
        first[d.index(0)] += 1
        last[d.index(51)] += 1
    assert chisquare(first).pvalue > 0.001
    assert chisquare(last).pvalue > 0.001


def test_dealer_uses_stacked_decks_then_seed() -> None:
    cards = standard_deck()
    stacked = list(reversed(cards))
    dealer = Dealer(seed=9, decks=[stacked])
    assert dealer.shuffle(cards) == stacked
    second = dealer.shuffle(cards)
    assert second == shuffled(cards, derive_seed(9, "shuffle", 1))
    assert dealer.realized == [stacked, second]


def test_dealer_rejects_a_wrong_stacked_deck() -> None:
    cards = standard_deck()
    bad = cards[:-1] + ["2C"]
    with pytest.raises(InvalidActionError, match="unexpected 2C; missing AS"):
        Dealer(decks=[bad]).shuffle(cards)
