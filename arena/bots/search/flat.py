"""``pimc`` for canasta, calypso, robber rummy and auction: determinized rollouts.

At each decision with more than one legal action the bot

1. takes the candidates: the heuristic bot's choice first, then the other
   listed legal actions in order, at most ``width`` in all (rummy: see below);
2. draws determinizations of its information set
   (:class:`~arena.match.infoset.InformationSet`: the hidden cards
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

The game-specific parts are each game's subclass of :class:`DeterminizedAgent`, in
the game's bot module (``arena/bots/<game>.py``, next to the heuristic it rolls out
with): the deal's horizon (:meth:`DeterminizedAgent.deal_key`), the value of a
position a rollout stops in before the end (:meth:`DeterminizedAgent.points`), the
rollout policy (:meth:`DeterminizedAgent.roller`) and, where the game searches
differently (rummy's candidates and holding back, auction's amounts), the decision
itself (:meth:`DeterminizedAgent.choose`). :func:`make_search_bot` makes the ``pimc``
factory of such a class; this module names no game.

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
import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from arena.bots.base import Agent, MatchInfo
from arena.match.infoset import InformationSet, observation_text
from arena.core.dealing import SeedStream
from arena.core.state import Action, State

__all__ = ["DEFAULT_MS", "DeterminizedAgent", "OutOfTime", "make_search_bot"]

DEFAULT_MS = 150.0
"""Every game's default wall budget per decision (``ms``), in milliseconds."""


class OutOfTime(Exception):
    """The decision's wall budget ran out inside a rollout or a sample."""


class DeterminizedAgent(Agent):
    """Determinized rollouts with the heuristic as policy; see the module docstring.

    A game's ``pimc`` is a subclass naming the game (:attr:`game_name`), its default
    counts (:attr:`defaults`) and overriding the hooks its game needs."""

    game_name: ClassVar[str] = ""
    """The game this class searches (each game's subclass sets it)."""
    defaults: ClassVar[dict[str, Any]] = {}
    """The game's default counts (keywords of ``__init__``), which :func:`make_search_bot`
    applies under the options a spec gives."""
    options: ClassVar[dict[str, str]] = {"playouts": "playouts", "width": "width", "depth": "depth",
                                         "ms": "ms", "gate": "gate"}
    """Bot-spec option -> keyword of ``__init__`` (``ms`` and ``gate`` are numbers, the
    others integers)."""

    def __init__(self, seed: int | str = 0, *, playouts: int = 32, ms: float = 0.0,
                 width: int = 6, depth: int = 0, gate: float = 0.0,
                 rollout_options: dict[str, Any] | None = None, min_rounds: int = 4,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if not self.game_name:
            raise TypeError("DeterminizedAgent is searched through a game's subclass "
                            "(arena.bots.<game>; make_bot(game, 'pimc'))")
        for key, value, least in (("playouts", playouts, 1), ("width", width, 1), ("depth", depth, 0)):
            if isinstance(value, bool) or int(value) != value or value < least:
                raise ValueError(f"{key}: must be an integer >= {least}, got {value!r}")
        if ms < 0:
            raise ValueError(f"ms: must be >= 0 (0: no time limit), got {ms!r}")
        if gate < 0:
            raise ValueError(f"gate: must be >= 0, got {gate!r}")
        self.name = "pimc"
        self.seed = seed
        self.playouts = int(playouts)
        self.ms = float(ms)
        self.width = int(width)
        self.depth = int(depth)
        self.gate = float(gate)
        self.min_rounds = int(min_rounds)
        self.rollout_options = dict(rollout_options or {})
        self.clock = clock
        """The decision clock (``time.perf_counter``; tests pass a fake one)."""
        self.policy = self.heuristic()
        """The heuristic whose choice is the first candidate."""
        self.rollers: list[Agent] = []
        """The rollout policy of each seat (:meth:`roller`), made at the match's start."""
        self.info: MatchInfo = MatchInfo()
        self.start = 0.0
        """When the current decision's clock started."""
        self.deadline = float("inf")
        """When the current search's wall budget runs out (``inf``: none)."""
        self._deadline_ms = 0.0
        self._bound_at: float | None = None
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

    # -- the game's hooks ---------------------------------------------------------
    def heuristic(self, **options: Any) -> Agent:
        """The game's ``heuristic`` bot (the first candidate's policy, and the rollouts')."""
        from arena.bots import make_bot

        return make_bot(self.game_name, "heuristic", seed=self.seed, **options)

    def roller(self) -> Agent:
        """A rollout policy for one seat: the heuristic (with ``rollout_options``)."""
        return self.heuristic(**self.rollout_options)

    def deal_key(self, obs: Any) -> tuple[int, ...]:
        """Changes exactly when the rollout horizon (the end of the deal) is passed: the
        game number."""
        return (obs.game_number,)

    def points(self, state: State, ended: bool) -> list[float] | None:
        """Each seat's points in a position that is not the match's end, where a rollout
        stopped (``ended``: it passed the deal's end; else its ``depth`` ran out), or
        ``None`` for the game's :meth:`~arena.core.state.Game.match_points`."""
        return None

    def choose(self, observation: Any, legal_actions: Sequence[Action],
               infoset: InformationSet | None) -> Action | str:
        """The decision: the heuristic's choice first, then the other legal actions in the
        heuristic's own order when it has one (``ranked``: calypso its one-trick score,
        canasta its meld score, then discard cost), at most ``width``, searched."""
        base = self.policy.act(observation, legal_actions)
        if isinstance(base, str) or infoset is None or len(legal_actions) <= 1:
            return base
        ranked = getattr(self.policy, "ranked", None)
        order = ranked(observation, legal_actions) if ranked is not None else legal_actions
        candidates: list[Action] = [base]
        for a in order:
            if len(candidates) >= self.width:
                break
            if a != base:
                candidates.append(a)
        if len(candidates) == 1:
            return base
        return self.search(observation, infoset, candidates)

    # -- the referee's side ------------------------------------------------------
    def start_match(self, info: MatchInfo) -> None:
        self.info = info
        self._deadline_ms = float(info.get("deadline_ms") or 0.0)
        self.policy.start_match(info)
        n = int(info.get("num_players") or 0)
        self.rollers = [self.roller() for _ in range(n)]
        for s, r in enumerate(self.rollers):
            r.start_match(MatchInfo({**info, "seat": s, "match_id": f"{info.get('match_id', '')}|rollout"}))

    def bind_information_set(self, infoset: InformationSet) -> None:
        """The seat's information set for the coming decision (called by the referee).

        The decision's clock starts here, or when the information set was built if it
        says so on this bot's clock (the referee builds it inside the decision's time)."""
        self._infoset = infoset
        now = self.clock()
        built = getattr(infoset, "built_at", None)
        self._bound_at = built if self.clock is time.perf_counter and isinstance(built, float) \
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
        self.start = self._bound_at if infoset is not None and self._bound_at is not None \
            else self.clock()
        self._bound_at = None
        self.last_rounds = 0
        self.last_stopped = ""
        self.last_playouts = 0
        self.last_candidates = []
        return self.choose(observation, legal_actions, infoset)

    def search(self, obs: Any, infoset: InformationSet, candidates: list[Action]) -> Action:
        """Every candidate rolled out on the same determinizations, within the budget;
        the best mean wins (past the gate)."""
        start = self.start
        self.searches += 1
        rng = self.decision_rng(obs, infoset)
        totals = [0.0] * len(candidates)
        diffs: list[list[float]] = [[] for _ in candidates]
        """Per candidate, its value minus candidate 0's, per determinization (paired)."""
        rounds = 0
        done = 0
        slowest = 0.0
        budget = self.budget_ms() / 1000.0
        self.deadline = start + budget if budget else float("inf")
        seat = infoset.seat
        stopped = "playouts"
        while done + len(candidates) <= max(self.playouts, len(candidates)):
            t0 = self.clock()
            if budget and (t0 - start) + slowest > budget:
                stopped = "time"  # the next round would likely pass the budget
                break
            try:
                det = infoset.sample(rng, deadline=self.deadline, clock=self.clock)
                if det is None:
                    stopped = "samples" if self.clock() <= self.deadline else "time"
                    break
                values = [float("-inf")] * len(candidates)
                for i, a in enumerate(candidates):
                    s = det.clone()
                    try:
                        s.apply_action(a)
                    except ValueError:  # not legal in this determinization: never chosen
                        continue
                    values[i] = self._rollout(s, seat)
            except OutOfTime:  # the budget ran out inside the round: the round is dropped
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
            slowest = max(slowest, self.clock() - t0)
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

    def decision_rng(self, obs: Any, infoset: InformationSet) -> SeedStream:
        """The decision's random stream: the bot's seed, the match, the seat and the
        observation's digest."""
        digest = hashlib.sha256(observation_text(obs).encode()).hexdigest()[:16]
        return SeedStream(f"pimc|{self.seed}|{self.info.get('match_id', '')}|{infoset.seat}|{digest}")

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
        rollers = self.rollers
        limit = game.max_game_length
        steps = 0
        decisions = 0
        ended = False
        deadline = self.deadline
        clock = self.clock
        while not state.is_terminal() and steps < limit:
            if self.depth and decisions >= self.depth:
                break
            if clock() > deadline:
                raise OutOfTime
            p = state.current_player()
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                steps += 1
                continue
            obs = state.observation(p)
            k = self.deal_key(obs)
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
        return self._value(state, seat, ended)

    def _value(self, state: State, seat: int, ended: bool) -> float:
        """The seat's side's points minus the mean of the other sides' points."""
        game = state.game
        pts = None if state.is_terminal() else self.points(state, ended)
        if pts is None:
            pts = [float(x) for x in game.match_points(state)]
        teams = game.teams()
        mine = next(t for t in teams if seat in t)
        others = [t for t in teams if seat not in t]
        if not others:
            return pts[seat]
        return pts[mine[0]] - sum(pts[t[0]] for t in others) / len(others)


def make_search_bot(cls: type[DeterminizedAgent]) -> Callable[..., Agent]:
    """The ``pimc`` factory of a game's search class: bot-spec options (``cls.options``;
    every one an integer but ``ms`` and ``gate``) over the class's :attr:`defaults`, ``ms``
    :data:`DEFAULT_MS` unless given; other Python keywords go to the class as they are.

    :raises ValueError: naming an unknown or invalid option.
    """
    keywords = {name for klass in cls.__mro__ if "__init__" in vars(klass)
                for name, param in inspect.signature(vars(klass)["__init__"]).parameters.items()
                if param.kind is inspect.Parameter.KEYWORD_ONLY} - set(cls.options.values())

    def factory(seed: int | str = 0, **options: Any) -> Agent:
        kw: dict[str, Any] = dict(cls.defaults)
        kw["ms"] = DEFAULT_MS
        for key, value in options.items():
            name = cls.options.get(key)
            if name is None:
                if key not in keywords:
                    raise ValueError(f"pimc: unknown option {key} of {cls.game_name}; "
                                     f"known: {', '.join(sorted(cls.options))}")
                kw[key] = value  # a Python keyword of the class (hold, clock ...)
            elif key in ("ms", "gate"):
                kw[name] = float(value)
            else:
                if isinstance(value, bool) or float(value) != int(float(value)):
                    raise ValueError(f"{key}: must be an integer, got {value!r}")
                kw[name] = int(float(value))
        return cls(seed, **kw)

    factory.__doc__ = f"Factory of the {cls.game_name} ``pimc`` bot (:class:`{cls.__name__}`)."
    factory.options = tuple(cls.options)  # type: ignore[attr-defined]  # bot spec options
    return factory

