"""The dashboard's FastAPI app: :func:`create_app`.

Pages (server-rendered Jinja2; CSS and JS served from ``static/``, no CDN):

=====================================  ==================================================
``/``                                  tournaments with live progress (polls ``/api/tournaments``)
``/tournaments/{id}``                  standings per format, progress, matches, downloads
``/ratings``                           Elo per ruleset with Bradley-Terry error bars and history charts
``/bots``, ``/bots/{name}``            bots; a bot's results, matches and faults
``/matches/{match_id}``                a match with its replay viewer
=====================================  ==================================================

JSON: ``/api/tournaments``, ``/api/tournaments/{id}``, ``/api/ratings``,
``/api/matches/{match_id}/replay`` (the views of :func:`arena.dashboard.replay.replay_views`).
Downloads: ``/tournaments/{id}/records.jsonl`` and ``.pbn`` (bridge),
``/matches/{match_id}/record.jsonl`` and ``.pbn``. Charts: ``/ratings/{ruleset}/history.svg``
and ``/ratings/{ruleset}/errors.svg``.

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

from arena.dashboard import data
from arena.dashboard.replay import replay_views
from arena.records.record import MatchRecord, dumps
from arena.store import Store, TournamentNotFoundError

__all__ = ["create_app"]

_HERE = Path(__file__).parent
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


def create_app(store_url: str) -> FastAPI:
    """The dashboard on the store at ``store_url`` (migrated on start if needed)."""
    store = Store(store_url)
    store.migrate()
    app = FastAPI(title="arena dashboard", docs_url=None, redoc_url=None)
    app.state.store = store
    app.add_middleware(GZipMiddleware, minimum_size=2000)
    app.mount("/static", StaticFiles(directory=str(_HERE / "static")), name="static")
    templates = Jinja2Templates(directory=str(_HERE / "templates"))
    templates.env.filters["fmt"] = _fmt
    templates.env.filters["q"] = _q
    ratings_cache = data.RatingsCache()
    replays = _ReplayCache()

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
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)
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

    @app.get("/tournaments/{tid}", response_class=HTMLResponse)
    def tournament(request: Request, tid: str) -> HTMLResponse:
        info = tournament_or_404(tid)
        summary = data.tournament_summary(store, info)
        st, err = data.tournament_standings(store, info)
        matches = data.matches_of(store, tid)
        return page(request, "tournament.html", title=info.name, t=summary, info=info, standings=st,
                    standings_error=err, matches=matches, nav="tournaments",
                    details=_details_tables(st.details) if st is not None else [])

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
    def match(request: Request, match_id: str) -> HTMLResponse:
        spec, state, record = match_parts(match_id)
        seats = list(record.seats) if record is not None else (list(spec.entrants) if spec else [])
        seat_names = _seat_names(record.game if record else spec.game, len(seats))
        return page(request, "match.html", title=f"Match {match_id}", match_id=match_id, spec=spec,
                    state=state, record=record, seats=seats, seat_names=seat_names, nav="tournaments",
                    game=(record.game if record else spec.game),
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


def _seat_names(game: str, n: int) -> list[str]:
    from arena.games import get_game

    try:
        g = get_game(game)
        return [g.seat_name(s) for s in range(n)]
    except Exception:  # noqa: BLE001 - names are decoration
        return [str(s) for s in range(n)]


def _attachment(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"'}


def _pbn(records: list[MatchRecord], *, event: str) -> str:
    from arena.records.pbn import dumps_records

    return dumps_records(records, Event=event, Site="arena")


def _details_tables(details: dict[str, Any]) -> list[dict[str, Any]]:
    """Format-specific extras of the standings as tables (lists of flat dicts) or key/values."""
    out = []
    for key, value in details.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            cols = list(dict.fromkeys(k for v in value for k in v))
            out.append({"name": key, "columns": cols, "rows": [[_fmt(v.get(c)) for c in cols] for v in value]})
        elif isinstance(value, dict) and all(not isinstance(v, (dict, list)) for v in value.values()):
            out.append({"name": key, "columns": list(value), "rows": [[_fmt(v) for v in value.values()]]})
        else:
            out.append({"name": key, "columns": [], "rows": [], "text": json.dumps(value, indent=1)[:4000]})
    return out
