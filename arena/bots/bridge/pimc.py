"""The bridge ``pimc`` bot: Perfect Information Monte Carlo card play on DDS.

Bidding is the heuristic bot's (:mod:`arena.bots.bridge.bidding`). For each card
it must choose, the bot

1. reads what its seat knows from the observation only
   (:func:`arena.bots.bridge.sampling.knowledge`: own and dummy's cards, the play
   so far, voids, what the auction showed);
2. deals ``samples`` layouts of the hidden hands consistent with it
   (:class:`~arena.bots.bridge.sampling.DealSampler`);
3. solves each layout double dummy with DDS (:func:`arena.bots.bridge.dds.solve`:
   the tricks each legal card wins from here on);
4. scores every card in every layout for the scoring in use and plays the card
   with the best total. Ties go to the heuristic bot's card when it is among the
   best, else to the lowest card.

Scoring (option ``scoring``)
    ``imps`` (default: teams): a card's score in a layout is the IMPs it loses
    against the best card of that layout (``imps(score - best)``, 0 for a best
    card), so a rare disaster weighs as IMPs do. ``mp`` (pairs): the share of the
    other legal cards it beats in that layout (ties count half). ``tricks``: the
    tricks it wins. Scores are the duplicate score of the contract for the side
    to play (rubber matches use them too, as an approximation).

Knobs (bot options, ``pimc?samples=20&ms=500`` or ``options = {...}``)
    ``samples`` (default 20): layouts per decision, at most.
    ``ms`` (default 150): wall time per decision, at most, in milliseconds; the bot
    stops sampling when the next solve would likely pass it: the slowest solve so
    far in this decision, or for the first solve of a decision the slowest one of
    the match at the same number of cards still to play, or before the match has one,
    the slowest this process has seen there (``min_samples``, default
    1, layouts are solved unless that prediction alone passes the budget; with
    none solved it plays the heuristic's card), and it never plans beyond 80% of
    the match's ``deadline_ms``. A DDS solve cannot be cut short, so a decision
    can pass the budget by one solve. ``ms = 0``: no time limit (count-only, the
    budget for reproducible runs). The default aims at a p99 decision under
    500 ms on the loaded 2-core machine of issue 29 (4 boards there: p99 194 ms,
    max 224 ms; with a per-match memory only, 40 boards of seed 3434 at load 2-4:
    p99 240 ms, max 3.2 s, 1 late, +3.75 IMPs/board [+2.37, +5.13]; with the process's
    memory too, the same boards at load 2: p99 127 ms, max 346 ms, 0 late, +3.40
    [+2.09, +4.71]; ``tests/benchmarks/search/README.md``).
    ``scoring``: ``imps``, ``mp`` or ``tricks`` (see above).
    ``lead`` (default ``heuristic``): the opening lead by the heuristic's rules, or
    ``pimc``. With 52 cards out DDS takes 0.1-0.4 s per layout on this machine (and
    seconds for some, under load): a time-bounded lead sees two or three layouts,
    and the first measurement here (200 boards, PIMC leads with at least four
    layouts) spent up to 34 s on a lead.

Determinism
    Each decision draws from its own :class:`~arena.core.dealing.SeedStream`, keyed
    by the bot's seed, the match id, the seat and the position in the play (not by
    what the bot did before), and nothing else: for a fixed seed the decision is a
    function of the observation. It is identical run to run when ``samples`` and
    not the clock ends the sampling (``ms = 0``, or a budget the solves stay
    under); a binding time limit trades that for speed, as any timed engine does.

Needs endplay (the ``search`` extra); :class:`PimcAgent` raises
:class:`~arena.bots.bridge.dds.SearchDependencyError` saying how to install it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from arena.bots.base import Agent, MatchInfo
from arena.bots.bridge.bidding import choose_call
from arena.bots.bridge.dds import require_endplay, solve
from arena.bots.bridge.hand import PASS, Auction, Hand, card_ids
from arena.bots.bridge.play import choose_card
from arena.bots.bridge.sampling import DealSampler, knowledge
from arena.core.dealing import SeedStream
from arena.core.state import Action
from arena.games.bridge.scoring import duplicate_score_parts, imps, parse_contract

__all__ = ["PimcAgent", "make_pimc", "SCORINGS", "card_scores"]

DEFAULT_MS = 150.0
"""Default wall budget per card decision (``ms``), in milliseconds."""

SCORINGS = ("imps", "mp", "tricks")
"""Values of the ``scoring`` option."""

_SLOWEST_SEEN: dict[int, float] = {}
"""Slowest DDS solve seen in this process, by cards still to play: the prediction of a
match's first solve at that count (a match's own memory starts empty, so each match paid
one unpredicted solve per card count: 40 boards of seed 3434 at load 2-4 had max 3.2 s)."""
LEADS = ("heuristic", "pimc")
"""Values of the ``lead`` option (who chooses the opening lead)."""


class PimcAgent(Agent):
    """Heuristic bidding, PIMC card play; see the module docstring."""

    enforces_deadline = False

    def __init__(self, seed: int | str = 0, *, samples: int = 20, ms: float = DEFAULT_MS,
                 scoring: str = "imps", lead: str = "heuristic", min_samples: int = 1,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if isinstance(samples, bool) or int(samples) != samples or samples < 1:
            raise ValueError(f"samples: must be a positive integer, got {samples!r}")
        if ms < 0:
            raise ValueError(f"ms: must be >= 0 (0: no time limit), got {ms!r}")
        if scoring not in SCORINGS:
            raise ValueError(f"scoring: must be one of {', '.join(SCORINGS)}, got {scoring!r}")
        if lead not in LEADS:
            raise ValueError(f"lead: must be one of {', '.join(LEADS)}, got {lead!r}")
        require_endplay()
        self.lead = lead
        self.seed = seed
        self.samples = int(samples)
        self.ms = float(ms)
        self.scoring = scoring
        self.min_samples = max(1, min(int(min_samples), self.samples))
        self._clock = clock
        self._match = ""
        self._deadline_ms = 0.0
        self._cache: dict[str, Any] = {}
        self._solve_s: dict[int, float] = {}
        """Slowest DDS solve so far in this match, by cards still to play (the first solve
        of a decision is predicted from it)."""
        self.name = "pimc"
        self.last_samples = 0
        """Layouts solved for the last card decision (for tests and benchmarks)."""
        self.last_relaxation = 0
        """Relaxation level of the sampler at the last card decision."""

    def start_match(self, info: MatchInfo) -> None:
        self._match = str(info.get("match_id", ""))
        self._deadline_ms = float(info.get("deadline_ms") or 0.0)
        self._cache = {}
        self._solve_s = {}

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> int:
        legal = cast("list[int]", list(legal_actions))
        if not legal:
            return PASS
        if observation.phase == "auction" or legal[0] >= 52:
            hand = Hand.from_ids(card_ids(observation.hand))
            auction = Auction.from_tokens(observation.dealer, observation.auction)
            return choose_call(hand, auction, observation.seat, legal)
        if len(legal) == 1:
            return legal[0]
        if self.lead == "heuristic" and not observation.tricks and not observation.current_trick:
            return choose_card(observation, legal, self._cache)
        return self.choose_card(observation, legal)

    # -- card play ---------------------------------------------------------------
    def budget_ms(self) -> float:
        """Time allowed for one decision (0: none)."""
        limits = [x for x in (self.ms, 0.8 * self._deadline_ms) if x > 0]
        return min(limits) if limits else 0.0

    def choose_card(self, obs: Any, legal: list[int]) -> int:
        """The PIMC card among ``legal`` (card ids)."""
        start = self._clock()
        know = knowledge(obs)
        key = f"pimc|{self.seed}|{self._match}|{obs.board}|{obs.deal}|{obs.seat}|" \
              f"{len(obs.tricks)}|{len(obs.current_trick)}"
        sampler = DealSampler(know, SeedStream(key))
        contract = obs.contract
        level, strain, doubled = parse_contract(contract)
        declarer = obs.declarer
        trump = -1 if strain == 4 else strain
        vul = bool(obs.vulnerable[declarer % 2])
        won = obs.tricks_won[declarer % 2]
        left = 13 - len(obs.tricks)
        ours = (know.mover - declarer) % 2 == 0
        totals = {c: 0.0 for c in legal}
        budget = self.budget_ms() / 1000.0
        solved = 0
        cards = 4 * left - len(know.trick)
        shared = self._clock is time.perf_counter  # a test's fake clock keeps its own times
        slowest = self._solve_s.get(cards, _SLOWEST_SEEN.get(cards, 0.0) if budget and shared else 0.0)
        while solved < self.samples:
            t0 = self._clock()
            if budget and (t0 - start) + slowest > budget and \
                    (solved >= self.min_samples or slowest > budget):
                break  # the next solve would likely pass the budget (even the first one)
            hands = sampler.sample(deadline=start + budget if budget and solved >= self.min_samples else None,
                                   clock=self._clock)
            if hands is None:
                break
            tricks = solve(hands, trump, know.leader, know.trick)
            slowest = max(slowest, self._clock() - t0)
            self._solve_s[cards] = max(self._solve_s.get(cards, 0.0), slowest)
            if shared:
                _SLOWEST_SEEN[cards] = max(_SLOWEST_SEEN.get(cards, 0.0), self._solve_s[cards])
            scores = card_scores(tricks, legal, level=level, strain=strain, doubled=doubled,
                                 vulnerable=vul, won=won, left=left, declaring=ours,
                                 scoring=self.scoring)
            for c in legal:
                totals[c] += scores[c]
            solved += 1
        self.last_samples = solved
        if not solved:
            return choose_card(obs, legal, self._cache)
        self.last_relaxation = sampler.level
        best = max(totals.values())
        tied = [c for c in legal if totals[c] >= best - 1e-9]
        if len(tied) == 1:
            return tied[0]
        fallback = choose_card(obs, legal, self._cache)
        return fallback if fallback in tied else min(tied)


def card_scores(tricks: dict[int, int], legal: Sequence[int], *, level: int, strain: int,
                doubled: int, vulnerable: bool, won: int, left: int, declaring: bool,
                scoring: str) -> dict[int, float]:
    """Each legal card's score in one layout, for the side to play (see the module docstring).

    :param tricks: DDS tricks of the side to play from here on, per card.
    :param won: tricks the declaring side has won so far; ``left``: tricks still to play
        (the one in progress included).
    :param declaring: whether the side to play is the declaring side.

    >>> card_scores({0: 3, 1: 2}, [0, 1], level=4, strain=3, doubled=0, vulnerable=False,
    ...             won=7, left=3, declaring=True, scoring="imps")
    {0: 0.0, 1: -10.0}
    """
    if scoring == "tricks":
        return {c: float(tricks[c]) for c in legal}
    points: dict[int, int] = {}
    for c in legal:
        t = tricks[c]
        decl = won + (t if declaring else left - t)
        sc = duplicate_score_parts(level, strain, doubled, vulnerable, decl)
        points[c] = sc if declaring else -sc
    if scoring == "imps":
        top = max(points.values())
        return {c: float(imps(points[c] - top)) for c in legal}
    n = len(legal)
    return {c: sum(1.0 if points[c] > points[o] else 0.5 if points[c] == points[o] else 0.0
                   for o in legal if o != c) / (n - 1) for c in legal}


def make_pimc(seed: int | str = 0, **options: Any) -> Agent:
    """Factory of :class:`PimcAgent` (options ``samples``, ``ms``, ``scoring``).

    :raises ValueError: naming an unknown or invalid option.
    :raises SearchDependencyError: when endplay is not installed.
    """
    known = {"samples", "ms", "scoring", "lead", "min_samples"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ValueError(f"pimc: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    kw: dict[str, Any] = {}
    if "samples" in options:
        kw["samples"] = _int(options["samples"], "samples")
    if "min_samples" in options:
        kw["min_samples"] = _int(options["min_samples"], "min_samples")
    if "ms" in options:
        kw["ms"] = float(options["ms"])
    for key in ("scoring", "lead"):
        if key in options:
            kw[key] = str(options[key])
    return PimcAgent(seed, **kw)


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or float(value) != int(float(value)):
        raise ValueError(f"{name}: must be an integer, got {value!r}")
    return int(float(value))
