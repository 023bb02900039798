"""``pimc`` for canasta, calypso, robber rummy and auction: determinized rollouts.

At each decision with more than one legal action the bot

1. takes the candidates: the heuristic bot's choice first, then the other
   listed legal actions in order, at most ``width`` in all (rummy: see below);
2. draws determinizations of its information set
   (:class:`~arena.bots.search.infoset.InformationSet`: the hidden cards
   re-dealt, the public history replayed, the observation checked unchanged);
3. in each determinization plays every candidate and rolls out to the end of
   the deal (canasta: the hand; calypso: the deal, valued by the current game's
   points so far; rummy: the deal; auction: the game) with the game's heuristic
   bot in every seat, and scores the outcome for its side: its points minus the
   mean of the other sides' (``Game.match_points``);
4. plays the candidate with the best mean over the determinizations (the first
   candidate wins ties). Every candidate is rolled out on the same
   determinizations (common random numbers), so the comparison is paired; with
   ``gate`` g > 0 another candidate replaces the first only if its paired mean
   advantage is more than g standard errors (rollout noise then rarely overturns
   the first candidate).

Budget (bot options): ``playouts`` (rollouts per decision, over all candidates; rounds
of one determinization each, at least one round; default 32, calypso 12, canasta 48,
auction 16 determinizations, rummy 48) and ``ms`` (default 150: **wall time per
decision**, at most; 0 = none). The wall budget counts from the moment the information
set is built (the referee builds it inside the decision's time) and is checked inside
the search: before each round (a round is not started when the slowest so far would
pass it), before each sample try and at every step of every rollout; a round the budget
cuts short is dropped whole, so every candidate is compared on the same determinizations.
With a match ``deadline_ms`` it is at most a quarter of it. What the budget cannot cut
short is the work around the search: the heuristic's own choice (except rummy's, below),
one sample's replay of the history, rummy's whole-table solve (hence rummy's ``states``
500 by default, was 1500) and its held-turn going-out check. Rummy's copy of the
heuristic's choice is **anytime** (:func:`_rummy_heuristic`): the heuristic's local search
above 36 live cards (up to 64 neighbourhood solves, up to 0.36 s CPU on a 48-card hand, the
largest share of rummy's late decisions in issue 29's profile) reads the clock before each
solve and stops at 40% of the budget (80% on a held turn, which is not searched) with the
table found so far; without a budget (``ms=0``) it is the heuristic's exact choice. The
whole-table solve is not started past half the budget nor when the match's slowest one so
far would pass the budget. ``width`` (default 6, calypso and canasta 3) caps the candidates. ``depth``
(default 0 = to the end of the deal; rummy and canasta 8) stops a rollout after that many
decisions; rummy then values each hand as the deal's scoring would (minus its card
values, or 10 a card before the first meld), canasta each side as the hand's scoring
would with nobody out (melds, canasta bonuses, red threes, minus the cards its players
hold: :func:`_canasta_points`). ``gate`` (default 0; rummy and canasta 1.5).
Canasta classic at ``playouts=12&width=3`` (no depth, no gate) and candidates in the
listing's order was not shown stronger than the heuristic (-40.8 points/deal [-263, +182],
10 deals of seed 2929); the candidates now come in the heuristic's own order
(``CanastaHeuristicAgent.ranked``: its melds by its score, then its discards cheapest
first), rollouts stop after 8 decisions (about a quarter of a full one's cost, so more
determinizations fit the budget) and the gate keeps the heuristic's choice unless
another is clearly better; tuning on 12 deals of seed 5151 (load 7-36): defaults then
-121.7 [-328, +85], ranked only -55.6 [-164, +52], ranked with gate 1.5 +1.7 [-48, +51],
with depth 8 and 48 playouts too +14.0 [-13.9, +41.8]; the reporting run on other seeds is
in ``tests/benchmarks/search/README.md``.
The defaults aim at a p99 decision under 500 ms and the slowest under the example
tournaments' 2,000 ms deadline on the loaded 2-core machine of issue 29. Met there by
auction, and by rummy with its anytime heuristic at moderate load (40 deals of seed 3232:
p99 208 ms, max 604 ms, +71.6 points/deal [+63.4, +79.8], load 3.6-7.2); under heavy load
(~10-40 on 2 cores) what cannot be cut short still passes it: calypso p99 387 ms but max
3.0 s (200 matches), canasta p99 328 ms, max 1.1 s, rummy p99 0.9 s, max 2.1 s (load 7-22),
where the cut heuristic also costs rummy a third of its margin (+51.9 against +76.7 for
``ms=0`` on the same 40 deals). Figures in ``tests/benchmarks/search/README.md``
(``tests/benchmarks/bench_search.py``).

Auction. The bot no longer rolls whole games out: a rollout to the end of the game took
3-64 ms early in a game (8 positions, loaded machine), so the former defaults (32 rollouts
of 6 candidates, the lowest bids among them) spent 0.4-1.1 s a decision and were not
stronger than the heuristic (+0.05 games/deal [-0.02, +0.11], issue 29). It keeps the heuristic's choice to pass or to bid, and
its payment, and searches the **amount**: in each determinization (``playouts`` of them,
at least ``min_rounds`` = 4 or it bids the heuristic's amount) the bidders after it
answer as the heuristic does to the end of the round, and the bot bids the least amount
that buys the picture in every determinization where the heuristic's amount buys it
(buying is monotone in the amount, so a bisection per determinization). The money it
does not overpay buys later pictures. The heuristic already bids the minimum when
nobody bids after it; those decisions are not searched.

Rummy. The candidates are, best first by the cards (then points) they leave in
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
Rummy defaults: ``playouts`` 48, ``width`` 3, ``depth`` 8, ``gate`` 1.5, ``hold`` 2.

Rummy holding back (``hold`` k >= 0, a Python keyword of the factory, not a bot-spec
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

Information: the bot only learns its information set through
:meth:`DeterminizedAgent.bind_information_set`, which the referee calls before
each decision with an :class:`InformationSet` built from the seat's view (the
state itself never reaches the bot). Without one (a bot reached over the
protocol, or a referee that does not offer it) the bot plays as the heuristic
(rummy: its first candidate).

Determinism: each decision's random stream is keyed by the bot's seed, the match id, the
seat and a digest of the observation; with ``ms = 0`` (count-only budgets: reproducible
research runs, and the tests) the decision is a function of the seed and the information
set. The default wall budget makes play depend on the machine's speed and load: a
decision the clock cuts short may differ from the same decision on a faster machine.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.bots.base import Agent, MatchInfo
from arena.bots.search.infoset import InformationSet, observation_text
from arena.core.dealing import SeedStream
from arena.core.state import Action, Game, State

__all__ = ["DeterminizedAgent", "make_search_bot", "SEARCH_GAMES"]

SEARCH_GAMES = ("auction", "calypso", "canasta", "rummy")
"""Games with a determinized ``pimc`` bot."""


def _heuristic(game: str, seed: int | str = 0, **kw: Any) -> Agent:
    from arena.bots import make_bot

    return make_bot(game, "heuristic", seed=seed, **kw)


def _deal_key(game: str, obs: Any) -> tuple[int, ...]:
    """Changes exactly when the rollout horizon (the end of the deal) is passed."""
    if game == "canasta":
        return (obs.hand_number,)
    if game == "calypso":
        return (obs.game_number, obs.deal_number)
    if game == "rummy":
        return (obs.deal,)
    return (obs.game_number,)


class _OutOfTime(Exception):
    """The decision's wall budget ran out inside a rollout or a sample."""


def _rummy_points(state: State) -> list[float]:
    """Scores so far plus what each hand would score if the deal ended now."""
    from arena.games.rummy.melds import INDEX, VALUE

    out = []
    for s in range(state.game.num_players):
        obs: Any = state.observation(s)
        hand = obs.hand
        pen = 10 * len(hand) if not obs.melded[s] else sum(VALUE[INDEX[t]] for t in hand)
        out.append(float(obs.scores[s] - pen))
    return out


def _canasta_points(game: Game, state: State) -> list[float]:
    """Canasta, mid-hand: each seat's side's cumulative score plus what the hand would score
    for it if it ended now with nobody going out (melds, canasta bonuses, red threes, minus
    the cards its players hold; :func:`arena.games.canasta.scoring.score_side`)."""
    from arena.games.canasta.scoring import score_side

    rules: Any = getattr(game, "rules")
    obs: list[Any] = [state.observation(s) for s in range(game.num_players)]
    sides = obs[0].seat_sides
    per_side = []
    for side in range(len(obs[0].scores)):
        held = [c for s, o in enumerate(obs) if sides[s] == side for c in o.hand]
        hs = score_side(rules, dict(obs[0].melds[side]), (), len(obs[0].red_threes[side]),
                        False, False, held, False)
        per_side.append(float(obs[0].scores[side] + hs.total))
    return [per_side[sides[s]] for s in range(game.num_players)]


def _value(game: Game, state: State, seat: int, ended: bool) -> float:
    """The seat's side's points minus the mean of the other sides' points."""
    teams = game.teams()
    if game.name == "calypso" and not state.is_terminal():
        obs: Any = state.observation(seat)
        per_side = [obs.scores[i] + obs.game_points[i] for i in range(2)]
        pts = [float(per_side[s % 2]) for s in range(4)]
    elif game.name == "rummy" and not ended and not state.is_terminal():
        pts = _rummy_points(state)
    elif game.name == "canasta" and not ended and not state.is_terminal():
        pts = _canasta_points(game, state)
    else:
        pts = [float(x) for x in game.match_points(state)]
    mine = next(t for t in teams if seat in t)
    others = [t for t in teams if seat not in t]
    if not others:
        return pts[seat]
    return pts[mine[0]] - sum(pts[t[0]] for t in others) / len(others)


class DeterminizedAgent(Agent):
    """Determinized rollouts with the heuristic as policy; see the module docstring."""

    def __init__(self, game: str, seed: int | str = 0, *, playouts: int = 32, ms: float = 0.0,
                 width: int = 6, depth: int = 0, gate: float = 0.0, solver_pool: int = 60,
                 solver_states: int = 1500, rollout_options: dict[str, Any] | None = None,
                 rollout_policy: str = "shed", hold: int = -1, min_rounds: int = 4,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if game not in SEARCH_GAMES:
            raise ValueError(f"no determinized search bot for {game!r}")
        for key, value, least in (("playouts", playouts, 1), ("width", width, 1), ("depth", depth, 0)):
            if isinstance(value, bool) or int(value) != value or value < least:
                raise ValueError(f"{key}: must be an integer >= {least}, got {value!r}")
        if ms < 0:
            raise ValueError(f"ms: must be >= 0 (0: no time limit), got {ms!r}")
        self.game_name = game
        self.name = "pimc"
        self.seed = seed
        self.playouts = int(playouts)
        self.ms = float(ms)
        self.width = int(width)
        self.depth = int(depth)
        if gate < 0:
            raise ValueError(f"gate: must be >= 0, got {gate!r}")
        self.gate = float(gate)
        self.solver_pool = int(solver_pool)
        self.solver_states = int(solver_states)
        self._rollout_options = dict(rollout_options or {})
        if rollout_policy not in ("shed", "listed"):
            raise ValueError(f"rollout_policy: 'shed' or 'listed' (rummy), got {rollout_policy!r}")
        self.rollout_policy = rollout_policy
        if isinstance(hold, bool) or int(hold) != hold:
            raise ValueError(f"hold: must be an integer (-1: off), got {hold!r}")
        self.hold = int(hold)
        self.min_rounds = int(min_rounds)
        self._clock = clock
        self._deadline_ms = 0.0
        self._bound_at: float | None = None
        self._start = 0.0
        self._deadline = float("inf")
        self._policy = _heuristic(game, seed)
        self._slowest_solve = 0.0
        """Rummy: the slowest whole-table solve (wall) of the match so far."""
        self._rollers: list[Agent] = []
        self._info: MatchInfo = MatchInfo()
        self._infoset: InformationSet | None = None
        self.last_playouts = 0
        """Rollouts of the last decision (for tests and benchmarks)."""
        self.last_candidates: list[Action] = []
        self.last_values: dict[Action, float] = {}
        self.searches = 0
        """Decisions searched so far (with an information set and several candidates)."""
        self.last_rounds = 0
        """Determinizations fully rolled out at the last decision (every candidate)."""
        self.last_stopped = ""
        """Why the last search stopped: ``playouts``, ``time`` (the wall budget), ``samples``
        (no consistent determinization found) or ``""`` (no search)."""

    def _roller(self) -> Agent:
        if self.game_name == "rummy":
            return ShedRummy() if self.rollout_policy == "shed" else ListedGreedyRummy()
        return _heuristic(self.game_name, self.seed, **self._rollout_options)

    # -- the referee's side ------------------------------------------------------
    def start_match(self, info: MatchInfo) -> None:
        self._info = info
        self._deadline_ms = float(info.get("deadline_ms") or 0.0)
        self._policy.start_match(info)
        n = int(info.get("num_players") or 0)
        self._rollers = [self._roller() for _ in range(n)]
        self._slowest_solve = 0.0
        for s, r in enumerate(self._rollers):
            r.start_match(MatchInfo({**info, "seat": s, "match_id": f"{info.get('match_id', '')}|rollout"}))

    def bind_information_set(self, infoset: InformationSet) -> None:
        """The seat's information set for the coming decision (called by the referee).

        The decision's clock starts here, or when the information set was built if it
        says so on this bot's clock (the referee builds it inside the decision's time)."""
        self._infoset = infoset
        now = self._clock()
        built = getattr(infoset, "built_at", None)
        self._bound_at = built if self._clock is time.perf_counter and isinstance(built, float) \
            and built <= now else now

    def budget_ms(self) -> float:
        """Wall time allowed for one decision (0: none, with ``ms = 0``): ``ms``, and never
        more than a quarter of the match's ``deadline_ms`` (the rest is margin for the work
        the search cannot cut short: a sample's replay, the heuristic's choice, rummy's solve,
        the referee's own)."""
        if not self.ms:
            return 0.0
        limits = [x for x in (self.ms, 0.25 * self._deadline_ms) if x > 0]
        return min(limits)

    # -- deciding ---------------------------------------------------------------
    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action | str:
        infoset, self._infoset = self._infoset, None
        self._start = self._bound_at if infoset is not None and self._bound_at is not None \
            else self._clock()
        self._bound_at = None
        self.last_rounds = 0
        self.last_stopped = ""
        if self.game_name == "rummy" and _holds_back(observation, self.hold):
            out = _going_out(observation, self.solver_states)
            if out is not None:
                self.last_playouts = 0
                self.last_candidates = []
                return out
        self.last_playouts = 0
        self.last_candidates = []
        if self.game_name == "rummy":
            # the heuristic's choice, its local search cut at 40% of the wall budget (80% on
            # a held turn, which is not searched)
            budget = self.budget_ms() / 1000.0
            held = _holds_back(observation, self.hold)
            share = 0.8 if held else 0.4
            base = _rummy_heuristic(observation, legal_actions,
                                    self._start + share * budget if budget else float("inf"),
                                    self._clock)
            # the listing holds only simple plays: the solver's plays are candidates too;
            # the whole-table solve cannot be cut short: not started past half the budget,
            # nor when the slowest one of the match so far would pass the budget
            now = self._clock()
            late = budget and (now - self._start > budget / 2
                               or now - self._start + self._slowest_solve > budget)
            plays = _rummy_candidates(observation, legal_actions, base,
                                      0 if late else self.solver_pool, self.solver_states)[:self.width]
            self._slowest_solve = max(self._slowest_solve, self._clock() - now)
            if _empties_hand(observation, plays[0]):
                return plays[0]
            if held:
                from arena.games.rummy.melds import PASS

                return PASS
            if infoset is None or len(plays) == 1:
                return plays[0]
            return self._search(observation, infoset, plays)
        base = self._policy.act(observation, legal_actions)
        if isinstance(base, str):
            return base
        if infoset is None or len(legal_actions) <= 1:
            return base
        if self.game_name == "auction":
            return self._auction_bid(observation, infoset, base)
        ranked = getattr(self._policy, "ranked", None)
        # the heuristic's own order when it has one (calypso: its one-trick score; canasta:
        # its meld score, then discard cost), so the width keeps its best alternatives, not
        # the lowest card ids
        order = ranked(observation, legal_actions) if ranked is not None else legal_actions
        candidates: list[Action] = [base]
        for a in order:
            if len(candidates) >= self.width:
                break
            if a != base:
                candidates.append(a)
        if len(candidates) == 1:
            return base
        return self._search(observation, infoset, candidates)

    def _search(self, obs: Any, infoset: InformationSet, candidates: list[Action]) -> Action:
        start = self._start
        self.searches += 1
        rng = self._decision_rng(obs, infoset)
        totals = [0.0] * len(candidates)
        diffs: list[list[float]] = [[] for _ in candidates]
        """Per candidate, its value minus candidate 0's, per determinization (paired)."""
        rounds = 0
        done = 0
        slowest = 0.0
        budget = self.budget_ms() / 1000.0
        self._deadline = start + budget if budget else float("inf")
        seat = infoset.seat
        stopped = "playouts"
        while done + len(candidates) <= max(self.playouts, len(candidates)):
            t0 = self._clock()
            if budget and (t0 - start) + slowest > budget:
                stopped = "time"  # the next round would likely pass the budget
                break
            try:
                det = infoset.sample(rng, deadline=self._deadline, clock=self._clock)
                if det is None:
                    stopped = "samples" if self._clock() <= self._deadline else "time"
                    break
                values = [float("-inf")] * len(candidates)
                for i, a in enumerate(candidates):
                    s = det.clone()
                    try:
                        s.apply_action(a)
                    except ValueError:  # not legal in this determinization: never chosen
                        continue
                    values[i] = self._rollout(s, seat)
            except _OutOfTime:  # the budget ran out inside the round: the round is dropped
                stopped = "time"
                break
            for i in range(len(candidates)):
                if values[i] == float("-inf"):
                    totals[i] = float("-inf")
                else:
                    totals[i] += values[i]
                    done += 1
                diffs[i].append(values[i] - values[0])
            rounds += 1
            slowest = max(slowest, self._clock() - t0)
        self.last_playouts = done
        self.last_rounds = rounds
        self.last_stopped = stopped
        self.last_candidates = list(candidates)
        if rounds == 0:
            return candidates[0]
        self.last_values = {a: t / rounds for a, t in zip(candidates, totals)}
        best = 0
        for i in range(1, len(candidates)):
            if totals[i] > totals[best] + 1e-9 and self._clears_gate(diffs[i]):
                best = i
        return candidates[best]

    # -- auction: the cheapest bid that still buys ----------------------------------
    def _auction_bid(self, obs: Any, infoset: InformationSet, base: Action) -> Action:
        """Auction: the heuristic's bid lowered to the least amount that buys the picture in
        every sampled determinization where the heuristic's amount buys it (the bidders after
        this seat played to the end of the round by the heuristic); the heuristic's action
        itself when it passes, pays, is the last to bid (it bids the minimum then) or fewer
        than ``min_rounds`` determinizations fit the budget."""
        from arena.games.auction.actions import Bid
        from arena.games.auction.rules import UNIT

        value = getattr(base, "amount", 0)
        low = int(obs.min_bid)
        if obs.phase != "bid" or not value or value <= low or \
                not obs.bidding_order[len(obs.bids) + 1:]:
            return base
        self.searches += 1
        start = self._start
        budget = self.budget_ms() / 1000.0
        self._deadline = start + budget if budget else float("inf")
        rng = self._decision_rng(obs, infoset)
        seat = infoset.seat
        need = low
        """The least bid found so far that buys in every determinization where ``value`` buys."""
        rounds = sims = 0
        slowest = 0.0
        stopped = "playouts"
        while rounds < self.playouts:
            t0 = self._clock()
            if budget and (t0 - start) + slowest > budget:
                stopped = "time"
                break
            try:
                det = infoset.sample(rng, deadline=self._deadline, clock=self._clock)
                if det is None:
                    stopped = "samples" if self._clock() <= self._deadline else "time"
                    break
                sims += 1
                if self._auction_buys(det, seat, value):
                    sims += 1
                    if not self._auction_buys(det, seat, need):
                        lose, win = need, value  # buying is monotone in the amount
                        while win - lose > UNIT:
                            mid = (lose + win) // 2 // UNIT * UNIT
                            sims += 1
                            if self._auction_buys(det, seat, mid):
                                win = mid
                            else:
                                lose = mid
                        need = win
            except _OutOfTime:
                stopped = "time"
                break
            rounds += 1
            slowest = max(slowest, self._clock() - t0)
        self.last_playouts = sims
        self.last_rounds = rounds
        self.last_stopped = stopped
        self.last_candidates = [base, Bid(need)]
        if rounds < min(self.min_rounds, self.playouts):
            return base
        return Bid(need)

    def _auction_buys(self, det: State, seat: int, amount: int) -> bool:
        """Whether ``seat`` bidding ``amount`` in ``det`` buys the picture, the bidders after
        it answering as the heuristic does."""
        from arena.games.auction.actions import Bid

        state = det.clone()
        state.apply_action(Bid(amount))
        rollers = self._rollers
        while not state.is_terminal():
            p = state.current_player()
            obs: Any = state.observation(p)
            if obs.phase != "bid":
                return bool(p == seat)
            if self._clock() > self._deadline:
                raise _OutOfTime
            legal = state.legal_actions()
            answer = legal[0] if len(legal) == 1 else rollers[p].act(obs, legal)
            state.apply_action(state.string_to_action(answer) if isinstance(answer, str) else answer)
        return False

    def _decision_rng(self, obs: Any, infoset: InformationSet) -> SeedStream:
        digest = hashlib.sha256(observation_text(obs).encode()).hexdigest()[:16]
        return SeedStream(f"pimc|{self.seed}|{self._info.get('match_id', '')}|{infoset.seat}|{digest}")

    def _clears_gate(self, diffs: list[float]) -> bool:
        """Whether a candidate's paired advantage over the first candidate is at least
        ``gate`` standard errors (always, with ``gate = 0``)."""
        if not self.gate:
            return True
        n = len(diffs)
        if n < 2 or any(d != d or d in (float("inf"), float("-inf")) for d in diffs):
            return False
        mean = sum(diffs) / n
        var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return bool(mean > self.gate * (var / n) ** 0.5 + 1e-9)

    def _rollout(self, state: State, seat: int) -> float:
        game = state.game
        key = None
        rollers = self._rollers
        limit = game.max_game_length
        steps = 0
        decisions = 0
        ended = False
        deadline = self._deadline
        clock = self._clock
        while not state.is_terminal() and steps < limit:
            if self.depth and decisions >= self.depth:
                break
            if clock() > deadline:
                raise _OutOfTime
            p = state.current_player()
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                steps += 1
                continue
            obs = state.observation(p)
            k = _deal_key(self.game_name, obs)
            if key is None:
                key = k
            elif k != key:
                ended = True
                break
            decisions += 1
            answer = rollers[p].act(obs, legal)
            try:
                action = state.string_to_action(answer) if isinstance(answer, str) else answer
                state.apply_action(action)
            except ValueError:
                state.apply_action(state.default_action())
            steps += 1
        return _value(game, state, seat, ended)


def _rummy_candidates(obs: Any, legal: Sequence[Action], heuristic: Action, pool: int,
                      states: int) -> list[Action]:
    """Rummy candidates, best first: the most shedding play of the heuristic's choice and a
    whole-table solve (live pools up to ``pool`` cards, ``states`` per DP stage: the
    heuristic's own solver goes local above 36 live cards and misses sheds there), then the
    heuristic's choice, ``PASS`` and the listed plays by fewest cards, then points, left."""
    from arena.bots.rummy import _counts, _outcome
    from arena.games.rummy import solver
    from arena.games.rummy.melds import PASS, RummyAction

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
    from arena.games.rummy import solver
    from arena.games.rummy.melds import VALUE, canonical_layout, counts_of

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


def _rummy_heuristic(obs: Any, legal: Sequence[Action], deadline: float = float("inf"),
                     clock: Callable[[], float] = time.perf_counter,
                     max_states: int | None = None) -> Action:
    """The rummy heuristic's choice (:class:`arena.bots.rummy.HeuristicAgent`), anytime: its
    local search above 36 live cards (:func:`_improve`) stops at ``deadline`` with the best
    table so far, compared with the listed plays as the heuristic does (its first solves,
    the hand's own melds and a whole solve up to 36 live cards, are not cut: answering the
    best listed play when called past the deadline instead gave +4.3 points/deal
    [-12.1, +20.7] over 40 deals of seed 3232 at load 9-12, against +71.6 without it at
    load 3.6-7.2: the load differed too). Without a deadline the
    heuristic's own choice."""
    from arena.bots.rummy import _counts, _outcome
    from arena.games.rummy import solver
    from arena.games.rummy.melds import PASS, RummyAction, counts_of

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
    from arena.bots.rummy import _counts
    from arena.games.rummy import solver
    from arena.games.rummy.melds import PASS, RummyAction

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
        from arena.bots.rummy import _counts, _outcome
        from arena.games.rummy.melds import RummyAction

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
        from arena.bots.rummy import _counts, _outcome
        from arena.games.rummy import solver
        from arena.games.rummy.melds import RummyAction

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


DEFAULT_MS = 150.0
"""Every game's default wall budget per decision (``ms``), in milliseconds."""

DEFAULTS: dict[str, dict[str, Any]] = {
    "calypso": {"playouts": 12, "width": 3},
    "canasta": {"playouts": 48, "width": 3, "depth": 8, "gate": 1.5},
    "auction": {"playouts": 16},
    "rummy": {"solver_states": 500, "solver_pool": 48},
}
"""Per-game default counts (besides rummy's own below); see the module docstring."""


def make_search_bot(game: str) -> Callable[..., Agent]:
    """The factory of ``game``'s ``pimc`` bot (options ``playouts``, ``ms``, ``width``, ``depth``,
    ``gate``, ``pool``, ``states``; per-game defaults in the module docstring).

    :raises ValueError: naming an unknown or invalid option.
    """
    def factory(seed: int | str = 0, **options: Any) -> Agent:
        known = {"playouts", "ms", "width", "depth", "gate", "pool", "states", "hold"}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"pimc: unknown option(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(known))}")
        kw: dict[str, Any] = {}
        for key, name in (("playouts", "playouts"), ("width", "width"), ("depth", "depth"),
                          ("pool", "solver_pool"), ("states", "solver_states"), ("hold", "hold")):
            if key in options:
                v = options[key]
                if isinstance(v, bool) or float(v) != int(float(v)):
                    raise ValueError(f"{key}: must be an integer, got {v!r}")
                kw[name] = int(float(v))
        for key in ("ms", "gate"):
            if key in options:
                kw[key] = float(options[key])
        kw.setdefault("ms", DEFAULT_MS)
        for key, value in DEFAULTS.get(game, {}).items():
            kw.setdefault(key, value)
        if game == "rummy":
            kw.setdefault("depth", 8)  # about two rounds of turns, then the hands are valued
            kw.setdefault("playouts", 48)
            kw.setdefault("width", 3)
            kw.setdefault("gate", 1.5)
            kw.setdefault("hold", 2)
        return DeterminizedAgent(game, seed, **kw)

    factory.__doc__ = f"Factory of the {game} ``pimc`` bot (:class:`DeterminizedAgent`)."
    factory.options = ("playouts", "ms", "width", "depth", "gate", "pool", "states")  # type: ignore[attr-defined]  # bot spec options
    return factory
