"""Batch maximum-likelihood ratings (Bradley-Terry, as BayesElo/Ordo fit them).

All results of one ruleset are fitted at once to the logistic model
``P(a beats b) = 1 / (1 + 10^((R_b - R_a)/400))`` with side rating = mean of
its members. Results become weighted comparisons exactly as for the online
Elo (:mod:`arena.ratings.comparisons`: ``1/(n-1)`` per pair of a table,
partnerships as sides, duplicate deals compared seat by seat); draws count as
half a win (Ordo's choice: draws carry no extra information about strength).

Prior (BayesElo's ``prior``, default 2): each player gets ``prior`` virtual
draws, spread over its opponents in proportion to the games played against each
(``CCondensedResults::AddPrior``), and, as in BayesElo, a virtual draw weighs as
one win plus one loss (two games scored 1/2). So ``prior=2`` adds four half-point
games to a lone pair, and a 3-1 score fits ``400 log10(5/3) = 88.74`` Elo, what
BayesElo 0058 prints for it. The prior keeps perfect winners finite and shrinks
ratings from few games. ``prior=0`` gives the plain maximum-likelihood estimate
(which does not exist for a perfect score).

Fitting aggregates identical comparisons first (one row per pair of sides,
with total weight and total score), then runs Newton's method on the
log-likelihood with the full Hessian, so a million results cost little more
than counting them. Ratings are reported relative to the pool mean (``offset``
is the mean) or to an ``anchor`` bot rated ``offset``. Intervals: the
covariance is the inverse Hessian (BayesElo's ``covariance``) corrected for
draws, the interval half-width ``z * sd`` (95% by default), and the likelihood of
superiority ``LOS[i, j] = Φ((R_i - R_j) / sd(R_i - R_j))``.

Draws: the logistic model counts a draw as half a win, and its Hessian assumes
the variance of a win/loss outcome, ``p(1 - p)`` per game. A draw has less: a
game's score ``s`` has variance ``p(1 - p) - E[s(1 - s)]`` (``1/4`` per draw),
so the covariance is the sandwich ``H⁻¹ (H - Xᵀ diag(Σ w s(1-s)) X) H⁻¹``. With
no draws (and no fractional scores) it is exactly ``H⁻¹``; with draws it agrees
with a bootstrap of the same fit (and, for two players, with cutechess's
``+/-`` for W/L/D counts) instead of being too wide by ``sqrt(1/(1 - d))`` for a
draw rate ``d`` between equal players.

>>> from arena.ratings.result import MatchResult
>>> rs = [MatchResult("g@1", ["a", "b"], [1, 0])] * 3 + [MatchResult("g@1", ["b", "a"], [1, 0])]
>>> fit = fit_bradley_terry(rs)
>>> fit.players, round(fit.rating("a") - fit.rating("b"), 2)
(('a', 'b'), 88.74)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, ndtr, ndtri

from arena.ratings.comparisons import Comparison, DealLedger, outcome
from arena.ratings.errors import RatingError
from arena.ratings.result import BotId, MatchResult

__all__ = ["BTFit", "fit_bradley_terry", "fit_comparisons", "fit_pairs"]

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of log-odds."""

_DENSE_LIMIT = 1_000_000
"""Design matrices with at most this many cells are fitted as dense arrays."""


@dataclass(frozen=True, eq=False)
class BTFit:
    """The result of a batch fit. Arrays are indexed like :attr:`players`."""

    players: tuple[BotId, ...]
    ratings: NDArray[np.float64]
    """Elo ratings (mean ``offset``, or the anchor at ``offset``)."""
    covariance: NDArray[np.float64]
    """Covariance of the ratings, Elo²."""
    games: NDArray[np.float64]
    """Weighted number of games (comparisons) of each player, without the prior."""
    scores: NDArray[np.float64]
    """Weighted score of each player, without the prior."""
    confidence: float
    """Level of :attr:`errors` (0.95)."""
    iterations: int
    """Newton iterations used."""

    @property
    def errors(self) -> NDArray[np.float64]:
        """Half-widths of the confidence intervals, Elo."""
        z = float(ndtri(0.5 + self.confidence / 2.0))
        return z * np.sqrt(np.clip(np.diag(self.covariance), 0.0, None))

    def index(self, bot: BotId) -> int:
        """Position of ``bot`` in :attr:`players`.

        :raises RatingError: if the bot was not in the fit.
        """
        try:
            return self.players.index(bot)
        except ValueError:
            raise RatingError(f"{bot!r} is not in the fit") from None

    def rating(self, bot: BotId) -> float:
        """Fitted rating of ``bot``.

        :raises RatingError: if the bot was not in the fit.
        """
        return float(self.ratings[self.index(bot)])

    def error(self, bot: BotId) -> float:
        """Interval half-width of ``bot``.

        :raises RatingError: if the bot was not in the fit.
        """
        return float(self.errors[self.index(bot)])

    def los_matrix(self) -> NDArray[np.float64]:
        """``LOS[i, j]`` = probability that player i is stronger than player j (0.5 on the diagonal)."""
        c = self.covariance
        d = np.diag(c)
        var = d[:, None] + d[None, :] - 2.0 * c
        diff = self.ratings[:, None] - self.ratings[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(var > 0, diff / np.sqrt(np.where(var > 0, var, 1.0)), 0.0)
        out: NDArray[np.float64] = ndtr(z)
        np.fill_diagonal(out, 0.5)
        return out

    def los(self, a: BotId, b: BotId) -> float:
        """Likelihood that ``a`` is stronger than ``b``.

        :raises RatingError: if a bot was not in the fit.
        """
        return float(self.los_matrix()[self.index(a), self.index(b)])

    def table(self) -> list[dict[str, Any]]:
        """Rows ``bot, rating, error, games, score`` (score as a fraction), best first."""
        order = sorted(range(len(self.players)), key=lambda i: (-self.ratings[i], self.players[i]))
        err = self.errors
        return [
            {
                "bot": self.players[i],
                "rating": float(self.ratings[i]),
                "error": float(err[i]),
                "games": float(self.games[i]),
                "score": float(self.scores[i] / self.games[i]) if self.games[i] else 0.0,
            }
            for i in order
        ]


# -- aggregation ----------------------------------------------------------


def _aggregate_results(results: Iterable[MatchResult], ruleset: str | None) -> dict[Any, list[float]]:
    """{(side a, side b): [weight, score of a, sum of weight * s(1 - s)]} with sides in canonical order."""
    agg: dict[Any, list[float]] = {}
    ledger = DealLedger()
    seen_rs: str | None = ruleset
    for r in results:
        if ruleset is not None and r.ruleset != ruleset:
            continue
        if seen_rs is None:
            seen_rs = r.ruleset
        elif r.ruleset != seen_rs:
            raise RatingError(f"results of rulesets {seen_rs!r} and {r.ruleset!r}: fit one ruleset at a time")
        seats = r.seats
        if r.deal_id is None and r.teams is None and len(seats) == 2:  # fast path
            a, b = seats
            if a == b:
                continue
            s = outcome(r.returns[0], r.returns[1])
            if a > b:
                a, b, s = b, a, 1.0 - s
            acc = agg.get((a, b))
            if acc is None:
                agg[(a, b)] = [1.0, s, s * (1.0 - s)]
            else:
                acc[0] += 1.0
                acc[1] += s
                acc[2] += s * (1.0 - s)
            continue
        for c in ledger.add(r):
            _add_comparison(agg, c)
    return agg


def _add_comparison(agg: dict[Any, list[float]], c: Comparison) -> None:
    a, b, s = (c.a[0] if len(c.a) == 1 else c.a), (c.b[0] if len(c.b) == 1 else c.b), c.score
    if _key(a) > _key(b):
        a, b, s = b, a, 1.0 - s
    acc = agg.setdefault((a, b), [0.0, 0.0, 0.0])
    acc[0] += c.weight
    acc[1] += c.weight * s
    acc[2] += c.weight * s * (1.0 - s)


def _key(side: Any) -> tuple[str, ...]:
    return (side,) if isinstance(side, str) else tuple(side)


# -- fitting --------------------------------------------------------------


def fit_bradley_terry(
    results: Iterable[MatchResult],
    *,
    ruleset: str | None = None,
    prior: float = 2.0,
    confidence: float = 0.95,
    offset: float = 0.0,
    anchor: BotId | None = None,
) -> BTFit:
    """Fit all ``results`` of one ruleset (see the module docstring).

    :param ruleset: keep only results of this ruleset (default: all results,
        which must then share one ruleset).
    :raises RatingError: on mixed rulesets, no comparisons, a disconnected
        set of players, an unknown anchor, or no convergence.
    """
    agg = _aggregate_results(results, ruleset)
    sides_a, sides_b, w, s, v = [], [], [], [], []
    for (a, b), (ww, ss, vv) in agg.items():
        sides_a.append(_key(a))
        sides_b.append(_key(b))
        w.append(ww)
        s.append(ss)
        v.append(vv)
    return _fit_sides(sides_a, sides_b, np.array(w), np.array(s), np.array(v), prior, confidence, offset,
                      anchor)


def fit_comparisons(
    comparisons: Iterable[Comparison],
    *,
    prior: float = 2.0,
    confidence: float = 0.95,
    offset: float = 0.0,
    anchor: BotId | None = None,
) -> BTFit:
    """Fit ready-made comparisons (e.g. from several :class:`DealLedger` runs).

    :raises RatingError: as :func:`fit_bradley_terry`.
    """
    agg: dict[Any, list[float]] = {}
    for c in comparisons:
        _add_comparison(agg, c)
    keys = list(agg)
    return _fit_sides(
        [_key(a) for a, _ in keys],
        [_key(b) for _, b in keys],
        np.array([agg[k][0] for k in keys]),
        np.array([agg[k][1] for k in keys]),
        np.array([agg[k][2] for k in keys]),
        prior,
        confidence,
        offset,
        anchor,
    )


def fit_pairs(
    a: ArrayLike,
    b: ArrayLike,
    score: ArrayLike,
    weight: ArrayLike | None = None,
    *,
    names: Sequence[BotId] | None = None,
    prior: float = 2.0,
    confidence: float = 0.95,
    offset: float = 0.0,
    anchor: BotId | None = None,
) -> BTFit:
    """Vectorized fit of two-player games given as arrays of player indices.

    ``score[k]`` is player ``a[k]``'s score against ``b[k]`` (1, 0.5, 0 or any
    fraction), counted ``weight[k]`` times; ``names[i]`` names player ``i``
    (default ``"0", "1", ...``). A fractional score is one outcome of that value
    (like a draw, it varies less than a win or a loss): give aggregated games as
    rows of 1, 0.5 and 0 with their counts as weights, not as a mean score.
    Players without games are left out of the fit.

    :raises RatingError: on arrays of different lengths or as :func:`fit_bradley_terry`.
    """
    ia = np.asarray(a, dtype=np.int64)
    ib = np.asarray(b, dtype=np.int64)
    sc = np.asarray(score, dtype=float)
    wt = np.ones_like(sc) if weight is None else np.asarray(weight, dtype=float)
    if not (ia.shape == ib.shape == sc.shape == wt.shape) or ia.ndim != 1:
        raise RatingError("a, b, score and weight must be 1-d arrays of one length")
    if ia.size and (min(ia.min(), ib.min()) < 0):
        raise RatingError("player indices must be non-negative")
    n = int(max(ia.max(initial=-1), ib.max(initial=-1))) + 1
    names = [str(i) for i in range(n)] if names is None else list(names)
    if len(names) < n:
        raise RatingError(f"{n} players but {len(names)} names")
    keep = ia != ib
    ia, ib, sc, wt = ia[keep], ib[keep], sc[keep], wt[keep]
    swap = ia > ib
    lo = np.where(swap, ib, ia)
    hi = np.where(swap, ia, ib)
    sc = np.where(swap, 1.0 - sc, sc)
    code = lo * n + hi
    uniq, inv = np.unique(code, return_inverse=True)
    W = np.asarray(np.bincount(inv, weights=wt, minlength=uniq.size), dtype=np.float64)
    S = np.asarray(np.bincount(inv, weights=wt * sc, minlength=uniq.size), dtype=np.float64)
    V = np.asarray(np.bincount(inv, weights=wt * sc * (1.0 - sc), minlength=uniq.size), dtype=np.float64)
    ua, ub = uniq // n, uniq % n
    used = np.unique(np.concatenate([ua, ub]))  # players without games are left out
    remap = np.full(n, -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    return _fit_core([names[i] for i in used.tolist()], remap[ua], remap[ub], W, S, V, prior, confidence,
                     offset, anchor)


def _fit_sides(
    sides_a: list[tuple[str, ...]],
    sides_b: list[tuple[str, ...]],
    W: NDArray[np.float64],
    S: NDArray[np.float64],
    V: NDArray[np.float64],
    prior: float,
    confidence: float,
    offset: float,
    anchor: BotId | None,
) -> BTFit:
    if not sides_a:
        raise RatingError("no comparisons to fit")
    players = sorted({p for side in sides_a + sides_b for p in side})
    idx = {p: i for i, p in enumerate(players)}
    if all(len(x) == 1 for x in sides_a) and all(len(x) == 1 for x in sides_b):
        ua = np.array([idx[x[0]] for x in sides_a])
        ub = np.array([idx[x[0]] for x in sides_b])
        return _fit_core(players, ua, ub, W, S, V, prior, confidence, offset, anchor)
    rows, cols, vals = [], [], []
    for u, (sa, sb) in enumerate(zip(sides_a, sides_b)):
        for p in sa:
            rows.append(u)
            cols.append(idx[p])
            vals.append(1.0 / len(sa))
        for p in sb:
            rows.append(u)
            cols.append(idx[p])
            vals.append(-1.0 / len(sb))
    X = sp.csr_matrix((vals, (rows, cols)), shape=(len(sides_a), len(players)))
    return _fit_design(players, X, W, S, V, prior, confidence, offset, anchor)


def _fit_core(
    players: list[BotId],
    ua: NDArray[np.int64],
    ub: NDArray[np.int64],
    W: NDArray[np.float64],
    S: NDArray[np.float64],
    V: NDArray[np.float64],
    prior: float,
    confidence: float,
    offset: float,
    anchor: BotId | None,
) -> BTFit:
    if ua.size == 0:
        raise RatingError("no comparisons to fit")
    u = ua.size
    rows = np.concatenate([np.arange(u), np.arange(u)])
    cols = np.concatenate([ua, ub])
    vals = np.concatenate([np.ones(u), -np.ones(u)])
    X = sp.csr_matrix((vals, (rows, cols)), shape=(u, len(players)))
    return _fit_design(players, X, W, S, V, prior, confidence, offset, anchor)


def _fit_design(
    players: list[BotId],
    X: sp.csr_matrix,
    W: NDArray[np.float64],
    S: NDArray[np.float64],
    V: NDArray[np.float64],
    prior: float,
    confidence: float,
    offset: float,
    anchor: BotId | None,
    max_iter: int = 200,
) -> BTFit:
    if not 0.0 < confidence < 1.0:
        raise RatingError(f"confidence must be in (0, 1), got {confidence}")
    if prior < 0:
        raise RatingError(f"prior must be non-negative, got {prior}")
    n = len(players)
    # Small problems (the usual leaderboard) run faster dense: sparse overhead dominates.
    Xm: Any = X.toarray() if X.shape[0] * n <= _DENSE_LIMIT else X
    dense = isinstance(Xm, np.ndarray)
    # Real games and scores per player (a side's comparison counts for each member).
    member: Any = (Xm != 0).astype(float) if dense else (abs(X) > 0).astype(float)
    games = np.asarray(member.T @ W, dtype=float)
    pos: Any = (Xm > 0).astype(float)
    neg: Any = (Xm < 0).astype(float)
    scores = pos.T @ S + neg.T @ (W - S)
    # Connectivity of the comparison graph.
    adj = member.T @ member
    ncomp, _ = connected_components(sp.csr_matrix(adj) if dense else adj.tocsr(), directed=False)
    if ncomp > 1:
        raise RatingError(f"the results form {ncomp} unconnected groups of players; fit each separately")
    # BayesElo-style prior: virtual draws spread in proportion to games played.
    if prior > 0:
        per_member = 1.0 / np.maximum(np.asarray(member.sum(axis=1)).ravel(), 1.0)
        # ``prior`` virtual draws per player, each one win plus one loss (BayesElo).
        per_player = prior / 2.0 / np.maximum(games, 1e-300)
        v = W * np.asarray(member @ per_player).ravel() * per_member * 4.0
        Wp, Sp = W + v, S + v / 2.0
    else:
        Wp, Sp = W, S
    theta = np.zeros(n)
    ones = np.ones((n, n))

    def gram(weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Xᵀ diag(weights) X`` as a dense array."""
        if isinstance(Xm, np.ndarray):
            out: NDArray[np.float64] = (Xm.T * weights) @ Xm
            return out
        return np.asarray((Xm.T @ sp.diags(weights) @ Xm).todense())

    def loglik(t: NDArray[np.float64]) -> float:
        z = Xm @ t
        return float(np.sum(Sp * -np.logaddexp(0.0, -z) + (Wp - Sp) * -np.logaddexp(0.0, z)))

    ll = loglik(theta)
    it = 0
    hess = np.eye(n)
    for it in range(1, max_iter + 1):
        z = Xm @ theta
        p = expit(z)
        grad = Xm.T @ (Sp - Wp * p)
        hess = gram(Wp * p * (1.0 - p))
        c = max(float(np.mean(np.diag(hess))), 1e-12) / n
        try:
            step = scipy.linalg.solve(hess + c * ones, grad, assume_a="pos")
        except (np.linalg.LinAlgError, scipy.linalg.LinAlgError):
            raise RatingError("the fit diverged: some ratings cannot be told apart (partners who "
                              "always play together?) or a perfect score with prior=0") from None
        t = 1.0
        while True:
            cand = theta + t * step
            cll = loglik(cand)
            if cll >= ll - 1e-12 * abs(ll) or t < 1e-6:
                break
            t /= 2.0
        theta, ll = cand, cll
        if float(np.max(np.abs(t * step))) < 1e-10:
            break
    else:
        raise RatingError("the fit did not converge (a perfect score with prior=0?)")
    p = expit(Xm @ theta)
    hess = gram(Wp * p * (1.0 - p))
    c = max(float(np.mean(np.diag(hess))), 1e-12) / n
    inv = np.linalg.inv(hess + c * ones)
    if np.any(V > 0):  # draws (or fractional scores) vary less than wins and losses: sandwich
        inv = inv @ gram(np.clip(Wp * p * (1.0 - p) - V, 0.0, None)) @ inv
    J = np.eye(n) - 1.0 / n
    cov = J @ inv @ J * ELO_PER_NAT**2
    ratings = (theta - theta.mean()) * ELO_PER_NAT
    if anchor is not None:
        if anchor not in players:
            raise RatingError(f"anchor {anchor!r} is not in the fit")
        k = players.index(anchor)
        ratings = ratings - ratings[k]
        A = np.eye(n)
        A[:, k] -= 1.0
        cov = A @ cov @ A.T
    return BTFit(
        players=tuple(players),
        ratings=ratings + offset,
        covariance=cov,
        games=np.asarray(games, dtype=float),
        scores=np.asarray(scores, dtype=float),
        confidence=confidence,
        iterations=it,
    )
