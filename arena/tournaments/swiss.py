"""Swiss events (``format = "swiss"``): round by round, paired by score from the records.

::

    [tournament]
    format = "swiss"
    deals = 4                 # deals per round (bridge: boards 1..4 of every round)
    [swiss]
    rounds = 5                # default: ceil(log2(entrants))
    tiebreaks = ["buchholz", "median_buchholz", "sonneborn_berger", "head_to_head"]
    bye_score = 1.0           # a bye's result, as a share of a win
    seed = 1                  # default: the tournament seed
    scoring = "vp"            # two sides: vp (bridge default) | wdl (default) | matchpoints
    round_every = 86400       # optional schedule: round r not before start_at + r * 86400 s
    start_at = "2026-01-05T18:00:00Z"

Encounters
----------
*Two sides* (every game with two units: bridge teams and pairs of clones,
partnership canasta and calypso, 2-player presets): each round pairs the field
(:func:`arena.tournaments.pairing.pair_two_sided`: networkx maximum-weight
matching; the weights put fewest rematches first, then the smallest score
distance, and give a bye to the lowest-ranked entrant that has had none). Each
pair plays the round's deals in both seatings (duplicate: the same cards, seats
rotated), so sides need no balancing. Per deal the margin is half the difference
of the two entrants' scores over both seatings, converted by
``Game.margin_points`` (bridge: IMPs; canasta's scores are its points, the
records' ``points``, not its rank-based returns); the encounter's result for A is

* ``vp``: A's WBF victory points over the deals compared, divided by 20
  (:func:`arena.ratings.vp.wbf_vp`);
* ``wdl``: 1, 1/2 or 0 as the summed margin points are positive, zero or negative
  (a short IMP match, or a win/draw/loss);
* ``matchpoints``: per deal 1, 1/2 or 0 on the margin's sign, averaged.

B gets ``1 - `` A's result. A deal counts only when both seatings are recorded.

*n-player tables* (rummy, auction, 3-player canasta, Hungarian canasta: more than
two units): each round groups the field by score into tables of the game's size
(:func:`arena.tournaments.pairing.group_tables`: fewest repeated meetings, then the
smallest score spread; ``n mod size`` byes). Each table plays the round's deals in
every cyclic seating (every entrant holds every seat of every deal). Entrants are
compared pairwise on their totals over the deals whose seatings are all recorded:
1, 1/2 or 0 against each tablemate, and the round's result is the mean of those.

A round's result is in ``[0, 1]``; a bye scores ``bye_score``. An encounter with
no deal recorded (its matches failed for good) scores 0 for everyone at it, but
its entrants count as having met.

Standings and tie-breaks
------------------------
Points (the sum of round results), then the tie-breaks in the order of
``tiebreaks`` (default: the order below), then entrant id. Per round an entrant
has one opponent (two sides) or several tablemates; per round its *opponent
score* is the mean final points of those opponents, and its *result* against
each is as above. A bye adds nothing to any tie-break.

``buchholz``
    the sum over rounds of the opponent score;
``median_buchholz``
    the same without the highest and the lowest round (with 3 rounds or more);
``sonneborn_berger``
    the sum over rounds of the mean of (result against an opponent x that
    opponent's points);
``head_to_head``
    the sum of the results against the other entrants on the same points.

``details["rounds"]`` lists every round's pairings (or tables), results and byes;
``details["after_round"]`` the ranking after each round (entrant, points).

Schedule
--------
With ``round_every`` (seconds) round ``r`` is paired no earlier than ``start_at +
r * round_every`` (``start_at``: Unix seconds or an ISO 8601 time with a zone):
before that :meth:`SwissFormat.next_round` returns ``[]`` and the conductor asks
again at its next pass, so whoever conducts the event (an ``arena worker``, ``arena
conductor``, an embedded run) plays each round when it is due. Round 0 is stored
with the event. Without it, a round is paired as soon as the one before is played.
The schedule decides only when, never what: the pairing is the same.

Reproducibility
---------------
The round after ``r`` is computed from the stored specs (who met whom, who had a
bye: ``tags["sides"]`` and ``tags["byes"]`` of every spec) and the stored records
(the results), with the config: the same store and seed give the same pairing.
Equal entrants are ordered by a permutation of the entrants drawn from
``swiss.seed`` (the initial ranking; round 0 pairs over it).

Spec placement: round ``r``'s deal ``d`` is the tournament's deal ``r * deals + d``
(seed ``deal_seed(seed, r * deals + d)``: new cards every round, the same cards at
every table of a round); bridge plays it as board ``d + 1``. ``table`` numbers the
round's encounters in ranking order; ``tags`` carry ``format``, ``swiss_round``,
``sides`` (the entrants of the encounter, in ranking order) and ``byes``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.core.dealing import SeedStream
from arena.records.spec import MatchSpec, make_match_id
from arena.tournaments.config import Entrant, SettingsContext, SwissSettings, TournamentConfig, swiss_settings
from arena.tournaments.formats import compared, deal_seed, seatings
from arena.tournaments.pairing import group_tables, pair_two_sided
from arena.tournaments.rounds import Format, TournamentView, register_format

__all__ = ["SwissFormat", "Encounter", "SwissHistory", "swiss_history", "swiss_table", "swiss_ranking"]


@dataclass
class Encounter:
    """One pairing (or table) of one round and its result."""

    round: int
    table: int
    sides: tuple[str, ...]
    results: dict[str, float] = field(default_factory=dict)
    """Round result per entrant (empty: nothing recorded)."""
    versus: dict[tuple[str, str], float] = field(default_factory=dict)
    """``(a, b) -> a's result against b``."""
    deals: int = 0
    """Deals compared."""
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class SwissHistory:
    """Every encounter and bye of the rounds seen."""

    encounters: list[Encounter]
    byes: dict[int, list[str]]
    rounds: int
    """Rounds seen (highest round + 1)."""


def _order(entrants: Sequence[str], seed: int) -> dict[str, int]:
    ids = list(entrants)
    SeedStream(f"swiss-order|{seed}").shuffle(ids)
    return {e: i for i, e in enumerate(ids)}


def swiss_history(config: TournamentConfig, placements: Iterable[Mapping[str, Any]],
                  records: Iterable[Any] = ()) -> SwissHistory:
    """Encounters from spec or record tags (``swiss_round``, ``table``, ``sides``,
    ``byes``), with their results from ``records`` (see the module docstring)."""
    assert config.swiss is not None
    game = config.make_game()
    units = [list(u) for u in game.teams()]
    enc: dict[tuple[int, int], Encounter] = {}
    byes: dict[int, list[str]] = {}
    rounds = 0

    def place(tags: Mapping[str, Any]) -> Encounter | None:
        nonlocal rounds
        r = tags.get("swiss_round")
        if r is None or tags.get("format") != "swiss":
            return None
        key = (int(r), int(tags["table"]))
        e = enc.get(key)
        if e is None:
            rounds = max(rounds, key[0] + 1)
            byes.setdefault(key[0], list(tags.get("byes", [])))
            e = enc[key] = Encounter(key[0], key[1], tuple(tags["sides"]))
        return e

    for tags in placements:
        place(tags)
    played: dict[tuple[int, int], dict[tuple[int, int], Any]] = {}
    seen: set[str] = set()
    for rec in records:
        tags = getattr(rec, "tags", None) or {}
        if tags.get("tournament_id") != config.id or rec.match_id in seen or not getattr(rec, "terminal", True):
            continue
        seen.add(rec.match_id)
        e = place(tags)
        if e is None:
            continue
        played.setdefault((e.round, e.table), {})[(int(tags["deal"]), int(tags["rotation"]))] = (
            tags["entrants"], compared(rec))
    need: dict[int, int] = {}
    for key, e in enc.items():
        k = len(e.sides)
        if k not in need:
            need[k] = len(seatings(len(units), k))
        _score(config, game, units, e, played.get(key, {}), need[k])
    return SwissHistory(sorted(enc.values(), key=lambda x: (x.round, x.table)), byes, rounds)


def _wdl(x: float) -> float:
    return 1.0 if x > 0 else 0.5 if x == 0 else 0.0


def _score(config: TournamentConfig, game: Any, units: list[list[int]], e: Encounter,
           played: Mapping[tuple[int, int], Any], need: int) -> None:
    assert config.swiss is not None
    per_deal: dict[int, dict[str, float]] = {}
    count: dict[int, int] = {}
    for (deal, _rot), (entrants, returns) in played.items():
        tot = per_deal.get(deal)
        if tot is None:
            tot = per_deal[deal] = dict.fromkeys(e.sides, 0.0)
        for u in units:
            who = entrants[u[0]]
            if who in tot:
                tot[who] += (returns[u[0]] if len(u) == 1 else sum(float(returns[s]) for s in u) / len(u))
        count[deal] = count.get(deal, 0) + 1
    full = sorted(d for d in per_deal if count[d] >= need)
    e.deals = len(full)
    if not full:
        return
    if len(e.sides) == 2:
        a, b = e.sides
        pts = [float(game.margin_points((per_deal[d][a] - per_deal[d][b]) / 2)) for d in full]
        scoring = config.swiss.scoring
        if scoring == "vp":
            from arena.ratings.vp import wbf_vp

            imps_a, imps_b = sum(max(p, 0.0) for p in pts), sum(max(-p, 0.0) for p in pts)
            vp_a, vp_b = wbf_vp(imps_a, imps_b, len(pts))
            ra = vp_a / 20.0
            e.detail.update(imps=[imps_a, imps_b], vp=[vp_a, vp_b])
        elif scoring == "matchpoints":
            ra = sum(_wdl(p) for p in pts) / len(pts)
        else:
            ra = _wdl(sum(pts))
        e.detail["points"] = [sum(pts), -sum(pts)]
        e.results = {a: ra, b: 1.0 - ra}
        e.versus = {(a, b): ra, (b, a): 1.0 - ra}
        return
    totals = {x: sum(per_deal[d][x] for d in full) for x in e.sides}
    e.detail["totals"] = totals
    for x in e.sides:
        for y in e.sides:
            if x != y:
                e.versus[(x, y)] = _wdl(totals[x] - totals[y])
    k = len(e.sides) - 1
    e.results = {x: sum(e.versus[(x, y)] for y in e.sides if y != x) / k for x in e.sides}


@dataclass
class _Table:
    points: dict[str, float]
    breaks: dict[str, dict[str, float]]
    played: dict[str, int]
    wins: dict[str, float]
    byes: dict[str, int]


def swiss_table(ids: Sequence[str], settings: SwissSettings, history: SwissHistory,
                upto: int | None = None) -> _Table:
    """Points and tie-breaks of every entrant after rounds ``< upto`` (default: all)."""
    upto = history.rounds if upto is None else upto
    points = dict.fromkeys(ids, 0.0)
    played = dict.fromkeys(ids, 0)
    wins = dict.fromkeys(ids, 0.0)
    nbyes = dict.fromkeys(ids, 0)
    encs = [e for e in history.encounters if e.round < upto]
    for e in encs:
        for x in e.sides:
            if x in points:
                points[x] += e.results.get(x, 0.0)
                played[x] += 1
                wins[x] += 1.0 if e.results.get(x, 0.0) > 0.5 else 0.0
    for r, bs in history.byes.items():
        if r < upto:
            for x in bs:
                if x in points:
                    points[x] += settings.bye_score
                    nbyes[x] += 1
    contrib: dict[str, list[float]] = {x: [] for x in ids}
    sb = dict.fromkeys(ids, 0.0)
    h2h = dict.fromkeys(ids, 0.0)
    for e in encs:
        for x in e.sides:
            if x not in points:
                continue
            opps = [y for y in e.sides if y != x]
            contrib[x].append(sum(points.get(y, 0.0) for y in opps) / len(opps))
            if e.versus:
                sb[x] += sum(e.versus[(x, y)] * points.get(y, 0.0) for y in opps) / len(opps)
                h2h[x] += sum(e.versus[(x, y)] for y in opps if points.get(y) == points[x])
    breaks: dict[str, dict[str, float]] = {}
    for x in ids:
        c = sorted(contrib[x])
        breaks[x] = {"buchholz": sum(c), "median_buchholz": sum(c[1:-1]) if len(c) >= 3 else sum(c),
                     "sonneborn_berger": sb[x], "head_to_head": h2h[x]}
    return _Table(points, breaks, played, wins, nbyes)


def _ranking(ids: Sequence[str], settings: SwissSettings, table: _Table, last: Mapping[str, Any]) -> list[str]:
    def key(x: str) -> tuple[Any, ...]:
        return (-round(table.points[x], 9), *(-round(table.breaks[x][t], 9) for t in settings.tiebreaks), last[x])
    return sorted(ids, key=key)


def swiss_ranking(ids: Sequence[str], settings: SwissSettings, table: _Table,
                  last: Mapping[str, Any]) -> list[str]:
    """``ids`` ranked as the event ranks them after the rounds of ``table``
    (:func:`swiss_table`): points, then the tie-breaks in the configured order, then
    ``last[id]``."""
    return _ranking(ids, settings, table, last)


@register_format("swiss")
class SwissFormat(Format):
    """Swiss events (see the module docstring)."""

    section = "swiss"

    @classmethod
    def parse_settings(cls, table: dict[str, Any] | None, context: SettingsContext) -> SwissSettings:
        return swiss_settings(table, context)

    clock: Callable[[], float] = staticmethod(time.time)
    """The time source of a schedule (``round_every``; tests replace it)."""

    def __init__(self, config: TournamentConfig) -> None:
        super().__init__(config)
        if config.swiss is None:
            raise ValueError("a Swiss config needs its [swiss] settings")
        self.settings: SwissSettings = config.swiss
        self.game = config.make_game()
        self.units = [list(u) for u in self.game.teams()]
        self.size = len(self.units)
        self.order = _order(config.entrant_ids, self.settings.seed)

    # -- rounds ------------------------------------------------------------------------------
    def first_round(self, entrants: Sequence[Entrant]) -> list[MatchSpec]:
        if [e.id for e in entrants] != self.config.entrant_ids:
            raise ValueError("a Swiss plays the config's entrants")
        return self._round(0, SwissHistory([], {}, 0), 0)

    def next_round(self, tournament: TournamentView, records: Iterable[Any]) -> list[MatchSpec] | None:
        nxt = tournament.round + 1
        if nxt >= self.settings.rounds:
            return None
        every = self.settings.round_every
        if every is not None and self.clock() < self.settings.start_at + nxt * every:
            return []  # not due yet: the conductor asks again at its next pass
        placements, keys = [], set()
        for s in tournament.specs:  # one spec per encounter says who met and who had a bye
            if (s.round, s.table) not in keys:
                keys.add((s.round, s.table))
                placements.append(dict(s.tags, table=s.table))
        history = swiss_history(self.config, placements, records)
        return self._round(nxt, history, len(tournament.specs))

    def pair(self, history: SwissHistory) -> tuple[list[list[str]], list[str]]:
        """The next round's encounters (each in ranking order) and byes."""
        ids = self.config.entrant_ids
        table = swiss_table(ids, self.settings, history)
        ranking = _ranking(ids, self.settings, table, self.order)
        met: dict[frozenset[str], int] = {}
        for e in history.encounters:
            for i, a in enumerate(e.sides):
                for b in e.sides[i + 1:]:
                    k = frozenset((a, b))
                    met[k] = met.get(k, 0) + 1
        if self.size == 2:
            p = pair_two_sided(ranking, table.points, met, table.byes)
            return [list(x) for x in p.pairs], [p.bye] if p.bye else []
        t = group_tables(ranking, table.points, met, table.byes, self.size)
        return t.tables, t.byes

    def _round(self, rnd: int, history: SwissHistory, start: int) -> list[MatchSpec]:
        cfg = self.config
        encounters, byes = self.pair(history)
        refs = {e.id: e.bot for e in cfg.entrants}
        n = self.game.num_players
        board = self.game.name == "bridge"
        specs: list[MatchSpec] = []
        for d in range(cfg.deals):
            gdeal = rnd * cfg.deals + d
            seed = deal_seed(cfg.seed, gdeal)
            for t, sides in enumerate(encounters):
                for r, seating in enumerate(seatings(self.size, len(sides))):
                    seats = [""] * n
                    for u, unit in enumerate(self.units):
                        for s in unit:
                            seats[s] = sides[seating[u]]
                    tags: dict[str, Any] = {"format": "swiss", "swiss_round": rnd, "sides": list(sides),
                                            "byes": list(byes)}
                    if board:
                        tags["board"] = d + 1
                    index = start + len(specs)
                    specs.append(MatchSpec(
                        match_id=make_match_id(cfg.id, index), tournament_id=cfg.id, index=index,
                        game=cfg.game, preset=cfg.preset, options=dict(cfg.options), seed=seed,
                        entrants=tuple(seats), bots=tuple(refs[x] for x in seats),
                        init={"board": d + 1} if board else {}, deal=gdeal, rotation=r, table=t,
                        deadline_ms=cfg.deadline_ms, tags=tags, round=rnd, max_retries=cfg.max_retries))
        return specs

    def matches_per_round(self) -> int:
        k = len(self.config.entrants)
        per = (k // 2) * 2 if self.size == 2 else (k // self.size) * len(seatings(self.size, self.size))
        return per * self.config.deals

    # -- standings ---------------------------------------------------------------------------
    def standings(self, records: Iterable[Any]) -> Any:
        from arena.tournaments.standings import Standings, _ranked

        cfg, st = self.config, self.settings
        recs = list(records)
        history = swiss_history(cfg, [], recs)
        ids = cfg.entrant_ids
        by_id = {x: x for x in ids}
        after = []
        for r in range(history.rounds):
            tab = swiss_table(ids, st, history, r + 1)
            after.append([{"entrant": x, "points": tab.points[x]}
                          for x in _ranking(ids, st, tab, by_id)])
        tab = swiss_table(ids, st, history)
        vp = self.size == 2 and st.scoring == "vp"
        scale = 20.0 if vp else 1.0
        rows: list[dict[str, Any]] = []
        for x in _ranking(ids, st, tab, by_id):
            row: dict[str, Any] = {"entrant": x, "bot": cfg.entrant(x).bot, "rounds": tab.played[x],
                                   "byes": tab.byes[x], "wins": tab.wins[x], "points": tab.points[x] * scale}
            for t in st.tiebreaks:
                row[t] = tab.breaks[x][t] * scale
            rows.append(row)
        _ranked(rows)
        names = {"buchholz": "Buchholz", "median_buchholz": "median B.", "sonneborn_berger": "S-B",
                 "head_to_head": "h2h"}
        cols = [("rank", "#"), ("entrant", "entrant"), ("bot", "bot"), ("rounds", "rounds"), ("byes", "byes"),
                ("wins", "wins"), ("points", "VP" if vp else "points"),
                *[(t, names[t]) for t in st.tiebreaks]]
        rounds_detail = []
        for r in range(history.rounds):
            rounds_detail.append({
                "round": r, "byes": history.byes.get(r, []),
                "encounters": [{"table": e.table, "sides": list(e.sides), "deals": e.deals,
                                "results": {k: v * scale for k, v in e.results.items()}, **e.detail}
                               for e in history.encounters if e.round == r]})
        kind = "two sides" if self.size == 2 else f"tables of {self.size}"
        title = f"{cfg.name}: Swiss, {history.rounds}/{st.rounds} rounds, {kind} ({self.game.ruleset})"
        tb = ", ".join(st.tiebreaks)
        out = Standings(cfg.id, "swiss", title, cols, rows,
                        f"points, then {tb}, then entrant id" if tb else "points, then entrant id",
                        details={"rounds": rounds_detail, "after_round": after, "scoring": st.scoring,
                                 "bye_score": st.bye_score * scale})
        seen = {r.match_id for r in recs if (getattr(r, "tags", None) or {}).get("tournament_id") == cfg.id}
        out.expected = self.matches_per_round() * st.rounds
        out.recorded = len(seen)
        out.ignored = sum(1 for r in recs if (getattr(r, "tags", None) or {}).get("tournament_id") != cfg.id)
        return out
