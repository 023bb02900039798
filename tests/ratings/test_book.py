"""Online Elo book: multi-player, partnerships, duplicate, recompute equality."""

from __future__ import annotations

import random

import pytest

from arena.ratings.book import EloConfig, RatingBook
from arena.ratings.errors import RatingError
from arena.ratings.result import MatchResult

RS = "toy@v1"


def test_two_player_update_and_ruleset_separation() -> None:
    book = RatingBook(EloConfig(k=20))
    ch = book.record(MatchResult(RS, ["a", "b"], [1, 0]))
    assert ch == {"a": 10.0, "b": -10.0}
    assert book.rating(RS, "a") == 1510.0
    assert book.rating("other@v1", "a") == 1500.0
    s = book.summary(RS, "a")
    assert (s.games, s.last_change, s.error) == (1, 10.0, None)


def test_four_player_vector_through_book() -> None:
    seeds = {(RS, "A"): 1600.0, (RS, "B"): 1500.0, (RS, "C"): 1500.0, (RS, "D"): 1400.0}
    book = RatingBook(EloConfig(k=32), seeds)
    ch = book.record(MatchResult.from_places(RS, ["A", "B", "C", "D"], [2, 1, 4, 3]))
    assert [ch[b] for b in "ABCD"] == pytest.approx([-0.425, 16.0, -16.0, 0.425], abs=1e-3)


def test_four_player_tie_vector_through_book() -> None:
    seeds = {(RS, "A"): 1600.0, (RS, "B"): 1500.0, (RS, "C"): 1500.0, (RS, "D"): 1400.0}
    book = RatingBook(EloConfig(k=32), seeds)
    ch = book.record(MatchResult.from_places(RS, ["A", "B", "C", "D"], [1, 1, 3, 4]))
    assert [ch[b] for b in "ABCD"] == pytest.approx([4.908, 10.667, -5.333, -10.241], abs=1e-3)


def test_partnership_vector() -> None:
    # NS = (1550, 1450) -> 1500; EW = (1600, 1500) -> 1550; NS wins; K = 32.
    seeds = {(RS, "n"): 1550.0, (RS, "s"): 1450.0, (RS, "e"): 1600.0, (RS, "w"): 1500.0}
    book = RatingBook(EloConfig(k=32), seeds)
    ch = book.record(MatchResult(RS, ["n", "e", "s", "w"], [1, -1, 1, -1], teams=[[0, 2], [1, 3]]))
    assert ch["n"] == pytest.approx(18.287, abs=1e-3)
    assert ch["s"] == pytest.approx(18.287, abs=1e-3)
    assert ch["e"] == pytest.approx(-18.287, abs=1e-3)
    assert ch["w"] == pytest.approx(-18.287, abs=1e-3)


def test_cap_option() -> None:
    seeds = {(RS, "a"): 2500.0, (RS, "b"): 2000.0}
    book = RatingBook(EloConfig(k=10, cap=400), seeds)
    ch = book.record(MatchResult(RS, ["a", "b"], [1, 0]))
    assert ch["a"] == pytest.approx(10 * (1 - 10 / 11), abs=1e-9)


def test_self_play_does_not_move() -> None:
    book = RatingBook()
    assert book.record(MatchResult(RS, ["a", "a"], [1, 0])) == {"a": 0.0}


def test_duplicate_compares_same_seat_not_the_cards() -> None:
    book = RatingBook(EloConfig(k=32))
    # Table 1: a holds seat 0 and wins big on good cards.
    assert book.record(MatchResult(RS, ["a", "b"], [10, -10], deal_id="d1")) == {"a": 0.0, "b": 0.0}
    # Table 2: b holds the same seat 0 and wins bigger: b beat a on seat 0,
    # and a (seat 1, -5) beat b (seat 1, -10): the deal is a wash.
    ch = book.record(MatchResult(RS, ["b", "a"], [12, -5], deal_id="d1"))
    assert ch == {"b": 0.0, "a": 0.0}
    # Table 3 of another deal: b again better on seat 0 and on seat 1.
    book.record(MatchResult(RS, ["a", "b"], [3, -3], deal_id="d2"))
    ch = book.record(MatchResult(RS, ["b", "a"], [4, -4], deal_id="d2"))
    # two comparisons of weight 1/2, both won by b: one full game at K = 32.
    assert ch["b"] == pytest.approx(16.0)
    assert ch["a"] == pytest.approx(-16.0)


def test_duplicate_team_match_two_rooms_is_one_game() -> None:
    # Open room: team A (a1, a2) sits N-S; closed room: team B (b1, b2) sits N-S.
    teams = [[0, 2], [1, 3]]
    book = RatingBook(EloConfig(k=32))
    book.record(MatchResult(RS, ["a1", "b1", "a2", "b2"], [620, -620, 620, -620], teams, deal_id="b1"))
    ch = book.record(MatchResult(RS, ["b1", "a1", "b2", "a2"], [170, -170, 170, -170], teams, deal_id="b1"))
    # N-S: b beat? no: 170 < 620, team A won the board in both seat groups.
    assert ch["a1"] == pytest.approx(16.0) and ch["a2"] == pytest.approx(16.0)
    assert ch["b1"] == pytest.approx(-16.0) and ch["b2"] == pytest.approx(-16.0)


def test_duplicate_inconsistent_deal_raises() -> None:
    book = RatingBook()
    book.record(MatchResult(RS, ["a", "b"], [1, 0], deal_id="x"))
    with pytest.raises(RatingError):
        book.record(MatchResult(RS, ["a", "b", "c"], [1, 0, 0], deal_id="x"))


def _random_results(n: int, seed: int) -> list[MatchResult]:
    rng = random.Random(seed)
    bots = [f"bot{i}" for i in range(7)]
    out = []
    for i in range(n):
        kind = rng.randrange(4)
        rs = rng.choice(["g@v1", "g@v2"])
        if kind == 0:
            seats = rng.sample(bots, 2)
            out.append(MatchResult(rs, seats, [rng.choice([0, 0.5, 1]), 0.5]))
        elif kind == 1:
            seats = rng.sample(bots, rng.randrange(3, 6))
            out.append(MatchResult(rs, seats, [rng.randrange(4) for _ in seats]))
        elif kind == 2:
            seats = rng.sample(bots, 4)
            out.append(MatchResult(rs, seats, [rng.randrange(3) for _ in seats], teams=[[0, 2], [1, 3]]))
        else:
            deal = f"d{rng.randrange(20)}"
            seats = rng.sample(bots, 3)
            out.append(MatchResult(rs, seats, [rng.randrange(5) for _ in seats], deal_id=deal))
    return out


def test_recompute_equals_online() -> None:
    results = _random_results(500, 1)
    online = RatingBook(EloConfig(k=24))
    for r in results:
        online.record(r)
    again = online.recompute(results)
    assert again.snapshot() == online.snapshot()  # exact, not approximate
    assert RatingBook.from_results(results, EloConfig(k=24)).snapshot() == online.snapshot()
    for rs in online.rulesets():
        assert again.standings(rs) == online.standings(rs)
        assert again.history(rs) == online.history(rs)


def test_zero_sum_per_ruleset() -> None:
    book = RatingBook.from_results(_random_results(300, 2))
    for rs in book.rulesets():
        r = book.ratings(rs)
        assert sum(r.values()) == pytest.approx(1500 * len(r), abs=1e-6)


def test_history_and_standings() -> None:
    book = RatingBook()
    book.record(MatchResult(RS, ["a", "b"], [1, 0]))
    book.record(MatchResult(RS, ["a", "c"], [0, 1]))
    h = book.history(RS)
    assert [p.step for p in h["a"]] == [1, 2]
    assert [p.step for p in h["c"]] == [2]
    st = book.standings(RS)
    assert [s.bot for s in st][0] in {"a", "c"}
    assert st[-1].bot == "b"
    assert book.summary(RS, "a").games == 2


@pytest.mark.parametrize("kwargs", [{"k": 0}, {"k": -1}, {"cap": 0}])
def test_config_validation(kwargs: dict[str, float]) -> None:
    with pytest.raises(RatingError):
        EloConfig(**kwargs)
