"""Built-in robber rummy bots: ``random`` and ``heuristic``.

``heuristic`` lays down as many cards as it can every turn, then the most
points: before its initial meld it lays the best set of melds of its hand
(:func:`~arena.games.rummy.solver.best_initial_meld`); afterwards it asks
:func:`~arena.games.rummy.solver.best_rearrangement` for the best new table
from hand + table. It also scores every listed legal play the same way and
keeps the best, so it is never worse than the best listed play. It sees only
its observation and the legal actions, and is deterministic (no randomness).

``pimc`` (:class:`RummySearch`, :mod:`arena.bots.search.flat` for the search shared by
the games)

The candidates are, best first by the cards (then points) they leave in
the hand: the heuristic's choice and a **whole-table solve**
(:func:`~arena.games.rummy.solver.best_rearrangement` with ``global_pool = pool``
live cards and ``max_states = states`` per DP stage; defaults ``pool`` 48, ``states``
500 since issue 29, were 60 and 1500; ``pool`` <= 36 turns it off, and it is not run
above ``pool`` live cards, where the solver would go local, nor past half the wall budget); the heuristic goes to a local search above 36
live cards and misses sheds there (the bigger solve lays more, or costlier,
cards in about a fifth of the positions after the initial meld, at ~130 ms mean,
~4 s worst on this machine); then the heuristic's choice, ``PASS`` and the listed
plays by fewest cards left. A first candidate that empties the hand is played
without search; so is the first candidate when no information set is offered, so
over the protocol the rummy ``pimc`` is the heuristic with the bigger solve.
Rollouts play :class:`ShedRummy`: every meld of the hand plus the single cards
that extend table melds, in one play, or the best *listed* action when that sheds
more (``DeterminizedAgent(rollout_policy="listed")``: :class:`ListedGreedyRummy`
only, which lays one meld or one extension a turn, so rollout hands shrank more
slowly than the real players' do); the solver in every rollout turn would cost far
more.
Defaults: ``playouts`` 48, ``width`` 3, ``depth`` 8, ``gate`` 1.5, ``hold`` 2.

Holding back (``hold`` k >= 0, a Python keyword of the factory, not a bot-spec
option; -1 turns it off; 2 players only): after its initial meld and while the stock lasts, the bot
passes, keeping its melds in hand, unless its first candidate empties the hand or some
other hand is down to k cards or fewer; then it plays (and searches) as above. A card
kept in hand serves the bot's own rearrangements exactly as it would on the table (its
pool is hand + table either way), but the other players cannot build on it; the
heuristic lays everything at once and so feeds the table the bot goes out on. The price
is the held cards' value when another player goes out first. Without search (a
scripted version on top of the heuristic, 2 players, paired seats, 60 deals): k=3
+72.0 +/- 4.9 points/deal, win rate 0.93; 40 other deals: k = 1, 2, 3, 4 +72.4, +72.4,
+69.2, +65.1 (+/- 11-12); a minimal initial meld (one meld, the rest held) no better
than the full one (+69.0 at k=3). The bot at its defaults, ``arena play rummy --preset 2p
-o deals=1 --bots "pimc,heuristic" --games 30 --seed 7 -j 1 --json``: +73.87 [+66.77,
+80.97] points/deal, win rate 0.967 [0.919, 1.014]; ``pimc?width=1`` (no search) the same
figures on the same deals: the gain is the holding back, the search changed no result there.
Reporting run, defaults of commit c617d9c, run once, 2026-12-02 (machine load 1.5-5):
``arena play rummy --preset 2p -o deals=1 --bots "pimc,heuristic" --games 200 --seed 2026
-j 1 --json``: **+74.06 [+70.50, +77.61] points/deal**, win rate 0.953 [0.928, 0.977]
(185 deals won in both seats, 11 split, 4 lost in both), pimc 18.3 and heuristic -55.7
points/deal; 2 faults (the report does not say whose; most likely decisions over the
10 s deadline of a ``nice 19`` process on a loaded machine: the slowest pimc decisions
are its whole-table solves on big hands late in a deal, 1.24 s wall at most in 20 deals
of seed 11, median 18 ms, p99 0.45 s); 17 min 18 s CPU, 26 min 37 s wall.
``bench_search.py --games rummy --cpu``: 18.4 decisions/s, median 66 ms, max 127 ms
(12 positions). Not measured: more than 2 players.
After that run (not run on seed 2026): on a held turn the bot first asks only whether hand +
table can all lie in melds (dead cards, then an exact no-card-left-out search, ``_going_out``)
and plays that layout or passes, before the heuristic and the whole-table solve, which it
consults only when that search is cut by its state budget. It finds some go-outs the
bounded whole-table solve (above 60 live cards: the local search) missed, so 73 of 120
games of seed 13 went differently: ``--games 60 --seed 13`` +76.52 [+71.72, +81.32]
points/deal before, +78.47 [+73.67, +83.27] after (both win rate 0.983, 0 faults); pimc's
median decision 25.0 -> 0.76 ms wall, p99 0.60 -> 0.79 s, max 1.33 -> 1.27 s (the slowest
are the turns it plays, not the held ones); ``bench_search.py --games rummy --cpu`` 26.5
decisions/s, median 29 ms, max 104 ms.
With 4 players holding back lost points: ``arena play rummy --preset 4p -o deals=1 --bots
"pimc,heuristic" --games 30 --seed 19 -j 1 --json`` (two of each, 4 rotations) -14.67
[-23.08, -6.26] points/deal (seed 17, 10 games: -10.0 [-30.2, +10.2]): three other hands
feed the table anyway and one of them goes out sooner. So it is off with more than 2
players (the bot then plays as before it, searching every turn): seed 17, 10 games, 4p,
+2.3 [-5.5, +10.1]. 2p unchanged (seed 13, the first 10 deals identical per deal).
``bench_search.py --games rummy --cpu`` takes 4-player positions, so its figures above
(18.4 and 26.5 decisions/s) counted held turns; at 9c68a64 (no holding with 4): 10.8
decisions/s, median 84 ms, max 180 ms (12 positions).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.bots.base import Agent, RandomAgent
from arena.bots.base import MatchInfo
from arena.bots.search.flat import DeterminizedAgent, make_search_bot
from arena.match.infoset import InformationSet
from arena.core.state import Action, State
from arena.games.rummy.actions import PASS, RummyAction
from arena.games.rummy.melds import INDEX, VALUE, canonical_layout, counts_of
from arena.games.rummy import solver

__all__ = ["BOTS", "HeuristicAgent", "ListedGreedyRummy", "RummySearch", "ShedRummy"]


def _counts(observation: Any) -> tuple[list[int], list[tuple[int, ...]], list[int]]:
    """``(hand counts, table melds as card indices, table counts)`` of a rummy
    observation (counts per card index, 0..51)."""
    hand = [0] * 52
    for tok in observation.hand:
        hand[INDEX[tok]] += 1
    melds = [tuple(INDEX[t] for t in m) for m in observation.table]
    table = [0] * 52
    for m in melds:
        for c in m:
            table[c] += 1
    return hand, melds, table


def _outcome(hand: list[int], table: list[int], action: RummyAction) -> tuple[int, int]:
    """(cards, points) left in hand after ``action`` (lower is better)."""
    if action.layout is None:
        return sum(hand), sum(VALUE[c] * k for c, k in enumerate(hand))
    left = [h + t for h, t in zip(hand, table)]
    for meld in action.layout:
        for tok in meld:
            left[INDEX[tok]] -= 1
    return sum(left), sum(VALUE[c] * k for c, k in enumerate(left))


class HeuristicAgent(Agent):
    """Greedy shedding with the meld solver (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | str = 0, max_states: int = solver.DEFAULT_MAX_STATES) -> None:
        self.max_states = max_states

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        hand, table_melds, table = _counts(observation)
        candidates: list[RummyAction] = [a for a in legal_actions if isinstance(a, RummyAction)]
        if observation.initial_meld_pending:
            cover = solver.best_initial_meld(hand, max_states=self.max_states)
            if cover is not None:
                candidates.append(RummyAction.play((*table_melds, *cover.melds)))
        else:
            cover = solver.best_rearrangement(hand, table_melds, strict=observation.strict_table,
                                              max_states=self.max_states)
            if cover is not None:
                candidates.append(RummyAction.play(cover.melds))
        best: Action = PASS
        best_key = _outcome(hand, table, PASS)
        for a in candidates:
            key = _outcome(hand, table, a)
            if key < best_key:
                best, best_key = a, key
        return best


class RummySearch(DeterminizedAgent):
    """Robber rummy ``pimc`` (see the module docstring): its candidates, holding back,
    whole-table solve and rollout policies."""

    game_name = "rummy"
    defaults = {"solver_states": 500, "solver_pool": 48, "depth": 8, "playouts": 48, "width": 3,
                "gate": 1.5, "hold": 2}
    options = {**DeterminizedAgent.options, "pool": "solver_pool", "states": "solver_states"}

    def __init__(self, seed: int | str = 0, *, solver_pool: int = 60, solver_states: int = 1500,
                 rollout_policy: str = "shed", hold: int = -1, **options: Any) -> None:
        super().__init__(seed, **options)
        if rollout_policy not in ("shed", "listed"):
            raise ValueError(f"rollout_policy: 'shed' or 'listed', got {rollout_policy!r}")
        if isinstance(hold, bool) or int(hold) != hold:
            raise ValueError(f"hold: must be an integer (-1: off), got {hold!r}")
        self.solver_pool = int(solver_pool)
        self.solver_states = int(solver_states)
        self.rollout_policy = rollout_policy
        self.hold = int(hold)
        self._slowest_solve = 0.0
        """The slowest whole-table solve (wall) of the match so far."""

    def roller(self) -> Agent:
        return ShedRummy() if self.rollout_policy == "shed" else ListedGreedyRummy()

    def deal_key(self, obs: Any) -> tuple[int, ...]:
        return (obs.deal,)

    def points(self, state: State, ended: bool) -> list[float] | None:
        return None if ended else _points(state)

    def start_match(self, info: MatchInfo) -> None:
        self._slowest_solve = 0.0
        super().start_match(info)

    def choose(self, observation: Any, legal_actions: Sequence[Action],
               infoset: InformationSet | None) -> Action | str:
        held = _holds_back(observation, self.hold)
        if held:
            out = _going_out(observation, self.solver_states)
            if out is not None:
                return out
        # the heuristic's choice, its local search cut at 40% of the wall budget (80% on
        # a held turn, which is not searched)
        budget = self.budget_ms() / 1000.0
        share = 0.8 if held else 0.4
        base = _anytime_heuristic(observation, legal_actions,
                                  self.start + share * budget if budget else float("inf"), self.clock)
        # the listing holds only simple plays: the solver's plays are candidates too;
        # the whole-table solve cannot be cut short: not started past half the budget,
        # nor when the slowest one of the match so far would pass the budget
        now = self.clock()
        late = budget and (now - self.start > budget / 2
                           or now - self.start + self._slowest_solve > budget)
        plays = _candidates(observation, legal_actions, base,
                            0 if late else self.solver_pool, self.solver_states)[:self.width]
        self._slowest_solve = max(self._slowest_solve, self.clock() - now)
        if _empties_hand(observation, plays[0]):
            return plays[0]
        if held:
            return PASS
        if infoset is None or len(plays) == 1:
            return plays[0]
        return self.search(observation, infoset, plays)


def _points(state: State) -> list[float]:
    """Scores so far plus what each hand would score if the deal ended now."""
    out = []
    for s in range(state.game.num_players):
        obs: Any = state.observation(s)
        hand = obs.hand
        pen = 10 * len(hand) if not obs.melded[s] else sum(VALUE[INDEX[t]] for t in hand)
        out.append(float(obs.scores[s] - pen))
    return out


def _candidates(obs: Any, legal: Sequence[Action], heuristic: Action, pool: int,
                      states: int) -> list[Action]:
    """Rummy candidates, best first: the most shedding play of the heuristic's choice and a
    whole-table solve (live pools up to ``pool`` cards, ``states`` per DP stage: the
    heuristic's own solver goes local above 36 live cards and misses sheds there), then the
    heuristic's choice, ``PASS`` and the listed plays by fewest cards, then points, left."""
    hand, melds, table = _counts(obs)
    scored: list[tuple[tuple[int, int], int, Action]] = []
    if isinstance(heuristic, RummyAction):
        scored.append((_outcome(hand, table, heuristic), 0, heuristic))
    live = sum(solver.live_cards([h + t for h, t in zip(hand, table)]))
    if not obs.initial_meld_pending and solver.GLOBAL_POOL < pool and live <= pool:
        # above ``pool`` live cards the solver would go local, as the heuristic's own
        # does, at up to 1.4 s CPU on 40-card hands (seed 31): not worth it
        cover = solver.best_rearrangement(hand, melds, strict=obs.strict_table, global_pool=pool,
                                          max_states=states)
        if cover is not None:
            play = RummyAction.play(cover.melds)
            scored.append((_outcome(hand, table, play), 1, play))
    scored.sort(key=lambda x: (x[0], x[1]))
    out: list[Action] = []
    for _, _, a in scored:
        if a not in out:
            out.append(a)
    if heuristic not in out:
        out.append(heuristic)
    if PASS not in out:
        out.append(PASS)
    listed = sorted((_outcome(hand, table, a), i, a) for i, a in enumerate(legal)
                    if isinstance(a, RummyAction) and a.layout is not None)
    for _, _, a in listed:
        if a not in out:
            out.append(a)
    return out


def _near_cards(hand: Sequence[int], dist: int = 2) -> tuple[set[int], set[int]]:
    """The rummy solver's neighbourhood of hand cards (same suit within ``dist`` ranks, ace
    both ends) and the hand's ranks: a copy of ``solver._near_cards`` for :func:`_improve`."""
    ace = 12
    near: set[int] = set()
    ranks: set[int] = set()
    for c in range(52):
        if not hand[c]:
            continue
        s, r = divmod(c, 13)
        ranks.add(r)
        for p in ((0, 13) if r == ace else (r + 1,)):
            for q in range(max(0, p - dist), min(13, p + dist) + 1):
                near.add(s * 13 + (q - 1) % 13)
    return near, ranks


def _improve(hand: Sequence[int], table: Sequence[Sequence[int]], *, max_states: int,
             take: bool, deadline: float = float("inf"),
             clock: Callable[[], float] = time.perf_counter, max_rounds: int = 64,
             radius: int = 2, depth: int = 1) -> Any:
    """:func:`arena.games.rummy.solver.improve` (the heuristic's local search for tables of
    more than 36 live cards, up to 64 neighbourhood solves: up to 0.36 s CPU on a 48-card
    hand, issue 29), **anytime**: the clock is read before each neighbourhood solve and past
    ``deadline`` the table found so far is returned. Without a deadline the same cover as
    ``improve`` (``tests/bots/test_search_bots.py`` checks it); a single solve is not cut."""
    vals = list(VALUE)
    cur_table = [tuple(m) for m in table]
    cur_hand = list(hand)
    start_size = sum(cur_hand)
    nodes = rounds = 0
    own = solver.solve(cur_hand, values=vals, max_states=max_states)
    if own is not None:
        nodes += own.nodes
        for m in own.melds:
            cur_table.append(m)
            for c in m:
                cur_hand[c] -= 1
    failed: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    progress = True
    slowest = 0.0
    while progress and sum(cur_hand) > 0 and rounds < max_rounds:
        progress = False
        order = sorted((c for c in range(52) if cur_hand[c]), key=lambda c: (-vals[c], c))
        for h in order:
            t0 = clock()
            if rounds >= max_rounds or t0 + slowest > deadline:
                rounds = max_rounds  # out of time (the slowest solve so far would pass it)
                break
            rounds += 1
            rank = h % 13
            for rad, dep in ((radius, depth), (1, 0)):
                near, _ = _near_cards(counts_of([h]), rad)
                nb = [i for i, m in enumerate(cur_table) if any(c in near or c % 13 == rank for c in m)]
                for _ in range(dep):
                    grown, _ = _near_cards(counts_of(c for i in nb for c in cur_table[i]), 1)
                    nb = [i for i, m in enumerate(cur_table)
                          if i in nb or any(c in grown and c // 13 == h // 13 for c in m)]
                if sum(len(cur_table[i]) for i in nb) <= solver.NEIGHBOURHOOD:
                    break
            if not nb:
                continue
            tc = counts_of(c for i in nb for c in cur_table[i])
            zone, _ = _near_cards(tc)
            zone |= near
            sub_hand = [cur_hand[c] if (c in zone or c % 13 == rank) else 0 for c in range(52)]
            sub_pool = [a + b for a, b in zip(tc, sub_hand)]
            memo_key = (tuple(sub_pool), tuple(tc))
            if memo_key in failed:
                continue
            cover = solver.solve(sub_pool, None if take else tc, values=vals,
                                 max_drops=sum(sub_hand) - 1, max_states=max_states)
            slowest = max(slowest, clock() - t0)
            if cover is None or cover.covered <= sum(tc):
                failed.add(memo_key)
                continue
            nodes += cover.nodes
            used = counts_of(c for m in cover.melds for c in m)
            for c in range(52):
                cur_hand[c] -= used[c] - tc[c]
            keep = [m for i, m in enumerate(cur_table) if i not in set(nb)]
            cur_table = keep + list(cover.melds)
            progress = True
            break
    if start_size - sum(cur_hand) <= 0:
        return None
    weight = sum((solver.COUNT_FIRST + vals[c]) for m in cur_table for c in m)
    return solver.Cover(canonical_layout(cur_table), weight, sum(len(m) for m in cur_table), False, nodes)


def _anytime_heuristic(obs: Any, legal: Sequence[Action], deadline: float = float("inf"),
                     clock: Callable[[], float] = time.perf_counter,
                     max_states: int | None = None) -> Action:
    """The heuristic's choice (:class:`HeuristicAgent`), anytime: its
    local search above 36 live cards (:func:`_improve`) stops at ``deadline`` with the best
    table so far, compared with the listed plays as the heuristic does (its first solves,
    the hand's own melds and a whole solve up to 36 live cards, are not cut: answering the
    best listed play when called past the deadline instead gave +4.3 points/deal
    [-12.1, +20.7] over 40 deals of seed 3232 at load 9-12, against +71.6 without it at
    load 3.6-7.2: the load differed too). Without a deadline the
    heuristic's own choice."""
    states = solver.DEFAULT_MAX_STATES if max_states is None else max_states
    hand, table_melds, table = _counts(obs)
    candidates: list[RummyAction] = [a for a in legal if isinstance(a, RummyAction)]
    cover = None
    if obs.initial_meld_pending:
        cover = solver.best_initial_meld(hand, max_states=states)
        if cover is not None:
            candidates.append(RummyAction.play((*table_melds, *cover.melds)))
    else:
        tcounts = counts_of(c for m in table_melds for c in m)
        pool = [h + t for h, t in zip(hand, tcounts)]
        strict = obs.strict_table
        local = True
        if sum(solver.live_cards(pool)) <= solver.GLOBAL_POOL:
            whole = solver.solve(pool, tcounts if strict else None, max_states=states)
            if whole is not None and whole.covered > sum(tcounts):
                cover, local = whole, False
            elif whole is not None and whole.exact:
                local = False
        if local:
            cover = _improve(hand, table_melds, max_states=states, take=not strict,
                             deadline=deadline, clock=clock)
        if cover is not None:
            candidates.append(RummyAction.play(cover.melds))
    best: RummyAction = PASS
    best_key = _outcome(hand, table, PASS)
    for a in candidates:
        key = _outcome(hand, table, a)
        if key < best_key:
            best, best_key = a, key
    return best


def _holds_back(obs: Any, hold: int) -> bool:
    """Rummy: whether to pass and keep the melds in hand (``hold`` >= 0): after the initial
    meld, while the stock lasts and the other hand holds more than ``hold`` cards, with 2
    players only (with 4 it lost points, see the module docstring). Cards
    kept in hand serve this seat's own rearrangements as well as cards on the table would
    (its pool is hand + table either way), but the others cannot build on them; the price
    is their value in hand if another player goes out first."""
    if hold < 0 or obs.initial_meld_pending or obs.stock_size == 0 or len(obs.hand_sizes) != 2:
        return False
    return all(n > hold for s, n in enumerate(obs.hand_sizes) if s != obs.seat)


def _going_out(obs: Any, max_states: int = 4000) -> Action | None:
    """Rummy, on a turn the bot holds back: ``PASS`` when hand + table cannot all lie in
    melds (a dead card, or an exact search that leaves no card out finds nothing), the
    play that lays them all when it can; ``None`` when that search was cut by its state
    budget without a result (then the usual candidates decide). Far cheaper than the
    whole-table solve, which deepens on the cards left out, and the same decision.
    ``max_states`` per DP stage (the bot passes its ``states``, default 500: at the
    solver's 4000 this check took up to 0.67 s CPU on 3 deals of seed 31, 10.4 s in 202
    calls, and it cannot be cut short)."""
    hand, _, table = _counts(obs)
    pool = [h + t for h, t in zip(hand, table)]
    live = solver.live_cards(pool)
    if sum(live) < sum(pool):
        return PASS
    stats = [0, 0]
    cover = solver.max_cover(live, max_drops=0, max_states=max_states, stats=stats)
    if cover is not None and cover.covered == sum(pool):
        return RummyAction.play(cover.melds)
    return PASS if stats[1] == 0 else None


def _empties_hand(obs: Any, action: Action) -> bool:
    """Whether a rummy play lays every card of the hand (the deal is won: nothing to search)."""
    layout = getattr(action, "layout", None)
    if layout is None:
        return False
    laid = sum(len(m) for m in layout) - sum(len(m) for m in obs.table)
    return laid >= len(obs.hand)


class ListedGreedyRummy(Agent):
    """Rummy rollout policy: the listed legal action that leaves the fewest cards, then
    points, in hand (the heuristic bot also runs the table solver, ~25 ms a turn)."""

    name = "listed-greedy"

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        hand, _, table = _counts(observation)
        best = legal_actions[0]
        best_key = (1 << 30, 1 << 30)
        for a in legal_actions:
            if isinstance(a, RummyAction):
                k = _outcome(hand, table, a)
                if k < best_key:
                    best, best_key = a, k
        return best


class ShedRummy(Agent):
    """Rummy rollout policy closer to the heuristic, still cheap: after the initial meld,
    every meld of the hand (the hand's best cover, memoized) plus single hand cards
    extending table melds, repeated while one fits, all in one play; it is kept only when
    it leaves fewer cards (then points) than the best listed action (:class:`ListedGreedyRummy`,
    which plays one meld or one extension a turn). It does not rearrange the table."""

    name = "shed"

    def __init__(self, max_states: int = 300) -> None:
        self.max_states = max_states
        self._listed = ListedGreedyRummy()

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action:
        best = self._listed.act(observation, legal_actions)
        if observation.initial_meld_pending:
            return best
        hand, melds, table = _counts(observation)
        left = list(hand)
        layout = list(melds)
        cover = solver.best_initial_meld(hand, max_states=self.max_states)
        if cover is not None:
            for m in cover.melds:
                layout.append(tuple(m))
                for c in m:
                    left[c] -= 1
        laid = cover is not None
        grew = True
        while grew:
            grew = False
            for i, m in enumerate(layout):
                mask, exts = solver.extension_table(tuple(m))
                if not mask:
                    continue
                for c, new in exts:
                    if left[c] > 0:
                        layout[i] = new
                        left[c] -= 1
                        grew = laid = True
                        break
        if not laid:
            return best
        play = RummyAction.play(layout)
        if isinstance(best, RummyAction) and _outcome(hand, table, play) >= _outcome(hand, table, best):
            return best
        return play


def _random(seed: int | str = 0, **_: Any) -> Agent:
    return RandomAgent(seed)


def _heuristic(seed: int | str = 0, **kw: Any) -> Agent:
    return HeuristicAgent(seed, **kw)


BOTS = {"random": _random, "heuristic": _heuristic, "pimc": make_search_bot(RummySearch)}
