"""The meld solver: optimal on small known positions, valid and within budget on big ones."""

from __future__ import annotations

import pytest

from arena.core.dealing import SeedStream
from arena.games.rummy import solver
from arena.games.rummy.melds import INDEX, TOKENS, counts_of, is_meld


def _counts(text: str) -> list[int]:
    return counts_of(INDEX[t] for t in text.split())


def _brute_force(pool: list[int]) -> int:
    """Most cards coverable by disjoint melds (exhaustive; small pools only)."""
    melds = solver.hand_melds(pool, limit=10_000)
    best = 0

    def rec(i: int, left: list[int], covered: int) -> None:
        nonlocal best
        best = max(best, covered)
        for j in range(i, len(melds)):
            m = melds[j]
            if all(left[c] > 0 for c in m) and len(set(m)) == len(m):
                for c in m:
                    left[c] -= 1
                rec(j, left, covered + len(m))
                for c in m:
                    left[c] += 1

    rec(0, list(pool), 0)
    return best


def _check_cover(pool: list[int], cover: solver.Cover) -> None:
    used = [0] * 52
    for m in cover.melds:
        assert is_meld(m), [TOKENS[c] for c in m]
        for c in m:
            used[c] += 1
    assert all(u <= p for u, p in zip(used, pool))
    assert cover.covered == sum(used)


KNOWN = [
    ("4H 5H 6H 7H 8H", 5),
    ("2S 3S 4S 5S 6S 7S 8S 5D 5C", 9),
    ("QC QD QH QS JD KD", 6),
    ("AS 2S 3S QS KS AS", 6),
    ("KS AS 2S", 0),
    ("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", 14),
    ("5C 5D 5H 5S 5C 5D 5H", 7),
    ("5C 5D 5H 5C 5D", 3),
    ("7H 8H 9D", 0),
    ("QC QC QD", 0),
    ("3D 4D 5D 5D 6D 7D", 6),
    ("9C 9D 9H 9S 2H 3H AH", 7),
    ("4C 5C 6C 7C 4D 4H 7D 7H", 6),
]


@pytest.mark.parametrize("cards,best", KNOWN, ids=[k[0] for k in KNOWN])
def test_known_optimum(cards: str, best: int) -> None:
    pool = _counts(cards)
    cover = solver.solve(pool)
    got = cover.covered if cover else 0
    assert got == best
    if cover:
        assert cover.exact
        _check_cover(pool, cover)


def test_matches_brute_force_on_random_small_pools() -> None:
    rng = SeedStream("rummy-solver-test")
    for _ in range(40):
        pool = [0] * 52
        suits = [rng.below(4) for _ in range(2)]
        lo = rng.below(9)
        for _ in range(9 + rng.below(4)):
            s = suits[rng.below(2)] if rng.below(3) else rng.below(4)
            c = s * 13 + (lo + rng.below(5)) % 13
            if pool[c] < 2:
                pool[c] += 1
        cover = solver.solve(pool)
        assert (cover.covered if cover else 0) == _brute_force(pool), pool
        if cover:
            _check_cover(pool, cover)


def test_value_breaks_ties() -> None:
    # 6H goes either to 6H 7H 8H or to 6C 6D 6H: both lay 6 cards with QC QD QH... the
    # run 6H-8H (21 points) beats the set of sixes (18 points)
    pool = _counts("6H 7H 8H 6C 6D QC QD QH")
    cover = solver.solve(pool)
    assert cover is not None and cover.covered == 6
    assert [TOKENS[c] for c in cover.melds[0]] == ["6H", "7H", "8H"]


def test_strict_keep() -> None:
    # table 4C 5C 6C 7C, hand 9D 9H 9S: taking 7C is allowed only without keep
    hand = _counts("9D 9H 9S")
    table = [tuple(INDEX[t] for t in "4C 5C 6C 7C".split())]
    loose = solver.best_rearrangement(hand, table)
    strict = solver.best_rearrangement(hand, table, strict=True)
    assert loose is not None and strict is not None
    assert loose.covered == strict.covered == 7  # keeping 7C is also best


def test_rearrangement_examples() -> None:
    cases = [
        ("2S 3S 4S 5S 6S 7S 8S", "5D 5C", 9),
        ("QC QD QH QS", "JD KD", 6),
        ("3S 4S 5S 6S", "6D 6C", 6),
    ]
    for table_text, hand_text, covered in cases:
        table = [tuple(INDEX[t] for t in table_text.split())]
        cover = solver.best_rearrangement(_counts(hand_text), table)
        assert cover is not None and cover.covered == covered and cover.exact


def test_budget_is_respected_on_a_big_pool() -> None:
    pool = [2] * 52  # both packs: 104 cards, everything coverable
    cover = solver.max_cover(pool, max_states=40)
    assert cover is not None
    _check_cover(pool, cover)
    assert cover.nodes <= 56 * 40 * 24
    # a table of many melds: the local search stays bounded and valid
    rng = SeedStream("big-table")
    deck = [c for c in range(52) for _ in range(2)]
    rng.shuffle(deck)
    hand = counts_of(deck[:12])
    cover = solver.max_cover(counts_of(deck[12:80]), max_states=200)
    assert cover is not None
    table = list(cover.melds)
    assert len(table) >= 10
    best = solver.best_rearrangement(hand, table, max_states=200, global_pool=0)
    if best is not None:
        tcount = sum(len(m) for m in table)
        assert best.covered > tcount
        _check_cover([h + t for h, t in zip(hand, counts_of(c for m in table for c in m))], best)


def test_live_cards() -> None:
    live = solver.live_cards(_counts("2C 3C 4C 9H KS KD"))
    assert [TOKENS[c] for c in range(52) for _ in range(live[c])] == ["2C", "3C", "4C"]


def test_local_search_strict_keeps_the_table() -> None:
    rng = SeedStream("big-table-strict")
    for _ in range(3):
        deck = [c for c in range(52) for _ in range(2)]
        rng.shuffle(deck)
        hand = counts_of(deck[:12])
        cover = solver.max_cover(counts_of(deck[12:70]), max_states=200)
        assert cover is not None
        table = list(cover.melds)
        tcounts = counts_of(c for m in table for c in m)
        pool = [h + t for h, t in zip(hand, tcounts)]
        for strict in (False, True):
            best = solver.best_rearrangement(hand, table, strict=strict, global_pool=0, max_states=300)
            if best is None:
                continue
            _check_cover(pool, best)
            assert best.covered > sum(tcounts)
            if strict:
                used = counts_of(c for m in best.melds for c in m)
                assert all(u >= t for u, t in zip(used, tcounts))


def test_max_cover_equals_the_dp_as_first_written() -> None:
    """The optimized DP visits the same states in the same order: same cover, same nodes."""
    rng = SeedStream("max-cover-reference")
    for trial in range(400):
        k = (3, 5, 8, 11, 15, 20, 28)[trial % 7]
        deck = [c for c in range(52) for _ in range(2)]
        rng.shuffle(deck)
        pool = counts_of(deck[:k])
        keep = [min(pool[c], rng.below(2)) for c in range(52)] if trial % 3 == 0 else None
        values = [rng.below(20) for _ in range(52)] if trial % 4 == 1 else None
        max_drops = None if trial % 2 else rng.below(6)
        max_states = (600, 4000, 40, 8)[trial % 4]
        s1, s2 = [0, 0], [0, 0]
        ref = solver.max_cover_reference(pool, values, keep, max_drops=max_drops, max_states=max_states, stats=s1)
        new = solver.max_cover(pool, values, keep, max_drops=max_drops, max_states=max_states, stats=s2)
        assert new == ref and s1 == s2, (pool, keep, values, max_drops, max_states)
