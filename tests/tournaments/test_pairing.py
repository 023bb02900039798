"""Swiss pairing properties on random fields (arena.tournaments.pairing).

Two sides: against an exhaustive search over every pairing on fields up to 12
(no avoidable rematch, score distance equal to the optimum, byes only to entrants
with the fewest); on random fields of 2..200 over several rounds: everyone plays
once per round or has the bye, one bye at most per entrant, no rematch where a
field is large enough to avoid them. Tables: everyone seated once or out, byes
spread, no repeated meeting where an exhaustive search finds it avoidable.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest

from arena.tournaments.pairing import BYE, Pairing, Tables, group_tables, objective, pair_two_sided, table_objective


def all_pairings(nodes: Sequence[str]) -> Iterator[list[tuple[str, str]]]:
    if not nodes:
        yield []
        return
    first = nodes[0]
    for i in range(1, len(nodes)):
        rest = list(nodes[1:i]) + list(nodes[i + 1:])
        for m in all_pairings(rest):
            yield [(first, nodes[i]), *m]


def exhaustive(ids: Sequence[str], scores: dict[str, float], met: dict[frozenset[str], int],
               byes: dict[str, int]) -> tuple[int, int]:
    """The best (rematches, distance) over every legal pairing (independent of the module)."""
    fewest = min(byes.get(e, 0) for e in ids)
    nodes = list(ids) + ([BYE] if len(ids) % 2 else [])
    low = min(round(scores[e] * 100) for e in ids)
    best: tuple[int, int] | None = None
    for m in all_pairings(nodes):
        rem = dist = 0
        ok = True
        for a, b in m:
            if BYE in (a, b):
                e = a if b == BYE else b
                if byes.get(e, 0) != fewest:
                    ok = False
                    break
                dist += (round(scores[e] * 100) - low) ** 2
            else:
                rem += met.get(frozenset((a, b)), 0)
                dist += (round(scores[a] * 100) - round(scores[b] * 100)) ** 2
        if ok and (best is None or (rem, dist) < best):
            best = (rem, dist)
    assert best is not None
    return best


def random_state(rnd: random.Random, n: int) -> tuple[list[str], dict[str, float], dict[frozenset[str], int],
                                                     dict[str, int]]:
    ids = [f"e{i:03d}" for i in range(n)]
    scores = {e: rnd.randint(0, 8) / 2 for e in ids}
    density = rnd.choice([0.0, 0.2, 0.5, 0.8])
    met = {frozenset(p): rnd.choice([1, 1, 2]) for p in combinations(ids, 2) if rnd.random() < density}
    byes = {e: 1 for e in ids if rnd.random() < 0.3}
    ranking = sorted(ids, key=lambda e: (-scores[e], e))
    return ranking, scores, met, byes


def check_shape(p: Pairing, ids: Sequence[str]) -> None:
    seen = [e for pair in p.pairs for e in pair] + ([p.bye] if p.bye else [])
    assert sorted(seen) == sorted(ids), "everyone plays once or has the bye"
    assert (p.bye is not None) == (len(ids) % 2 == 1)


@pytest.mark.parametrize("n", range(2, 13))
def test_against_exhaustive_search(n: int) -> None:
    rnd = random.Random(1000 + n)
    for _ in range(12 if n <= 10 else 4):
        ranking, scores, met, byes = random_state(rnd, n)
        p = pair_two_sided(ranking, scores, met, byes)
        check_shape(p, ranking)
        if p.bye is not None:
            assert byes.get(p.bye, 0) == min(byes.get(e, 0) for e in ranking), "bye to one with the fewest"
        assert objective(p, scores, met) == exhaustive(ranking, scores, met, byes)


def test_exhaustive_also_through_the_window_path() -> None:
    """The windowed path (forced on a small field) keeps the shape and the bye rule,
    and never does worse on rematches than the exhaustive optimum plus what the windows cost."""
    rnd = random.Random(5)
    for _ in range(20):
        n = rnd.randint(7, 12)
        ranking, scores, met, byes = random_state(rnd, n)
        p = pair_two_sided(ranking, scores, met, byes, exact_limit=2, window=4)
        check_shape(p, ranking)
        if p.bye is not None:
            assert byes.get(p.bye, 0) == min(byes.get(e, 0) for e in ranking)


def simulate(n: int, rounds: int, seed: int, *, check_exhaustive: bool) -> tuple[int, dict[str, int]]:
    rnd = random.Random(seed)
    ids = [f"p{i:03d}" for i in range(n)]
    strength = {e: rnd.random() for e in ids}
    scores = dict.fromkeys(ids, 0.0)
    met: dict[frozenset[str], int] = {}
    byes: dict[str, int] = {}
    rematches = 0
    for _ in range(rounds):
        ranking = sorted(ids, key=lambda e: (-scores[e], e))
        p = pair_two_sided(ranking, scores, met, byes)
        check_shape(p, ids)
        if check_exhaustive:
            assert objective(p, scores, met) == exhaustive(ranking, scores, met, byes)
        rematches += objective(p, scores, met)[0]
        for a, b in p.pairs:
            k = frozenset((a, b))
            met[k] = met.get(k, 0) + 1
            x = rnd.random()
            pa = 1 / (1 + 10 ** ((strength[b] - strength[a]) * 2))
            ra = 0.5 if x < 0.1 else 1.0 if x < 0.1 + 0.9 * pa else 0.0
            scores[a] += ra
            scores[b] += 1 - ra
        if p.bye:
            byes[p.bye] = byes.get(p.bye, 0) + 1
            scores[p.bye] += 1.0
    return rematches, byes


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
def test_small_events_round_by_round(n: int) -> None:
    """Whole events on small fields, every round against the exhaustive search
    (rounds up to n-1 even / n odd: no rematch is ever needed)."""
    rounds = n - 1 + n % 2
    rem, byes = simulate(n, min(rounds, 7), seed=n, check_exhaustive=n <= 10)
    assert rem == 0
    assert all(v <= 1 for v in byes.values())


def test_more_rounds_than_avoidable_allows_rematches_and_spreads_byes() -> None:
    rem, byes = simulate(5, 8, seed=3, check_exhaustive=True)
    assert rem > 0  # 5 entrants: 5 rounds at most without one
    assert max(byes.values()) - min(byes.get(e, 0) for e in [f"p{i:03d}" for i in range(5)]) <= 1


@pytest.mark.parametrize("n", [13, 17, 24, 40, 41, 63, 100, 151, 200])
def test_random_fields_up_to_200(n: int) -> None:
    rem, byes = simulate(n, 7, seed=n, check_exhaustive=False)
    assert rem == 0, "a field this large never needs a rematch in 7 rounds"
    assert all(v <= 1 for v in byes.values())
    assert len(byes) == (7 if n % 2 else 0)


def test_pairing_is_deterministic() -> None:
    rnd = random.Random(9)
    ranking, scores, met, byes = random_state(rnd, 60)
    assert pair_two_sided(ranking, scores, met, byes) == pair_two_sided(ranking, scores, met, byes)


# -- tables ----------------------------------------------------------------------------------------

def all_groupings(ids: Sequence[str], size: int) -> Iterator[list[list[str]]]:
    if not ids:
        yield []
        return
    first, rest = ids[0], list(ids[1:])
    for others in combinations(rest, size - 1):
        left = [e for e in rest if e not in others]
        for g in all_groupings(left, size):
            yield [[first, *others], *g]


@pytest.mark.parametrize("n,size", [(3, 3), (4, 3), (6, 3), (7, 3), (8, 4), (9, 3), (10, 5), (12, 4)])
def test_tables_shape_and_repeats(n: int, size: int) -> None:
    rnd = random.Random(n * 10 + size)
    for _ in range(6):
        ids = [f"t{i:02d}" for i in range(n)]
        scores = {e: rnd.randint(0, 4) / 2 for e in ids}
        met = {frozenset(p): 1 for p in combinations(ids, 2) if rnd.random() < 0.25}
        byes = {e: 1 for e in ids if rnd.random() < 0.3}
        ranking = sorted(ids, key=lambda e: (-scores[e], e))
        t = group_tables(ranking, scores, met, byes, size)
        seated = [e for tab in t.tables for e in tab]
        assert sorted(seated + t.byes) == sorted(ids)
        assert all(len(tab) == size for tab in t.tables) and len(t.byes) == n % size
        fewest = min(byes.get(e, 0) for e in ids)
        if len(t.byes) <= sum(1 for e in ids if byes.get(e, 0) == fewest):
            assert all(byes.get(e, 0) == fewest for e in t.byes)
        if n - len(t.byes) <= 9:
            best = min(table_objective(Tables(g, t.byes), scores, met)[0]
                       for g in all_groupings(sorted(seated), size))
            if best == 0:
                assert table_objective(t, scores, met)[0] == 0, "a repeated meeting was avoidable"


def test_tables_too_few_entrants() -> None:
    with pytest.raises(ValueError, match="cannot fill a table"):
        group_tables(["a", "b"], {"a": 0, "b": 0}, {}, {}, 3)
