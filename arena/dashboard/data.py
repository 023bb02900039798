"""What the dashboard pages show, read from a :class:`~arena.store.Store`.

Everything is recomputed from stored specs and records (standings, ratings), as
the rest of the arena does; ratings are cached until a tournament's recorded
count changes.
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.records.record import MatchRecord
from arena.store import Store, TournamentInfo

__all__ = ["TournamentSummary", "RulesetRatings", "tournament_summary", "tournament_config",
           "tournament_standings", "matches_of", "RatingsCache", "bot_page", "display_status",
           "winners", "strict", "leagues", "board_number", "record_points"]


@dataclass
class TournamentSummary:
    id: str
    name: str
    game: str
    status: str
    stored_status: str
    done: int
    total: int
    counts: dict[str, int]
    created: str
    format: str = ""
    """The tournament file's format (``round_robin``, ``duplicate``, ``swiss``, ``ladder`` ...)."""

    @property
    def percent(self) -> float:
        return 100.0 * self.done / self.total if self.total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "game": self.game, "status": self.status,
                "stored_status": self.stored_status, "done": self.done, "total": self.total,
                "counts": self.counts, "percent": round(self.percent, 1), "created": self.created,
                "format": self.format}


def display_status(done: int, total: int, counts: dict[str, int]) -> str:
    """``done``, ``running``, ``failed`` (some failed, none running), ``pending`` or ``empty``."""
    if total == 0:
        return "empty"
    if done >= total:
        return "done"
    if counts.get("leased", 0):
        return "running"
    if counts.get("failed", 0) and not counts.get("pending", 0):
        return "failed"
    return "running" if done else "pending"


def tournament_summary(store: Store, info: TournamentInfo) -> TournamentSummary:
    done, total = store.progress(info.id)
    counts = store.status_counts(info.id)
    return TournamentSummary(info.id, info.name, info.game, display_status(done, total, counts),
                             info.status, done, total, counts,
                             info.created.strftime("%Y-%m-%d %H:%M"),
                             str((info.config or {}).get("tournament", {}).get("format", "")))


def tournament_config(info: TournamentInfo) -> Any:
    """The tournament's :class:`~arena.tournaments.config.TournamentConfig` (its stored
    TOML document), or ``None`` if it does not parse."""
    from arena.tournaments import service

    try:
        return service.info_config(info)
    except (service.ConfigError, ValueError, TypeError, KeyError):
        return None


def tournament_standings(store: Store, info: TournamentInfo) -> tuple[Any, str | None]:
    """``(Standings or None, error text or None)``."""
    from arena.tournaments import service

    config = tournament_config(info)
    if config is None:
        return None, "the stored configuration does not parse; no standings"
    try:
        return service.config_standings(config, store.records(info.id)), None
    except Exception as exc:  # noqa: BLE001 - show the page anyway
        return None, f"standings failed: {exc}"


def matches_of(store: Store, tournament_id: str, game: Any = None) -> list[dict[str, Any]]:
    """One row per spec: index, match id, deal, rotation, table (all as stored: from 0;
    pages show them from 1), board (bridge: the board number its travellers show, else
    ``None``), entrants, seat labels (:func:`arena.dashboard.labels.seat_labels`),
    status, attempts, returns and points (when recorded).

    ``points`` are :meth:`Game.match_points` for a game whose returns are not its score
    (``game.own_points()``: canasta's returns are +-1 for the result, its points what the
    sides scored), else ``None``; ``game`` is the tournament's game object (its seat
    labels and whether it has own points; without it, neither)."""
    specs = {s.match_id: s for s in store.specs(tournament_id)}
    returns: dict[str, list[float]] = defaultdict(list)
    for r in store.results(tournament_id):
        returns[r.match_id].append(r.returns)
    points = _points_of(store, tournament_id) if game is not None and game.own_points() else {}
    rows = []
    for st in store.spec_states(tournament_id):
        spec = specs.get(st.match_id)
        entrants = list(spec.entrants) if spec else []
        rows.append({
            "index": st.index, "match_id": st.match_id, "status": st.status,
            "attempts": st.attempts, "error": st.error,
            "deal": spec.deal if spec else None, "rotation": spec.rotation if spec else None,
            "table": spec.table if spec else None,
            "board": board_number(spec) if spec else None,
            "entrants": entrants,
            "seat_labels": _labels(game, entrants) if game is not None and entrants else [],
            "returns": returns.get(st.match_id),
            "points": points.get(st.match_id),
        })
    return rows


def board_number(spec: Any) -> int | None:
    """A bridge spec's board number (``tags["board"]`` or ``init["board"]``: what the
    engine deals and the travellers show), else ``None``."""
    if getattr(spec, "game", None) != "bridge":
        return None
    for where in (getattr(spec, "tags", None), getattr(spec, "init", None)):
        if where and where.get("board") is not None:
            return int(where["board"])
    return None


def _labels(game: Any, entrants: list[str]) -> list[str]:
    from arena.dashboard.labels import seat_labels

    try:
        return seat_labels(game, entrants)
    except Exception:  # noqa: BLE001 - names are decoration
        return []


def record_points(record: MatchRecord) -> list[float] | None:
    """The record's own points (``record.points``, :meth:`Game.match_points`), replayed
    for a record written before records carried them; ``None`` if they cannot be had."""
    from arena.tournaments.service import record_points as points

    if record.points:
        return [float(x) for x in record.points]
    return points(record) if record.actions else None


def _points_of(store: Store, tournament_id: str) -> dict[str, list[float]]:
    """Match id -> points of every finished record of the tournament (see
    :func:`record_points`; records without stored points are read whole and replayed)."""
    out: dict[str, list[float]] = {}
    for rec in store.records(tournament_id, actions=False):
        if not rec.terminal:
            continue
        pts = record_points(rec)
        if pts is None:
            full = store.record(rec.match_id)
            pts = record_points(full) if full is not None else None
        if pts is not None:
            out[rec.match_id] = pts
    return out


def winners(returns: list[float]) -> set[int]:
    """Seats with the highest return."""
    if not returns:
        return set()
    top = max(returns)
    return {i for i, r in enumerate(returns) if r == top}


# -- ratings ------------------------------------------------------------------------------------

@dataclass
class RulesetRatings:
    """Ratings of one ruleset: online Elo (with its history) and the batch fit's intervals."""

    ruleset: str
    game: str
    rows: list[dict[str, Any]]
    history: dict[str, list[Any]]
    fit_error: str | None = None
    matches: int = 0


@dataclass
class _Cached:
    key: tuple[Any, ...] = ()
    value: dict[str, RulesetRatings] = field(default_factory=dict)


class RatingsCache:
    """Per-ruleset ratings of every stored record, refit when the records change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cached = _Cached()

    def get(self, store: Store) -> dict[str, RulesetRatings]:
        infos = store.tournaments()
        key = tuple((t.id, store.progress(t.id)[0]) for t in infos)
        with self._lock:
            if self._cached.key == key and self._cached.value:
                return self._cached.value
        value = compute_ratings(r for t in infos for r in store.records(t.id))
        with self._lock:
            self._cached = _Cached(key, value)
        return value


def compute_ratings(records: Iterable[MatchRecord]) -> dict[str, RulesetRatings]:
    """Elo (online, in record order) per ruleset, with the Bradley-Terry fit's 95%
    intervals as error bars (:func:`arena.ratings.records.rate_records`)."""
    from arena.ratings import ratings_table
    from arena.ratings.records import rate_records

    out: dict[str, RulesetRatings] = {}
    for ruleset, rated in rate_records(records, system="elo", by_bot=True).items():  # one player per bot
        fit = rated.fit
        rows = ratings_table(rated.rater, ruleset, fit=fit)
        if fit is not None:
            for row in rows:
                if row["bot"] in fit.players:
                    row["bt"] = round(fit.rating(row["bot"]), 1)
                    e = fit.error(row["bot"])
                    row["bt_error"] = None if math.isnan(e) else round(e, 1)
        out[ruleset] = RulesetRatings(ruleset, rated.game, rows, rated.rater.history(ruleset),
                                      "; ".join(rated.notes) or None, rated.records)
    return out


# -- bots -----------------------------------------------------------------------------------------

def bot_page(store: Store, name: str, *, limit: int = 200) -> dict[str, Any]:
    """A bot's (entrant's) results per ruleset, its recent matches and its faults; a
    match's ``points`` are the record's own points (canasta's score, where its returns
    are the result: :func:`record_points`) of the bot's seats, else ``None``."""
    results = store.results(bot=name)
    if not results:
        results = [r for r in store.results() if r.entrant == name]
    per_match: dict[str, list[Any]] = defaultdict(list)
    for r in results:
        per_match[r.match_id].append(r)
    summary: dict[str, dict[str, Any]] = {}
    matches: list[dict[str, Any]] = []
    faults: list[dict[str, Any]] = []
    names = _SeatNames()
    for match_id in sorted(per_match, reverse=True):
        seats = per_match[match_id]
        rec = store.record(match_id)
        first = seats[0]
        s = summary.setdefault(first.ruleset, {"ruleset": first.ruleset, "matches": 0, "wins": 0.0,
                                               "returns": 0.0, "faults": 0})
        s["matches"] += 1
        mine = [x.seat for x in seats]
        my_ret = sum(x.returns for x in seats) / len(seats)
        s["returns"] += my_ret
        won = False
        if rec is not None:
            top = winners(list(rec.returns))
            won = bool(top & set(mine))
            if won:
                s["wins"] += 1.0 / max(1, len({rec.seats[i] for i in top}))
            labels = names.get(rec)
            for f in rec.faults:
                if f.seat in mine:
                    s["faults"] += 1
                    faults.append({"match_id": match_id, "seat": f.seat, "step": f.step,
                                   "seat_label": labels[f.seat] if 0 <= f.seat < len(labels) else str(f.seat),
                                   "kind": f.kind, "reason": f.reason, "answer": f.answer})
        else:
            labels = []
        if len(matches) < limit:
            pts = [float(rec.points[x]) for x in mine if x < len(rec.points)] if rec is not None else []
            matches.append({"match_id": match_id, "tournament_id": first.tournament_id,
                            "ruleset": first.ruleset, "seats": mine, "returns": my_ret, "won": won,
                            # the game's own points (canasta) where the returns are not them
                            "points": sum(pts) / len(pts) if pts else None,
                            "seat_labels": [labels[x] if 0 <= x < len(labels) else str(x) for x in mine],
                            "opponents": sorted({b for b in (rec.seats if rec else []) if b != name})})
    for s in summary.values():
        s["mean_return"] = s["returns"] / s["matches"] if s["matches"] else 0.0
        s["win_rate"] = s["wins"] / s["matches"] if s["matches"] else 0.0
    return {"name": name, "summary": sorted(summary.values(), key=lambda s: s["ruleset"]),
            "matches": matches, "faults": faults, "known": bool(results)}


class _SeatNames:
    """Seat labels (:func:`arena.dashboard.labels.seat_labels`) of records, with one
    game object per game, preset and options."""

    def __init__(self) -> None:
        self._games: dict[str, Any] = {}

    def get(self, record: MatchRecord) -> list[str]:
        import json

        from arena.dashboard.labels import seat_labels
        from arena.games import get_game

        key = json.dumps([record.game, record.preset, record.options], sort_keys=True, default=str)
        try:
            game = self._games.get(key)
            if game is None:
                game = self._games[key] = get_game(record.game, **({"preset": record.preset} if record.preset
                                                                     else {}), **record.options)
            return seat_labels(game, list(record.seats))
        except Exception:  # noqa: BLE001 - names are decoration
            return [f"seat {s + 1}" for s in range(len(record.seats))]


def all_bots(store: Store) -> list[dict[str, Any]]:
    """Every bot name seen in results, with its number of seats played."""
    count: dict[str, set[str]] = defaultdict(set)
    rulesets: dict[str, set[str]] = defaultdict(set)
    for r in store.results():
        count[r.bot].add(r.match_id)
        rulesets[r.bot].add(r.ruleset)
    return [{"name": b, "matches": len(count[b]), "rulesets": sorted(rulesets[b])} for b in sorted(count)]


def strict(value: Any) -> Any:
    """``value`` with every non-finite float replaced by ``None`` (strict JSON).

    >>> strict({"a": [1.0, float("nan")], "b": float("inf"), "c": (2, None)})
    {'a': [1.0, None], 'b': None, 'c': [2, None]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return [strict(v) for v in sorted(value, key=str)]
    return value


def leagues(store: Store) -> list[dict[str, Any]]:
    """Every league in the store (newest first): ``id, name, game, season, state,
    divisions`` (their names), ``created``."""
    from sqlalchemy import select

    from arena.store.models import LeagueRow

    t = LeagueRow.__table__
    with store.engine.connect() as conn:
        rows = conn.execute(select(t.c.id, t.c.name, t.c.game, t.c.season, t.c.state, t.c.divisions,
                                   t.c.created).order_by(t.c.created.desc(), t.c.id)).mappings().all()
    return [{"id": r["id"], "name": r["name"], "game": r["game"], "season": int(r["season"]),
             "state": r["state"], "created": r["created"].strftime("%Y-%m-%d %H:%M"),
             "divisions": [d["name"] for d in (r["divisions"] or {}).get("divisions", [])]} for r in rows]


def league_of(store: Store, tournament_id: str) -> dict[str, Any] | None:
    """``{"league", "season", "division"}`` when ``tournament_id`` is a league
    division's season (``<league>.s<season>.<division>``, as
    :func:`arena.tournaments.league.division_tournament_id` names them) of a stored
    league, else ``None``."""
    import re

    from sqlalchemy import select

    from arena.store.models import LeagueRow

    m = re.match(r"^([A-Za-z0-9][A-Za-z0-9_\-]*)\.s(\d+)\.([A-Za-z0-9][A-Za-z0-9_\-]*)$", tournament_id)
    if m is None:
        return None
    with store.engine.connect() as conn:
        found = conn.execute(select(LeagueRow.__table__.c.id).where(LeagueRow.id == m.group(1))).first()
    if found is None:
        return None
    return {"league": m.group(1), "season": int(m.group(2)), "division": m.group(3)}
