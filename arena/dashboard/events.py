"""What the pages of round-based events show: a Swiss event round by round, a
ladder's live leaderboard and recent encounters, a league's tables.

Read-only views over the store and the tournament modules
(:mod:`arena.tournaments.swiss`, :mod:`arena.tournaments.ladder`,
:mod:`arena.tournaments.league`): the pairings, scores, tie-breaks, ratings and
zones are theirs, computed from the stored specs and records as they compute them;
these functions only arrange them for a page (and for its JSON, where every
number is finite or ``None``).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

__all__ = ["swiss_view", "ladder_view", "league_view", "TIEBREAK_NAMES", "RECENT"]

TIEBREAK_NAMES = {"buchholz": "Buchholz", "median_buchholz": "median Buchholz",
                  "sonneborn_berger": "Sonneborn-Berger", "head_to_head": "head to head"}
"""Display names of the Swiss tie-breaks."""
RECENT = 20
"""Encounters listed as a ladder's recent games."""


def _finite(v: Any) -> Any:
    return v if not isinstance(v, float) or math.isfinite(v) else None


# -- Swiss ------------------------------------------------------------------------------------------

def swiss_view(store: Any, tournament_id: str, config: Any) -> dict[str, Any]:
    """A Swiss event round by round: for every round its pairings (or tables) with
    their results, its byes, and the standings after it with every tie-break.

    ``{"rounds": [{"round" (1-based), "encounters": [{"table", "sides", "results",
    "deals", "status", "detail"}], "byes", "standings": [{"rank", "entrant", "points",
    "played", "byes", <tie-break>...}]}], "tiebreaks": [[key, name]], "unit",
    "scale", "rounds_total"}``. Pairings come from the stored specs (a round being
    played shows its pairings before its results), results from the records
    (:func:`arena.tournaments.swiss.swiss_history`), the standings after round ``r``
    from :func:`~arena.tournaments.swiss.swiss_table` over rounds ``1..r``, ranked as
    the event ranks (points, then the tie-breaks in the configured order, then id).
    """
    from arena.tournaments.service import swiss_history, swiss_ranking, swiss_table

    st = config.swiss
    specs = store.specs(tournament_id)
    states = {s.match_id: s.status for s in store.spec_states(tournament_id)}
    placements, keys = [], set()
    status: dict[tuple[int, int], set[str]] = {}
    for s in specs:
        key = (s.round, s.table)
        status.setdefault(key, set()).add(states.get(s.match_id, "pending"))
        if key not in keys:
            keys.add(key)
            placements.append(dict(s.tags, table=s.table))
    history = swiss_history(config, placements, store.records(tournament_id))
    size = len(config.make_game().teams())
    scale = 20.0 if size == 2 and st.scoring == "vp" else 1.0
    ids = config.entrant_ids
    by_id = {x: x for x in ids}
    rounds = []
    for r in range(history.rounds):
        encs = []
        for e in history.encounters:
            if e.round != r:
                continue
            seen = status.get((e.round, e.table), set())
            state = "done" if seen == {"done"} else "failed" if "failed" in seen and not (
                seen & {"pending", "leased"}) else "playing" if "leased" in seen or "done" in seen else "pending"
            encs.append({"table": e.table + 1, "sides": list(e.sides), "deals": e.deals, "status": state,
                         "results": {k: _finite(v * scale) for k, v in e.results.items()},
                         "detail": {k: v for k, v in e.detail.items() if k in ("imps", "vp", "points", "totals")}})
        tab = swiss_table(ids, st, history, r + 1)
        table = []
        for rank, x in enumerate(swiss_ranking(ids, st, tab, by_id), 1):
            row: dict[str, Any] = {"rank": rank, "entrant": x, "points": tab.points[x] * scale,
                                   "played": tab.played[x], "byes": tab.byes[x], "wins": tab.wins[x]}
            for t in st.tiebreaks:
                row[t] = _finite(tab.breaks[x][t] * scale)
            table.append(row)
        rounds.append({"round": r + 1, "encounters": encs, "byes": list(history.byes.get(r, [])),
                       "complete": all(e["status"] == "done" for e in encs), "standings": table})
    return {"rounds": rounds, "rounds_total": st.rounds, "scoring": st.scoring, "scale": scale,
            "unit": "VP" if scale == 20.0 else "points", "bye_score": st.bye_score * scale,
            "tiebreaks": [[t, TIEBREAK_NAMES.get(t, t)] for t in st.tiebreaks], "two_sided": size == 2}


# -- ladder -----------------------------------------------------------------------------------------

def ladder_view(store: Any, tournament_id: str, config: Any, standings: Any,
                recent: int = RECENT) -> dict[str, Any]:
    """A ladder's leaderboard and its latest encounters.

    ``{"rows": [{"rank", "entrant", "bot", "rating", "error", "low", "high",
    "encounters", "games", "score"}], "scale": [low, high] (for interval bars),
    "recent": [{"encounter", "sides", "status", "deals", "result", "started"}],
    "encounters" (scheduled), "played" (fully recorded), "stop_after", "matchmaking",
    "counts", "status", "finished", "updated"}``.
    The ratings are the ladder's own fit (its standings: Bradley-Terry, Elo scale,
    95% intervals); an entrant without results has ``None`` for its rating.
    """
    game = config.make_game()
    units = [list(u) for u in game.teams()]
    rows = [{k: _finite(v) for k, v in r.items()} for r in standings.rows]
    lows = [r["low"] for r in rows if r.get("low") is not None]
    highs = [r["high"] for r in rows if r.get("high") is not None]
    scale = [min(lows), max(highs)] if lows and highs else None
    states = {s.match_id: s.status for s in store.spec_states(tournament_id)}
    encounters: dict[int, dict[str, Any]] = {}
    for s in store.specs(tournament_id):
        k = int(s.tags.get("encounter", -1))
        e = encounters.setdefault(k, {"encounter": k + 1, "sides": list(s.tags.get("sides", [])),
                                      "states": set(), "started": s.tags.get("scheduled_at"),
                                      "deals": {}, "matches": 0})
        e["states"].add(states.get(s.match_id, "pending"))
        e["matches"] += 1
    for rec in store.records(tournament_id):
        tags = rec.tags or {}
        if not rec.terminal or tags.get("format") != "ladder":
            continue
        enc = encounters.get(int(tags.get("encounter", -1)))
        if enc is None:
            continue
        tot = enc["deals"].setdefault(int(tags["deal"]), {"n": 0, "tot": dict.fromkeys(enc["sides"], 0.0)})
        ents = tags["entrants"]
        for u in units:
            who = ents[u[0]]
            if who in tot["tot"]:
                tot["tot"][who] += sum(float(rec.returns[i]) for i in u) / len(u)
        tot["n"] += 1
    latest = sorted(encounters.values(), key=lambda e: -e["encounter"])[:recent]
    per = len(units) if len(units) > 2 else 2
    out = []
    for e in latest:
        sides = e["sides"]
        full = [d for d in e["deals"].values() if d["n"] >= (2 if len(sides) == 2 else per)]
        result: dict[str, Any] = {}
        if full and len(sides) == 2:
            a, b = sides
            pts = [float(game.margin_points((d["tot"][a] - d["tot"][b]) / 2)) for d in full]
            result = {"margin": sum(pts), "unit": "IMPs" if game.name == "bridge" else "points",
                      "winner": a if sum(pts) > 0 else b if sum(pts) < 0 else None}
        elif full:
            totals = {x: sum(d["tot"][x] for d in full) for x in sides}
            best = max(totals.values())
            top = [x for x in sides if totals[x] == best]
            result = {"totals": totals, "winner": top[0] if len(top) == 1 else None}
        st = e["states"]
        status = "done" if st == {"done"} else "failed" if "failed" in st and not (st & {"pending", "leased"}) \
            else "playing" if st & {"leased", "done"} else "pending"
        started = e["started"]
        out.append({"encounter": e["encounter"], "sides": sides, "status": status, "deals": len(full),
                    "result": result, "started": _iso(started)})
    from arena.dashboard.data import display_status

    counts = store.status_counts(tournament_id)
    info = store.tournament(tournament_id)
    done, total = store.progress(tournament_id)
    finished = info.status in ("done", "stopped")
    played = sum(1 for e in encounters.values() if e["states"] == {"done"})
    return {"rows": rows, "scale": scale, "recent": out, "encounters": len(encounters), "played": played,
            "finished": finished, "stored_status": info.status,
            "status": info.status if finished else display_status(done, total, counts),
            "stop_after": config.ladder.stop_after, "matchmaking": config.ladder.matchmaking,
            "concurrency": config.ladder.concurrency, "counts": counts, "round": info.round,
            "updated": datetime.now(timezone.utc).strftime("%H:%M:%S UTC")}


def _iso(t: Any) -> str | None:
    if not isinstance(t, (int, float)) or not math.isfinite(t):
        return None
    return datetime.fromtimestamp(float(t), timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


# -- leagues ----------------------------------------------------------------------------------------

def league_view(store: Any, league_id: str, season: int | None = None) -> dict[str, Any]:
    """A league's page: the season's division tables with their promotion and
    relegation zones (:func:`arena.tournaments.league.table`), the moves at its end,
    the all-time table with every entrant's place season by season, the league's
    ratings over every season, and its seasons (for the season links).

    :raises arena.tournaments.league.LeagueNotFoundError: for an unknown league.
    """
    from arena.tournaments import service

    info = service.league_info(store, league_id)
    cfg = service.parse_league(info["config"])
    zones = {d.name: {"promote": d.promote, "relegate": d.relegate, "format": d.format, "size": d.size}
             for d in cfg.divisions}
    seasons = list(range(1, int(info["season"]) + 1))
    base = {"league": league_id, "name": info["name"], "game": info["game"], "state": info["state"],
            "current_season": int(info["season"]), "seasons": seasons, "zones": zones,
            "division_names": [d.name for d in cfg.divisions],
            "members": info["divisions"]["divisions"]}
    if not seasons:
        return {**base, "season": None, "divisions": [], "moves": [], "all_time": [], "ratings": []}
    t = service.league_table(store, league_id, season)
    ended = {s["season"] for s in info["history"].get("seasons", [])}
    divisions = []
    for d in t["divisions"]:
        rows = [{k: _finite(v) for k, v in r.items()} for r in d["rows"]]
        z = dict(zones.get(d["division"], {}))
        # the zones as the table marks them (the file may have changed since that season)
        z["promote"] = sum(1 for r in rows if r.get("zone") == "up")
        z["relegate"] = sum(1 for r in rows if r.get("zone") == "down")
        z.setdefault("format", "round_robin" if "round robin" in str(d.get("title", "")) else "swiss")
        divisions.append({**d, **z, "rows": rows})
    all_time = []
    for a in t["all_time"]:
        by_season = {h["season"]: h for h in a["history"]}
        all_time.append({"entrant": a["entrant"], "seasons": a["seasons"], "best_division": a["best_division"],
                         "by_season": [by_season.get(s) for s in seasons]})
    ratings = [{k: _finite(v) for k, v in r.items()} for r in t["ratings"]]
    return {**base, "season": t["season"], "season_ended": t["season"] in ended, "divisions": divisions,
            "moves": t["moves"], "all_time": all_time, "ratings": ratings,
            "ended_seasons": sorted(ended)}
