"""Section 6 (purchasing power, payments, fallback) and section 9 (combinations) as tables."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.games.auction.rules import (
    COMBINATIONS,
    canonical_money_order,
    completed_combination,
    fallback_payment,
    find_combination,
    minimal_payments,
    money_deck,
    money_value,
    payment_problem,
    payment_value,
    picture_deck,
    purchasing_power,
    sort_money,
)

HAND = ["6H", "4C", "3D", "JK"]


def test_components() -> None:
    assert len(picture_deck(1)) == 16 and len(picture_deck(2)) == 32
    assert len(money_deck(1, 3)) == 39 and len(money_deck(2, 6)) == 78
    assert picture_deck(1)[:5] == ["JC", "QC", "KC", "AC", "JD"]
    assert money_deck(1, 3)[:3] == ["2C", "3C", "4C"] and money_deck(1, 3)[-4:] == ["TS", "JK", "JK", "JK"]
    assert sum(1 for t in money_deck(2, 6) if t == "JK") == 6
    assert money_value("TS") == 10000 and money_value("2C") == 2000 and money_value("JK") == 0


@pytest.mark.parametrize(("hand", "power"), [
    (HAND, 19000),                       # section 6 example: 13000 + 6000
    (["6H", "4C", "3D"], 13000),
    (["JK"], 0),                         # a joker alone is worth nothing
    (["JK", "JK", "2C"], 4000),          # only one joker counts
    ([], 0),
    (["TS", "TD", "JK"], 30000),
])
def test_purchasing_power(hand: list[str], power: int) -> None:
    assert purchasing_power(hand) == power


# The table of section 6: hand 6H 4C 3D JK, winning bid 9000.
@pytest.mark.parametrize(("payment", "value", "problem"), [
    (["6H", "4C"], 10000, None),
    (["6H", "JK"], 12000, None),
    (["4C", "3D", "JK"], 11000, None),
    (["6H", "4C", "3D"], 13000, "not minimal: without 3D the payment is still worth 10000 >= 9000"),
    (["JK"], 0, "a payment needs at least one number card (a joker alone is worth 0)"),
    (["6H", "4C", "JK"], 16000, "not minimal: without JK the payment is still worth 10000 >= 9000"),
])
def test_section6_table(payment: list[str], value: int, problem: str | None) -> None:
    assert payment_value(payment) == value
    assert payment_problem(payment, 9000) == problem


@pytest.mark.parametrize(("payment", "bid", "fragment"), [
    (["6H"], 9000, "below the winning bid 9000"),
    (["6H", "JK", "JK"], 9000, "at most one joker"),
    (["KS"], 1000, "picture card"),
    ([], 1000, "at least one number card"),
    (["4C", "3D", "2C"], 7000, "without 2C"),            # the lowest card is the one named
    (["TS", "2C", "JK"], 20000, None),                   # 10+2+10 = 22 >= 20; 10+10 = 20 without 2C? see below
])
def test_payment_reasons(payment: list[str], bid: int, fragment: str | None) -> None:
    problem = payment_problem(payment, bid)
    if fragment is None:
        # Without 2C, TS JK is worth 20000 >= 20000: not minimal.
        assert problem is not None and "without 2C" in problem
    else:
        assert problem is not None and fragment in problem


def test_fallback_section6_example() -> None:
    assert fallback_payment(HAND, 9000) == ("6H", "4C")


@pytest.mark.parametrize(("hand", "bid", "expected"), [
    (["8D", "5C", "2H", "JK", "3S"], 7000, ("8D",)),           # section 12
    (["5C", "5D", "5H"], 10000, ("5C", "5D")),                 # equal values in suit order
    (["6H", "4C", "3D", "JK"], 19000, ("6H", "4C", "3D", "JK")),  # needs the joker
    (["6H", "4C", "3D", "JK"], 15000, ("6H", "4C", "JK")),  # 13000 short: all + JK, then 3D goes
    (["9C", "2D", "JK"], 18000, ("9C", "JK")),                 # minimise: 2D removed
    (["TC", "TD", "2C", "JK", "JK"], 21000, ("TC", "TD", "2C")),
])
def test_fallback(hand: list[str], bid: int, expected: tuple[str, ...]) -> None:
    got = fallback_payment(hand, bid)
    assert got == expected
    assert payment_problem(got, bid) is None


def test_fallback_cannot_pay() -> None:
    with pytest.raises(ValueError):
        fallback_payment(["2C", "JK"], 5000)


def _brute(hand: list[str], bid: int) -> set[tuple[int, ...]]:
    """All legal payments, as sorted value multisets (with 0 for a joker)."""
    out = set()
    for r in range(1, len(hand) + 1):
        for combo in itertools.combinations(range(len(hand)), r):
            cards = [hand[i] for i in combo]
            if payment_problem(cards, bid) is None:
                out.add(tuple(sorted(money_value(c) for c in cards)))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_minimal_payments_match_brute_force(seed: int) -> None:
    from arena.core.dealing import SeedStream

    rng = SeedStream(f"pay|{seed}")
    deck = money_deck(2, 6)
    hand = [deck[rng.below(len(deck))] for _ in range(3 + rng.below(7))]
    power = purchasing_power(hand)
    assert power >= 1000, "every seed must draw a hand that can pay (else the case checks nothing)"
    bid = (1 + rng.below(power // 1000)) * 1000
    listed = minimal_payments(hand, bid)
    assert len(listed) == len(set(listed))
    for p in listed:
        assert payment_problem(p, bid) is None, (hand, bid, p)
        assert not Counter(p) - Counter(hand)
    assert {tuple(sorted(money_value(c) for c in p)) for p in listed} == _brute(hand, bid)


# Section 9 table.
@pytest.mark.parametrize(("collection", "wins"), [
    (["JS", "QS", "KS"], True),
    (["QH", "KH", "AH"], True),
    (["AC", "JC", "QC"], False),
    (["AH", "AC", "AD"], True),
    (["QS", "QS", "QH"], False),
    (["QS", "QS", "QH", "QC"], True),
    (["JD", "QD", "AD", "KS"], False),
    (["KS", "AS", "JS"], False),        # K-A-J: no wrap
    (["JC", "QD", "KC"], False),        # mixed suits
    (["JC", "JD", "JH", "JS"], True),
    ([], False),
])
def test_section9_table(collection: list[str], wins: bool) -> None:
    assert (find_combination(collection) is not None) == wins
    if collection:
        got = completed_combination(collection, collection[-1])
        # The last card of a winning table row is part of its combination here.
        assert (got is not None) == wins or not wins


def test_combination_count() -> None:
    assert len(COMBINATIONS) == 24 and len(set(COMBINATIONS)) == 24


def test_canonical_money_order() -> None:
    assert canonical_money_order(["JK", "5C", "2D", "5C", "TS", "2C"]) == ["2C", "5C", "2D", "TS", "5C", "JK"]
    assert sort_money(["JK", "4C", "6H", "3D"]) == ["6H", "4C", "3D", "JK"]
