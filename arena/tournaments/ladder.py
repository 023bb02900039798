"""A continuous ladder (``format = "ladder"``): batches of encounters picked by
matchmaking from the ratings of everything recorded so far.

::

    [tournament]
    format = "ladder"
    deals = 1                             # deals per encounter (each in every seating)
    [ladder]
    concurrency = 8                       # encounters per batch
    max_matches_per_entrant_per_hour = 60 # optional rate limit (encounters started)
    matchmaking = "rating"                # rating | random
    stop_after = 500                      # optional: encounters in all
    rating = "batch"                      # leaderboard: batch | glicko2 | openskill

Rounds and encounters
---------------------
The conductor plays the ladder as rounds: a round is one batch of up to
``concurrency`` encounters, each entrant in at most one encounter of a batch; when
a batch is recorded the conductor asks for the next one. An *encounter* is a
duplicate set: two entrants (two-unit games) or a table of the game's size play
``deals`` new deals, each in every cyclic seating, so the luck of the cards
cancels. Encounter ``k`` (counted over the whole ladder) plays the tournament's
deals ``k * deals .. k * deals + deals - 1``. The ladder ends after ``stop_after``
encounters; without it, it runs until stopped (``arena tournament run`` with
Ctrl-C, or the store's tournament left unfinished).

Results and ratings
-------------------
Per deal of an encounter, once all its seatings are recorded, entrants are compared
pairwise on their scores summed over the seatings (two sides: the margin converted
by ``Game.margin_points``, so bridge compares IMPs; canasta compares its points,
the records' ``points``, not its rank-based returns): 1, 1/2 or 0. Those results
feed a Bradley-Terry fit (:func:`fit_ladder`: the model of
:mod:`arena.ratings.bradley_terry`, Elo scale, 95% intervals, fit by Newton's
method on the entrants' result matrix, with one virtual draw of everyone against
a virtual entrant at 0 as the prior), recomputed from the records for every batch and for the
leaderboard (:meth:`LadderFormat.standings`).

Matchmaking
-----------
``rating``: each encounter goes where it is expected to lower the leaderboard's
error the most, measured as the summed squared error of the ranks (what Spearman's
correlation with the true order counts). The Bradley-Terry fit gives the ratings
``m`` and their covariance ``C`` (logistic units; centred, since a common shift
moves no rank). By the delta method, entrant ``i``'s rank varies by about ``D_i^2
Var(theta_i)``, where ``D_i = sum_j phi(m_ij / s_ij) / s_ij`` (``m_ij`` the rating
difference, ``s_ij^2`` its variance) is the slope of ``i``'s expected rank: how
many entrants are within reach of it. One result between ``a`` and ``b`` carries
the Fisher information ``w = p (1 - p)`` (``p`` the fitted chance that ``a`` wins:
largest for close ratings) and updates the covariance by a rank one step, ``C' = C
- w C u u' C / (1 + w u' C u)`` with ``u = e_a - e_b``; its *gain* is the fall of
``sum_i D_i^2 Var(theta_i)``, ``w / (1 + w s_ab^2) * sum_i D_i^2 (C_ia - C_ib)^2``
(:func:`rank_gains`). So it prefers entrants with few games or wide intervals (a new
entrant's first batch has it at once), opponents close in rating, and the crowded
parts of the leaderboard, where a rating error costs many places; it leaves alone
entrants whose place is settled. The batch takes the pair with the largest gain,
applies its expected update to ``C`` and takes the next pair among the entrants
still free (:func:`choose_batch`); tables add members one at a time by the summed
gain with those seated. ``random``: the allowed entrants in a seeded random order,
cut into encounters.

Leaderboards: ``rating = "batch"`` (default) shows the fit above; ``"glicko2"``
and ``"openskill"`` show an online rater (:func:`online_ratings`: every compared
deal fed as one result, in encounter order) with its own 95% interval, while
matchmaking keeps using the fit (it needs the covariance).

Remote entrants join when they are registered and connected, and are skipped (not
forfeited) while disconnected: every batch asks :func:`connected` which remote
bots are present (the presence passed in: the gateway's sessions in the gateway's
process, the Redis presence keys in a Celery worker's; :mod:`arena.tournaments.presence`)
and leaves the others out; the batch's specs
list them in ``tags["offline"]``. A bot that drops during its encounter is the
runner's business (the match is deferred, as in every format).

Rate limit: an entrant that started ``max_matches_per_entrant_per_hour`` encounters
in the last hour (by ``tags["scheduled_at"]``, the Unix time the batch was made) is
skipped; when every entrant is limited the batch is empty and the conductor asks
again at its next pass. The rate limit makes a batch depend on the clock (stored
with it); everything else is computed from the stored specs, records and the seed.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.core.dealing import SeedStream
from arena.records.spec import MatchSpec, make_match_id
from arena.tournaments.config import Entrant, LadderSettings, SettingsContext, TournamentConfig, ladder_settings
from arena.tournaments.formats import compared, deal_seed, seatings
from arena.tournaments.presence import Presence, from_env
from arena.tournaments.rounds import Format, TournamentView, register_format

__all__ = ["LadderFormat", "LadderRatings", "ladder_outcomes", "fit_ladder", "choose_batch",
           "connected", "online_ratings"]

NO_GAMES_ERROR = 1000.0
"""Interval half-width (Elo) given to an entrant without results."""


class _Outcomes:
    """Outcomes of one ladder's records, kept between calls: a record seen before
    (same match id, same returns) is skipped; any other change starts over."""

    def __init__(self, config: TournamentConfig) -> None:
        self.game = config.make_game()
        self.units = [list(u) for u in self.game.teams()]
        self.need: dict[int, int] = {}
        self.seen: dict[str, list[float]] = {}
        self.slots: dict[tuple[int, int, int], dict[str, Any]] = {}
        self.outcomes: dict[tuple[str, str, float], int] = {}
        self.results: list[tuple[tuple[int, int, int], str, str, float]] = []
        """Every compared deal: ``(key, a, b, a's result)``, in the order completed."""
        import numpy as np

        self.index = {e: i for i, e in enumerate(config.entrant_ids)}
        n = len(self.index)
        self.games_m = np.zeros((n, n))
        self.wins_m = np.zeros((n, n))
        self.theta: Any = None
        """The last fit's solution (a warm start for the next)."""

    def add(self, match_id: str, tags: Mapping[str, Any], returns: Sequence[float]) -> None:
        sides = tags["sides"]
        key = (int(tags["ladder_round"]), int(tags["table"]), int(tags["deal"]))
        slot = self.slots.get(key)
        if slot is None:
            slot = self.slots[key] = {"sides": sides, "n": 0, "tot": dict.fromkeys(sides, 0.0)}
        ents = tags["entrants"]
        for u in self.units:
            who = ents[u[0]]
            if who in slot["tot"]:
                slot["tot"][who] += sum(float(returns[i]) for i in u) / len(u)
        slot["n"] += 1
        k = len(sides)
        if k not in self.need:
            self.need[k] = len(seatings(len(self.units), k))
        if slot["n"] != self.need[k]:
            return
        tot = slot["tot"]
        for i, a in enumerate(sides):
            for b in sides[i + 1:]:
                diff = (tot[a] - tot[b]) / 2 if k == 2 else tot[a] - tot[b]
                pts = float(self.game.margin_points(diff)) if k == 2 else diff
                res = 1.0 if pts > 0 else 0.5 if pts == 0 else 0.0
                x, y, r = (a, b, res) if a < b else (b, a, 1.0 - res)
                self.outcomes[(x, y, r)] = self.outcomes.get((x, y, r), 0) + 1
                self.results.append((key, a, b, res))
                ia, ib = self.index.get(a), self.index.get(b)
                if ia is not None and ib is not None:
                    self.games_m[ia, ib] += 1
                    self.games_m[ib, ia] += 1
                    self.wins_m[ia, ib] += res
                    self.wins_m[ib, ia] += 1.0 - res


_CACHE: dict[str, _Outcomes] = {}
_CACHE_SIZE = 16


def _accept(config: TournamentConfig, r: Any) -> bool:
    tags = getattr(r, "tags", None) or {}
    return bool(tags.get("tournament_id") == config.id and tags.get("format") == "ladder"
                and getattr(r, "terminal", True))


def _state(config: TournamentConfig, records: Iterable[Any], cache: bool = True) -> _Outcomes:
    """The :class:`_Outcomes` of ``records``: the cached one plus the new records
    when every record it has seen is among them unchanged, else built afresh."""
    recs = records if isinstance(records, list) else list(records)
    state = _CACHE.get(config.id) if cache else None
    if state is not None:
        fresh, hits = [], 0
        for r in recs:
            old = state.seen.get(r.match_id)
            if old is None:
                fresh.append(r)
            elif old != compared(r):
                state = None
                break
            else:
                hits += 1
        if state is not None and hits == len(state.seen):
            for r in fresh:
                if r.match_id not in state.seen and _accept(config, r):
                    state.seen[r.match_id] = compared(r)
                    state.add(r.match_id, r.tags, state.seen[r.match_id])
            return state
    state = _Outcomes(config)
    for r in recs:
        if r.match_id not in state.seen and _accept(config, r):
            state.seen[r.match_id] = compared(r)
            state.add(r.match_id, r.tags, state.seen[r.match_id])
    if cache:
        _CACHE.pop(config.id, None)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[config.id] = state
    return state


def ladder_outcomes(config: TournamentConfig, records: Iterable[Any], *,
                    cache: bool = True) -> dict[tuple[str, str, float], int]:
    """``(a, b, a's result) -> count`` over every fully recorded deal of every
    encounter (``a < b``; see the module docstring).

    Kept between calls per tournament: a later call with the same records plus new
    ones parses only the new ones (what the conductor does batch after batch); a
    call whose records do not include every record seen before, or with other
    returns, starts over. ``cache=False`` computes them afresh and keeps nothing.
    """
    return dict(_state(config, records, cache).outcomes)


@dataclass(frozen=True)
class LadderRatings:
    """Ratings of every entrant (Elo; no games: 0 with :data:`NO_GAMES_ERROR`)."""

    rating: dict[str, float]
    error: dict[str, float]
    games: dict[str, float]
    score: dict[str, float]
    covariance: Any = None
    """Covariance of the ratings (Elo², numpy array indexed like the ids), if fitted."""


def fit_ladder(ids: Sequence[str], outcomes: Mapping[tuple[str, str, float], int]) -> LadderRatings:
    """The Bradley-Terry fit of ``outcomes`` (:func:`ladder_outcomes`), Elo scale:
    Newton's method on the matrix of results between entrants, with one virtual draw
    of every entrant against a virtual entrant fixed at 0 (a prior that keeps
    unbeaten or unmet entrants finite); intervals (95%) from the inverse Hessian.
    ``games`` and ``score`` count the real results only."""
    import numpy as np

    n = len(ids)
    index = {e: i for i, e in enumerate(ids)}
    games_m = np.zeros((n, n))
    wins_m = np.zeros((n, n))
    for (a, b, res), c in outcomes.items():
        if a in index and b in index:
            i, j = index[a], index[b]
            games_m[i, j] += c
            games_m[j, i] += c
            wins_m[i, j] += res * c
            wins_m[j, i] += (1.0 - res) * c
    return _fit_matrices(ids, games_m, wins_m)[0]


def _fit_matrices(ids: Sequence[str], games_m: Any, wins_m: Any, theta0: Any = None) -> tuple[LadderRatings, Any]:
    """:func:`fit_ladder` on the result matrices (``games_m[i, j]`` results between i
    and j, ``wins_m[i, j]`` i's score in them), from ``theta0`` if given."""
    import numpy as np

    n = len(ids)
    games = games_m.sum(axis=1)
    score = wins_m.sum(axis=1)
    theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=float)
    hess = np.eye(n)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        pv = 1.0 / (1.0 + np.exp(-theta))
        grad = score - (games_m * p).sum(axis=1) + (0.5 - pv)
        w = games_m * p * (1.0 - p)
        hess = -w
        np.fill_diagonal(hess, w.sum(axis=1) + pv * (1.0 - pv))
        step = np.linalg.solve(hess, grad)
        step = np.clip(step, -2.0, 2.0)
        theta = theta + step
        if float(np.max(np.abs(step))) < 1e-7:
            break
    scale = 400.0 / math.log(10.0)
    cov = np.linalg.inv(hess) * scale * scale
    err = 1.959964 * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return LadderRatings({e: float(theta[i] * scale) for i, e in enumerate(ids)},
                         {e: float(err[i]) if games[i] else NO_GAMES_ERROR for i, e in enumerate(ids)},
                         {e: float(games[i]) for i, e in enumerate(ids)},
                         {e: float(score[i]) for i, e in enumerate(ids)}, cov), theta


SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of the logistic scale."""


def rank_gains(ratings: LadderRatings, ids: Sequence[str], covariance: Any) -> tuple[Any, Any, Any]:
    """``(gain, w, v)``: ``gain[i, j]`` is how much one result between ``ids[i]`` and
    ``ids[j]`` is expected to lower the leaderboard's summed squared rank error (see
    the module docstring), given the fit's ratings and a covariance of them (Elo²,
    centred); ``w[i, j]`` is the Fisher information of that result and ``v[i, j]``
    the variance of the two ratings' difference (logistic units)."""
    import numpy as np

    r = np.array([ratings.rating.get(e, 0.0) for e in ids]) / SCALE
    c = np.asarray(covariance) / (SCALE * SCALE)
    d = np.diag(c)
    v = np.clip(d[:, None] + d[None, :] - 2.0 * c, 1e-12, None)
    m = r[:, None] - r[None, :]
    p = 1.0 / (1.0 + np.exp(-m))
    w = p * (1.0 - p)
    sd = np.sqrt(v)
    density = np.exp(-0.5 * (m / sd) ** 2) / (math.sqrt(2.0 * math.pi) * sd)
    np.fill_diagonal(density, 0.0)
    slope = density.sum(axis=1)  # d E[rank_i] / d rating_i: how many entrants are within reach of i
    weighted = c @ (slope[:, None] ** 2 * c)
    dw = np.diag(weighted)
    gains = w / (1.0 + w * v) * (dw[:, None] + dw[None, :] - 2.0 * weighted)
    np.fill_diagonal(gains, -np.inf)
    return gains, w, v


def _centred_covariance(ids: Sequence[str], ratings: LadderRatings) -> Any:
    """The fit's covariance (Elo²) without the common shift of all ratings (which
    moves no rank); from the intervals when the fit has none."""
    import numpy as np

    if ratings.covariance is not None:
        c = np.array(ratings.covariance, dtype=float)
    else:
        c = np.diag([(ratings.error.get(e, NO_GAMES_ERROR) / 1.959964) ** 2 for e in ids])
    centre = np.eye(len(ids)) - 1.0 / len(ids)
    return centre @ c @ centre


def choose_batch(ids: Sequence[str], size: int, count: int, ratings: LadderRatings, allowed: set[str],
                 matchmaking: str, rng: SeedStream) -> list[list[str]]:
    """Up to ``count`` encounters of ``size`` entrants each (see the module docstring)."""
    free = [e for e in ids if e in allowed]
    if matchmaking == "random":
        rng.shuffle(free)
        return [free[i:i + size] for i in range(0, len(free) - size + 1, size)][:count]
    import numpy as np

    if len(free) < size:
        return []
    draw = np.array([rng.random() for _ in ids])
    tie = 1e-9 * (draw[:, None] + draw[None, :])  # a seeded tie-break
    busy = np.array([e not in allowed for e in ids])
    cov = _centred_covariance(ids, ratings)
    out: list[list[str]] = []
    while len(out) < count and (~busy).sum() >= size:
        gains, w, v = rank_gains(ratings, ids, cov)
        gains[busy, :] = -np.inf
        gains[:, busy] = -np.inf
        top = float(np.max(gains))
        if not np.isfinite(top) or top <= 0.0:
            top = 1.0
        # the same store gives the same batch: gains to 7 digits (the fit converges to
        # about that, whatever the order of the records), then the seeded tie-break
        gains = np.round(gains / top, 7) + tie
        i, j = np.unravel_index(int(np.argmax(gains)), gains.shape)
        if not np.isfinite(gains[i, j]):
            break
        table = [int(i), int(j)]
        total = gains[i] + gains[j]
        while len(table) < size:  # tables: add the member with the largest summed gain
            total[table] = -np.inf
            x = int(np.argmax(total))
            if not np.isfinite(total[x]):
                break
            table.append(x)
            total = total + gains[x]
        if len(table) < size:
            break
        table.sort()  # sides in entrant order, whichever way the argmax found them
        busy[table] = True
        out.append([ids[x] for x in table])
        for a_, a in enumerate(table):  # the next pick knows what this encounter is expected to teach
            for b in table[a_ + 1:]:
                u = cov[:, a] - cov[:, b]
                cov = cov - (w[a, b] / (SCALE * SCALE)) * np.outer(u, u) / (1.0 + w[a, b] * v[a, b])
    return out


# -- remote entrants: present or skipped ----------------------------------------------------

def connected(bot_ids: Iterable[str], presence: Presence | None = None) -> set[str]:
    """The remote bots among ``bot_ids`` that are connected now, as ``presence``
    says (:mod:`arena.tournaments.presence`: the caller's router, passed to
    :func:`~arena.tournaments.rounds.make_format`); without one, those whose
    presence key the gateways hold in Redis when ``$ARENA_REDIS_URL`` is set
    (Celery workers and their conductors, ``arena conductor``); else all of them
    (this process cannot tell, and the runner defers a match whose bot is away)."""
    ids = set(bot_ids)
    if presence is not None:
        return {b for b in ids if presence.is_connected(b)}
    env = from_env()
    return {b for b in ids if env.is_connected(b)}


# -- online leaderboards -------------------------------------------------------------------

def online_ratings(config: TournamentConfig, records: Iterable[Any], kind: str) -> dict[str, tuple[float, float]]:
    """``entrant -> (rating, 95% half-width)`` of the online rater ``kind``
    (``glicko2``, ``openskill``; :func:`arena.ratings.make_rater`) fed every compared
    deal of the ladder as one result between its two entrants, in encounter and deal
    order (so the same records always give the same ratings). Entrants without a
    result are left out."""
    from arena.ratings import MatchResult, make_rater

    rater = make_rater(kind)
    state = _state(config, records, cache=False)
    ruleset = state.game.ruleset
    for _, a, b, res in sorted(state.results):
        rater.record(MatchResult(ruleset, [a, b], [res, 1.0 - res], match_id=None))
    out: dict[str, tuple[float, float]] = {}
    for e in config.entrant_ids:
        if e in rater.bots(ruleset):
            summary = rater.summary(ruleset, e)
            out[e] = (summary.rating, summary.error if summary.error is not None else math.nan)
    return out


class _Book:
    """What a ladder's specs say so far: encounters and start times per entrant."""

    def __init__(self) -> None:
        self.specs = 0
        self.first_id = ""
        self.last_id = ""
        self.encounters = 0
        self.keys: set[tuple[int, int]] = set()
        self.times: dict[str, list[float]] = {}

    def add(self, s: MatchSpec) -> None:
        key = (int(s.tags.get("ladder_round", s.round)), s.table)
        if key in self.keys:
            return
        self.keys.add(key)
        self.encounters += 1
        sides = list(s.tags.get("sides", []))
        at = float(s.tags.get("scheduled_at", 0.0))
        for a in sides:
            bisect.insort(self.times.setdefault(a, []), at)


_BOOKS: dict[str, _Book] = {}


def _book(tournament_id: str, specs: Sequence[MatchSpec]) -> _Book:
    """The :class:`_Book` of ``specs``, kept between calls while the specs only grow
    (the same first spec and the same spec where the last call stopped)."""
    book = _BOOKS.get(tournament_id)
    if book is None or not specs or len(specs) < book.specs or specs[0].match_id != book.first_id \
            or (book.specs and specs[book.specs - 1].match_id != book.last_id):
        book = _Book()
        if len(_BOOKS) >= _CACHE_SIZE:
            _BOOKS.pop(next(iter(_BOOKS)))
        _BOOKS[tournament_id] = book
    for s in specs[book.specs:]:
        book.add(s)
    book.specs = len(specs)
    if specs:
        book.first_id, book.last_id = specs[0].match_id, specs[-1].match_id
    return book


@register_format("ladder")
class LadderFormat(Format):
    """A continuous ladder (see the module docstring)."""

    section = "ladder"

    @classmethod
    def parse_settings(cls, table: dict[str, Any] | None, context: SettingsContext) -> LadderSettings:
        return ladder_settings(table, context)

    clock: Callable[[], float] = staticmethod(time.time)
    """The time source of rate limits and ``scheduled_at`` (tests and benchmarks replace it)."""

    def __init__(self, config: TournamentConfig) -> None:
        super().__init__(config)
        if config.ladder is None:
            raise ValueError("a ladder config needs its [ladder] settings")
        self.settings: LadderSettings = config.ladder
        self.game = config.make_game()
        self.units = [list(u) for u in self.game.teams()]
        self.size = len(self.units)

    def first_round(self, entrants: Sequence[Entrant]) -> list[MatchSpec]:
        if [e.id for e in entrants] != self.config.entrant_ids:
            raise ValueError("a ladder plays the config's entrants")
        return self._batch(0, [], []) or []

    def next_round(self, tournament: TournamentView, records: Iterable[Any]) -> list[MatchSpec] | None:
        return self._batch(tournament.round + 1, list(tournament.specs), records)

    def _batch(self, rnd: int, specs: list[MatchSpec], records: Iterable[Any]) -> list[MatchSpec] | None:
        cfg, st = self.config, self.settings
        ids = cfg.entrant_ids
        book = _book(cfg.id, specs)
        done = book.encounters
        count = st.concurrency
        if st.stop_after is not None:
            count = min(count, st.stop_after - done)
            if count <= 0:
                return None
        now = float(self.clock())
        recent = {e: len(v) - bisect.bisect_right(v, now - 3600.0) for e, v in book.times.items()}
        limit = st.max_matches_per_entrant_per_hour
        allowed = {e for e in ids if limit is None or recent.get(e, 0) < limit}
        remote = {e.id: e.bot[len("remote:"):] for e in cfg.entrants if e.bot.startswith("remote:")}
        offline: list[str] = []
        if remote:  # a disconnected remote bot is skipped, not forfeited
            present = connected(remote.values(), self.presence)
            offline = sorted(e for e, bot in remote.items() if bot not in present)
            allowed -= set(offline)
        if st.matchmaking == "rating":
            state = _state(cfg, records)
            ratings, state.theta = _fit_matrices(ids, state.games_m, state.wins_m, state.theta)
        else:
            ratings = LadderRatings({}, {}, {}, {})
        rng = SeedStream(f"ladder|{cfg.seed}|{rnd}")
        batch = choose_batch(ids, self.size, count, ratings, allowed, st.matchmaking, rng)
        return self._specs(rnd, batch, done, len(specs), now, offline)

    def _specs(self, rnd: int, batch: list[list[str]], done: int, start: int, now: float,
               offline: Sequence[str] = ()) -> list[MatchSpec]:
        cfg = self.config
        refs = {e.id: e.bot for e in cfg.entrants}
        n = self.game.num_players
        board = self.game.name == "bridge"
        out: list[MatchSpec] = []
        for t, sides in enumerate(batch):
            k = done + t
            for d in range(cfg.deals):
                gdeal = k * cfg.deals + d
                seed = deal_seed(cfg.seed, gdeal)
                for r, seating in enumerate(seatings(self.size, len(sides))):
                    seats = [""] * n
                    for u, unit in enumerate(self.units):
                        for s in unit:
                            seats[s] = sides[seating[u]]
                    tags: dict[str, Any] = {"format": "ladder", "ladder_round": rnd, "encounter": k,
                                            "sides": list(sides), "scheduled_at": round(now, 3)}
                    if board:
                        tags["board"] = d + 1
                    if offline:
                        tags["offline"] = list(offline)
                    index = start + len(out)
                    out.append(MatchSpec(
                        match_id=make_match_id(cfg.id, index), tournament_id=cfg.id, index=index,
                        game=cfg.game, preset=cfg.preset, options=dict(cfg.options), seed=seed,
                        entrants=tuple(seats), bots=tuple(refs[x] for x in seats),
                        init={"board": d + 1} if board else {}, deal=gdeal, rotation=r, table=t,
                        deadline_ms=cfg.deadline_ms, tags=tags, round=rnd, max_retries=cfg.max_retries))
        return out

    def standings(self, records: Iterable[Any]) -> Any:
        from arena.tournaments.standings import Standings, _ranked

        cfg = self.config
        recs = list(records)
        mine = [r for r in recs if (getattr(r, "tags", None) or {}).get("tournament_id") == cfg.id]
        ids = cfg.entrant_ids
        outcomes = ladder_outcomes(cfg, mine)
        fit = fit_ladder(ids, outcomes)
        encs: dict[str, set[tuple[int, int]]] = {e: set() for e in ids}
        for r in mine:
            for e in r.tags.get("sides", []):
                if e in encs:
                    encs[e].add((int(r.tags["ladder_round"]), int(r.tags["table"])))
        st = self.settings
        if st.rating == "batch":
            value = {e: (fit.rating[e], fit.error[e]) for e in ids if fit.games[e]}
            how = "Bradley-Terry rating (Elo scale, a virtual entrant at 0), then entrant id"
        else:
            value = online_ratings(cfg, mine, st.rating)
            from arena.ratings import rater_class

            how = (f"{rater_class(st.rating).label} after every compared deal "
                   "in encounter order, then entrant id")
        rows: list[dict[str, Any]] = []
        for e in sorted(ids, key=lambda x: (-value[x][0] if x in value else math.inf, x)):
            g = fit.games[e]
            r, err = value.get(e, (math.nan, math.nan))
            rows.append({"entrant": e, "bot": cfg.entrant(e).bot, "rating": r, "error": err,
                         "low": r - err, "high": r + err,
                         "encounters": len(encs[e]), "games": g,
                         "score": fit.score[e] / g if g else math.nan})
        _ranked(rows)
        cols = [("rank", "#"), ("entrant", "entrant"), ("bot", "bot"), ("rating", "rating"), ("error", "+-95%"),
                ("encounters", "encounters"), ("games", "deals"), ("score", "score")]
        n_enc = len({(int(r.tags["ladder_round"]), int(r.tags["table"])) for r in mine})
        title = (f"{cfg.name}: ladder, {n_enc} encounters, {st.matchmaking} matchmaking, {st.rating} ratings "
                 f"({self.game.ruleset})")
        out = Standings(cfg.id, "ladder", title, cols, rows, how,
                        details={"encounters": n_enc, "matchmaking": st.matchmaking, "rating": st.rating,
                                 "stop_after": st.stop_after})
        per = cfg.deals * len(seatings(self.size, self.size))
        out.recorded = len({r.match_id for r in mine})
        out.expected = st.stop_after * per if st.stop_after is not None else out.recorded
        out.ignored = len(recs) - len(mine)
        return out
