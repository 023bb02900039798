"""Swiss pairing: two-sided pairings by maximum-weight matching, n-player tables
by grouping. Pure functions of scores, meetings and byes (no records, no config).

Two sides: :func:`pair_two_sided`
--------------------------------
The entrants are the vertices of a complete graph (plus a phantom vertex *bye*
when the field is odd); networkx's :func:`~networkx.max_weight_matching` with
``maxcardinality=True`` (Edmonds' blossom algorithm, exact) picks the pairing.
Edge weights encode, lexicographically:

1. **rematches** (fewest first): an edge between entrants who met ``m`` times
   costs ``m * R``, with ``R`` larger than the largest possible sum of every
   other term over a whole pairing, so one rematch fewer always wins;
2. **score distance** (smallest first): ``(n + 1) * (s_a - s_b)**2`` in integer
   hundredths of a point; the bye edge of ``e`` costs ``(n + 1) * (s_e - s_min)**2``
   (``s_min`` the lowest score of the field), so the bye goes to the bottom;
3. a tie-break below one unit of (2): the bye edge also costs the entrant's
   position from the bottom of the ranking (``0 .. n-1``), so among equal scores
   the lowest ranked takes the bye.

Each weight is ``K - cost`` with ``K`` above every cost (all weights positive and
integral; passed as floats below ``2**50``, where the blossom's half-integer dual
variables stay exact, which spares networkx's integer-only optimality check). The matching thus minimises
rematches, then the sum of squared score differences (the bye included), then
the bye's rank: a pairing's *objective* (:func:`objective`) is
``(rematches, distance)``. **Byes**: only the entrants with the fewest byes so far
(normally: none) have an edge to the phantom, so nobody gets a second bye while
someone has had none. Sides and seats need no balancing: every encounter is a
duplicate set that plays each deal in both seatings.

Fields up to :data:`EXACT_LIMIT` entrants are solved in one matching (optimal for
the objective). Larger fields are paired by a receding window in ranking order
(networkx's blossom is pure Python and cubic: 200 entrants take seconds): the bye
is given first (lowest-ranked entrant with fewest byes), then the top
:data:`WINDOW` unpaired entrants are matched exactly and the pairs holding one of
the window's better half are kept; the rest slide into the next window. When the
last window still needs a rematch, it is widened backwards (the latest kept pairs
re-opened) up to the whole field, so a rematch stays only when the widened
matching cannot avoid it. Every window is an exact matching; only the split into
windows is a heuristic (it can cost score distance, never a bye rule).

n-player tables: :func:`group_tables`
------------------------------------
Tables of ``size`` entrants: the lowest-ranked entrants with the fewest byes sit
out (``n mod size`` byes per round), the others are cut in ranking order into
tables, then improved by swapping two entrants of two tables (any two while there are
at most 30 tables, else tables at most two apart) while a swap lowers
``R * repeats + spread`` (``repeats``: pairs at one table who met
before, counted per earlier meeting; ``spread``: squared score differences within
tables, as above). Grouping is NP-hard in general (3-dimensional matching); the
local search is exact for what it checks (every improving swap is taken, until
none is left). Up to :data:`EXACT_TABLES` seated entrants every split is tried
(12 entrants in tables of 3: 15,400 splits), so small fields are optimal.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["Pairing", "Tables", "pair_two_sided", "group_tables", "objective", "table_objective",
           "EXACT_LIMIT", "WINDOW", "BYE"]

EXACT_LIMIT = 40
"""Largest field paired by one matching over the whole field."""
EXACT_TABLES = 12
"""Largest seated field grouped by an exhaustive search over every split into tables."""
WINDOW = 24
"""Entrants per window beyond :data:`EXACT_LIMIT` (even)."""
BYE = "\x00bye"
"""The phantom vertex of an odd field."""

Meetings = Mapping[frozenset[str], int]


@dataclass(frozen=True)
class Pairing:
    """One round of two-sided pairings."""

    pairs: list[tuple[str, str]]
    """Each pair higher-ranked entrant first, in ranking order of that entrant."""
    bye: str | None


@dataclass(frozen=True)
class Tables:
    """One round of n-player tables."""

    tables: list[list[str]]
    byes: list[str]


def _points(x: float) -> int:
    return int(round(x * 100))


def objective(pairing: Pairing, scores: Mapping[str, float], met: Meetings) -> tuple[int, int]:
    """``(rematches, distance)`` of a pairing (see the module docstring): earlier
    meetings of the paired entrants, and the sum of squared score differences in
    hundredths (the bye against the field's lowest score)."""
    low = min((_points(s) for s in scores.values()), default=0)
    rem = sum(met.get(frozenset(p), 0) for p in pairing.pairs)
    dist = sum((_points(scores[a]) - _points(scores[b])) ** 2 for a, b in pairing.pairs)
    if pairing.bye is not None:
        dist += (_points(scores[pairing.bye]) - low) ** 2
    return rem, dist


def _match(ranking: Sequence[str], scores: Mapping[str, float], met: Meetings,
           bye_ok: set[str] | None, low: int) -> list[tuple[str, str]]:
    """Exact matching of ``ranking`` (plus the phantom if ``bye_ok`` is given)."""
    n = len(ranking) + (1 if bye_ok is not None else 0)
    pts = {e: _points(scores[e]) for e in ranking}
    hi = max([*pts.values(), low])
    max_d = (hi - low) ** 2
    dist_unit = n + 1
    big_r = dist_unit * max_d * (n // 2 + 1) + n + 1
    max_met = max((met.get(frozenset((a, b)), 0) for a, b in combinations(ranking, 2)), default=0)
    k = big_r * (max_met + 1) + 1
    # integer-valued floats below 2**50 are exact through the blossom's half-integer
    # duals, and spare networkx's integer-only optimality check (a third of its time)
    num: type[int] | type[float] = float if k < 2**50 else int
    edges: list[tuple[str, str, int | float]] = []
    for i, a in enumerate(ranking):
        pa = pts[a]
        for b in ranking[i + 1:]:
            m = met.get(frozenset((a, b)), 0)
            edges.append((a, b, num(k - big_r * m - dist_unit * (pa - pts[b]) ** 2)))
    if bye_ok is not None:
        for pos, e in enumerate(ranking):
            if e in bye_ok:
                edges.append((e, BYE, num(k - dist_unit * (pts[e] - low) ** 2 - (len(ranking) - 1 - pos))))
    import networkx as nx  # here, not at import: loading it costs 0.3-0.7 s of CPU, and
    # every format module is imported wherever a conductor runs, round robins included

    g: nx.Graph[str] = nx.Graph()
    g.add_nodes_from(ranking)
    g.add_weighted_edges_from(edges)
    matching = nx.max_weight_matching(g, maxcardinality=True, weight="weight")
    rank = {e: i for i, e in enumerate(ranking)}
    rank[BYE] = len(ranking)
    pairs = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in matching]
    pairs.sort(key=lambda p: rank[p[0]])
    return pairs


def pair_two_sided(ranking: Sequence[str], scores: Mapping[str, float], met: Meetings,
                   byes: Mapping[str, int], *, exact_limit: int = EXACT_LIMIT,
                   window: int = WINDOW) -> Pairing:
    """Pair a field (see the module docstring).

    :param ranking: every entrant, best first (score, tie-breaks, then the seeded order).
    :param scores: each entrant's score so far.
    :param met: earlier meetings per pair of entrants.
    :param byes: earlier byes per entrant.
    """
    players = list(ranking)
    if len(players) < 2:
        return Pairing([], players[0] if players else None)
    low = min(_points(scores[e]) for e in players)
    fewest = min(byes.get(e, 0) for e in players)
    eligible = {e for e in players if byes.get(e, 0) == fewest}
    odd = len(players) % 2 == 1
    if len(players) <= exact_limit:
        pairs = _match(players, scores, met, eligible if odd else None, low)
        bye = next((a if b == BYE else b for a, b in pairs if BYE in (a, b)), None)
        return Pairing([p for p in pairs if BYE not in p], bye)
    bye = None
    if odd:
        bye = next(e for e in reversed(players) if e in eligible)
        players.remove(bye)
    half = max(2, window // 2)
    kept: list[tuple[str, str]] = []
    rest = players
    while len(rest) > window:
        win = rest[:window]
        top = set(win[:half])
        take = [p for p in _match(win, scores, met, None, low) if p[0] in top or p[1] in top]
        kept += take
        used = {e for p in take for e in p}
        rest = [e for e in rest if e not in used]
    if rest:
        kept = _widened(kept, rest, players, scores, met, low, window)
    order = {e: i for i, e in enumerate(ranking)}
    kept.sort(key=lambda p: order[p[0]])
    return Pairing(kept, bye)


def _rematches(pairs: Sequence[tuple[str, str]], met: Meetings) -> int:
    return sum(met.get(frozenset(p), 0) for p in pairs)


def _widened(kept: list[tuple[str, str]], rest: list[str], players: list[str], scores: Mapping[str, float],
             met: Meetings, low: int, window: int) -> list[tuple[str, str]]:
    """``kept`` plus the last window's pairs; if those need a rematch, the last
    kept pairs are re-opened (``window/2``, doubling, up to ``4 * window``
    entrants in all) and the widest matching with fewer rematches is taken."""
    final = _match(rest, scores, met, None, low)
    best = (_rematches(final, met), len(kept), final)
    order = {e: i for i, e in enumerate(players)}
    m = max(1, window // 2)
    while best[0] and m <= len(kept) and len(rest) + 2 * m <= 4 * window:
        members = sorted(rest + [e for p in kept[len(kept) - m:] for e in p], key=order.__getitem__)
        wider = _match(members, scores, met, None, low)
        if _rematches(wider, met) < best[0]:
            best = (_rematches(wider, met), len(kept) - m, wider)
        if m == len(kept):
            break
        m = min(len(kept), 2 * m)
    return kept[:best[1]] + best[2]


# -- n-player tables -----------------------------------------------------------------------------

def table_objective(tables: Tables, scores: Mapping[str, float], met: Meetings) -> tuple[int, int]:
    """``(repeats, spread)`` of a grouping (see the module docstring)."""
    rep = spread = 0
    for t in tables.tables:
        for a, b in combinations(t, 2):
            rep += met.get(frozenset((a, b)), 0)
            spread += (_points(scores[a]) - _points(scores[b])) ** 2
    return rep, spread


def _groupings(ids: Sequence[str], size: int) -> Iterator[list[list[str]]]:
    """Every split of ``ids`` into tables of ``size`` (in a stable order)."""
    if not ids:
        yield []
        return
    first, rest = ids[0], list(ids[1:])
    for others in combinations(rest, size - 1):
        chosen = set(others)
        for g in _groupings([e for e in rest if e not in chosen], size):
            yield [[first, *others], *g]


def group_tables(ranking: Sequence[str], scores: Mapping[str, float], met: Meetings,
                 byes: Mapping[str, int], size: int, *, max_passes: int = 50) -> Tables:
    """Tables of ``size`` (see the module docstring).

    :raises ValueError: for fewer entrants than one table.
    """
    players = list(ranking)
    if size < 2 or len(players) < size:
        raise ValueError(f"{len(players)} entrants cannot fill a table of {size}")
    n_byes = len(players) % size
    out_byes: list[str] = []
    for _ in range(n_byes):
        fewest = min(byes.get(e, 0) for e in players)
        pick = next(e for e in reversed(players) if byes.get(e, 0) == fewest)
        players.remove(pick)
        out_byes.append(pick)
    pts = {e: _points(scores[e]) for e in players}
    tables = [players[i:i + size] for i in range(0, len(players), size)]
    spread_max = (max(pts.values()) - min(pts.values())) ** 2 * size * size * len(tables) + 1

    def cost(t: list[str]) -> int:
        c = 0
        for a, b in combinations(t, 2):
            c += spread_max * met.get(frozenset((a, b)), 0) + (pts[a] - pts[b]) ** 2
        return c

    if len(players) <= EXACT_TABLES:
        tables = min(_groupings(players, size), key=lambda g: sum(cost(t) for t in g))
    reach = len(tables) if len(tables) <= 30 else 3
    costs = [cost(t) for t in tables]
    for _ in range(max_passes):
        improved = False
        for i in range(len(tables)):
            for j in range(i + 1, min(len(tables), i + reach)):
                best = 0
                move: tuple[int, int, int, int] | None = None
                for x in range(size):
                    for y in range(size):
                        ti, tj = list(tables[i]), list(tables[j])
                        ti[x], tj[y] = tj[y], ti[x]
                        ci, cj = cost(ti), cost(tj)
                        gain = costs[i] + costs[j] - ci - cj
                        if gain > best:
                            best, move = gain, (x, y, ci, cj)
                if move is not None:
                    x, y, ci, cj = move
                    tables[i][x], tables[j][y] = tables[j][y], tables[i][x]
                    costs[i], costs[j] = ci, cj
                    improved = True
        if not improved:
            break
    order = {e: k for k, e in enumerate(ranking)}
    for t in tables:
        t.sort(key=order.__getitem__)
    tables.sort(key=lambda t: order[t[0]])
    return Tables(tables, out_byes)
