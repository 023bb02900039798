"""The ``arena`` command line (typer + rich).

Commands
--------
``arena games``
    Registered games with their presets and built-in bots.
``arena play GAME --bots A,B [--games N] [--seed S] ...``
    A duplicate match between built-in bots on seeded deals, seats rotated, with a
    progress bar, a summary per deal and the totals with 95% intervals
    (bridge: a two-room team match scored in IMPs; ``--boards`` is ``--games``).
    ``--json`` prints the machine-readable result instead; ``--records FILE``
    writes every match record (JSON Lines); ``--pbn FILE`` writes bridge boards.
``arena replay FILE``
    Replays every record of a JSON Lines file through the engine and says whether
    each verifies (exit status 1 if any does not).
``arena serve [--address HOST:PORT] [--store URL] [--redis-url URL] [--dashboard-port N]``
    Runs the gRPC gateway that external bots connect to (``proto/arena/bot/v1``) and
    the operators' AdminService (``proto/arena/admin/v1``), bridged to Celery workers
    through Redis when given a URL, and the web dashboard. Bots are authenticated
    against the store's ``bots`` table.
``arena tournament run FILE.toml`` / ``submit FILE.toml`` / ``status ID``
    A tournament from a TOML file: embedded (local processes, SQLite) or submitted
    to Celery workers on Redis; ``status`` follows its progress live.
``arena standings ID`` / ``arena export ID [--format jsonl|pbn]``
    Standings from the stored records; the records as JSON Lines or PBN.
``arena worker``
    A Celery worker (``celery -A workers.celery worker`` with the arena settings).
``arena cluster up|status|down``
    Redis, the gateway and two Celery workers on this machine, without containers.
``arena bots register NAME`` / ``arena bots list`` / ``arena bots revoke NAME``
    Manage the bots allowed to connect, in the store (``--store``, ``ARENA_STORE_URL``;
    tokens are shown once and stored hashed). ``arena bots import FILE`` copies the
    bots of an older version's separate bot file into the store.
``arena ratings GAME --records FILE [--format table|csv|json] [--plot FILE.png]``
    Ratings from match records (see ``arena ratings --help``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from arena.bots import list_bots
from arena.games import get_game, get_game_class, list_games

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Bot arena for card games: play, replay and rate bots.")
console = Console()
err = Console(stderr=True)


def _parse_options(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise typer.BadParameter(f"option {item!r} must look like key=value")
        key, value = item.split("=", 1)
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


@app.command("games")
def games_cmd() -> None:
    """List registered games, their presets and built-in bots."""
    table = Table("game", "presets", "bots", "ruleset")
    for name in list_games():
        cls = get_game_class(name)
        table.add_row(name, ", ".join(cls.presets), ", ".join(list_bots(name)), get_game(name).ruleset)
    console.print(table)


@app.command("play")
def play_cmd(
    game_name: str = typer.Argument(..., metavar="GAME", help="bridge, canasta, calypso, rummy, auction"),
    bots: str = typer.Option("heuristic,random", "--bots", "-b",
                             help="Comma-separated built-in bots, one per entrant."),
    games: Optional[int] = typer.Option(None, "--games", "-n", help="Number of seeded deals (matches)."),
    boards: Optional[int] = typer.Option(None, "--boards", help="Bridge: number of boards (same as --games)."),
    seed: int = typer.Option(1, "--seed", "-s", help="Event seed; every deal derives from it."),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Seats, for games that vary."),
    preset: Optional[str] = typer.Option(None, "--preset", help="Named rule preset."),
    option: list[str] = typer.Option([], "--option", "-o", help="Game option key=value (repeatable)."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Local worker processes."),
    deadline_ms: float = typer.Option(10_000.0, "--deadline-ms", help="Time per decision."),
    records: Optional[Path] = typer.Option(None, "--records", help="Write match records (JSON Lines)."),
    pbn: Optional[Path] = typer.Option(None, "--pbn", help="Bridge: write the played boards as PBN."),
    as_json: bool = typer.Option(False, "--json", help="Print a machine-readable result."),
    details: Optional[bool] = typer.Option(None, "--details/--no-details",
                                           help="Per-deal lines and score sheets (default: on up to 20 deals)."),
) -> None:
    """Play a duplicate match between built-in bots and report the result."""
    from arena.match.evaluate import DealResult, compare_bots
    from arena.records import record as rec

    count = boards if boards is not None else games if games is not None else 10
    opts = _parse_options(option)
    if players is not None:
        opts["players"] = players
    if preset is not None:
        opts["preset"] = preset
    try:
        game = get_game(game_name, **opts)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if pbn is not None and game_name != "bridge":
        raise typer.BadParameter("--pbn is for bridge only")
    show = details if details is not None else count <= 20
    keep = bool(records or pbn or (show and jobs <= 1))
    lines: list[str] = []
    record_file = records.open("w", encoding="utf-8") if records else None

    def on_deal(res: DealResult) -> None:
        for m in res.matches:
            if record_file:
                record_file.write(rec.dumps(m.record) + "\n")
        if show and not as_json:
            lines.append(_deal_line(game, res))
        progress.advance(task)

    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=err, disable=as_json or not err.is_terminal) as progress:
        task = progress.add_task(f"{game.ruleset} {' vs '.join(names)}", total=count)
        try:
            result = compare_bots(game, names, deals=count, seed=seed, jobs=jobs, tag=f"play-{seed}",
                                  deadline_ms=deadline_ms, keep_matches=keep, progress=on_deal)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        finally:
            if record_file:
                record_file.close()
    if pbn is not None:
        from arena.records import pbn as pbn_format

        states = [m.state for r in result.results for m in r.matches if m.state is not None]
        pbn.write_text(pbn_format.dumps(states), encoding="utf-8")
    if as_json:
        console.print_json(json.dumps(result.to_dict()))
        return
    for line in lines:
        console.print(line, highlight=False)
    if show:
        for r in result.results:
            for m in r.matches:
                if m.state is not None:
                    _print_sheet(game, m)
    _print_summary(game, result)


def _deal_line(game: Any, res: Any) -> str:
    parts = []
    for m in res.matches:
        if m.state is not None:
            parts.append(game.describe(m.state))
    head = f"deal {res.deal + 1}: " if len(parts) != 1 else f"deal {res.deal + 1}: "
    tail = ""
    if res.margin is not None:
        tail = f"  => margin {res.margin:+g}" + (f" ({res.points:+g})" if res.points != res.margin else "")
    return head + " | ".join(parts) + tail


def _print_sheet(game: Any, match: Any) -> None:
    rows = game.score_sheet(match.state)
    if not rows:
        return
    table = Table(*rows[0].keys(), title=f"{match.record.match_id} ({', '.join(match.record.seats)})")
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    console.print(table)


def _print_summary(game: Any, result: Any) -> None:
    table = Table("entrant", "units", "mean score / match", "win rate", "fair share",
                  title=f"{result.ruleset}: {result.deals} deals x {result.rotations} rotations")
    for e in result.entrants:
        table.add_row(e.name, str(e.units), f"{e.score.mean:.2f} +/- {e.score.half_width:.2f}",
                      f"{e.win_rate.mean:.3f} +/- {e.win_rate.half_width:.3f}", f"{e.expected_win_rate:.3f}")
    console.print(table)
    if result.margin is not None:
        a, b = result.entrants[0].name, result.entrants[1].name
        console.print(f"margin per deal ({a} - {b}): {result.margin}", highlight=False)
        pm = result.point_margin
        if pm is not None and pm.mean != result.margin.mean:
            console.print(f"points per match ({a} - {b}): {pm}", highlight=False)
        if result.points is not None and result.game == "bridge":
            total = result.points.mean * result.points.n
            console.print(f"IMPs per board ({a} - {b}): {result.points}", highlight=False)
            console.print(f"IMP total: {a} {total:+.0f}", highlight=False)
    console.print(f"faults: {result.faults}", highlight=False)


@app.command("replay")
def replay_cmd(path: Path = typer.Argument(..., exists=True, dir_okay=False, help="JSON Lines records."),
               quiet: bool = typer.Option(False, "--quiet", "-q", help="Print failures only.")) -> None:
    """Replay match records through the engine and verify them."""
    from arena.core.errors import DecodeError
    from arena.match.replay import verify_record
    from arena.records.record import read_records

    errors: list[DecodeError] = []
    ok = bad = 0
    with path.open(encoding="utf-8") as fp:
        for record in read_records(fp, errors):
            v = verify_record(record)
            if v.ok:
                ok += 1
                if not quiet:
                    console.print(f"{record.match_id}: verified ({record.ruleset}, "
                                  f"{len(record.actions)} actions)", highlight=False)
            else:
                bad += 1
                console.print(f"[red]{record.match_id}: FAILED[/red] {v.reason}", highlight=False)
    for e in errors:
        bad += 1
        console.print(f"[red]{path}:{e.lineno}: unreadable record[/red] {e.reason}", highlight=False)
    console.print(f"{ok} verified, {bad} failed", highlight=False)
    if bad:
        raise typer.Exit(1)


@app.command("ratings")
def ratings_cmd(
    game_name: str = typer.Argument(..., metavar="GAME"),
    records: list[Path] = typer.Option(..., "--records", "-r", exists=True, dir_okay=False,
                                       help="Match records (JSON Lines); repeatable."),
    system: str = typer.Option("elo", "--system", help="Online rater: elo, glicko2 or openskill."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or json."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw the rating history to a PNG file."),
) -> None:
    """Ratings of the bots in match records: online rating, batch fit with 95% intervals."""
    from arena.ratings.errors import RatingError
    from arena.ratings.records import rate_records
    from arena.ratings.report import format_table, ratings_table, to_csv, to_json
    from arena.records.record import read_records

    if fmt not in ("table", "csv", "json"):
        raise typer.BadParameter("--format must be table, csv or json")
    loaded: list[Any] = []
    for path in records:
        with path.open(encoding="utf-8") as fp:
            loaded.extend(read_records(fp, errors=[]))
    try:
        rated = rate_records(loaded, system=system, game=game_name)
    except (ValueError, RatingError) as exc:
        raise typer.BadParameter(str(exc)) from None
    if not rated:
        raise typer.BadParameter(f"no finished {game_name} matches in the records")
    outputs = []
    for ruleset, r in rated.items():
        rater = r.rater
        for note in r.notes:
            err.print(f"{ruleset}: {note}")
        rows = ratings_table(rater, ruleset, fit=r.fit)
        outputs.append((ruleset, rows))
        if plot is not None:
            from arena.ratings.plot import plot_history

            target = plot if len(rated) == 1 else plot.with_name(
                f"{plot.stem}-{ruleset.replace('@', '-')}{plot.suffix}")
            plot_history(rater.history(ruleset), target, title=f"{ruleset} ({system})")
    if fmt == "json":
        print(json.dumps({ruleset: json.loads(to_json(rows)) for ruleset, rows in outputs}, indent=2))
    elif fmt == "csv":
        for ruleset, rows in outputs:
            print(to_csv(rows), end="")
    else:
        for ruleset, rows in outputs:
            console.print(f"[bold]{ruleset}[/bold] ({system}; +/- from the batch fit, 95%)")
            console.print(format_table(rows), highlight=False)


DB_REMOVED = ("--db {db}: the separate bot file is gone; bots now live in the store with the "
              "tournaments (--store URL / ARENA_STORE_URL, default sqlite:///arena.db). Import the "
              "bots of that file once, their tokens unchanged: arena bots import {db} --store URL")
"""The error of the removed ``--db`` option (kept hidden so old scripts fail clearly)."""


def _db_removed(db: Optional[Path]) -> None:
    if db is not None:
        raise typer.BadParameter(DB_REMOVED.format(db=db), param_hint="'--db'")


@app.command("serve")
def serve_cmd(
    address: str = typer.Option("127.0.0.1:50051", "--address", "-a", envvar="ARENA_GATEWAY_ADDRESS",
                                help="host:port the gRPC gateway listens on."),
    store_url: str = typer.Option("sqlite:///arena.db", "--store", envvar="ARENA_STORE_URL",
                                  help="Store of the bots, the tournaments and the dashboard "
                                       "(SQLite file by default; PostgreSQL by URL)."),
    operator_token: Optional[str] = typer.Option(None, "--operator-token", envvar="ARENA_OPERATOR_TOKEN",
                                                 help="Token for AdminService calls."),
    redis_url: Optional[str] = typer.Option(None, "--redis-url", envvar="ARENA_REDIS_URL",
                                            help="Serve connected bots to Celery workers through Redis "
                                                 "(and send them the tournaments created over gRPC)."),
    dashboard_port: int = typer.Option(0, "--dashboard-port", envvar="ARENA_DASHBOARD_PORT",
                                       help="Also serve the web dashboard on this port (0: no)."),
    dashboard_host: str = typer.Option("127.0.0.1", "--dashboard-host", envvar="ARENA_DASHBOARD_HOST"),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1,
                                       help="Local processes for tournaments the gateway plays itself "
                                            "(no Redis); default: CPU count, at least 2."),
    grace: float = typer.Option(5.0, "--grace", help="Seconds to finish open calls on shutdown."),
    event_loop: str = typer.Option("auto", "--event-loop", envvar="ARENA_GATEWAY_EVENT_LOOP",
                                   help="auto (uvloop when installed), asyncio or uvloop."),
    db: Optional[Path] = typer.Option(None, "--db", hidden=True, help="Removed: bots live in the store."),
) -> None:
    """Run the gRPC gateway for external bots (and the dashboard) until Ctrl-C or SIGTERM."""
    from arena.gateway.server import GatewayConfig, serve

    _db_removed(db)
    from arena.gateway.loop import event_loop_factory

    try:
        event_loop_factory(event_loop)
    except (ValueError, RuntimeError) as exc:
        raise typer.BadParameter(str(exc), param_hint="--event-loop") from None
    if dashboard_port:
        import threading

        import uvicorn

        from arena.dashboard import create_app

        server = uvicorn.Server(uvicorn.Config(create_app(store_url), host=dashboard_host,
                                               port=dashboard_port, log_level="warning"))
        threading.Thread(target=server.run, name="dashboard", daemon=True).start()
        err.print(f"dashboard on http://{dashboard_host}:{dashboard_port}/")
    serve(address, store_url=store_url, operator_token=operator_token, grace=grace,
          config=GatewayConfig(redis_url=redis_url, tournament_jobs=jobs, event_loop=event_loop))


tournament_app = typer.Typer(no_args_is_help=True, help="Run, submit and follow tournaments.")
app.add_typer(tournament_app, name="tournament")
STORE_OPTION = typer.Option("sqlite:///arena.db", "--store", envvar="ARENA_STORE_URL",
                            help="Store URL (SQLite file by default; PostgreSQL by URL).")
REDIS_OPTION = typer.Option("redis://127.0.0.1:6379/0", "--redis-url", envvar="ARENA_REDIS_URL",
                            help="Redis of the Celery workers.")


def _config_error(exc: Exception) -> typer.BadParameter:
    return typer.BadParameter(str(exc))


@tournament_app.command("run")
def tournament_run(files: list[Path] = typer.Argument(None, exists=True, dir_okay=False,
                                                      help="Tournament TOML files."),
                   examples: bool = typer.Option(False, "--examples",
                                                 help="Run the shipped example tournament of every game."),
                   store: str = STORE_OPTION,
                   jobs: Optional[int] = typer.Option(None, "--jobs", "-j", help="Local worker processes.")
                   ) -> None:
    """Play tournaments embedded (no services), then print standings and ratings; rerun to resume."""
    from arena.ratings import fit_bradley_terry, make_rater
    from arena.ratings.errors import RatingError
    from arena.ratings.records import results_from_records
    from arena.ratings.report import format_table, ratings_table
    from arena.tournaments import commands
    from arena.tournaments.config import example_paths
    from arena.tournaments.executors import open_store

    paths = list(files or []) + (example_paths() if examples else [])
    if not paths:
        raise typer.BadParameter("give tournament files, or --examples")
    for path in paths:
        console.rule(f"[bold]{path.name}")
        try:
            result = commands.run(path, store, jobs, console=console)
        except ValueError as exc:
            raise _config_error(exc) from None
        if result is None:  # stopped: the rest waits for the next run
            raise typer.Exit(130)
        db = open_store(store)
        game = commands.stored_config(db, result.tournament_id).game
        results = results_from_records(db.records(result.tournament_id), game=game)
        rater = make_rater("elo")
        rater.record_all(results)
        for ruleset in rater.rulesets():
            try:
                fit = fit_bradley_terry([r for r in results if r.ruleset == ruleset])
            except RatingError:
                fit = None
            console.print(f"ratings {ruleset} (Elo; +/- 95% from the batch fit)")
            console.print(format_table(ratings_table(rater, ruleset, fit=fit)), highlight=False)
    console.print(f"results are kept in {store}", highlight=False)


@tournament_app.command("submit")
def tournament_submit(file: Path = typer.Argument(..., exists=True, dir_okay=False),
                      store: str = STORE_OPTION, redis_url: str = REDIS_OPTION,
                      batch_size: Optional[int] = typer.Option(None, "--batch-size",
                                                               help="Matches per Celery task.")) -> None:
    """Store a tournament and send its pending matches to the Celery workers."""
    from arena.tournaments import commands

    try:
        commands.submit(file, store, redis_url, batch_size=batch_size, console=console)
    except ValueError as exc:
        raise _config_error(exc) from None


@tournament_app.command("status")
def tournament_status(tournament_id: str, store: str = STORE_OPTION,
                      follow: bool = typer.Option(True, "--follow/--no-follow",
                                                  help="Follow live until complete."),
                      timeout: Optional[float] = typer.Option(None, "--timeout")) -> None:
    """Recorded and total matches of a tournament, live."""
    from arena.tournaments import commands

    try:
        done, total = commands.status(tournament_id, store, follow=follow, timeout=timeout, console=console)
    except KeyError as exc:
        raise typer.BadParameter(f"no tournament {tournament_id!r} in {store}") from exc
    console.print(f"{tournament_id}: {done}/{total} matches recorded", highlight=False)


@app.command("standings")
def standings_cmd(tournament_id: str, store: str = STORE_OPTION) -> None:
    """Standings of a tournament, computed from its stored records."""
    from arena.tournaments import commands

    try:
        commands.standings(tournament_id, store, console=console)
    except KeyError as exc:
        raise typer.BadParameter(f"no tournament {tournament_id!r} in {store}") from exc


@app.command("export")
def export_cmd(tournament_id: str, store: str = STORE_OPTION,
               out: str = typer.Option("-", "--out", "-o", help="File to write; - for stdout."),
               fmt: str = typer.Option("jsonl", "--format", "-f", help="jsonl or pbn (bridge).")) -> None:
    """A tournament's records as JSON Lines, or its boards as PBN."""
    from arena.tournaments import commands

    try:
        n = commands.export(tournament_id, store, out, fmt)
    except KeyError as exc:
        raise typer.BadParameter(f"no tournament {tournament_id!r} in {store}") from exc
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    if out != "-":
        err.print(f"wrote {n} records to {out}")


@app.command("worker", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def worker_cmd(ctx: typer.Context,
               concurrency: Optional[int] = typer.Option(None, "--concurrency", "-c",
                                                         help="Prefork processes (default: cores)."),
               loglevel: str = typer.Option("info", "--loglevel", "-l"),
               redis_url: str = REDIS_OPTION, store: str = STORE_OPTION) -> None:
    """A Celery worker for tournaments; extra arguments go to ``celery worker``."""
    from arena.tournaments import commands

    raise typer.Exit(commands.worker(concurrency, loglevel, redis_url=redis_url, store_url=store,
                                     extra=list(ctx.args)))


@app.command("cluster", context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             add_help_option=False)
def cluster_cmd(ctx: typer.Context) -> None:
    """Local cluster without containers: arena cluster up|status|down|env (see --help)."""
    from arena.cluster import main as cluster_main

    raise typer.Exit(cluster_main(list(ctx.args)))


bots_app = typer.Typer(no_args_is_help=True, help="Register, list and revoke external bots (in the store).")
app.add_typer(bots_app, name="bots")
DB_OPTION = typer.Option(None, "--db", hidden=True, help="Removed: bots live in the store.")


def _bot_registry(store: str) -> Any:
    """The store's bot registry (what ``arena serve --store`` authenticates against)."""
    from arena.tournaments.executors import open_store

    return open_store(store).bot_registry()


@bots_app.command("register")
def bots_register(name: str = typer.Argument(..., help="Bot id, e.g. my-bridge-bot."),
                  owner: str = typer.Option("", "--owner", help="Who runs it."),
                  store: str = STORE_OPTION, db: Optional[Path] = DB_OPTION) -> None:
    """Register a bot and print its token (shown once; stored hashed)."""
    from arena.store.registry import BotExistsError

    _db_removed(db)
    registry = _bot_registry(store)
    try:
        _, token = registry.register(name, owner)
    except (BotExistsError, ValueError) as exc:
        raise typer.BadParameter(str(exc)) from None
    finally:
        registry.store.dispose()
    console.print(f"registered {name}; token (shown once):", highlight=False)
    print(token)


@bots_app.command("list")
def bots_list(store: str = STORE_OPTION, db: Optional[Path] = DB_OPTION) -> None:
    """List registered bots."""
    _db_removed(db)
    registry = _bot_registry(store)
    table = Table("bot", "owner", "revoked")
    try:
        for entry in registry.list():
            table.add_row(entry.bot_id, entry.owner, "yes" if entry.revoked else "no")
    finally:
        registry.store.dispose()
    console.print(table)


@bots_app.command("revoke")
def bots_revoke(name: str, store: str = STORE_OPTION, db: Optional[Path] = DB_OPTION) -> None:
    """Revoke a bot's token; new sessions are refused from then on (RevokeBot also
    closes the open one)."""
    from arena.store.registry import BotNotFoundError

    _db_removed(db)
    registry = _bot_registry(store)
    try:
        registry.revoke(name)
    except BotNotFoundError:
        raise typer.BadParameter(f"no bot named {name!r}") from None
    finally:
        registry.store.dispose()
    console.print(f"revoked {name}", highlight=False)


@bots_app.command("import")
def bots_import(file: Path = typer.Argument(..., exists=True, dir_okay=False,
                                            help="Bot file of older versions (arena-bots.sqlite3)."),
                store: str = STORE_OPTION) -> None:
    """Copy the bots of an old `arena serve --db` file into the store; their tokens keep working."""
    import sqlite3

    from arena.store.registry import SqliteRegistry, copy_bots

    try:
        source = SqliteRegistry(str(file))
    except sqlite3.Error as exc:
        raise typer.BadParameter(f"{file}: not a bot file: {exc}") from None
    registry = _bot_registry(store)
    try:
        copied, skipped = copy_bots(source, registry)
    except (sqlite3.Error, ValueError) as exc:
        raise typer.BadParameter(f"{file}: {exc}") from None
    finally:
        source.close()
        registry.store.dispose()
    console.print(f"imported {len(copied)} bots" + (f" ({', '.join(copied)})" if copied else ""),
                  highlight=False)
    if skipped:
        console.print(f"skipped {len(skipped)} already in the store: {', '.join(skipped)}", highlight=False)


def main() -> None:
    """Entry point of the ``arena`` console script."""
    app()


if __name__ == "__main__":
    main()
