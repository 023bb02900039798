"""Meld solver for robber rummy: which cards of a pool can lie in valid melds.

The core problem, :func:`max_cover`: given a multiset *pool* of cards (two packs,
so each card 0-2 times) and, optionally, a lower bound *keep* on how many copies
of each card must be covered, choose disjoint valid melds from the pool that
cover the most cards, then the most penalty points (weight ``2048 + value`` per
card). It serves both cases of the game:

* a player who has not melded: the pool is the hand (:func:`best_initial_meld`);
* a player who has melded: the pool is hand + table and every covered card lies
  on the new table; the cards left over form the new hand
  (:func:`best_rearrangement`; ``strict_table`` sets *keep* to the table).

Method (:func:`max_cover`): exact dynamic programming over ranks (the Rummikub
DP of van Rijn, Takes and Vis, "The complexity of Rummikub problems", 2015),
adapted to two packs, no jokers and the ace that plays low or high. Positions
run ``A(low), 2, 3, ..., K, A(high)`` (14 of them), and inside a position the
four suits are decided one after another (56 stages). The state holds, per suit,
the lengths of its at most two open runs (1, 2, or 3+; with a mark for a run
that began with a low ace, which may not also take the high ace), the number of
aces used low (the rest are available high), and, within a position, how many
suits give one or two cards to sets of that rank (which fixes whether those
cards form one or two legal sets). At each stage and for each state, the cards
of the suit at that rank continue open runs, start runs, go to sets or stay
out; runs of length 1 or 2 must continue. A state's value is the weight covered
so far, and a back pointer per stage rebuilds the melds of the best final state.

Pruning (:func:`solve`): cards that fit in no meld of the pool are removed first
(:func:`live_cards`); then the DP runs with a limit of 0, 1, 2, ... left-out
cards (branch and bound: a state that has left out more is dropped) and the
first limit with a solution gives the optimum. Pools of at most
:data:`DIRECT_POOL` live cards take one pass with the full limit instead.

Complexity: at most 56 stages x S states x O options (O <= 24 per-suit moves,
cached). S is exponential in the number of suits with open runs (up to 15 run
states per suit and 7 set counts), which is why the whole-table search is only
used for pools of at most :data:`GLOBAL_POOL` live cards; bigger tables go to
the local search :func:`improve`, whose neighbourhoods hold at most
:data:`NEIGHBOURHOOD` table cards. Measured on real positions with
``tests/benchmarks/bench_rummy.py`` (2 cores, shared machine):
:func:`best_rearrangement` takes about 30 ms median / 0.2 s worst with ~10 table
melds, 40 ms / 0.35 s with ~20 and 0.23 s / 0.7 s with ~30 (dense synthetic
tables); :func:`best_initial_meld` about 0.3 ms.

Budget: ``max_states`` (default :data:`DEFAULT_MAX_STATES`) caps the states kept
after each stage. Within the cap the answer is exact (``Cover.exact`` is true);
past it only the best states by value (ties by key, so the result stays
deterministic) survive, plus the best state with no unfinished run (which can
always complete): the answer is then a valid cover that may be below the
optimum, and ``exact`` is false. One DP pass is therefore bounded by
``56 * max_states * 24`` transitions whatever the position; :func:`solve` runs
at most ``live cards + 1`` passes and :func:`improve` at most ``max_rounds``
neighbourhood solves. ``Cover.nodes`` counts the transitions examined.

Speed: :func:`solve` is memoized on its live pool (as 52-bit masks when no card is
held three times, else as counts), since play meets the same live pools again and
again; :func:`live_cards` works on 13-bit rank masks per suit; :func:`hand_melds`
and :func:`extensions` are memoized on the cards that can lie in a meld and on the
table meld. ``presence``, ``best_initial_meld_of``, ``melds_of`` and
``extensions_of`` are the same functions on masks, for the engine's legal-action
listing. Every memo is of a pure function with immutable results.

The engine's listing needs only the melds of the best initial meld
(:func:`initial_melds_of`, :func:`listing_melds`): there the live cards are split into
parts that share no rank and no neighbouring cards of a suit, and each part is searched
alone (memoized per part, one-suit parts as the first suit), without the states that
cannot finish (a run of length 1-2 the next positions cannot grow). That gives the melds
of the whole search whenever the whole search stays within its budget, which an upper
bound on its states per stage (:func:`_states_bound`) checks first; otherwise the whole
search runs as before. ``tests/games/rummy/test_rummy_fast_paths.py`` compares the two.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from arena.games.rummy.melds import (ACE, VALUE, canonical_layout, canonical_meld, counts_of, is_meld,
                                     meld_key_of)

__all__ = [
    "DEFAULT_MAX_STATES", "Cover", "max_cover", "count_weights", "hand_melds",
    "best_initial_meld", "best_rearrangement", "extensions", "solve", "live_cards", "improve", "GLOBAL_POOL",
    "presence", "best_initial_meld_of", "melds_of", "extensions_of", "extension_table",
]

DEFAULT_MAX_STATES = 4000
"""Default cap on DP states kept per stage (the node budget)."""

COUNT_FIRST = 2048
"""Weight of one card in :func:`count_weights`: more than the value of all 104 cards."""

_VALID_M = frozenset({(0, 0), (3, 0), (4, 0), (2, 2), (0, 3), (1, 3), (0, 4)})
"""(suits giving 1 card, suits giving 2 cards) to sets at one rank that form legal sets."""

_SHIFT = (0, 7, 14, 21)
_M1 = 1 << 28
_M2 = 1 << 31
_LOWMASK = (1 << 28) - 1


@dataclass(frozen=True, slots=True)
class Cover:
    """A solution of :func:`max_cover`."""

    melds: tuple[tuple[int, ...], ...]
    """The melds, canonical, in canonical order."""
    weight: int
    """Total weight of the covered cards."""
    covered: int
    """Number of covered cards."""
    exact: bool
    """Whether the search stayed within its budget (the cover is then optimal)."""
    nodes: int
    """Transitions examined."""


def count_weights() -> list[int]:
    """Weights that maximise the number of covered cards, then their penalty value."""
    return [COUNT_FIRST + v for v in VALUE]


def _rank(p: int) -> int:
    return ACE if p in (0, 13) else p - 1


def _pclass(p: int) -> int:
    if p in (0, 2, 12, 13):
        return p
    return 1


def _grow(r: int, p: int) -> int:
    if r == 1:
        return 2
    if r == 2:
        return 4 if p == 2 else 3
    return r


@lru_cache(maxsize=None)
def _options(code: int, pc: int, c: int, lmax: int, sets_ok: bool) -> tuple[tuple[int, int, int, tuple[int, int, int, int]], ...]:
    """Per-suit moves: (new code, cards used, cards to sets, (cont a, cont b, new runs, k)).

    ``code = la * 25 + a * 5 + b`` with open runs a >= b in {0 none, 1, 2, 3 (3+), 4 (3+ from a low ace)}
    and ``la`` aces used low. ``c`` is the number of cards of the suit at this rank
    (at the high ace: all aces of the suit) and ``lmax`` how many may stay out.
    """
    la, a, b = code // 25, (code // 5) % 5, code % 5
    out: dict[int | tuple[int, int], tuple[int, int, int, tuple[int, int, int, int]]] = {}
    if pc == 0:
        res = []
        for nr in range(min(c, 2) + 1):
            res.append((nr * 25 + (1 if nr >= 1 else 0) * 5 + (1 if nr == 2 else 0), nr, 0, (0, 0, nr, 0)))
        return tuple(res)
    if pc == 13:
        c -= la
    p_for_grow = 2 if pc == 2 else 3
    runs = [r for r in (a, b) if r]
    choices: list[list[int]] = [[]]
    for r in runs:
        nxt = []
        for ch in choices:
            if r in (3, 4):
                nxt.append(ch + [0])
            if not (pc == 13 and r == 4):
                nxt.append(ch + [1])
        choices = nxt
    for ch in choices:
        cont = sum(ch)
        if cont > c:
            continue
        kept = [_grow(r, p_for_grow) for r, x in zip(runs, ch) if x]
        rem = c - cont
        for nr in range(0, (rem if pc not in (12, 13) else 0) + 1):
            if len(kept) + nr > 2:
                break
            for k in range(0, (min(2, rem - nr) if sets_ok else 0) + 1):
                left = rem - nr - k
                if left > lmax:
                    continue
                new = sorted(kept + [1] * nr, reverse=True) + [0, 0]
                ncode = la * 25 + new[0] * 5 + new[1]
                dec = (ch[0] if len(ch) > 0 else 0, ch[1] if len(ch) > 1 else 0, nr, k)
                used = cont + nr + k
                key = (ncode, k)
                if key not in out or out[key][1] < used:
                    out[key] = (ncode, used, k, dec)
    return tuple(out.values())


def _safe(key: int) -> bool:
    """No set cards pending and no run of length 1-2 open: the state can always finish."""
    if key >> 28:
        return False
    for sh in _SHIFT:
        code = (key >> sh) & 127
        if (code // 5) % 5 in (1, 2) or code % 5 in (1, 2):
            return False
    return True


_STAGE_P = tuple(i // 4 for i in range(56))
_STAGE_CARD = tuple((i % 4) * 13 + _rank(i // 4) for i in range(56))
"""Card id decided at each of the 56 stages (position ``i // 4``, suit ``i % 4``)."""
_STAGE_SHIFT = tuple(_SHIFT[i % 4] for i in range(56))
_PCLASS = tuple(_pclass(p) for p in range(14))
_RANK = tuple(_rank(p) for p in range(14))


def _closed(code: int) -> bool:
    a, b = (code // 5) % 5, code % 5
    return a not in (1, 2) and b not in (1, 2)


_CLOSED = tuple(_closed(code) for code in range(128))
"""Per suit code: whether the suit has no open run of length 1-2."""
_VALID_MBITS = tuple((m & 7, m >> 3) in _VALID_M for m in range(64))
"""``_VALID_M`` indexed by the set bits of a key (``key >> 28``)."""


def _by_value_then_key(kv: tuple[int, int]) -> tuple[int, int]:
    return (-kv[1], kv[0])


@lru_cache(maxsize=None)
def _moves(code: int, pc: int, c: int, lmax: int, sets_ok: bool, sh: int
           ) -> tuple[tuple[int, int, tuple[int, int, int, int]], ...]:
    """:func:`_options` as key deltas at shift ``sh``: (added to the key, cards used, decision)."""
    out = []
    for ncode, used, k, dec in _options(code, pc, c, lmax, sets_ok):
        delta = (ncode - code) << sh
        if k == 1:
            delta += _M1
        elif k == 2:
            delta += _M2
        out.append((delta, used, dec))
    return tuple(out)


def max_cover(pool: Sequence[int], values: Sequence[int] | None = None,
              keep: Sequence[int] | None = None, *, max_drops: int | None = None,
              max_states: int = DEFAULT_MAX_STATES, stats: list[int] | None = None) -> Cover | None:
    """Disjoint valid melds from ``pool`` (52 counts) covering the most cards, then the most value.

    :param values: per card id, the secondary objective, each 0..19 (default the
        penalty values); the weight of a card is ``2048 + value``.
    :param keep: per card id, copies that must be covered (``None``: none).
    :param max_drops: prune every partial solution that has left out more cards
        (branch and bound; ``None``: no limit).
    :param max_states: the budget (states kept per stage).
    :param stats: if given, ``[nodes, truncations]`` are added to it.
    :returns: the best cover, or ``None`` if there is none within the limits.

    The same search, state for state and in the same order, as the DP as first written
    (kept as the reference of ``tests/games/rummy/test_rummy_solver.py``), with the
    per-suit moves as precomputed key deltas (looked up once per run code and stage),
    the bookkeeping of empty stages done once, and the empty stages that cannot hold an
    open run of their suit (no card of the suit at the position before) skipped.
    """
    vals = values if values is not None else VALUE
    limit = 10**9 if max_drops is None else max_drops
    states: dict[int, int] = {0: 0}
    trail: list[dict[int, tuple[int, int, tuple[int, int, int, int]]] | None] = [None] * 56
    ends: list[dict[int, int] | None] = [None] * 14
    exact = True
    nodes = 0
    seen = 0  # cards decided so far (aces at the high ace only)
    moves = _moves
    stage_card = _STAGE_CARD
    stage_shift = _STAGE_SHIFT
    pclass = _PCLASS
    for p in range(14):
        pc = pclass[p]
        base = p * 4
        sets_ok = False
        if p:
            rank = _RANK[p]
            sets_ok = ((pool[rank] > 0) + (pool[13 + rank] > 0) + (pool[26 + rank] > 0)
                       + (pool[39 + rank] > 0)) >= 3
        for i in range(base, base + 4):
            card = stage_card[i]
            c = pool[card]
            if p:
                seen += c
            sh = stage_shift[i]
            if c == 0 and pc != 13:
                # nothing to place: open runs of 3+ close, shorter ones die. A run of this
                # suit can be open only if the suit has a card at the position before.
                if not p or not pool[stage_card[i - 4]]:
                    continue
                for key in states:
                    if ((key >> sh) & 127) % 25:
                        break
                else:
                    continue
                nxt0: dict[int, int] = {}
                back0: dict[int, tuple[int, int, tuple[int, int, int, int]]] = {}
                nodes += len(states)
                for key, val in states.items():
                    code = (key >> sh) & 127
                    a = (code // 5) % 5
                    b = code % 5
                    if a == 1 or a == 2 or b == 1 or b == 2:
                        continue
                    nk = key - ((code % 25) << sh)
                    old = nxt0.get(nk)
                    if old is None or old < val:
                        nxt0[nk] = val
                        back0[nk] = (key, 0, _NO_DECISION)
                states = nxt0
                trail[i] = back0
                continue
            lmax = (c - (keep[card] if keep is not None else 0)) if p else 2
            wt = COUNT_FIRST + vals[card]
            floor = (seen - limit) * COUNT_FIRST
            nxt: dict[int, int] = {}
            back: dict[int, tuple[int, int, tuple[int, int, int, int]]] = {}
            get = nxt.get
            by_code: dict[int, tuple[tuple[int, int, tuple[int, int, int, int]], ...]] = {}
            for key, val in states.items():
                code = (key >> sh) & 127
                opts = by_code.get(code)
                if opts is None:
                    opts = by_code[code] = moves(code, pc, c, lmax, sets_ok, sh)
                nodes += len(opts)
                for opt in opts:
                    used = opt[1]
                    nv = val + used * wt
                    if nv < floor:
                        continue
                    nk = key + opt[0]
                    old = get(nk)
                    if old is None or old < nv:
                        nxt[nk] = nv
                        back[nk] = (key, used, opt[2])
            if len(nxt) > max_states:
                exact = False
                ranked = sorted(nxt.items(), key=_by_value_then_key)
                kept = dict(ranked[:max_states])
                # keep the best state without open runs of length 1-2 too: it can always finish
                for kv in ranked:
                    if _safe(kv[0]):
                        kept.setdefault(kv[0], kv[1])
                        break
                nxt = kept
            states = nxt
            trail[i] = back
        if not sets_ok:
            continue
        # close the position: the set cards must form legal sets
        merged: dict[int, int] = {}
        endback: dict[int, int] = {}
        valid_m = _VALID_MBITS
        for key, val in states.items():
            if not valid_m[key >> 28]:
                continue
            low = key & _LOWMASK
            old = merged.get(low)
            if old is None or old < val:
                merged[low] = val
                endback[low] = key
        states = merged
        ends[p] = endback
    # final states: every open run must have length 3+
    best_key = -1
    best_val = -1
    closed = _CLOSED
    for key, val in states.items():
        if (closed[key & 127] and closed[(key >> 7) & 127] and closed[(key >> 14) & 127]
                and closed[(key >> 21) & 127]):
            if val > best_val or (val == best_val and key < best_key):
                best_key, best_val = key, val
    if stats is not None:
        stats[0] += nodes
        stats[1] += 0 if exact else 1
    if best_key < 0:
        return None
    decisions = _walk_back(trail, ends, best_key)
    melds = _rebuild(decisions)
    covered = sum(len(m) for m in melds)
    return Cover(melds=canonical_layout(melds), weight=best_val, covered=covered, exact=exact, nodes=nodes)


_NO_DECISION = (0, 0, 0, 0)


def _walk_back(trail: Sequence[Mapping[int, tuple[int, int, tuple[int, int, int, int]]] | None],
               ends: Sequence[Mapping[int, int] | None], key: int) -> list[tuple[int, int, int, int]]:
    """The decisions of every stage on the back pointers from the final state ``key``."""
    decisions: list[tuple[int, int, int, int]] = [_NO_DECISION] * 56
    for p in range(13, -1, -1):
        endmap = ends[p]
        if endmap is not None:
            key = endmap[key]
        for i in range(p * 4 + 3, p * 4 - 1, -1):
            stage_back = trail[i]
            if stage_back is None:
                continue
            prev, _used, dec = stage_back[key]
            decisions[i] = dec
            key = prev
    return decisions


def _rebuild(decisions: Sequence[tuple[int, int, int, int]]) -> list[tuple[int, ...]]:
    melds: list[tuple[int, ...]] = []
    runs: list[list[tuple[int, list[int]]]] = [[] for _ in range(4)]
    none = _NO_DECISION
    for p in range(14):
        rank = _RANK[p]
        ks: list[int] | None = None
        for s in range(4):
            dec = decisions[p * 4 + s]
            active = runs[s]
            if not active and dec == none:
                continue
            ca, cb, nr, k = dec
            card = s * 13 + rank
            if len(active) > 1:
                active = sorted(active, key=_minus_code)
            new: list[tuple[int, list[int]]] = []
            for i, (code, cards) in enumerate(active):
                if cb if i else ca:
                    new.append((_grow(code, p), cards + [card]))
                else:
                    melds.append(tuple(cards))
            for _ in range(nr):
                new.append((1, [card]))
            runs[s] = new
            if k:
                if ks is None:
                    ks = [0, 0, 0, 0]
                ks[s] = k
        if ks is not None:
            twos = [s * 13 + rank for s in range(4) if ks[s] == 2]
            ones = [s * 13 + rank for s in range(4) if ks[s] == 1]
            if not twos:
                melds.append(tuple(ones))
            else:
                half = (len(ones) + 1) // 2
                melds.append(tuple(twos + ones[:half]))
                melds.append(tuple(twos + ones[half:]))
    for s in range(4):
        for _code, cards in runs[s]:
            melds.append(tuple(cards))
    for m in melds:
        assert is_meld(m), m
    return melds


def _minus_code(run: tuple[int, list[int]]) -> int:
    return -run[0]


def hand_melds(counts: Sequence[int], limit: int = 200) -> list[tuple[int, ...]]:
    """Every distinct valid meld that can be formed from ``counts`` (canonical, sorted)."""
    return list(_hand_melds(_meld_mask(_present_mask(counts)))[:limit])


@lru_cache(maxsize=1 << 14)
def _hand_melds(present: int) -> tuple[tuple[int, ...], ...]:
    """:func:`hand_melds` of the cards in the 52-bit mask ``present`` (only presence matters)."""
    found: list[tuple[int, ...]] = []
    full = (1 << 13) - 1
    for s in range(4):
        found.extend(_suit_runs(s, present >> (13 * s) & full))
    for r in range(13):
        suits = [s for s in range(4) if present >> (s * 13 + r) & 1]
        if len(suits) >= 3:
            for drop in [None, *suits] if len(suits) == 4 else [None]:
                found.append(tuple(s * 13 + r for s in suits if s != drop))
    return tuple(sorted(set(found), key=lambda m: (-len(m), m)))


@lru_cache(maxsize=None)
def _suit_runs(s: int, mask: int) -> tuple[tuple[int, ...], ...]:
    """Every run (canonical) of suit ``s`` within the 13-bit rank mask ``mask``."""
    base = s * 13
    # positions 0 = low ace, 1..12 = 2..K, 13 = high ace
    have = [mask >> _rank(p) & 1 == 1 for p in range(14)]
    found: list[tuple[int, ...]] = []
    for start in range(12):
        if not have[start]:
            continue
        for end in range(start + 1, 14):
            if not have[end] or (start == 0 and end == 13):
                break
            if end - start < 2:
                continue
            found.append(canonical_meld(base + _rank(p) for p in range(start, end + 1)))
    return tuple(found)


def live_cards(pool: Sequence[int]) -> list[int]:
    """The pool without the copies that cannot lie in any meld, repeated to a fixpoint.

    A card is live if two other cards of its rank in other suits, or a run of three
    of its suit through it, are in the pool.
    """
    live = _live_mask(_present_mask(pool))
    return [k if live >> c & 1 else 0 for c, k in enumerate(pool)]


def _present_mask(pool: Sequence[int]) -> int:
    """The 52-bit mask of the card ids present in ``pool`` (52 counts)."""
    m = 0
    bit = 1
    for k in pool:
        if k:
            m |= bit
        bit <<= 1
    return m


def _live_mask(present: int) -> int:
    """:func:`live_cards` on presence masks: a 13-bit rank mask per suit, to a fixpoint."""
    full = (1 << 13) - 1
    a, b, c, d = present & full, present >> 13 & full, present >> 26 & full, present >> 39 & full
    in_run = _IN_RUN
    while True:
        sets = (a & b & (c | d)) | (c & d & (a | b))  # ranks held in 3 or more suits
        na, nb, nc, nd = (a & (in_run[a] | sets), b & (in_run[b] | sets),
                          c & (in_run[c] | sets), d & (in_run[d] | sets))
        if na == a and nb == b and nc == c and nd == d:
            return a | b << 13 | c << 26 | d << 39
        a, b, c, d = na, nb, nc, nd


def _build_in_run() -> tuple[int, ...]:
    """``_IN_RUN[m]``: ranks of a 13-bit rank mask lying in a run of 3 (ace low or high)."""
    out = []
    for m in range(1 << 13):
        # positions 0 = low ace, 1..12 = 2..K, 13 = high ace
        pos = (m << 1) | ((m >> ACE) & 1)
        t = pos & (pos >> 1) & (pos >> 2)
        cov = t | (t << 1) | (t << 2)
        ranks = (cov >> 1) & ((1 << 13) - 1)
        if cov & 1:
            ranks |= 1 << ACE
        out.append(ranks)
    return tuple(out)


_IN_RUN = _build_in_run()


def solve(pool: Sequence[int], keep: Sequence[int] | None = None, *, values: Sequence[int] | None = None,
          max_drops: int | None = None, max_states: int = DEFAULT_MAX_STATES) -> Cover | None:
    """:func:`max_cover` by iterative deepening on the number of left-out live cards.

    Dead cards (see :func:`live_cards`) are left out first; then the search runs
    with at most 0, 1, 2, ... further cards left out and stops at the first limit
    that has a solution, which is therefore optimal (most cards, then most value)
    when ``exact``. Small limits prune hard, so a pool that can be (nearly) all laid
    down is fast however big it is. ``max_drops`` stops the deepening early.
    """
    vals = None if values is None else tuple(values)
    if keep is None:
        masks = presence(pool)
        if masks is not None:
            mask = _live_mask(masks[0])
            return _solve_masks(mask, masks[1] & mask, vals, max_drops, max_states)
    live = live_cards(pool)
    if keep is not None and any(k > l for k, l in zip(keep, live)):
        return None
    return _solve_live(tuple(live), None if keep is None else tuple(keep), vals, max_drops, max_states)


def presence(counts: Sequence[int]) -> tuple[int, int] | None:
    """52-bit masks of the cards held at least once and twice, or ``None`` if one is held 3+ times."""
    once = twice = 0
    bit = 1
    for k in counts:
        if k:
            once |= bit
            if k > 1:
                if k > 2:
                    return None
                twice |= bit
        bit <<= 1
    return once, twice


@lru_cache(maxsize=1 << 14)
def _solve_masks(live: int, twice: int, values: tuple[int, ...] | None, max_drops: int | None,
                 max_states: int) -> Cover | None:
    """:func:`solve` of the live pool given as masks (no ``keep``); memoized."""
    pool = [(2 if twice >> c & 1 else 1) if live >> c & 1 else 0 for c in range(52)]
    return _solve_core(pool, None, values, max_drops, max_states)


@lru_cache(maxsize=1 << 14)
def _solve_live(live: tuple[int, ...], keep: tuple[int, ...] | None, values: tuple[int, ...] | None,
                max_drops: int | None, max_states: int) -> Cover | None:
    """:func:`solve` after the dead cards are gone; memoized (a pure function of its arguments,
    and :class:`Cover` is immutable), since random and search play meet the same live pools
    again and again."""
    return _solve_core(live, keep, values, max_drops, max_states)


def _solve_core(live: Sequence[int], keep: Sequence[int] | None, values: Sequence[int] | None,
                max_drops: int | None, max_states: int) -> Cover | None:
    total = sum(live)
    cap = total if max_drops is None else min(total, max_drops)
    stats = [0, 0]
    if total <= DIRECT_POOL:
        # small pools: one search with the full limit is cheaper than deepening
        cover = max_cover(live, values, keep, max_drops=cap, max_states=max_states, stats=stats)
        if cover is None:
            return None
        return Cover(cover.melds, cover.weight, cover.covered, stats[1] == 0, stats[0])
    for d in range(cap + 1):
        cover = max_cover(live, values, keep, max_drops=d, max_states=max_states, stats=stats)
        if cover is not None:
            return Cover(cover.melds, cover.weight, cover.covered, stats[1] == 0, stats[0])
    return None


# -- the engine's fast path: the best initial meld without the states that cannot finish --

def _dead(ncode: int, p: int, n1: int, n2: int) -> bool:
    """Whether a suit whose runs are ``ncode`` after its card at position ``p`` can no longer
    close its short runs: each run of length 1-2 needs a card of its own at ``p + 1``
    (``n1`` copies there), each run of length 1 one at ``p + 2`` too (``n2``); at the high
    ace only the aces not used low are left."""
    la, a, b = ncode // 25, (ncode // 5) % 5, ncode % 5
    short = (a == 1 or a == 2) + (b == 1 or b == 2)
    if not short:
        return False
    if p + 1 == 13:
        n1 -= la
    if p + 2 == 13:
        n2 -= la
    return short > n1 or (a == 1) + (b == 1) > n2


@lru_cache(maxsize=None)
def _moves_live(code: int, p: int, c: int, sets_ok: bool, sh: int, n1: int, n2: int
                ) -> tuple[tuple[int, int, tuple[int, int, int, int]], ...]:
    """:func:`_moves` (no ``keep``) without the moves into a state that cannot finish
    (:func:`_dead`), in the same order."""
    pc = _PCLASS[p]
    lmax = c if p else 2
    out = []
    for (ncode, _used, _k, _dec), move in zip(_options(code, pc, c, lmax, sets_ok),
                                               _moves(code, pc, c, lmax, sets_ok, sh)):
        if not _dead(ncode, p, n1, n2):
            out.append(move)
    return tuple(out)


def _states_bound(pool: Sequence[int]) -> int:
    """An upper bound on the states :func:`max_cover` (no ``keep``, no limit) holds after
    any stage of ``pool``: the product over the suits of the run codes each suit can reach
    alone (:func:`_suit_reach`, exact for the suit), times the set counts."""
    rank = _RANK
    sets = 0
    for p in range(1, 14):
        r = rank[p]
        if (pool[r] > 0) + (pool[13 + r] > 0) + (pool[26 + r] > 0) + (pool[39 + r] > 0) >= 3:
            sets |= 1 << p
    per = [_suit_reach(tuple(pool[s * 13:s * 13 + 13]), sets) for s in range(4)]
    best = 1
    for p in range(14):
        b = 1
        for g in per:
            b *= g[p] if not p or g[p] >= g[p - 1] else g[p - 1]
        if sets >> p & 1:
            r = rank[p]
            b *= min(15, (1 + min(pool[r], 2)) * (1 + min(pool[13 + r], 2)) * (1 + min(pool[26 + r], 2))
                     * (1 + min(pool[39 + r], 2)))
        if b > best:
            best = b
    return best


@lru_cache(maxsize=1 << 14)
def _suit_reach(counts: tuple[int, ...], sets: int) -> tuple[int, ...]:
    """Per position, how many run codes (:func:`_options`) one suit with ``counts`` (13
    ranks) can hold after its card there, alone (``sets``: the positions whose cards may
    go to sets). Every state of the search holds one of them for each suit."""
    codes = {0}
    out = []
    for p in range(14):
        c = counts[_RANK[p]]
        pc = _PCLASS[p]
        if c == 0 and pc != 13:
            codes = {code - code % 25 for code in codes if _CLOSED[code]}
        else:
            codes = {o[0] for code in codes
                     for o in _options(code, pc, c, c if p else 2, bool(sets >> p & 1))}
        out.append(len(codes))
    return tuple(out)


def _live_cover_melds(pool: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The melds of ``max_cover(pool, max_drops=sum(pool))`` when it stays exact, found
    by the same search without the states that cannot finish.

    Those states (a run of length 1-2 that the next positions cannot grow to three,
    :func:`_dead`) and their successors never reach a final state, and every state that
    can finish has only predecessors that can: dropping them leaves the values, the back
    pointers and the order of every other state as they were, so the walk back finds the
    same decisions. (Not with a truncated search, whose kept states would change: the
    caller checks :func:`_states_bound` first.)
    """
    states: dict[int, int] = {0: 0}
    trail: list[dict[int, tuple[int, int, tuple[int, int, int, int]]] | None] = [None] * 56
    ends: list[dict[int, int] | None] = [None] * 14
    stage_card = _STAGE_CARD
    stage_shift = _STAGE_SHIFT
    vals = VALUE
    for p in range(14):
        pc = _PCLASS[p]
        base = p * 4
        sets_ok = False
        if p:
            rank = _RANK[p]
            sets_ok = ((pool[rank] > 0) + (pool[13 + rank] > 0) + (pool[26 + rank] > 0)
                       + (pool[39 + rank] > 0)) >= 3
        for i in range(base, base + 4):
            card = stage_card[i]
            c = pool[card]
            sh = stage_shift[i]
            if c == 0 and pc != 13:
                if not p or not pool[stage_card[i - 4]]:
                    continue
                for key in states:
                    if ((key >> sh) & 127) % 25:
                        break
                else:
                    continue
                nxt0: dict[int, int] = {}
                back0: dict[int, tuple[int, int, tuple[int, int, int, int]]] = {}
                for key, val in states.items():
                    code = (key >> sh) & 127
                    a = (code // 5) % 5
                    b = code % 5
                    if a == 1 or a == 2 or b == 1 or b == 2:
                        continue
                    nk = key - ((code % 25) << sh)
                    old = nxt0.get(nk)
                    if old is None or old < val:
                        nxt0[nk] = val
                        back0[nk] = (key, 0, _NO_DECISION)
                states = nxt0
                trail[i] = back0
                continue
            wt = COUNT_FIRST + vals[card]
            n1 = pool[stage_card[i + 4]] if p < 13 else 0
            n2 = pool[stage_card[i + 8]] if p < 12 else 0
            nxt: dict[int, int] = {}
            back: dict[int, tuple[int, int, tuple[int, int, int, int]]] = {}
            get = nxt.get
            by_code: dict[int, tuple[tuple[int, int, tuple[int, int, int, int]], ...]] = {}
            for key, val in states.items():
                code = (key >> sh) & 127
                opts = by_code.get(code)
                if opts is None:
                    opts = by_code[code] = _moves_live(code, p, c, sets_ok, sh, n1, n2)
                for opt in opts:
                    used = opt[1]
                    nv = val + used * wt
                    nk = key + opt[0]
                    old = get(nk)
                    if old is None or old < nv:
                        nxt[nk] = nv
                        back[nk] = (key, used, opt[2])
            states = nxt
            trail[i] = back
        if not sets_ok:
            continue
        merged: dict[int, int] = {}
        endback: dict[int, int] = {}
        valid_m = _VALID_MBITS
        for key, val in states.items():
            if not valid_m[key >> 28]:
                continue
            low = key & _LOWMASK
            old = merged.get(low)
            if old is None or old < val:
                merged[low] = val
                endback[low] = key
        states = merged
        ends[p] = endback
    best_key = -1
    best_val = -1
    closed = _CLOSED
    for key, val in states.items():
        if (closed[key & 127] and closed[(key >> 7) & 127] and closed[(key >> 14) & 127]
                and closed[(key >> 21) & 127]):
            if val > best_val or (val == best_val and key < best_key):
                best_key, best_val = key, val
    if best_key < 0:
        return ()
    return canonical_layout(_rebuild(_walk_back(trail, ends, best_key)))


_BEST_OF: dict[tuple[int, int, int], Cover | None] = {}
"""Memo of :func:`best_initial_meld_of` on the hand's masks (before the live cards are found)."""


def best_initial_meld_of(once: int, twice: int, max_states: int = DEFAULT_MAX_STATES) -> Cover | None:
    """:func:`best_initial_meld` of the hand given by its :func:`presence` masks (default values)."""
    key = (once, twice, max_states)
    try:
        return _BEST_OF[key]
    except KeyError:
        pass
    live = _live_mask(once)
    cover = _solve_masks(live, twice & live, None, None, max_states)
    if cover is None or cover.covered == 0:
        cover = None
    if len(_BEST_OF) >= 1 << 16:
        _BEST_OF.clear()
    _BEST_OF[key] = cover
    return cover


def melds_of(once: int, limit: int = 200) -> tuple[tuple[int, ...], ...]:
    """:func:`hand_melds` of the cards in the 52-bit mask ``once``."""
    return _hand_melds(_meld_mask(once))[:limit]


def _meld_mask(present: int) -> int:
    """The cards of ``present`` that lie in at least one meld of ``present``."""
    full = (1 << 13) - 1
    a, b, c, d = present & full, present >> 13 & full, present >> 26 & full, present >> 39 & full
    in_run = _IN_RUN
    sets = (a & b & (c | d)) | (c & d & (a | b))
    return (a & (in_run[a] | sets) | (b & (in_run[b] | sets)) << 13
            | (c & (in_run[c] | sets)) << 26 | (d & (in_run[d] | sets)) << 39)


def best_initial_meld(hand: Sequence[int], *, values: Sequence[int] | None = None,
                      max_states: int = DEFAULT_MAX_STATES) -> Cover | None:
    """The best set of melds from the hand alone (``None`` if it has none)."""
    cover = solve(hand, values=values, max_states=max_states)
    if cover is None or cover.covered == 0:
        return None
    return cover


def _near_cards(hand: Sequence[int], dist: int = 2) -> tuple[set[int], set[int]]:
    """Cards of the same suit within ``dist`` ranks of a hand card (ace both ends), and hand ranks."""
    near: set[int] = set()
    ranks: set[int] = set()
    for c in range(52):
        if not hand[c]:
            continue
        s, r = divmod(c, 13)
        ranks.add(r)
        for p in ((0, 13) if r == ACE else (r + 1,)):
            for q in range(max(0, p - dist), min(13, p + dist) + 1):
                near.add(s * 13 + _rank(q))
    return near, ranks


DIRECT_POOL = 24
"""Pools up to this many live cards are searched in one pass (no deepening)."""

NEIGHBOURHOOD = 40
"""Table cards in a neighbourhood of :func:`improve` before it falls back to the smallest one."""

GLOBAL_POOL = 36
"""Pools up to this many live cards are solved whole (exactly, within the budget)."""


def best_rearrangement(hand: Sequence[int], table: Iterable[Sequence[int]], *, strict: bool = False,
                       values: Sequence[int] | None = None, global_pool: int = GLOBAL_POOL,
                       max_states: int = DEFAULT_MAX_STATES) -> Cover | None:
    """The best new table from hand + table for a player who has melded.

    If hand + table hold at most ``global_pool`` live cards, :func:`solve` searches
    the whole pool: the answer is optimal (most cards laid, then most points) when
    ``exact``. Bigger pools go to :func:`improve`, a local search that starts from
    the table as it is and repeatedly re-solves, exactly, the neighbourhood of one
    hand card (taking table cards into the hand where that lays more, unless
    ``strict``); it is never worse than the table plus the best melds of the hand
    alone, but may miss a chain through distant melds (``exact`` is then false).
    On 109 sampled real positions with 6-26 table melds it laid 1046 hand cards
    where the whole-table search (budget 20000 states) laid 1082.

    :returns: the cover (the whole new table), or ``None`` when no layout lowers
        the hand by at least one card.
    """
    table = [tuple(m) for m in table]
    tcounts = counts_of(c for m in table for c in m)
    tsize = sum(tcounts)
    pool = [h + t for h, t in zip(hand, tcounts)]
    if sum(live_cards(pool)) <= global_pool:
        cover = solve(pool, tcounts if strict else None, values=values, max_states=max_states)
        if cover is not None and cover.covered > tsize:
            return cover
        if cover is not None and cover.exact:
            return None
    return improve(hand, table, values=values, max_states=max_states, take=not strict)


def improve(hand: Sequence[int], table: Sequence[Sequence[int]], *, values: Sequence[int] | None = None,
            max_states: int = DEFAULT_MAX_STATES, max_rounds: int = 64, radius: int = 2,
            depth: int = 1, take: bool = False) -> Cover | None:
    """Local search for :func:`best_rearrangement` (see there).

    With ``take`` (not for ``strict_table``) a neighbourhood's table cards may go
    into the hand; otherwise they all stay on the table.

    First the best melds of the hand alone are laid. Then, hand cards taken by
    falling value, the neighbourhood of card ``h`` is the table melds holding a card
    of ``h``'s rank or of its suit within ``radius`` ranks, grown ``depth`` times by
    the melds of ``h``'s suit next to it; those melds and the hand cards near them
    are re-solved exactly (:func:`solve`) and the result
    replaces them if it lays at least one more hand card. This repeats until no
    neighbourhood improves. Failed neighbourhoods are remembered, so each is solved
    once per table.

    If that neighbourhood holds more than :data:`NEIGHBOURHOOD` table cards, the
    smallest one (radius 1, no growth) is used instead.

    Work: at most ``max_rounds`` neighbourhood solves, each bounded by
    ``max_states`` (typically 10-40 cards).
    """
    vals = list(values) if values is not None else list(VALUE)
    cur_table = [tuple(m) for m in table]
    cur_hand = list(hand)
    start_size = sum(cur_hand)
    nodes = 0
    rounds = 0
    # first the hand's own melds, laid beside the table
    own = solve(cur_hand, values=vals, max_states=max_states)
    if own is not None:
        nodes += own.nodes
        for m in own.melds:
            cur_table.append(m)
            for c in m:
                cur_hand[c] -= 1
    failed: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    progress = True
    while progress and sum(cur_hand) > 0 and rounds < max_rounds:
        progress = False
        order = sorted((c for c in range(52) if cur_hand[c]), key=lambda c: (-vals[c], c))
        for h in order:
            if rounds >= max_rounds:
                break
            rounds += 1
            rank = h % 13
            for rad, dep in ((radius, depth), (1, 0)):
                near, _ranks = _near_cards(counts_of([h]), rad)
                nb = [i for i, m in enumerate(cur_table) if any(c in near or c % 13 == rank for c in m)]
                for _ in range(dep):
                    grown, _r = _near_cards(counts_of(c for i in nb for c in cur_table[i]), 1)
                    nb = [i for i, m in enumerate(cur_table)
                          if i in nb or any(c in grown and c // 13 == h // 13 for c in m)]
                if sum(len(cur_table[i]) for i in nb) <= NEIGHBOURHOOD:
                    break
            if not nb:
                continue
            tc = counts_of(c for i in nb for c in cur_table[i])
            zone, zranks = _near_cards(tc)
            zone |= near
            sub_hand = [cur_hand[c] if (c in zone or c % 13 == rank) else 0 for c in range(52)]
            sub_pool = [a + b for a, b in zip(tc, sub_hand)]
            n_sub = sum(sub_hand)
            memo_key = (tuple(sub_pool), tuple(tc))
            if memo_key in failed:
                continue
            cover = solve(sub_pool, None if take else tc, values=vals, max_drops=n_sub - 1,
                          max_states=max_states)
            if cover is None or cover.covered <= sum(tc):
                failed.add(memo_key)
                continue
            nodes += cover.nodes
            placed = cover.covered - sum(tc)
            if placed <= 0:
                continue
            used = counts_of(c for m in cover.melds for c in m)
            for c in range(52):
                cur_hand[c] -= used[c] - tc[c]
            keep = [m for i, m in enumerate(cur_table) if i not in set(nb)]
            cur_table = keep + list(cover.melds)
            progress = True
            break
    laid = start_size - sum(cur_hand)
    if laid <= 0:
        return None
    weight = sum((COUNT_FIRST + vals[c]) for m in cur_table for c in m)
    return Cover(canonical_layout(cur_table), weight, sum(len(m) for m in cur_table), False, nodes)


def extensions_of(once: int, table: Sequence[tuple[int, ...]]) -> list[tuple[int, tuple[int, ...]]]:
    """:func:`extensions` of the hand given by its mask of held cards."""
    out = []
    for i, meld in enumerate(table):
        mask, exts = extension_table(meld)
        if mask & once:
            for c, new in exts:
                if once >> c & 1:
                    out.append((i, new))
    return out


@lru_cache(maxsize=1 << 14)
def extension_table(meld: tuple[int, ...]) -> tuple[int, tuple[tuple[int, tuple[int, ...]], ...]]:
    """:func:`_extensions_of` with the mask of the cards that extend ``meld``."""
    exts = _extensions_of(meld)
    mask = 0
    for c, _new in exts:
        mask |= 1 << c
    return mask, exts


def extensions(hand: Sequence[int], table: Sequence[Sequence[int]]) -> list[tuple[int, tuple[int, ...]]]:
    """Single hand cards that extend a table meld: (meld index, new meld)."""
    out = []
    for i, meld in enumerate(table):
        for c, new in _extensions_of(tuple(meld)):
            if hand[c]:
                out.append((i, new))
    return out


@lru_cache(maxsize=1 << 14)
def _extensions_of(meld: tuple[int, ...]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every card that extends ``meld`` to a valid meld, ascending, with the new canonical meld."""
    if len(meld) >= 13 or not meld:
        return ()
    first = meld[0]
    if len(meld) >= 2 and first % 13 == meld[1] % 13:  # a set: only its rank can join
        candidates = [s * 13 + first % 13 for s in range(4)]
    else:  # a run (or not a meld): only its suit can join
        candidates = [first // 13 * 13 + r for r in range(13)]
    out = []
    for c in candidates:
        new = (*meld, c)
        if is_meld(new):
            out.append((c, canonical_meld(new)))
    return tuple(out)


def initial_melds_of(once: int, twice: int, max_states: int = DEFAULT_MAX_STATES
                     ) -> tuple[tuple[int, ...], ...] | None:
    """The melds of :func:`best_initial_meld_of` (``None`` when it is ``None``): the engine's
    legal-action listing, which needs only them (not the cover's counts of work)."""
    live = _meld_mask(once)
    return _live_melds(live, twice & live, max_states)


def listing_melds(once: int, twice: int, limit: int, max_states: int = DEFAULT_MAX_STATES
                  ) -> tuple[tuple[tuple[int, ...], ...] | None, tuple[tuple[int, ...], ...]]:
    """``(initial_melds_of(once, twice, max_states), melds_of(once, limit))``, the live
    cards found once: the cards that lie in a meld of the hand (:func:`_meld_mask`) are
    its live cards, since every card of such a meld is live by the same meld (one pass
    of :func:`_live_mask` reaches its fixpoint)."""
    live = _meld_mask(once)
    return _live_melds(live, twice & live, max_states), _hand_melds(live)[:limit]


@lru_cache(maxsize=1 << 14)
def _live_melds(live: int, twice: int, max_states: int) -> tuple[tuple[int, ...], ...] | None:
    """:func:`initial_melds_of` of the live cards; memoized.

    The live cards split into parts that share no rank and no neighbouring cards of a
    suit (:func:`_parts`); each part is searched on its own (:func:`_part_melds`,
    memoized, so a part met in another hand is not searched again) and the melds are
    joined. That is the whole search's answer whenever it stays exact: its states are the
    pairs of the parts' states, and a pair's value the sum of theirs, so each part's best
    state and back pointers are the same alone (ties too: the order in which the search
    meets the states of one part is the same whatever the other's state; and the final
    tie-break, the smallest key, is the sum of the parts' keys). Exactness is checked with
    :func:`_states_bound` (the product of the parts' bounds, or failing that the whole
    pool's); past it, the whole search as before.
    """
    if live.bit_count() + twice.bit_count() <= DIRECT_POOL:
        bound = 1
        found: list[tuple[int, ...]] = []
        for part in _parts(live):
            suit = _one_suit(part)
            if suit > 0:
                # a part in one suit is searched as the same cards in the first suit (the
                # search alone meets the same states, shifted, in the same order)
                sh = 13 * suit
                pmelds = _part_melds(part >> sh, (twice & part) >> sh)
                if pmelds is None:
                    bound = -1
                    break
                bound *= pmelds[0]
                found.extend([tuple([c + sh for c in m]) for m in pmelds[1]])
                continue
            pmelds = _part_melds(part, twice & part)
            if pmelds is None:
                bound = -1  # a part too big to search alone: the whole search
                break
            bound *= pmelds[0]
            found.extend(pmelds[1])
        if bound > max_states:
            pool = [(2 if twice >> c & 1 else 1) if live >> c & 1 else 0 for c in range(52)]
            bound = _states_bound(pool)
        if 0 <= bound <= max_states:
            if not found:
                return None
            found.sort(key=meld_key_of)
            return tuple(found)
    cover = _solve_masks(live, twice, None, None, max_states)
    return None if cover is None or cover.covered == 0 else cover.melds


_SUITS4 = 1 | 1 << 13 | 1 << 26 | 1 << 39
_ALL52 = (1 << 52) - 1
_NOT_LOW = _ALL52 & ~_SUITS4  # no rank-2 card (bit 0 of each suit)
_NOT_HIGH = _ALL52 & ~(_SUITS4 << ACE)  # no ace (bit 12 of each suit)


def _one_suit(mask: int) -> int:
    """The suit of every card of ``mask`` if they share one, else -1."""
    for s in range(4):
        if not mask & ~(0x1FFF << 13 * s):
            return s
    return -1


def _parts(live: int) -> list[int]:
    """The cards of the 52-bit mask ``live`` in parts that share no rank and no two cards of
    a suit next to each other (the ace next to the two and the king), lowest card first."""
    parts = []
    rest = live
    while rest:
        part = rest & -rest
        while True:
            ranks = (part | part >> 13 | part >> 26 | part >> 39) & 0x1FFF
            grown = (ranks * _SUITS4 | (part & _NOT_HIGH) << 1 | (part & _NOT_LOW) >> 1
                     | (part & _SUITS4) << ACE | (part >> ACE) & _SUITS4) & rest
            grown |= part
            if grown == part:
                break
            part = grown
        parts.append(part)
        rest &= ~part
    return parts


@lru_cache(maxsize=1 << 14)
def _part_melds(live: int, twice: int) -> tuple[int, tuple[tuple[int, ...], ...]] | None:
    """For one part of :func:`_parts`: its :func:`_states_bound` and the melds of its search
    without the states that cannot finish (:func:`_live_cover_melds`); ``None`` if the
    bound exceeds :data:`_PART_BOUND_CAP` (the part is not searched alone)."""
    pool = [(2 if twice >> c & 1 else 1) if live >> c & 1 else 0 for c in range(52)]
    bound = _states_bound(pool)
    if bound > _PART_BOUND_CAP:
        return None
    return bound, _live_cover_melds(pool)


_PART_BOUND_CAP = DEFAULT_MAX_STATES
"""Parts with a bigger :func:`_states_bound` are not searched alone (the budgets the
engine uses are far below it)."""
