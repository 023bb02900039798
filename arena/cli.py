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
``arena tournament run FILE.toml`` / ``submit FILE.toml`` / ``status ID`` / ``retry ID``
    A tournament from a TOML file: embedded (local processes, SQLite) or submitted
    to Celery workers on Redis; ``status`` shows every match's state (``--follow``,
    ``--json``); ``retry`` re-opens failed matches.
``arena standings ID`` / ``arena export ID [--format jsonl|pbn]``
    Standings from the stored records; the records as JSON Lines or PBN.
``arena worker`` / ``arena conductor``
    A Celery worker (``celery -A workers.celery worker`` with the arena settings) with
    a conductor loop beside it; the conductor alone.
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
import math
import sys
from pathlib import Path
from typing import IO, Any, NoReturn, Optional

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from typer.core import TyperGroup

from arena.bots import list_bots
from arena.cli_common import (  # noqa: F401 - UserError, fail and EXTRAS are this module's API too
    EXTRAS,
    UserError,
    _ClickException,
    _NoArgsIsHelpError,
    _UsageError,
    fail,
)
from arena.cli_common import check_store_folder as _check_store_folder
from arena.cli_common import db_reason as _db_reason
from arena.cli_common import need as _need
from arena.cli_common import open_store as _open_store
from arena.cli_common import safe_url as _safe_url
from arena.games import compiled, get_game, get_game_class, list_games

JSON_SCHEMA_VERSION = 1
"""``schema_version`` of every ``--json`` output of this module."""


class ArenaGroup(TyperGroup):
    """The root command: every error is one line on stderr and a non-zero exit.

    Click's own usage errors (an unknown option, a bad value, a missing argument)
    become ``arena CMD: error: <what> (see arena CMD --help)``; a :class:`UserError`
    is ``arena CMD: error: <message>``. Help texts show a metavar only for options
    that take a value (see :func:`_tidy_help`).
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        _tidy_help(self)
        names = ("args", "prog_name", "complete_var", "standalone_mode")
        kwargs.update(zip(names, args))  # click's positional order
        if not kwargs.get("standalone_mode", True):
            return super().main(**kwargs)
        argv: list[str] = list(sys.argv[1:] if kwargs.get("args") is None else kwargs["args"])
        kwargs.update(args=argv, standalone_mode=False)
        path = self._command_path("arena", argv)  # also as python -m arena
        try:
            rv = super().main(**kwargs)
        except _NoArgsIsHelpError as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except UserError as exc:
            typer.echo(f"{path}: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except _UsageError as exc:
            typer.echo(f"{path}: error: {_one_line(exc.format_message())} (see {path} --help)", err=True)
            sys.exit(exc.exit_code)
        except _ClickException as exc:
            typer.echo(f"{path}: error: {_one_line(exc.format_message())}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("aborted", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)

    def _command_path(self, prog: str, argv: list[str]) -> str:
        """``arena tournament run`` for ``["tournament", "run", "x.toml"]``."""
        parts, cmd = [prog], self
        for token in argv:
            sub = getattr(cmd, "commands", {}).get(token)
            if sub is None:
                break
            parts.append(token)
            cmd = sub
        return " ".join(parts)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _tidy_help(cmd: Any) -> None:
    """Help as a command-line user expects it: flags show no type, options their
    metavar (or the kind of value), arguments only their name (recursively).

    Recent typers print ``<bool>``/``<str>`` type labels beside every parameter and
    ``{NAME}`` for a required argument; these per-instance overrides are read by
    their help renderer (older typers do not look at them).
    """
    for param in getattr(cmd, "params", []):
        kind = getattr(param, "param_type_name", "")
        if kind == "option":
            if getattr(param, "is_flag", False) or getattr(param, "count", False):
                param.display_type_rich = lambda ctx=None: None
            else:
                label = param.metavar or _type_label(param)
                param.display_type_rich = lambda ctx=None, label=label: label
        elif kind == "argument":
            name = param.metavar or (param.name or "arg").upper()
            usage = (name if param.required else f"[{name}]") + ("..." if param.nargs != 1 else "")
            param.display_type_rich = lambda ctx=None: None
            param._usage_display_name = lambda usage=usage: usage
    if not getattr(cmd, "_arena_tidy", False) and hasattr(cmd, "get_help_option"):
        cmd._arena_tidy = True
        plain = cmd.get_help_option

        def get_help_option(ctx: Any, plain: Any = plain) -> Any:
            option = plain(ctx)
            if option is not None:
                option.display_type_rich = lambda ctx=None: None
            return option

        cmd.get_help_option = get_help_option
    for sub in getattr(cmd, "commands", {}).values():
        _tidy_help(sub)


def _type_label(param: Any) -> str:
    """``N``, ``NUMBER``, ``TEXT``, ``PATH`` or ``a|b|c`` for an option without a metavar."""
    labels = {"integer": "N", "int": "N", "float": "NUMBER", "text": "TEXT", "str": "TEXT",
              "path": "PATH", "Path": "PATH"}
    kind = getattr(param, "type", None)  # click's parameter type (older typers)
    if kind is not None:
        choices = getattr(kind, "choices", None)
        if choices:
            return "|".join(str(c) for c in choices)
        return labels.get(str(getattr(kind, "name", "")), "VALUE")
    desc = getattr(param, "type_descriptor", None)  # recent typers
    if desc is not None and getattr(desc, "is_choice", False) and getattr(desc, "choices", None):
        return "|".join(str(getattr(c, "value", c)) for c in desc.choices)
    annotation = getattr(desc, "annotation", None)
    for arg in (annotation, *getattr(annotation, "__args__", ())):
        name = getattr(arg, "__name__", None)
        if name in labels:
            return labels[name]
    return "VALUE"


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("arena")
        except PackageNotFoundError:  # run from a source tree
            from arena import __version__ as v
        typer.echo(f"arena {v}")
        raise typer.Exit()


app = typer.Typer(cls=ArenaGroup, add_completion=False, no_args_is_help=True,
                  pretty_exceptions_show_locals=False, rich_markup_mode="markdown",
                  help="Bot arena for card games: play, replay and rate bots; run tournaments.")


@app.callback()
def _main_options(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                               help="Print the version and exit.")) -> None:
    """Bot arena for card games: play, replay and rate bots; run tournaments."""


console = Console()
err = Console(stderr=True)


def _finite(obj: Any) -> Any:
    """``obj`` with every NaN or infinite float replaced by ``None`` (JSON ``null``)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def dumps_json(obj: dict[str, Any], **kwargs: Any) -> str:
    """Strict JSON (no ``NaN``/``Infinity``: undefined figures are ``null``) with a
    ``schema_version`` field."""
    data = _finite(obj)
    data.setdefault("schema_version", JSON_SCHEMA_VERSION)
    return json.dumps(data, allow_nan=False, **kwargs)


def _parse_options(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise UserError(f"option {item!r} must look like key=value")
        key, value = item.split("=", 1)
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


@app.command("games")
def games_cmd() -> None:
    """List registered games, their presets and built-in bots."""
    table = _table("game", "presets", "bots", "ruleset")
    for name in list_games():
        cls = get_game_class(name)
        table.add_row(name, ", ".join(cls.presets), ", ".join(list_bots(name)), get_game(name).ruleset)
    console.print(table)
    fast = sorted({module.split(".")[2] for module in compiled()})
    console.print(f"engines: compiled ({', '.join(fast)})" if fast else "engines: pure Python")


@app.command("play")
def play_cmd(
    game_name: str = typer.Argument(..., metavar="GAME", help=", ".join(list_games())),
    bots: str = typer.Option("heuristic,random", "--bots", "-b", metavar="A,B",
                             help="Comma-separated built-in bots, one per entrant."),
    games: Optional[int] = typer.Option(None, "--games", "-n", metavar="N",
                                        help="Number of seeded deals (matches). [default: 10]"),
    boards: Optional[int] = typer.Option(None, "--boards", metavar="N",
                                         help="Bridge: number of boards (same as --games)."),
    boards_file: Optional[Path] = typer.Option(None, "--boards-file", metavar="FILE.pbn",
                                               help="Bridge: play the boards of a PBN file, with their "
                                                    "numbers (--boards N: the first N)."),
    seed: int = typer.Option(1, "--seed", "-s", metavar="N", help="Event seed; every deal derives from it."),
    players: Optional[int] = typer.Option(None, "--players", "-p", metavar="N",
                                          help="Seats, for games that vary."),
    preset: Optional[str] = typer.Option(None, "--preset", metavar="NAME", help="Named rule preset."),
    option: list[str] = typer.Option([], "--option", "-o", metavar="KEY=VALUE",
                                     help="Game option (repeatable)."),
    jobs: int = typer.Option(1, "--jobs", "-j", metavar="N", help="Local worker processes."),
    deadline_ms: float = typer.Option(10_000.0, "--deadline-ms", metavar="MS", help="Time per decision."),
    records: Optional[Path] = typer.Option(None, "--records", metavar="FILE.jsonl",
                                           help="Write match records (JSON Lines)."),
    pbn: Optional[Path] = typer.Option(None, "--pbn", metavar="FILE.pbn",
                                       help="Bridge: write the played boards as PBN."),
    as_json: bool = typer.Option(False, "--json", help="Print a machine-readable result."),
    details: Optional[bool] = typer.Option(None, "--details/--no-details",
                                           help="Per-deal lines and score sheets (default: on up to 20 deals)."),
) -> None:
    """Play a duplicate match between built-in bots and report the result."""
    from arena.bots.evaluate import DealResult, compare_bots
    from arena.records import record as rec

    count = boards if boards is not None else games if games is not None else None
    if count is not None and count < 1:
        _play_error(f"--games/--boards must be at least 1, got {count}")
    if jobs < 1:
        _play_error(f"--jobs must be at least 1, got {jobs}")
    if not deadline_ms > 0:
        _play_error(f"--deadline-ms must be positive, got {deadline_ms:g}")
    opts = _parse_options(option)
    if players is not None:
        opts["players"] = players
    if preset is not None:
        opts["preset"] = preset
    try:
        game = get_game(game_name, **opts)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if len(names) < 2:
        _play_error(f"--bots needs at least two bots (one per entrant), got {bots!r}; "
                    f"e.g. --bots heuristic,random")
    if game.name == "bridge" and len(names) != 2:
        _play_error(f"bridge is a match of two teams: --bots takes two bots, got {len(names)} ({bots})")
    if pbn is not None and game_name != "bridge":
        raise UserError("--pbn is for bridge only")
    inits: list[dict[str, Any]] | None = None
    if boards_file is not None:
        inits = _board_inits(game, boards_file, count)
        count = len(inits)
    count = 10 if count is None else count
    show = details if details is not None else count <= 20
    keep = bool(records or pbn or show)
    lines: list[str] = []
    record_file = _open_output(records, "--records")
    pbn_file = _open_output(pbn, "--pbn")

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
                                  deadline_ms=deadline_ms, keep_matches=keep, progress=on_deal,
                                  inits=inits)
        except ValueError as exc:
            if pbn_file:
                pbn_file.close()
            raise UserError(str(exc)) from None
        finally:
            if record_file:
                record_file.close()
    if pbn_file is not None:
        from arena.records.pbn import dump_records

        with pbn_file:
            dump_records([m.record for r in result.results for m in r.matches], pbn_file,
                         Event=f"arena play {game.ruleset}", Site="arena")
    if as_json:
        print(dumps_json(result.to_dict(), indent=2))
        return
    for line in lines:
        console.print(line, highlight=False)
    if show:
        for r in result.results:
            for m in r.matches:
                if m.state is not None:
                    _print_sheet(game, m)
    _print_summary(game, result)


def _board_inits(game: Any, path: Path, count: Optional[int]) -> list[dict[str, Any]]:
    """``new_initial_state`` arguments of the boards of a PBN file (the first ``count``)."""
    from arena.records.pbn import read_boards

    if game.name != "bridge" or game.options.get("scoring") != "duplicate":
        fail("--boards-file is for duplicate bridge")
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        fail(f"--boards-file {path}: cannot read: {exc.strerror or exc}")
    try:
        board_set = read_boards(text, source=str(path))
    except ValueError as exc:
        fail(f"--boards-file {exc}")
    if count is not None:
        if count > len(board_set):
            n = len(board_set)
            fail(f"--boards {count}, but {path} has {n} board{'' if n == 1 else 's'}")
        board_set = board_set[:count]
    return [{"board": b.number, "hands": [list(h) for h in b.hands]} for b in board_set]


def _play_error(message: str) -> NoReturn:
    """A user error of ``arena play``: one line on stderr, exit status 2."""
    fail(message)


def _open_output(path: Optional[Path | str], option: str) -> Optional[IO[str]]:
    """``path`` opened for writing before anything is played or read (``None`` for
    no path); a path that cannot be written is a one-line error."""
    if path is None:
        return None
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        fail(f"{option} {path}: cannot write: {exc.strerror or exc}")


def _check_writable(path: Path, option: str) -> None:
    """Fail now (one line) if ``path`` cannot be written later; leaves no file behind."""
    existed = path.exists()
    try:
        with path.open("ab"):
            pass
    except OSError as exc:
        fail(f"{option} {path}: cannot write: {exc.strerror or exc}")
    if not existed:
        path.unlink(missing_ok=True)


def _iv(x: Any, digits: int = 2) -> str:
    """``mean +/- half-width``, ``n/a`` where undefined (one deal has no interval)."""
    import math

    mean = "n/a" if not math.isfinite(x.mean) else f"{x.mean:.{digits}f}"
    half = x.half_width
    return mean if not math.isfinite(half) else f"{mean} +/- {half:.{digits}f}"


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
    table = _table(*rows[0].keys(), title=f"{match.record.match_id} ({', '.join(match.record.seats)})")
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    console.print(table)


def _print_summary(game: Any, result: Any) -> None:
    table = _table("entrant", "units", "mean score / match", "win rate", "fair share",
                  title=f"{result.ruleset}: {result.deals} deals x {result.rotations} rotations")
    for e in result.entrants:
        table.add_row(e.name, str(e.units), _iv(e.score), _iv(e.win_rate, 3), f"{e.expected_win_rate:.3f}")
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
    from arena.records.replay import verify_record
    from arena.records.record import read_records

    _check_record_file(path)
    errors: list[DecodeError] = []
    ok = bad = 0
    with path.open(encoding="utf-8", errors="replace") as fp:
        for record in read_records(fp, errors):
            v = verify_record(record)
            if v.ok:
                ok += 1
                if not quiet:
                    console.print(f"{record.match_id}: verified ({record.ruleset}, "
                                  f"{len(record.actions)} actions)", highlight=False)
            else:
                bad += 1
                console.print(f"[red]{escape(record.match_id)}: FAILED[/red] {escape(v.reason)}", highlight=False)
    for e in errors:
        bad += 1
        reason = str(e).removeprefix(f"line {e.lineno}: ")
        console.print(f"[red]{escape(str(path))}:{e.lineno}: unreadable record[/red] {escape(reason)}",
                      highlight=False)
    console.print(f"{ok} verified, {bad} failed", highlight=False)
    if bad:
        raise typer.Exit(1)


def _check_record_file(path: Path, option: str = "") -> None:
    """Fail (one line) unless the first non-blank line of ``path`` is a match record:
    a PBN file, a tournament file or anything else is not read line by line."""
    from arena.core.errors import DecodeError
    from arena.records.record import loads

    where = f"{option} {path}" if option else str(path)
    try:
        with path.open(encoding="utf-8", errors="replace") as fp:
            for lineno, line in enumerate(fp, 1):
                if not line.strip():
                    continue
                try:
                    loads(line, lineno)
                except DecodeError as exc:
                    if "truncated record" in str(exc):
                        return  # a record cut short: reported line by line
                    pbn = line.lstrip()[:1] in ("[", "%", ";")
                    kind = (" it looks like PBN (bridge boards: arena play bridge --boards-file and "
                            "[tournament] boards_file read those);" if pbn else "")
                    fail(f"{where}: not a record file:{kind} match records are JSON Lines, one record "
                         "per line, as arena play --records and arena export write them")
                return
    except OSError as exc:
        fail(f"{where}: cannot read: {exc.strerror or exc}")


@app.command("ratings")
def ratings_cmd(
    game_name: str = typer.Argument(..., metavar="GAME"),
    records: list[Path] = typer.Option(..., "--records", "-r", exists=True, dir_okay=False,
                                       help="Match records (JSON Lines); repeatable."),
    system: str = typer.Option("elo", "--system", help="Online rater: elo, glicko2 or openskill "
                                                        "(arena.ratings.BACKENDS)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, csv or json."),
    by_entrant: bool = typer.Option(False, "--by-entrant",
                                    help="Rate every entrant on its own (default: entrants that are "
                                         "the same bot are one player)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Draw the rating history to a PNG file."),
) -> None:
    """Ratings of the bots in match records.

    The batch fit with 95% intervals and LOS; the online rater in its own column."""
    from arena.core.errors import DecodeError
    from arena.ratings.errors import RatingError
    from arena.ratings.records import rate_records
    from arena.ratings.report import (format_report, report_csv, report_json, report_rows,
                                      report_title)
    from arena.records.record import read_records

    if fmt not in ("table", "csv", "json"):
        raise UserError("--format must be table, csv or json")
    if plot is not None:
        _need("plot", "--plot")
        _check_writable(plot, "--plot")
    loaded: list[Any] = []
    for path in records:
        _check_record_file(path, "--records")
        bad: list[DecodeError] = []
        with path.open(encoding="utf-8", errors="replace") as fp:
            loaded.extend(read_records(fp, errors=bad))
        for e in bad:
            reason = str(e).removeprefix(f"line {e.lineno}: ")
            what = f"a {reason}" if reason.startswith("truncated") else f"an unreadable record: {reason}"
            err.print(f"{path}:{e.lineno}: skipped {what}", highlight=False,
                      markup=False, soft_wrap=True)
    try:
        rated = rate_records(loaded, system=system, game=game_name, by_bot=not by_entrant)
    except (ValueError, RatingError) as exc:
        raise UserError(str(exc)) from None
    if not rated:
        raise UserError(f"no finished {game_name} matches in the records")
    outputs: dict[str, dict[str, Any]] = {}
    for ruleset, r in rated.items():
        rater = r.rater
        outputs[ruleset] = {"rows": report_rows(rater, ruleset, fit=r.fit), "matches": r.records,
                            "notes": list(r.notes)}
        if plot is not None:
            from arena.ratings.plot import plot_history

            target = plot if len(rated) == 1 else plot.with_name(
                f"{plot.stem}-{ruleset.replace('@', '-')}{plot.suffix}")
            plot_history(rater.history(ruleset), target, title=f"{ruleset} ({system})")
    if fmt == "json":
        print(report_json(outputs, system=system))
    elif fmt == "csv":
        for i, (ruleset, out) in enumerate(outputs.items()):
            for note in out["notes"]:
                err.print(f"{ruleset}: {note}", highlight=False, markup=False)
            print(report_csv(out["rows"], ruleset=ruleset, header=i == 0), end="")
    else:
        for ruleset, out in outputs.items():
            fitted = rated[ruleset].fit is not None
            print(report_title(ruleset, system, matches=out["matches"], fitted=fitted))
            for note in out["notes"]:
                print(f"  note: {note}")
            print(format_report(out["rows"], system))


DB_REMOVED = ("--db {db}: the separate bot file is gone; bots now live in the store with the "
              "tournaments (--store URL / ARENA_STORE_URL, default sqlite:///arena.db). Import the "
              "bots of that file once, their tokens unchanged: arena bots import {db} --store URL")
"""The error of the removed ``--db`` option (kept hidden so old scripts fail clearly)."""


def _db_removed(db: Optional[Path]) -> None:
    if db is not None:
        raise UserError(DB_REMOVED.format(db=db))


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
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", envvar="ARENA_GATEWAY_TLS_CERT",
                                            exists=True, dir_okay=False,
                                            help="PEM certificate chain: serve TLS only (with --tls-key)."),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", envvar="ARENA_GATEWAY_TLS_KEY",
                                           exists=True, dir_okay=False,
                                           help="PEM private key of --tls-cert."),
    log_level: str = typer.Option("info", "--log-level",
                                  help="debug, info, warning or error: stderr log of connects, "
                                       "disconnects and failed authentications (info)."),
    db: Optional[Path] = typer.Option(None, "--db", hidden=True, help="Removed: bots live in the store."),
) -> None:
    """Run the gRPC gateway for external bots (and the dashboard) until Ctrl-C or SIGTERM."""
    import logging

    _db_removed(db)
    _need("gateway", "arena serve")
    _check_store_folder(store_url)
    if redis_url:
        _need("distributed", "arena serve --redis-url")
    if dashboard_port:
        _need("dashboard", "arena serve --dashboard-port")
    from arena.gateway.server import GatewayConfig, serve

    level = logging.getLevelName(log_level.upper())
    if not isinstance(level, int):
        raise UserError(f"--log-level: unknown level {log_level!r}: debug, info, warning or error")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("arena").setLevel(level)
    if (tls_cert is None) != (tls_key is None):
        raise UserError("give both --tls-cert and --tls-key (or neither)")
    from arena.gateway.loop import event_loop_factory

    try:
        event_loop_factory(event_loop)
    except (ValueError, RuntimeError) as exc:
        raise UserError(f"--event-loop: {exc}") from None
    if dashboard_port:
        import threading

        import uvicorn

        from arena.dashboard import create_app

        _open_store(store_url).dispose()  # made and migrated here; the dashboard only reads it
        server = uvicorn.Server(uvicorn.Config(create_app(store_url, readonly=True), host=dashboard_host,
                                               port=dashboard_port, log_level="warning"))
        threading.Thread(target=server.run, name="dashboard", daemon=True).start()
        err.print(f"dashboard on http://{dashboard_host}:{dashboard_port}/")
    serve(address, store_url=store_url, operator_token=operator_token, grace=grace,
          config=GatewayConfig(redis_url=redis_url, tournament_jobs=jobs, event_loop=event_loop,
                               tls_cert=str(tls_cert) if tls_cert else None,
                               tls_key=str(tls_key) if tls_key else None))


tournament_app = typer.Typer(no_args_is_help=True, help="Run, submit, follow and retry tournaments.")
app.add_typer(tournament_app, name="tournament")
STORE_OPTION = typer.Option("sqlite:///arena.db", "--store", envvar="ARENA_STORE_URL", metavar="URL",
                            help="Store URL: sqlite:///FILE or postgresql+psycopg://USER@HOST/DB.")
REDIS_OPTION = typer.Option("redis://127.0.0.1:6379/0", "--redis-url", envvar="ARENA_REDIS_URL", metavar="URL",
                            help="Redis of the Celery workers.")


def _config_error(exc: Exception, store: Any = None, file: Path | None = None) -> UserError:
    """The one-line error of an invalid tournament file; a file whose tournament is
    stored with other contents says what changed (``field: stored -> file``)."""
    from arena.store import SpecConflictError

    if isinstance(exc, SpecConflictError) and store is not None and file is not None:
        tid, changes = _file_changes(store, file)
        if changes:
            shown = "; ".join(changes[:6]) + (f"; and {len(changes) - 6} more" if len(changes) > 6 else "")
            return UserError(f"{file}: tournament {tid!r} is stored with other contents "
                             f"(stored -> this file): {shown}. Running or submitting the same file "
                             "resumes it; for a changed tournament give it a new id (or use another --store)")
    return UserError(str(exc))


def _file_changes(store: Any, file: Path) -> tuple[str, list[str]]:
    """The tournament id of ``file`` and ``path: stored -> new`` for every field of its
    TOML that differs from the stored tournament's (none when they agree: then only
    the specs differ, and the store's own message stands)."""
    from arena.tournaments import service

    try:
        config, raw = service.parse_file(file)
        stored = store.tournament(config.id)
    except Exception:  # noqa: BLE001 - nothing to compare: the store's own message stands
        return "", []
    new = json.loads(json.dumps(raw, sort_keys=True, default=str))
    old = json.loads(json.dumps(stored.config, sort_keys=True, default=str))
    out: list[str] = []
    _diff(old, new, "", out)
    return config.id, out


def _diff(old: Any, new: Any, path: str, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            sub = f"{path}.{key}" if path else str(key)
            if key not in new:
                out.append(f"{sub}: {_short(old[key])} -> (removed)")
            elif key not in old:
                out.append(f"{sub}: (absent) -> {_short(new[key])}")
            else:
                _diff(old[key], new[key], sub, out)
    elif isinstance(old, list) and isinstance(new, list) and all(isinstance(x, dict) for x in old + new):
        for i in range(max(len(old), len(new))):
            sub = f"{path}[{i}]"
            if i >= len(new):
                out.append(f"{sub}: {_short(old[i])} -> (removed)")
            elif i >= len(old):
                out.append(f"{sub}: (absent) -> {_short(new[i])}")
            else:
                _diff(old[i], new[i], sub, out)
    elif old != new:
        out.append(f"{path}: {_short(old)} -> {_short(new)}")


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _progress_bar() -> Progress:
    from rich.progress import TimeElapsedColumn

    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)


def _print_standings(st: Any) -> None:
    rows = _readable_columns(st.table())
    table = _table(title=st.title)
    widths = [max(len(c) for c in col) for col in zip(*rows)]
    if sum(widths) + 2 * (len(widths) - 1) > console.width:  # headers of two words on two lines
        rows[0] = [h.replace(" ", "\n") for h in rows[0]]
    for i, label in enumerate(rows[0]):
        cells = [r[i] for r in rows[1:]]
        widest = max((len(c) for c in cells), default=0)
        if label == "bot":  # the one column that may wrap
            table.add_column(label, overflow="fold", min_width=min(widest, 10))
        else:  # names, numbers and headers whole (headers wrap at their spaces)
            text = i == 0 or not all(_numeric(c) for c in cells)
            longest_word = max((len(w) for w in label.split()), default=1)
            table.add_column(label, justify="left" if text else "right", no_wrap=text,
                             min_width=max(widest, longest_word))
    for row in rows[1:]:
        table.add_row(*row)
    console.print(table)
    console.print(f"{st.recorded}/{st.expected} matches recorded; tie-breaks: {st.tie_breaks}",
                  highlight=False)
    forfeits = st.details.get("forfeits") or []
    if forfeits:  # remote bots absent beyond the absence limit: not scored
        absent: dict[str, int] = {}
        for f in forfeits:
            for e in f["absent"]:
                absent[e] = absent.get(e, 0) + 1
        console.print(f"[yellow]{len(forfeits)} matches forfeited, not scored[/]: "
                      + ", ".join(f"{escape(e)} absent in {n}" for e, n in sorted(absent.items())),
                      highlight=False)
    missing = st.details.get("missing") or []
    if missing:
        console.print(f"[yellow]{len(missing)} matches have no record[/]:")
        for m in missing[:10]:
            console.print(f"  {escape(m['match_id'])} ({m['status']}): {escape(str(m['reason']))}",
                          highlight=False)
        if len(missing) > 10:
            console.print(f"  ... and {len(missing) - 10} more (arena tournament status ID)")


def _numeric(cell: str) -> bool:
    try:
        float(cell.rstrip("%"))
    except ValueError:
        return cell in ("-", "")
    return True


def _table(*headers: str, title: str | None = None) -> Table:
    """A rich table that fits 80 columns: a rule under the header, no edges."""
    return Table(*headers, title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                 collapse_padding=True, title_justify="left")


def _readable_columns(rows: list[list[str]]) -> list[list[str]]:
    """Standings cells as read at 80 columns: ``builtin:`` dropped from bot names, a
    bot column dropped when every bot is named like its entrant, whole numbers
    without ``.00``."""
    head, body = rows[0], [list(r) for r in rows[1:]]
    if "bot" in head and body:
        b = head.index("bot")
        for r in body:
            r[b] = r[b].removeprefix("builtin:")
        if all(r[b] == r[1] for r in body):
            head = head[:b] + head[b + 1:]
            body = [r[:b] + r[b + 1:] for r in body]
        else:
            for r in body:  # a long bot spec wraps before its options
                r[b] = r[b].replace("?", " ?", 1)
    for i in range(len(head)):
        cells = [r[i] for r in body]
        if cells and all(c.endswith(".00") and c[:-3].lstrip("-").isdigit() for c in cells):
            for r in body:
                r[i] = r[i][:-3]
    return [head, *body]


def _print_ratings(rated: dict[str, Any]) -> None:
    from arena.ratings.report import ratings_report_text

    text = ratings_report_text(rated, "elo")
    if text:
        console.print(text, highlight=False)


@tournament_app.command("run")
def tournament_run(files: list[Path] = typer.Argument(None, exists=True, dir_okay=False, metavar="FILE.toml",
                                                      help="Tournament TOML files."),
                   examples: bool = typer.Option(False, "--examples",
                                                 help="Run the shipped example tournament of every game."),
                   store: str = STORE_OPTION,
                   jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, metavar="N",
                                                      help="Local worker processes."),
                   gateway: str = typer.Option("127.0.0.1:50051", "--gateway", envvar="ARENA_GATEWAY_ADDRESS",
                                               help="With remote entrants: host a gateway for them here "
                                                    "(host:port)."),
                   redis_url: Optional[str] = typer.Option(None, "--redis-url",
                                                           help="With remote entrants: reach them through a "
                                                                "running `arena serve --redis-url` instead."),
                   wait_for_bots: float = typer.Option(60.0, "--wait-for-bots", min=0,
                                                       help="Seconds to wait for every remote entrant to "
                                                            "connect before refusing."),
                   bluechip: Optional[str] = typer.Option(None, "--bluechip", metavar="HOST:PORT",
                                                          help="With bluechip entrants: host the Blue Chip "
                                                               "Table Manager their robots connect to."),
                   bluechip_no_pauses: bool = typer.Option(False, "--bluechip-no-pauses",
                                                           help="Drop the protocol's one-second pauses "
                                                                "(robots that do not need them).")
                   ) -> None:
    """Play tournaments embedded (no services), then print standings and ratings; rerun to resume.

    Remote entrants (remote = "BOT") must be registered (arena bots register); the run
    hosts a gateway for them (--gateway) or reaches a running one through Redis
    (--redis-url), and starts only once all of them are connected. A ladder starts
    at once: its remote entrants play while connected, and join when registered."""
    import signal

    from arena.ratings.errors import RatingError
    from arena.tournaments import service

    paths = list(files or []) + (service.example_paths() if examples else [])
    if not paths:
        raise UserError("give tournament files, or --examples")
    _validate_first(paths, store, bluechip)

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)  # SIGTERM stops a run like Ctrl-C
    route = _RemoteRoute(gateway, redis_url)
    try:
        db = _open_store(store)
        for path in paths:
            console.rule(f"[bold]{path.name}")
            try:
                config, _ = service.parse_file(path)
                later = service.check_registered(db, config)
                teams = sorted({e.bot.split(":", 1)[1] for e in config.entrants if e.bot.startswith("bluechip:")})
                if teams:
                    _start_bluechip(bluechip, bluechip_no_pauses, teams)
                bots = [b for _, b in service.remote_entrants(config)]
                router = route.router(db) if bots else None
                if bots and config.format == "ladder":  # no wait: they play while connected
                    err.print(f"ladder: remote entrants play while connected ({route.where}): "
                              f"{', '.join(bots)}"
                              + (f"; not registered yet: {', '.join(later)}" if later else ""))
                elif bots:
                    err.print(f"waiting up to {wait_for_bots:.0f} s for {', '.join(bots)} "
                              f"({route.where})")
                    assert router is not None
                    missing = service.wait_for_bots(router, bots, wait_for_bots)
                    if missing:
                        raise UserError(
                            f"remote entrants not connected after {wait_for_bots:.0f} s: "
                            f"{', '.join(missing)} ({route.where}); nothing was played")
                # the router is the run's presence: a ladder seats the connected bots
                config, _ = service.register(path, db, presence=router)
            except ValueError as exc:
                raise _config_error(exc, db, path) from None
            try:
                with _progress_bar() as bar:
                    task = bar.add_task(config.id, total=None)

                    def update(done: int, total: int) -> None:
                        bar.update(task, completed=done, total=total)

                    result = service.run_embedded(store, config.id, jobs, progress=update, router=router)
            except KeyboardInterrupt:
                done, total = db.progress(config.id)
                console.print(f"[yellow]stopped[/]: {done}/{total} matches recorded; run the same "
                              "command again to resume")
                raise typer.Exit(130) from None
            except ValueError as exc:
                raise _config_error(exc) from None
            for note in result.notes:
                console.print(f"{note}: the tournament stopped after {result.done}/{result.total} matches")
            for error in result.errors[:10]:
                console.print(f"[red]match failed[/]: {error}", highlight=False)
            _print_standings(service.standings(db, config.id))
            try:
                _print_ratings(service.ratings(db, config.id))
            except (RatingError, ValueError) as exc:
                err.print(f"no ratings: {exc}")
    finally:
        signal.signal(signal.SIGTERM, old)
        route.close()
        from arena.bluechip import stop_host

        stop_host()
    console.print(f"results are kept in {store}", highlight=False)


def _validate_first(paths: list[Path], store: str, bluechip: Optional[str]) -> None:
    """Refuse (one line) before anything is created or printed: an invalid file, Blue
    Chip entrants without ``--bluechip``, a remote entrant that is not registered
    (or revoked) in the store, which is only read here (none yet: none registered)."""
    from sqlalchemy.exc import SQLAlchemyError

    from arena.store import Store
    from arena.store.engine import StoreNotFoundError, StoreURLError
    from arena.tournaments import service

    checked: list[tuple[Path, Any]] = []
    for path in paths:
        try:
            config, _ = service.parse_file(path)
        except ValueError as exc:
            raise _config_error(exc) from None
        teams = sorted({e.bot.split(":", 1)[1] for e in config.entrants if e.bot.startswith("bluechip:")})
        if teams and not bluechip:
            raise UserError(f"{path}: Blue Chip entrants ({', '.join(teams)}): give --bluechip HOST:PORT, "
                            "the address their robots connect to")
        if config.format != "ladder" and service.remote_entrants(config):
            checked.append((path, config))
    if not checked:
        return
    _check_store_folder(store)
    try:
        db = Store(store, readonly=True)
    except StoreNotFoundError:  # a store that does not exist yet has no bots registered
        path, config = checked[0]
        i, bot = service.remote_entrants(config)[0]
        raise UserError(f"{path}: entrants[{i}].remote: bot {bot!r} is not registered "
                        f"(arena bots register {bot} --store {_safe_url(store)})") from None
    except StoreURLError as exc:
        fail(f"--store: {exc}")
    try:
        for path, config in checked:
            try:
                service.check_registered(db, config)
            except service.ConfigError as exc:
                raise UserError(f"{path}: {exc}") from None
    except SQLAlchemyError:  # a database without the schema yet: checked again once it is made
        return
    finally:
        db.dispose()


def _start_bluechip(address: Optional[str], no_pauses: bool, teams: list[str]) -> None:
    """Start this process's Blue Chip Table Manager (once) for ``teams``' robots."""
    from arena.bluechip import HostConfig, current_host, start_host

    if current_host() is not None:
        return
    if not address:
        raise UserError(f"Blue Chip entrants ({', '.join(teams)}): give --bluechip HOST:PORT, "
                                 "the address their robots connect to")
    config = HostConfig(teams=tuple(teams))  # a robot of another team is refused, not seated
    config = config.without_pauses() if no_pauses else config
    try:
        host = start_host(address, config)
    except Exception as exc:  # noqa: BLE001 - the port is taken, most likely
        raise UserError(f"cannot host the Blue Chip Table Manager on {address}: {exc}") from None
    err.print(f"Blue Chip Table Manager on {host.address if hasattr(host, 'address') else address}: "
              f"robots of {', '.join(teams)} connect as their seats")


class _RemoteRoute:
    """How ``tournament run`` reaches remote entrants: a gateway it hosts, or a
    running gateway through Redis; made on first need, closed at the end."""

    def __init__(self, gateway: str, redis_url: str | None) -> None:
        self.gateway_address, self.redis_url = gateway, redis_url
        self._gateway: Any = None
        self._router: Any = None
        self.where = f"through Redis at {redis_url}" if redis_url else f"gateway on {gateway}"

    def router(self, store: Any) -> Any:
        if self._router is None:
            _need("distributed" if self.redis_url else "gateway", "remote entrants")
            if self.redis_url:
                from arena.remote.redis_router import RedisRouter

                self._router = RedisRouter(self.redis_url)
            else:
                from arena.gateway.server import Gateway

                try:
                    self._gateway = Gateway(self.gateway_address, store=store).start()
                except Exception as exc:  # noqa: BLE001 - the port is taken, most likely
                    raise UserError(f"cannot host a gateway on {self.gateway_address}: {exc}; "
                                             "use --gateway HOST:PORT, or --redis-url to reach a "
                                             "running `arena serve --redis-url`") from None
                self.where = f"gateway on {self._gateway.target}"
                self._router = self._gateway.router
        return self._router

    def close(self) -> None:
        if self._gateway is not None:
            self._gateway.stop(grace=1.0)
        elif self._router is not None:
            self._router.close()


def _dispatcher(redis_url: str, store: str) -> Any:
    _need("distributed", "Celery workers")
    from workers.celery import make_app
    from workers.dispatch import CeleryDispatcher

    return CeleryDispatcher(make_app(redis_url, store), store_url=store)


@tournament_app.command("submit")
def tournament_submit(file: Path = typer.Argument(..., exists=True, dir_okay=False),
                      store: str = STORE_OPTION, redis_url: str = REDIS_OPTION) -> None:
    """Store a tournament and offer its matches to the Celery workers.

    Their conductors carry it to the end (see arena worker)."""
    from arena.tournaments import service

    _need("distributed", "arena tournament submit")  # before anything is stored
    try:
        service.parse_file(file)
    except ValueError as exc:
        raise _config_error(exc) from None
    db = _open_store(store)
    try:
        config, _ = service.register(file, db)
    except ValueError as exc:
        raise _config_error(exc, db, file) from None
    dispatcher = _dispatcher(redis_url, store)
    try:
        offered = service.submit(db, config.id, dispatcher)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - kombu/redis errors: the broker is not reachable
        raise UserError(f"cannot reach the workers' Redis at {redis_url}: "
                                 f"{type(exc).__name__}: {exc}; the tournament is stored, submit "
                                 "again to retry") from None
    done, total = db.progress(config.id)
    console.print(f"tournament [bold]{config.id}[/]: {offered} work offers sent ({done}/{total} "
                  f"recorded); follow with `arena tournament status {config.id}`")


def _status_lines(st: Any) -> list[str]:
    c = st.counts
    lines = [f"{st.tournament_id} ({st.game}, {st.status}, round {st.round}): {st.done}/{st.total} "
             f"recorded; pending {c['pending']}, leased {c['leased']}, done {c['done']}, "
             f"failed {c['failed']}" + (f" ({st.waiting} waiting to retry)" if st.waiting else "")]
    if st.route_pause is not None:
        lines.append(f"  route failing: {st.route_pause['reason']}")
    elif st.voids_in_row:
        lines.append(f"  {st.voids_in_row} matches voided by platform faults since the last record "
                     "(replayed)")
    for lease in st.leased[:10]:
        lines.append(f"  leased {lease['match_id']} by {lease['owner']}, {lease['age_s']} s ago, "
                     f"expires in {lease['expires_in_s']} s (attempt {lease['attempts']})")
    if len(st.leased) > 10:
        lines.append(f"  ... {len(st.leased) - 10} more leased")
    for f in st.failed[:10]:
        final = "no attempts left" if f["final"] else "will be retried"
        lines.append(f"  failed {f['match_id']} after {f['attempts']} attempts ({final}): {f['error']}")
    if len(st.failed) > 10:
        lines.append(f"  ... {len(st.failed) - 10} more failed")
    return lines


@tournament_app.command("status")
def tournament_status(tournament_id: str, store: str = STORE_OPTION,
                      follow: bool = typer.Option(False, "--follow/--no-follow", "-f",
                                                  help="Follow live until the tournament finishes."),
                      json_out: bool = typer.Option(False, "--json", help="One JSON object (with --follow: "
                                                    "one per line as it changes)."),
                      stale: float = typer.Option(60.0, "--stale", min=0.1, metavar="SECONDS",
                                                  help="With --follow: say so when nothing "
                                                  "has moved for this many seconds."),
                      timeout: Optional[float] = typer.Option(None, "--timeout", min=0, metavar="SECONDS",
                                                              help="With --follow: stop after this many seconds."),
                      interval: float = typer.Option(1.0, "--interval", min=0.01, metavar="SECONDS",
                                                     help="Seconds between two looks.")
                      ) -> None:
    """The state of every match of a tournament (read only).

    Pending, leased (with owner and age), done, failed (with reason); --follow ends
    when the tournament finishes."""
    import time

    from arena.store import TournamentNotFoundError
    from arena.tournaments import service

    db = _open_store(store, readonly=True)
    try:
        st = service.status(db, tournament_id)
    except TournamentNotFoundError:
        raise UserError(f"no tournament {tournament_id!r} in {_safe_url(store)}") from None

    def show(st: Any) -> None:
        if json_out:
            print(dumps_json(st.to_dict()), flush=True)
        else:
            for line in _status_lines(st):
                console.print(line, highlight=False)

    show(st)
    if not follow:
        return
    end = None if timeout is None else time.monotonic() + timeout
    last, moved, warned = (st.done, st.counts, st.status), time.monotonic(), False
    try:
        while not st.finished and st.status != "paused" and (end is None or time.monotonic() < end):
            time.sleep(interval)
            st = service.status(db, tournament_id)
            now_key = (st.done, st.counts, st.status)
            if now_key != last:
                last, moved, warned = now_key, time.monotonic(), False
                show(st)
            elif not warned and time.monotonic() - moved > stale:
                warned = True
                msg = (f"nothing has moved for {stale:.0f} s: are workers running with a conductor "
                       f"(arena worker) on this store? leased matches expire by themselves")
                if json_out:
                    print(dumps_json({"schema_version": service.SCHEMA_VERSION, "tournament_id":
                                      tournament_id, "stale_seconds": stale, "note": msg}), flush=True)
                else:
                    console.print(f"[yellow]{msg}[/]", highlight=False)
    except KeyboardInterrupt:
        return
    if not json_out and st.finished:
        console.print(f"{tournament_id} finished: {st.status}", highlight=False)
    elif not json_out and st.status == "paused":
        console.print(f"{tournament_id} is paused (its run was interrupted): run it again to resume",
                      highlight=False)


@tournament_app.command("retry")
def tournament_retry(tournament_id: str, store: str = STORE_OPTION,
                     redis_url: Optional[str] = typer.Option(None, "--redis-url", envvar="ARENA_REDIS_URL",
                                                             help="Also offer the work to the Celery workers.")
                     ) -> None:
    """Re-open a tournament's failed matches by hand (their attempts start again)."""
    from arena.store import TournamentNotFoundError
    from arena.tournaments import service

    if redis_url:
        _need("distributed", "arena tournament retry --redis-url")
    _open_store(store, readonly=True).dispose()  # an unknown store: one line, nothing made
    db = _open_store(store)
    try:
        n = service.retry(db, tournament_id)
    except TournamentNotFoundError:
        raise UserError(f"no tournament {tournament_id!r} in {store}") from None
    console.print(f"{tournament_id}: {n} failed matches re-opened", highlight=False)
    if n and redis_url:
        service.submit(db, tournament_id, _dispatcher(redis_url, store))


@app.command("standings")
def standings_cmd(tournament_id: str = typer.Argument(..., metavar="ID"), store: str = STORE_OPTION,
                  json_out: bool = typer.Option(False, "--json", help="JSON instead of a table.")) -> None:
    """Standings of a tournament, computed from its stored records (read only)."""
    from arena.store import TournamentNotFoundError
    from arena.tournaments import service

    db = _open_store(store, readonly=True)
    try:
        st = service.standings(db, tournament_id)
    except TournamentNotFoundError:
        raise UserError(f"no tournament {tournament_id!r} in {_safe_url(store)}") from None
    if json_out:
        print(dumps_json(dict(st.to_dict(), schema_version=service.SCHEMA_VERSION)))
    else:
        _print_standings(st)


@app.command("export")
def export_cmd(tournament_id: str = typer.Argument(..., metavar="ID"), store: str = STORE_OPTION,
               out: str = typer.Option("-", "--out", "-o", metavar="FILE", help="File to write; - for stdout."),
               fmt: str = typer.Option("jsonl", "--format", "-f", metavar="jsonl|pbn",
                                       help="JSON Lines records, or PBN boards (bridge).")) -> None:
    """A tournament's records as JSON Lines, or its boards as PBN (read only)."""
    from arena.store import TournamentNotFoundError
    from arena.tournaments import service

    if fmt not in ("jsonl", "pbn"):
        fail(f"--format: unknown export format {fmt!r}: jsonl or pbn")
    db = _open_store(store, readonly=True)
    try:
        info = db.tournament(tournament_id)
    except TournamentNotFoundError:
        raise UserError(f"no tournament {tournament_id!r} in {_safe_url(store)}") from None
    if fmt == "pbn" and info.game != "bridge":
        fail(f"PBN export is for bridge; {tournament_id} is {info.game}")
    fp = sys.stdout if out == "-" else _open_output(out, "--out")
    assert fp is not None
    try:
        n = service.export(db, tournament_id, fp, fmt)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    finally:
        if fp is not sys.stdout:
            fp.close()
    if out != "-":
        err.print(f"wrote {n} records to {out}", highlight=False)


@app.command("worker", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def worker_cmd(ctx: typer.Context,
               concurrency: Optional[int] = typer.Option(None, "--concurrency", "-c",
                                                         help="Prefork processes (default: cores)."),
               loglevel: str = typer.Option("info", "--loglevel", "-l"),
               redis_url: str = REDIS_OPTION, store: str = STORE_OPTION,
               conductor: bool = typer.Option(True, "--conductor/--no-conductor",
                                              help="Run a conductor loop beside the worker."),
               remote_matches: Optional[int] = typer.Option(
                   None, "--remote-matches", min=1,
                   help="Remote matches each process plays at once, on threads "
                        "(default: $ARENA_REMOTE_MATCHES, else 16).")) -> None:
    """A Celery worker for tournaments, with a conductor loop beside it.

    Extra arguments go to 'celery worker'. SIGTERM/SIGINT stop both, and nothing is
    left behind."""
    _need("distributed", "arena worker")
    _check_store_folder(store)
    from workers.run import run_worker
    from workers.tasks import remote_matches as _remote_matches

    if remote_matches is None:
        try:  # a bad value in the environment: one line now, not a failure in every task
            _remote_matches()
        except ValueError as exc:
            raise UserError(str(exc)) from None
    raise typer.Exit(run_worker(concurrency, loglevel, redis_url=redis_url, store_url=store,
                                conductor=conductor, remote_matches=remote_matches,
                                extra=list(ctx.args)))


@app.command("conductor")
def conductor_cmd(store: str = STORE_OPTION, redis_url: str = REDIS_OPTION,
                  once: bool = typer.Option(False, "--once", help="One pass, then exit."),
                  json_out: bool = typer.Option(False, "--json", help="With --once: the pass as JSON.")) -> None:
    """The conductor alone (every arena worker runs one already).

    It re-offers expired leases, retries failed matches, adds rounds and finishes
    tournaments."""
    from dataclasses import asdict

    from arena.tournaments import service

    conductor = service.conductor(_open_store(store), _dispatcher(redis_url, store))
    if once:
        reports = conductor.reconcile()
        if json_out:
            print(dumps_json({"tournaments": [asdict(r) for r in reports]}))
        else:
            for r in reports:
                console.print(str(r), highlight=False)
        return
    try:
        conductor.run_forever()
    except KeyboardInterrupt:
        pass


@app.command("cluster", context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             add_help_option=False)
def cluster_cmd(ctx: typer.Context) -> None:
    """Local cluster without containers: arena cluster up|status|down|env (see --help)."""
    _need("distributed", "arena cluster")
    _need("gateway", "arena cluster")
    from arena.cluster import main as cluster_main

    raise typer.Exit(cluster_main(list(ctx.args)))


bots_app = typer.Typer(no_args_is_help=True, help="Register, list and revoke external bots (in the store).")
app.add_typer(bots_app, name="bots")
DB_OPTION = typer.Option(None, "--db", hidden=True, help="Removed: bots live in the store.")


def _bot_registry(store: str, *, readonly: bool = False) -> Any:
    """The store's bot registry (what ``arena serve --store`` authenticates against)."""
    return _open_store(store, readonly=readonly).bot_registry()


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
        raise UserError(str(exc)) from None
    finally:
        registry.store.dispose()
    console.print(f"registered {name}; token (shown once):", highlight=False)
    print(token)


@bots_app.command("list")
def bots_list(store: str = STORE_OPTION, db: Optional[Path] = DB_OPTION) -> None:
    """List registered bots."""
    _db_removed(db)
    registry = _bot_registry(store, readonly=True)
    table = _table("bot", "owner", "revoked")
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
        raise UserError(f"no bot named {name!r}") from None
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
        raise UserError(f"{file}: not a bot file: {exc}") from None
    registry = _bot_registry(store)
    try:
        copied, skipped = copy_bots(source, registry)
    except (sqlite3.Error, ValueError) as exc:
        raise UserError(f"{file}: {exc}") from None
    finally:
        source.close()
        registry.store.dispose()
    console.print(f"imported {len(copied)} bots" + (f" ({', '.join(copied)})" if copied else ""),
                  highlight=False)
    if skipped:
        console.print(f"skipped {len(skipped)} already in the store: {', '.join(skipped)}", highlight=False)


from arena.bluechip.cli import app as bluechip_app  # noqa: E402  # `arena bluechip host|client`
app.add_typer(bluechip_app, name="bluechip")
from arena.league_cli import app as league_app  # noqa: E402  # `arena league ...`
app.add_typer(league_app, name="league")

def main() -> None:
    """Entry point of the ``arena`` console script."""
    app()


if __name__ == "__main__":
    main()
