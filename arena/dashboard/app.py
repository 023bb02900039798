"""The dashboard's FastAPI app: :func:`create_app`.

Pages (server-rendered Jinja2; CSS and JS served from ``static/``, no CDN):

=====================================  ==================================================
``/``                                  tournaments with live progress (polls ``/api/tournaments``)
``/tournaments/{id}``                  standings per format, progress, matches, downloads
``/ratings``                           Elo per ruleset with Bradley-Terry error bars and history charts
``/bots``, ``/bots/{name}``            bots; a bot's results, matches and faults
``/matches/{match_id}``                a match with its replay viewer (``?step=N`` or ``#step-N``
                                       opens step N; the address follows the step shown)
``/leagues``, ``/leagues/{id}``        leagues; a league's division tables per season (zones,
                                       moves), its all-time table and ratings (``?season=N``)
=====================================  ==================================================

A tournament's page shows what its format adds: a Swiss event its rounds (pairings,
results, byes, the standings after each round with the tie-breaks), a ladder its live
leaderboard (ratings with 95% intervals, games, recent encounters; polls its JSON), a
bridge tournament a traveller per board (:mod:`arena.dashboard.travellers`).

JSON (strict: a number that is undefined is ``null``, never ``NaN``):
``/api/tournaments``, ``/api/tournaments/{id}``, ``/api/tournaments/{id}/swiss``,
``/api/tournaments/{id}/ladder``, ``/api/tournaments/{id}/travellers``, ``/api/ratings``,
``/api/leagues``, ``/api/leagues/{id}`` (``?season=N``),
``/api/matches/{match_id}/replay`` (the views of :func:`arena.dashboard.replay.replay_views`).
Downloads: ``/tournaments/{id}/records.jsonl`` and ``.pbn`` (bridge),
``/matches/{match_id}/record.jsonl`` and ``.pbn``. Charts: ``/ratings/{ruleset}/history.svg``
and ``/ratings/{ruleset}/errors.svg``.

What people read: counts kept from 0 (spec index, deal, rotation, table) are shown
from 1, a bridge match by its board number and its seats N, E, S, W (as its traveller
names them), the vulnerable seats and sides marked (red, titled "vulnerable"), IMPs as
whole numbers per board and one decimal for averages (:func:`_imps`), and a game whose
returns only rank the sides (``Game.own_points``: canasta) by its points.

Hidden cards: a match has a replay only once its record is stored; the seats'
hands are in it only when the record ended (see :mod:`arena.dashboard.replay`).
Downloads hold finished records only.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, HTTPException, Request
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from markupsafe import Markup, escape

from arena.dashboard import data, events
from arena.dashboard.labels import COMPASS_GAMES
from arena.dashboard.replay import replay_views
from arena.dashboard.travellers import BoardResults, travellers
from arena.records.record import MatchRecord, dumps
from arena.store import Store, TournamentNotFoundError

__all__ = ["create_app"]

_HERE = Path(__file__).parent
MATCH_ROWS = 400
"""Matches listed on a tournament page (a ladder's newest; the rest: the downloads)."""
SUITS = {"C": ("\u2663", "black"), "D": ("\u2666", "red"), "H": ("\u2665", "red"), "S": ("\u2660", "black")}


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:  # NaN
            return "-"
        return f"{v:.2f}"
    return str(v)


def _q(text: Any) -> str:
    return quote(str(text), safe="")


def _pts(v: Any) -> str:
    """A score without trailing zeros: ``1``, ``0.5``, ``12.37``, ``-`` for none."""
    if v is None or (isinstance(v, float) and v != v):
        return "-"
    if isinstance(v, (int, float)):
        text = f"{float(v):.2f}".rstrip("0").rstrip(".")
        return "0" if text == "-0" else text
    return str(v)


def _imps(v: Any) -> str:
    """IMPs as bridge players write them: a board's IMPs (and any sum of them) are whole
    numbers, ``7``; an average (cross-IMPs, IMPs per board) has one decimal, ``3.3``.

    >>> _imps(23.0), _imps(-95.0), _imps(3.3333), _imps(None), _imps(0.04)
    ('23', '-95', '3.3', '-', '0')
    """
    if v is None or not isinstance(v, (int, float)) or v != v:
        return "-" if v is None or isinstance(v, float) else str(v)
    if float(v).is_integer():
        return str(int(v))
    text = f"{float(v):.1f}"
    return "0" if text in ("0.0", "-0.0") else text.removesuffix(".0")


def _one(v: Any) -> str:
    """A count kept from 0 (deal, rotation, table, spec index) as people count it: from 1.

    >>> _one(0), _one(3), _one(None)
    ('1', '4', '-')
    """
    return "-" if v is None else str(int(v) + 1)


def _is_imps(key: str, label: str = "") -> bool:
    """Whether a standings column (or a details table's column) holds IMPs."""
    return "imps" in key.lower() or "IMPs" in label


def _signed(v: Any) -> str:
    text = _pts(v)
    return text if text in ("-", "0") or text.startswith("-") else "+" + text


def _card_html(token: Any) -> Markup:
    """A card token as bridge writes a lead: suit symbol, then rank (``♥K``)."""
    t = str(token or "")
    if len(t) != 2 or t[1] not in SUITS:
        return Markup(escape(t or "-"))
    sym, colour = SUITS[t[1]]
    rank = "10" if t[0] == "T" else t[0]
    return Markup(f'<span class="suit {colour}">{sym}</span>{escape(rank)}')


def _contract_html(contract: Any) -> Markup:
    """``4SX`` as ``4♠X`` (``3NT``, ``Pass`` as they are)."""
    import re

    m = re.match(r"^([1-7])(NT|N|[CDHS])(X{0,2})$", str(contract or ""))
    if m is None:
        return Markup(escape(contract or "-"))
    level, strain, dbl = m.groups()
    if strain in ("NT", "N"):
        return Markup(f"{level}NT{dbl}")
    sym, colour = SUITS[strain]
    return Markup(f'{level}<span class="suit {colour}">{sym}</span>{dbl}')


class StrictJSONResponse(JSONResponse):
    """JSON with every non-finite number written as ``null`` (``JSON.parse`` reads it)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(data.strict(content), ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8")


class _ReplayCache:
    """Views of finished records (they never change), least recently used first out."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._d: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, record: MatchRecord) -> dict[str, Any]:
        key = record.match_id
        if record.terminal:
            with self._lock:
                if key in self._d:
                    self._d.move_to_end(key)
                    return self._d[key]
        views = replay_views(record)
        if record.terminal:
            with self._lock:
                self._d[key] = views
                while len(self._d) > self.size:
                    self._d.popitem(last=False)
        return views


def create_app(store_url: str, *, readonly: bool = False) -> FastAPI:
    """The dashboard on the store at ``store_url`` (migrated on start if needed).

    :param readonly: open the store for reading only (what ``arena serve`` and
        ``python -m arena.dashboard`` do: the dashboard never writes): nothing is
        created or migrated, and a store of another schema is refused at once.
    :raises arena.store.engine.StoreURLError: ``readonly`` and no store of this
        version's schema at ``store_url``.
    """
    store = Store(store_url, readonly=readonly)
    store.migrate()
    app = FastAPI(title="arena dashboard", docs_url=None, redoc_url=None,
                  default_response_class=StrictJSONResponse)
    app.state.store = store
    app.add_middleware(GZipMiddleware, minimum_size=2000)
    app.mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static")
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.filters["fmt"] = _fmt
    templates.env.filters["q"] = _q
    templates.env.filters["pts"] = _pts
    templates.env.filters["signed"] = _signed
    templates.env.filters["card"] = _card_html
    templates.env.filters["contract"] = _contract_html
    templates.env.filters["imps"] = _imps
    templates.env.filters["one"] = _one
    templates.env.globals["is_imps"] = _is_imps
    ratings_cache = data.RatingsCache()
    replays = _ReplayCache()
    boards = BoardResults()

    def page(request: Request, name: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
        return templates.TemplateResponse(request, name, ctx, status_code=status_code)

    def tournament_or_404(tid: str) -> Any:
        try:
            return store.tournament(tid)
        except TournamentNotFoundError:
            raise HTTPException(404, f"no tournament {tid!r}") from None

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/") or request.url.path.endswith((".jsonl", ".pbn", ".svg")):
            return StrictJSONResponse({"detail": exc.detail}, status_code=exc.status_code)
        return page(request, "error.html", status_code=exc.status_code, title="Not found",
                    detail=exc.detail, code=exc.status_code)

    @app.get("/healthz", response_class=PlainTextResponse)
    def healthz() -> str:
        return "ok"

    # -- tournaments --------------------------------------------------------------------
    @app.get("/", response_class=HTMLResponse)
    def index(request: Request) -> HTMLResponse:
        rows = [data.tournament_summary(store, t) for t in store.tournaments()]
        rows.reverse()  # newest first
        return page(request, "tournaments.html", title="Tournaments", tournaments=rows, nav="tournaments")

    @app.get("/api/tournaments")
    def api_tournaments() -> list[dict[str, Any]]:
        return [data.tournament_summary(store, t).to_dict() for t in reversed(store.tournaments())]

    @app.get("/api/tournaments/{tid}")
    def api_tournament(tid: str) -> dict[str, Any]:
        info = tournament_or_404(tid)
        st, err = data.tournament_standings(store, info)
        out = data.tournament_summary(store, info).to_dict()
        out["standings"] = st.to_dict() if st is not None else None
        out["standings_error"] = err
        return out

    def extras(info: Any, st: Any) -> dict[str, Any]:
        """What the tournament's format adds to its page (see the module docstring)."""
        config = data.tournament_config(info)
        out: dict[str, Any] = {"swiss": None, "ladder": None, "travellers": None}
        if config is None:
            return out
        if config.format == "swiss":
            out["swiss"] = events.swiss_view(store, info.id, config)
        if config.format == "ladder" and st is not None:
            out["ladder"] = events.ladder_view(store, info.id, config, st)
        if info.game == "bridge":
            out["travellers"] = travellers(config, store.records(info.id), boards,
                                           newest=config.format == "ladder")
        return out

    @app.get("/tournaments/{tid}", response_class=HTMLResponse)
    def tournament(request: Request, tid: str) -> HTMLResponse:
        info = tournament_or_404(tid)
        summary = data.tournament_summary(store, info)
        st, err = data.tournament_standings(store, info)
        config = data.tournament_config(info)
        try:
            game = config.make_game() if config is not None else None
        except Exception:  # noqa: BLE001 - the page shows the matches anyway
            game = None
        matches = data.matches_of(store, tid, game)
        fmt = info.config.get("tournament", {}).get("format", "?")
        shown = matches[-MATCH_ROWS:] if fmt == "ladder" else matches[:MATCH_ROWS]
        league_id = data.league_of(store, tid)
        return page(request, "tournament.html", title=info.name, t=summary, info=info, standings=st,
                    standings_error=err, matches=shown, matches_total=len(matches), nav="tournaments",
                    fmt=fmt, league_id=league_id, compass=info.game in COMPASS_GAMES,
                    own_points=bool(game is not None and game.own_points()),
                    details=_details_tables({k: v for k, v in st.details.items()
                                             if not (fmt == "swiss" and k in ("rounds", "after_round"))})
                    if st is not None else [], **extras(info, st))

    def config_or_404(tid: str, fmt: str) -> tuple[Any, Any]:
        info = tournament_or_404(tid)
        config = data.tournament_config(info)
        if config is None or config.format != fmt:
            raise HTTPException(404, f"{tid!r} is not a {fmt} tournament")
        return info, config

    @app.get("/api/tournaments/{tid}/swiss")
    def api_swiss(tid: str) -> dict[str, Any]:
        info, config = config_or_404(tid, "swiss")
        return events.swiss_view(store, info.id, config)

    @app.get("/api/tournaments/{tid}/ladder")
    def api_ladder(tid: str) -> dict[str, Any]:
        info, config = config_or_404(tid, "ladder")
        st, err = data.tournament_standings(store, info)
        if st is None:
            raise HTTPException(500, err or "no standings")
        return events.ladder_view(store, info.id, config, st)

    @app.get("/api/tournaments/{tid}/travellers")
    def api_travellers(tid: str, limit: int = 200) -> dict[str, Any]:
        info = tournament_or_404(tid)
        config = data.tournament_config(info)
        if info.game != "bridge" or config is None:
            raise HTTPException(404, "travellers are for bridge tournaments")
        return travellers(config, store.records(info.id), boards, limit=max(1, min(limit, 2000)),
                          newest=config.format == "ladder")

    @app.get("/tournaments/{tid}/records.jsonl")
    def tournament_jsonl(tid: str) -> Response:
        tournament_or_404(tid)
        text = "".join(dumps(r) + "\n" for r in store.records(tid) if r.terminal)
        return Response(text, media_type="application/x-ndjson", headers=_attachment(f"{tid}.jsonl"))

    @app.get("/tournaments/{tid}/records.pbn")
    def tournament_pbn(tid: str) -> Response:
        info = tournament_or_404(tid)
        if info.game != "bridge":
            raise HTTPException(404, "PBN is for bridge tournaments only")
        text = _pbn([r for r in store.records(tid) if r.terminal], event=info.name)
        return Response(text, media_type="application/x-pbn; charset=utf-8",
                        headers=_attachment(f"{tid}.pbn"))

    # -- ratings ----------------------------------------------------------------------------
    # -- leagues ------------------------------------------------------------------------------
    def league_or_404(lid: str, season: int | None) -> dict[str, Any]:
        from arena.tournaments.service import LeagueError, LeagueNotFoundError

        try:
            return events.league_view(store, lid, season)
        except LeagueNotFoundError:
            raise HTTPException(404, f"no league {lid!r}") from None
        except LeagueError as exc:
            raise HTTPException(404, str(exc)) from None

    @app.get("/leagues", response_class=HTMLResponse)
    def leagues_page(request: Request) -> HTMLResponse:
        return page(request, "leagues.html", title="Leagues", leagues=data.leagues(store), nav="leagues")

    @app.get("/api/leagues")
    def api_leagues() -> list[dict[str, Any]]:
        return data.leagues(store)

    @app.get("/leagues/{lid}", response_class=HTMLResponse)
    def league_page(request: Request, lid: str, season: int | None = None) -> HTMLResponse:
        view = league_or_404(lid, season)
        return page(request, "league.html", title=view["name"], lg=view, nav="leagues")

    @app.get("/api/leagues/{lid}")
    def api_league(lid: str, season: int | None = None) -> dict[str, Any]:
        return league_or_404(lid, season)

    @app.get("/ratings", response_class=HTMLResponse)
    def ratings(request: Request, game: str | None = None) -> HTMLResponse:
        all_r = ratings_cache.get(store)
        games = sorted({r.game for r in all_r.values()})
        shown = [r for r in all_r.values() if game is None or r.game == game]
        return page(request, "ratings.html", title="Ratings", rulesets=shown, games=games, game=game,
                    nav="ratings")

    @app.get("/api/ratings")
    def api_ratings() -> dict[str, Any]:
        return {rs: {"game": r.game, "matches": r.matches, "rows": r.rows, "fit_error": r.fit_error}
                for rs, r in ratings_cache.get(store).items()}

    def ruleset_or_404(ruleset: str) -> data.RulesetRatings:
        r = ratings_cache.get(store).get(ruleset)
        if r is None:
            raise HTTPException(404, f"no ratings for {ruleset!r}")
        return r

    @app.get("/ratings/{ruleset}/history.svg")
    def history_chart(ruleset: str) -> Response:
        from arena.dashboard.charts import history_svg

        r = ruleset_or_404(ruleset)
        return Response(history_svg(r.history, title=f"Elo history: {ruleset}"), media_type="image/svg+xml")

    @app.get("/ratings/{ruleset}/errors.svg")
    def errors_chart(ruleset: str) -> Response:
        from arena.dashboard.charts import errorbars_svg

        r = ruleset_or_404(ruleset)
        return Response(errorbars_svg(r.rows, title=f"Ratings: {ruleset}"), media_type="image/svg+xml")

    # -- bots -------------------------------------------------------------------------------
    @app.get("/bots", response_class=HTMLResponse)
    def bots(request: Request) -> HTMLResponse:
        return page(request, "bots.html", title="Bots", bots=data.all_bots(store), nav="bots")

    @app.get("/bots/{name}", response_class=HTMLResponse)
    def bot(request: Request, name: str) -> HTMLResponse:
        info = data.bot_page(store, name)
        if not info["known"]:
            raise HTTPException(404, f"no results for bot {name!r}")
        return page(request, "bot.html", title=f"Bot {name}", bot=info, nav="bots")

    # -- matches ------------------------------------------------------------------------------
    def match_parts(match_id: str) -> tuple[Any, Any, MatchRecord | None]:
        record = store.record(match_id)
        try:
            spec = store.spec(match_id)
        except KeyError:
            spec = None
        if spec is None and record is None:
            raise HTTPException(404, f"no match {match_id!r}")
        state = None
        if spec is not None:
            state = next((s for s in store.spec_states(spec.tournament_id) if s.match_id == match_id), None)
        return spec, state, record

    @app.get("/matches/{match_id}", response_class=HTMLResponse)
    def match(request: Request, match_id: str, step: str | None = None) -> HTMLResponse:
        spec, state, record = match_parts(match_id)
        seats = list(record.seats) if record is not None else (list(spec.entrants) if spec else [])
        game = record.game if record else spec.game
        names = _seat_names(record if record is not None else spec, seats)
        bots = list((record.tags.get("bots") if record is not None else None) or (spec.bots if spec else []))
        points = None
        if record is not None and record.terminal and names["own_points"]:
            points = data.record_points(record)
        return page(request, "match.html", title=f"Match {match_id}", match_id=match_id, spec=spec,
                    state=state, record=record, seats=seats, nav="tournaments", game=game, bots=bots,
                    board=data.board_number(spec) if spec is not None else None, points=points,
                    vulnerable=_vulnerable(record if record is not None else spec), start_step=_step(step),
                    **names,
                    winners=data.winners(list(record.returns)) if record and record.terminal else set())

    @app.get("/api/matches/{match_id}/replay")
    def api_replay(match_id: str) -> dict[str, Any]:
        spec, state, record = match_parts(match_id)
        if record is None:
            raise HTTPException(404, "no stored record yet: the match has not finished")
        return replays.get(record)

    def finished_record(match_id: str) -> MatchRecord:
        record = store.record(match_id)
        if record is None or not record.terminal:
            raise HTTPException(404, f"no finished record of {match_id!r}")
        return record

    @app.get("/matches/{match_id}/record.jsonl")
    def match_jsonl(match_id: str) -> Response:
        record = finished_record(match_id)
        return Response(dumps(record) + "\n", media_type="application/x-ndjson",
                        headers=_attachment(f"{match_id.replace(':', '_')}.jsonl"))

    @app.get("/matches/{match_id}/record.pbn")
    def match_pbn(match_id: str) -> Response:
        record = finished_record(match_id)
        if record.game != "bridge":
            raise HTTPException(404, "PBN is for bridge only")
        return Response(_pbn([record], event=str(record.tags.get("tournament_id", "arena"))),
                        media_type="application/x-pbn; charset=utf-8",
                        headers=_attachment(f"{match_id.replace(':', '_')}.pbn"))

    return app


def _seat_names(match: Any, seats: list[str]) -> dict[str, Any]:
    """``seat_labels`` (:func:`arena.dashboard.labels.seat_labels`), ``compass`` (the
    seats have compass names) and ``side_of`` (each seat's side label, for
    partnership games other than the compass ones; else empty) of a record or spec."""
    from arena.dashboard.labels import COMPASS_GAMES, seat_labels, side_labels
    from arena.games import get_game

    try:
        g = get_game(match.game, **({"preset": match.preset} if match.preset else {}), **dict(match.options))
        labels = seat_labels(g, seats)
        teams = [list(t) for t in g.teams()]
        side_of: list[str] = []
        if g.name not in COMPASS_GAMES and any(len(t) > 1 for t in teams):
            sides = side_labels(g, seats)
            where = {s: i for i, t in enumerate(teams) for s in t}
            side_of = [sides[where[s]] for s in range(len(labels))]
        return {"seat_labels": labels, "compass": g.name in COMPASS_GAMES, "side_of": side_of,
                "own_points": g.own_points()}
    except Exception:  # noqa: BLE001 - names are decoration
        return {"seat_labels": [f"seat {s + 1}" for s in range(len(seats))], "compass": False, "side_of": [],
                "own_points": False}


def _vulnerable(match: Any) -> list[bool]:
    """Bridge (duplicate): per seat, whether its side is vulnerable on the match's board,
    as the engine deals it (the record's or spec's seed, decks and ``init``); empty for
    other games, rubber bridge (vulnerability changes deal by deal) or a match that does
    not deal."""
    if getattr(match, "game", None) != "bridge":
        return []
    from arena.core.state import observation_to_dict
    from arena.games import get_game

    try:
        g = get_game(match.game, **({"preset": match.preset} if match.preset else {}), **dict(match.options))
        state = g.new_initial_state(seed=match.seed, decks=getattr(match, "decks", None) or None,
                                    **dict(match.init))
        obs = observation_to_dict(state.observation(0))
        vul = obs.get("vulnerable")
        if obs.get("scoring") == "rubber" or not isinstance(vul, (list, tuple)) or len(vul) != 2:
            return []
        return [bool(vul[s % 2]) for s in range(int(g.num_players))]
    except Exception:  # noqa: BLE001 - a mark is decoration
        return []


def _step(text: str | None) -> int:
    """The replay step a match page opens on (``?step=N``; the viewer clamps it to the
    match's steps); 0 when absent or not a number."""
    try:
        return max(0, int(text)) if text is not None else 0
    except ValueError:
        return 0


def _attachment(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"'}


def _pbn(records: list[MatchRecord], *, event: str) -> str:
    from arena.records.pbn import dumps_records

    return dumps_records(records, Event=event, Site="arena")


def _details_tables(details: dict[str, Any]) -> list[dict[str, Any]]:
    """Format-specific extras of the standings as tables (lists of flat dicts) or
    key/values; plain values (a scoring name, a count) come as one ``facts`` entry.
    Columns of IMPs are written as IMPs are (:func:`_imps`)."""
    out = []
    facts = []
    for key, value in details.items():
        if value is None or isinstance(value, (str, int, float, bool)):
            facts.append(f"{key.replace('_', ' ')}: {_fmt(value)}")
        elif isinstance(value, list) and not value:
            continue
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            cols = list(dict.fromkeys(k for v in value for k in v))
            out.append({"name": key, "columns": cols,
                        "rows": [[(_imps if _is_imps(c) else _fmt)(v.get(c)) for c in cols] for v in value]})
        elif isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values()):
            out.append({"name": key, "columns": list(value),
                        "rows": [[(_imps if _is_imps(k) else _fmt)(v) for k, v in value.items()]]})
        else:
            out.append({"name": key, "columns": [], "rows": [],
                        "text": json.dumps(data.strict(value), indent=1)[:4000]})
    if facts:
        out.insert(0, {"name": "facts", "facts": " · ".join(facts), "columns": [], "rows": []})
    return out
