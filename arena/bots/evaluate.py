"""Comparing bots on the same seeded deals with the seats rotated (duplicate).

:func:`compare_bots` is what ``arena play`` runs and what the per-game issues use
to measure a heuristic bot against a random one.

Seating
-------
The table is divided into *units*: the game's partnerships (``Game.teams()``)
when the number of entrants equals the number of partnerships, otherwise single
seats. With ``k`` entrants and ``U`` units, unit ``u`` holds entrant ``u mod k``
(so ``heuristic,random`` at a five-seat table gives H R H R H). Each seeded deal
is played ``U`` times; in rotation ``r`` unit ``u`` holds the entrant that unit
``(u - r) mod U`` held in rotation 0. Every entrant thus meets the same cards
from every unit, and the luck of the deal cancels.

Deal ``i`` uses seed ``derive_seed(seed, "deal", i)`` in every rotation. Bots are
made fresh for every match (``make_bot`` with a seed derived from the deal and
rotation), so no bot remembers one rotation in the next. Duplicate bridge plays
deal ``i`` as board ``i + 1`` (``init={"board": i + 1}``, as tournaments do):
dealer and vulnerability follow the board number.

With ``jobs > 1`` the deals are played in worker processes; the records come
back and the final states are rebuilt from them in this process (replayed
through the engine), so every result has its state whatever ``jobs`` is.

Statistics
----------
Per match, a unit's score is the mean of its seats' returns and an entrant's score
the mean over its units. A unit wins a match if its score is the highest (ties
split the win). Per deal, each entrant's score and win share are averaged over the
rotations; across deals, means come with 95% Student-t intervals over those
per-deal values (deals are independent; rotations of one deal are not).
With two entrants the per-deal *margin* is the mean over rotations of
``score(first) - score(second)``, also converted by ``Game.margin_points``
(bridge: IMPs, i.e. ``imps(NS score in room 1 - NS score in room 2)``). Where a
game's returns are not its points (canasta returns rank the sides),
``point_margin`` is the same difference over ``Game.match_points`` (the score
each side made).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from arena.bots import make_bot
from arena.core.dealing import derive_seed
from arena.core.state import Game
from arena.games import get_game
from arena.match.referee import DEFAULT_DEADLINE_MS, MatchResult, run_match

__all__ = ["SCHEMA_VERSION", "Interval", "EntrantStats", "DealResult", "Comparison", "compare_bots",
           "deal_init", "mean_interval", "seating"]

SCHEMA_VERSION = 1
"""Version of :meth:`Comparison.to_dict`'s layout (``arena play --json``)."""


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% confidence interval."""

    mean: float
    low: float
    high: float
    n: int

    @property
    def half_width(self) -> float:
        """Half the width of the interval (the "+/-")."""
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        return f"{self.mean:.3f} +/- {self.half_width:.3f} (95% CI {self.low:.3f} .. {self.high:.3f}, n={self.n})"


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """Mean and Student-t confidence interval of independent values."""
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    mean = sum(values) / n
    if n == 1:
        return Interval(mean, -math.inf, math.inf, 1)
    from scipy.stats import t

    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = float(t.ppf(0.5 + confidence / 2, n - 1)) * math.sqrt(var / n)
    return Interval(mean, mean - half, mean + half, n)


def seating(game: Game, entrants: int) -> tuple[list[list[int]], int]:
    """The units (lists of seats) and the number of rotations for ``entrants``."""
    teams = game.teams()
    units = teams if entrants == len(teams) else [[s] for s in range(game.num_players)]
    if entrants > len(units):
        raise ValueError(f"{game.name} seats {len(units)} units; got {entrants} entrants")
    return units, len(units)


def _assignment(units: list[list[int]], k: int, r: int, n: int) -> list[int]:
    """Entrant index at each seat in rotation ``r``."""
    seats = [0] * n
    size = len(units)
    for u, unit in enumerate(units):
        for s in unit:
            seats[s] = ((u - r) % size) % k
    return seats


@dataclass
class DealResult:
    """One seeded deal played in every rotation."""

    deal: int
    scores: list[float]
    """Per entrant, mean over rotations."""
    wins: list[float]
    """Per entrant, mean win share over rotations."""
    margin: float | None
    points: float | None
    point_margin: float | None = None
    """Two entrants: mean over rotations of the difference in ``Game.match_points``."""
    matches: list[MatchResult] = field(default_factory=list)


@dataclass
class EntrantStats:
    """Summary for one entrant."""

    name: str
    units: int
    """How many units it holds at each table."""
    score: Interval
    win_rate: Interval
    expected_win_rate: float
    """Its share of wins if all bots were equal (units held / units)."""


@dataclass
class Comparison:
    """Result of :func:`compare_bots`."""

    game: str
    ruleset: str
    deals: int
    rotations: int
    entrants: list[EntrantStats]
    margin: Interval | None
    """Two entrants: per-deal mean score difference, first minus second."""
    points: Interval | None
    """The margin in the game's reporting unit (bridge: IMPs per board)."""
    point_margin: Interval | None
    """Two entrants: per-deal difference in the game's own points (``Game.match_points``)."""
    faults: int
    results: list[DealResult]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (without the match records): strict JSON, ``None``
        (``null``) wherever a figure is undefined (an interval of one deal, no deals),
        never NaN or infinity; ``schema_version`` is :data:`SCHEMA_VERSION`."""
        def num(x: float | None) -> float | None:
            return None if x is None or not math.isfinite(x) else x

        def iv(x: Interval | None) -> dict[str, float | None] | None:
            return None if x is None else {"mean": num(x.mean), "low": num(x.low), "high": num(x.high),
                                           "n": x.n}

        return {
            "schema_version": SCHEMA_VERSION,
            "game": self.game, "ruleset": self.ruleset, "deals": self.deals,
            "rotations": self.rotations, "faults": self.faults,
            "entrants": [{"name": e.name, "units": e.units, "score": iv(e.score),
                          "win_rate": iv(e.win_rate), "expected_win_rate": e.expected_win_rate}
                         for e in self.entrants],
            "margin": iv(self.margin), "points": iv(self.points),
            "point_margin": iv(self.point_margin),
            "per_deal": [{"deal": d.deal, "scores": [num(x) for x in d.scores], "wins": [num(x) for x in d.wins],
                          "margin": num(d.margin), "points": num(d.points),
                          "point_margin": num(d.point_margin)} for d in self.results],
        }


def deal_init(game: Game, deal: int) -> dict[str, Any]:
    """Extra ``new_initial_state`` arguments of deal ``deal`` (0-based): duplicate
    bridge plays it as board ``deal + 1``; other games need none.

    >>> from arena.games import get_game
    >>> deal_init(get_game("bridge"), 4), deal_init(get_game("calypso"), 4)
    ({'board': 5}, {})
    """
    if game.name == "bridge" and game.options.get("scoring") == "duplicate":
        return {"board": deal + 1}
    return {}


def _play_deal(game: Game, bots: Sequence[str], deal: int, seed: int, bot_seed: int,
               deadline_ms: float, tag: str, init: dict[str, Any] | None = None) -> DealResult:
    k = len(bots)
    init = deal_init(game, deal) if init is None else dict(init)
    n = game.num_players
    units, rotations = seating(game, k)
    deal_seed = derive_seed(seed, "deal", deal)
    scores = [[0.0] * k for _ in range(rotations)]
    pts = [[0.0] * k for _ in range(rotations)]
    wins = [[0.0] * k for _ in range(rotations)]
    matches = []
    for r in range(rotations):
        seat_entrant = _assignment(units, k, r, n)
        agents = [make_bot(game.name, bots[e], seed=derive_seed(bot_seed, deal, r, s))
                  for s, e in enumerate(seat_entrant)]
        result = run_match(game, agents, seed=deal_seed, init=init, match_id=f"{tag}-d{deal}-r{r}",
                           bot_names=[bots[e] for e in seat_entrant], deadline_ms=deadline_ms,
                           tags={"deal": deal, "rotation": r, "group": f"{tag}-d{deal}",
                                 **{k: v for k, v in init.items() if k != "hands"}})
        matches.append(result)
        returns = result.record.returns
        seat_points = game.match_points(result.state)
        unit_scores = [sum(returns[s] for s in unit) / len(unit) for unit in units]
        unit_points = [sum(seat_points[s] for s in unit) / len(unit) for unit in units]
        best = max(unit_scores)
        winners = [u for u, v in enumerate(unit_scores) if v == best]
        count = [0] * k
        for u, unit in enumerate(units):
            e = seat_entrant[unit[0]]
            count[e] += 1
            scores[r][e] += unit_scores[u]
            pts[r][e] += unit_points[u]
            if u in winners:
                wins[r][e] += 1.0 / len(winners)
        for e in range(k):
            scores[r][e] /= count[e]
            pts[r][e] /= count[e]
    mean_scores = [sum(scores[r][e] for r in range(rotations)) / rotations for e in range(k)]
    mean_wins = [sum(wins[r][e] for r in range(rotations)) / rotations for e in range(k)]
    margin: float | None = None
    points: float | None = None
    point_margin: float | None = None
    if k == 2:
        margin = sum(scores[r][0] - scores[r][1] for r in range(rotations)) / rotations
        points = float(game.margin_points(margin))
        point_margin = sum(pts[r][0] - pts[r][1] for r in range(rotations)) / rotations
    return DealResult(deal, mean_scores, mean_wins, margin, points, point_margin, matches)


def _play_deal_job(args: tuple[str, str | None, dict[str, Any], Sequence[str], int, int, int, float, str,
                               dict[str, Any] | None]) -> DealResult:
    name, preset, options, bots, deal, seed, bot_seed, deadline_ms, tag, init = args
    game = get_game(name, **({"preset": preset} if preset else {}), **options)
    result = _play_deal(game, bots, deal, seed, bot_seed, deadline_ms, tag, init)
    for m in result.matches:  # states do not cross processes; records do
        m.state = None  # type: ignore[assignment]  # dropped before pickling on purpose
    return result


def compare_bots(game: Game, bots: Sequence[str], *, deals: int, seed: int = 0, bot_seed: int = 0,
                 deadline_ms: float = DEFAULT_DEADLINE_MS, jobs: int = 1, tag: str = "cmp",
                 keep_matches: bool = True,
                 progress: Callable[[DealResult], None] | None = None,
                 inits: Sequence[dict[str, Any]] | None = None) -> Comparison:
    """Play ``deals`` seeded deals in every rotation of ``bots`` and summarize.

    :param bots: built-in bot names, one per entrant (see the module docstring).
    :param inits: ``new_initial_state`` arguments of each deal instead of
        :func:`deal_init`'s (bridge boards of a file: ``{"board": n, "hands": ...}``).
    :param jobs: worker processes (the final states are rebuilt from the records).
    :param progress: called after each deal.
    :raises ValueError: unknown bot, fewer than two entrants or more entrants than
        units, or a number of deals below 1.
    """
    k = len(bots)
    if deals < 1:
        raise ValueError(f"the number of deals must be at least 1, got {deals}")
    if inits is not None and len(inits) < deals:
        raise ValueError(f"{deals} deals but {len(inits)} initial states")
    if k < 2:
        raise ValueError(f"a match needs at least two entrants, got {k}: {', '.join(bots) or 'none'}")
    units, rotations = seating(game, k)
    for b in set(bots):
        make_bot(game.name, b)  # fail early on an unknown name
    results: list[DealResult] = []
    faults = 0

    def done(res: DealResult) -> None:
        nonlocal faults
        faults += sum(len(m.record.faults) for m in res.matches)
        if not keep_matches:
            res.matches = []
        for m in res.matches:
            if m.state is None:  # played in a worker process: rebuild the state from the record
                from arena.records.replay import replay_record

                m.state = replay_record(m.record)
        results.append(res)
        if progress:
            progress(res)

    if jobs <= 1:
        for d in range(deals):
            done(_play_deal(game, bots, d, seed, bot_seed, deadline_ms, tag, inits[d] if inits else None))
    else:
        args = [(game.name, game.preset, dict(game.options), list(bots), d, seed, bot_seed,
                 deadline_ms, tag, dict(inits[d]) if inits else None) for d in range(deals)]
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for res in pool.map(_play_deal_job, args, chunksize=max(1, deals // (jobs * 8))):
                done(res)
    held = [sum(1 for u in range(len(units)) if u % k == e) for e in range(k)]
    labels = [b if bots.count(b) == 1 else f"{b}#{i + 1}" for i, b in enumerate(bots)]
    entrants = [EntrantStats(labels[e], held[e],
                             mean_interval([r.scores[e] for r in results]),
                             mean_interval([r.wins[e] for r in results]),
                             held[e] / len(units)) for e in range(k)]
    margin = points = point_margin = None
    if k == 2:
        margin = mean_interval([r.margin for r in results if r.margin is not None])
        points = mean_interval([r.points for r in results if r.points is not None])
        point_margin = mean_interval([r.point_margin for r in results if r.point_margin is not None])
    return Comparison(game.name, game.ruleset, deals, rotations, entrants, margin, points, point_margin,
                      faults, results)
