"""The engine's fast paths give exactly what the plain definitions give.

* Golden legal-action lists: digests of every legal-action list (as text) of seeded
  random playouts, recorded with the engine before the speed work (commit 5b65b43);
  any change to what ``legal_actions()`` lists, or to its order, changes them.
* Every listed play passes the full validation (``_check_play``), and the
  shortcut ``validate`` takes for listed plays gives the same table (from its
  recipe) and hand.
* The mask-based solver helpers equal straightforward reference versions.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.core.dealing import SeedStream
from arena.games.rummy import solver
from arena.games.rummy.state import RummyState
from arena.games.rummy.actions import RummyAction
from arena.games.rummy.melds import ACE, canonical_meld, is_meld
from arena.testing.playouts import listing_digest, random_playout

GOLDEN: list[tuple[dict[str, Any], list[str]]] = [
    ({"players": 2, "deals": 2}, ["0c9e8ac9065af03a8d87", "44148066ee7ed4e8edca", "50512af57342cf1ac1f6"]),
    ({"players": 4, "deals": 2}, ["6fc86368cf99663c7060", "8c152b0628bb280eeb00", "4620080a514c88a57710"]),
    ({"players": 6, "deals": 1}, ["8e6d800c67ce21c2ae92", "0b02f592083f748df2ad", "77801f3bf7e92f7bc772"]),
    ({"players": 3, "deals": 1, "strict_table": True},
     ["f479930283d7db73edbf", "696ce7140f0151efdffb", "445c028aeb7113f01d1d"]),
]


@pytest.mark.parametrize("opts,digests", GOLDEN, ids=[repr(g[0]) for g in GOLDEN])
def test_golden_legal_action_lists(opts: dict[str, Any], digests: list[str]) -> None:
    assert [listing_digest("rummy", seed, **opts) for seed in range(len(digests))] == digests


@pytest.mark.parametrize("players", [2, 4, 6])
def test_listed_plays_pass_the_full_check(players: int) -> None:
    checked = 0
    for seed in range(4):
        for state, legal in random_playout("rummy", seed, "fast", players=players, deals=1):
            assert isinstance(state, RummyState)
            for a in legal[1:]:
                assert isinstance(a, RummyAction) and a.layout is not None
                assert a == RummyAction.parse(str(a)) == RummyAction(a.layout)
                full = state._check_play(a)  # raises if the listed play were not valid
                state.validate(a)  # the shortcut for listed plays
                checked_play = state._checked
                assert checked_play is not None and checked_play[2][0] is None  # made by the recipe
                recipe = checked_play[4]
                assert recipe is not None
                assert (state._recipe_layout(recipe), checked_play[2][1]) == full
                checked += 1
    assert checked > 50


def _ref_live(pool: list[int]) -> list[int]:
    """live_cards as first written (per card, per window)."""
    rank_of = [ACE] + list(range(12)) + [ACE]
    cur = list(pool)
    while True:
        nxt = [0] * 52
        for c in range(52):
            if not cur[c]:
                continue
            s, r = divmod(c, 13)
            if sum(1 for x in range(4) if x != s and cur[x * 13 + r]) >= 2:
                nxt[c] = cur[c]
                continue
            have = [cur[s * 13 + rank_of[q]] > 0 for q in range(14)]
            for p in ((0, 13) if r == ACE else (r + 1,)):
                if any(lo >= 0 and lo + 2 <= 13 and have[lo] and have[lo + 1] and have[lo + 2]
                       for lo in (p - 2, p - 1, p)):
                    nxt[c] = cur[c]
                    break
        if nxt == cur:
            return cur
        cur = nxt


def _ref_hand_melds(counts: list[int]) -> list[tuple[int, ...]]:
    found: set[tuple[int, ...]] = set()
    for a in range(52):
        for b in range(a + 1, 52):
            for c in range(b + 1, 52):
                if counts[a] and counts[b] and counts[c] and is_meld((a, b, c)):
                    found.add(canonical_meld((a, b, c)))
    grown = True
    while grown:  # every meld of 4+ cards contains a smaller meld plus one card
        grown = False
        for m in list(found):
            for c in range(52):
                if counts[c] and c not in m and is_meld((*m, c)):
                    new = canonical_meld((*m, c))
                    if new not in found:
                        found.add(new)
                        grown = True
    return sorted(found, key=lambda m: (-len(m), m))


def test_solver_helpers_match_references() -> None:
    rng = SeedStream("solver-ref")
    for trial in range(150):
        deck = [c for c in range(52) for _ in range(2)]
        rng.shuffle(deck)
        pool = [0] * 52
        for c in deck[:8 + trial % 30]:
            pool[c] += 1
        assert solver.live_cards(pool) == _ref_live(pool)
        masks = solver.presence(pool)
        assert masks is not None
        assert masks[0] == sum(1 << c for c in range(52) if pool[c])
        assert masks[1] == sum(1 << c for c in range(52) if pool[c] >= 2)
        if trial % 5 == 0:
            assert solver.hand_melds(pool, limit=10_000) == _ref_hand_melds(pool)
        assert list(solver.melds_of(masks[0], 12)) == solver.hand_melds(pool, limit=12)
        assert solver.best_initial_meld_of(masks[0], masks[1], 600) == solver.best_initial_meld(pool, max_states=600)
        table = [m for m in solver.hand_melds([1] * 52, limit=400)][trial % 7::37]
        slow = [(i, canonical_meld((*m, c))) for i, m in enumerate(table) for c in range(52)
                if pool[c] and len(m) < 13 and is_meld((*m, c))]
        assert solver.extensions(pool, table) == solver.extensions_of(masks[0], table) == slow
    assert solver.presence([3] + [0] * 51) is None


def test_initial_melds_of_equals_the_solver() -> None:
    """The engine's fast path (the DP without the states that cannot finish, when no stage
    can hold more states than the budget) gives the melds of ``best_initial_meld_of``:
    hands of 3-30 cards, budgets that the bound allows and ones it does not."""
    rng = SeedStream("initial-melds-of")
    fast = slow = 0
    for trial in range(1500):
        deck = [c for c in range(52) for _ in range(2)]
        rng.shuffle(deck)
        pool = [0] * 52
        for c in deck[:3 + trial % 28]:
            pool[c] += 1
        masks = solver.presence(pool)
        assert masks is not None
        budget = (600, 600, 40, 4000)[trial % 4]
        ref = solver.best_initial_meld_of(masks[0], masks[1], budget)
        got = solver.initial_melds_of(masks[0], masks[1], budget)
        assert got == (None if ref is None else ref.melds), pool
        assert solver.listing_melds(masks[0], masks[1], 12, budget) == (got, solver.melds_of(masks[0], 12))
        assert solver._meld_mask(masks[0]) == solver._live_mask(masks[0])
        live = solver.live_cards(pool)
        if sum(live) <= solver.DIRECT_POOL and solver._states_bound(live) <= budget:
            fast += 1
        else:
            slow += 1
    assert fast > 500 and slow > 100  # both the fast path and the fallback were taken


def test_states_bound_bounds_every_stage() -> None:
    """``_states_bound`` is an upper bound on the states of any stage: with the budget set
    to it, the search is never truncated (it would be, had a stage held more)."""
    rng = SeedStream("states-bound")
    tight = 0
    for trial in range(600):
        deck = [c for c in range(52) for _ in range(2)]
        rng.shuffle(deck)
        pool = solver.live_cards([0] * 52)
        for c in deck[:4 + trial % 21]:
            pool[c] += 1
        pool = solver.live_cards(pool)
        if trial % 3 == 0:  # denser: runs in two copies, aces, sets
            for c in deck[:6]:
                pool[c - c % 13 + (c % 13) // 2] = 2
            pool = solver.live_cards(pool)
        bound = solver._states_bound(pool)
        stats = [0, 0]
        solver.max_cover(pool, max_drops=sum(pool), max_states=bound, stats=stats)
        assert stats[1] == 0, (pool, bound)
        stats = [0, 0]
        solver.max_cover(pool, max_drops=sum(pool), max_states=max(1, bound // 8), stats=stats)
        tight += stats[1]
    assert tight > 50  # often within 8x of a stage's real count: the check above has teeth
