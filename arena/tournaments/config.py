"""Tournament configuration: a TOML file read into a validated :class:`TournamentConfig`.

Layout (every key outside ``[tournament]`` and ``[[entrants]]`` is optional)::

    [tournament]
    id = "bridge-demo"          # letters, digits, '-', '_', '.'; used in match ids
    name = "Bridge demo"        # default: the id
    game = "bridge"             # a registered game (arena.games.list_games())
    preset = "duplicate"        # one of the game's presets (optional)
    format = "duplicate"        # round_robin | duplicate | gauntlet | swiss | ladder
    deals = 8                   # seeded deals; bridge may say boards = 8 instead
    boards_file = "set.pbn"     # bridge: play these boards (PBN; relative to this file);
                                # their numbers, dealers and vulnerabilities; deals/boards
                                # then optional: the first N boards of the file
    seed = 1                    # tournament seed (integer), default 0
    deadline_ms = 2000          # per decision, default 10000
    max_retries = 1             # optional: attempts after a refused action (default: the game's rule)

    [tournament.options]        # game options (checked by the game itself)

    [round_robin]
    rotations = "cyclic"        # cyclic | reversed | all (seatings per deal and table)

    [duplicate]
    mode = "teams"              # bridge: teams | pairs; other games: seats (default)
    movement = "auto"           # auto | rotation | field (pairs and seats only)
    scoring = "imps"            # teams: imps; pairs/seats: matchpoints | butler | cross_imps
    vp = true                   # teams: victory points per match (WBF 20-VP scale)

    [gauntlet]
    candidate = "new"           # an entrant id; every other entrant is the field
    [gauntlet.sprt]             # optional, passed on to arena.ratings (SprtFeeder)
    elo0 = 0
    elo1 = 10
    alpha = 0.05
    beta = 0.05
    pentanomial = true

    [swiss]                     # see arena.tournaments.swiss
    rounds = 5
    tiebreaks = ["buchholz", "median_buchholz", "sonneborn_berger", "head_to_head"]
    bye_score = 1.0
    seed = 1
    scoring = "vp"              # two sides: vp | wdl | matchpoints
    round_every = 86400         # optional schedule: round r not before start_at + r * round_every s
    start_at = "2026-01-05T18:00:00Z"   # the schedule's start (ISO 8601 or Unix seconds)

    [ladder]                    # see arena.tournaments.ladder
    concurrency = 8
    max_matches_per_entrant_per_hour = 60
    matchmaking = "rating"      # rating | random
    stop_after = 500
    rating = "batch"            # leaderboard: batch (Bradley-Terry, 95%) | glicko2 | openskill

    [[entrants]]
    id = "heur"
    bot = "heuristic"           # built-in bot -> "builtin:heuristic"
    options = { noise = 0.3 }   # optional: random legal action with probability 0.3
                                # (-> "builtin:heuristic?noise=0.3"; also bot = "heuristic?noise=0.3")
    [[entrants]]
    id = "mine"
    remote = "my-bot"           # a registered remote bot -> "remote:my-bot"
    # (bridge) bluechip = "BEN" # Blue Chip robots of team BEN at the run's TM -> "bluechip:BEN"

A board set (``boards_file``) is read when the file is parsed and kept in the document
as ``tournament.board_set`` (``[{board = 1, deal = "N:..."}, ...]``), so a stored
tournament carries its boards and reads without the PBN file; a changed PBN file is a
changed tournament. ``board_set`` may also be written by hand instead of a file.

A format's own table (``[round_robin]``, ``[duplicate]``, ...) is read by its format
class: ``Format.section`` names the table and ``Format.parse_settings(table, context)``
turns it into the format's settings value (:attr:`TournamentConfig.settings`), given a
:class:`SettingsContext` (the game, the entrants, the seed). The parsers of the built-in
formats' tables are here (``round_robin_settings`` ... ``ladder_settings``); a new
format with settings brings its own in its module, and this module is not touched. A
table of another registered format than ``tournament.format`` is an error.

Every error is a :class:`ConfigError` whose message starts with the dotted path of
the offending field, e.g. ``tournament.deals: must be a positive integer, got -3``.
Unknown keys are errors too (a misspelt key would otherwise be ignored silently).

>>> cfg = loads_config('''
... [tournament]
... id = "t"
... game = "auction"
... preset = "4p"
... format = "round_robin"
... deals = 2
... [[entrants]]
... id = "a"
... bot = "heuristic"
... [[entrants]]
... id = "b"
... bot = "random"
... ''')
>>> cfg.entrants[0].bot, cfg.deals, cfg.format
('builtin:heuristic', 2, 'round_robin')
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots import check_bot_spec, list_bots
from arena.records.pbn import Board
from arena.core.state import Game
from arena.games import get_game, list_games
from arena.tournaments.routes import ROUTES

__all__ = ["ConfigError", "ConfigWarning", "Entrant", "RoundRobinSettings", "DuplicateSettings",
           "GauntletSettings", "SwissSettings", "LadderSettings", "SettingsContext", "TournamentConfig",
           "round_robin_settings", "duplicate_settings", "gauntlet_settings", "swiss_settings",
           "ladder_settings", "table_of", "TIEBREAKS", "SWISS_SCORING", "MATCHMAKING",
           "load_config", "loads_config", "parse_config", "FORMATS", "example_path", "example_paths"]

FORMATS = ("round_robin", "duplicate", "gauntlet", "swiss", "ladder")
"""Known tournament formats."""

ROTATION_SCHEMES = ("cyclic", "reversed", "all")
MOVEMENTS = ("auto", "rotation", "field")
DUPLICATE_MODES = ("teams", "pairs", "seats")
DUPLICATE_SCORING = ("imps", "matchpoints", "butler", "cross_imps")

TIEBREAKS = ("buchholz", "median_buchholz", "sonneborn_berger", "head_to_head")
"""Swiss tie-breaks, in their default order (see :mod:`arena.tournaments.swiss`)."""
SWISS_SCORING = ("vp", "wdl", "matchpoints")
MATCHMAKING = ("rating", "random")


def ladder_ratings() -> tuple[str, ...]:
    """Ladder leaderboards: ``batch``, the Bradley-Terry fit, or an online rater with an
    interval of its own (every system of :data:`arena.ratings.factory.RATERS` whose
    ``interval_label`` is set: ``glicko2``, ``openskill``); see
    :mod:`arena.tournaments.ladder`. Read when a ``[ladder]`` table is parsed (the
    ratings package loads SciPy)."""
    from arena.ratings.factory import RATERS

    return ("batch", *(r.name for r in RATERS if r.interval_label))


_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_EXAMPLES = Path(__file__).with_name("examples")


class ConfigError(ValueError):
    """An invalid tournament file; the message starts with the field's dotted path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        """Dotted path of the offending field (``tournament.deals``, ``entrants[2].bot``)."""


class ConfigWarning(UserWarning):
    """A valid file that asks for something that cannot be done in full (e.g. more
    Swiss rounds than can avoid rematches); the message starts with the field."""


@dataclass(frozen=True)
class Entrant:
    """One entrant: an id unique in the tournament and a bot reference."""

    id: str
    bot: str
    """``<kind>:<name>``: ``builtin:<name>``, ``remote:<bot_id>``, ``bluechip:<team>`` (the kinds:
    :mod:`arena.tournaments.routes`)."""


@dataclass(frozen=True)
class SettingsContext:
    """What a format's settings parser may check its table against."""

    game: Game
    """The configured game (preset and options applied)."""
    entrants: tuple[Entrant, ...]
    seed: int
    """``tournament.seed``."""


@dataclass(frozen=True)
class RoundRobinSettings:
    """The ``[round_robin]`` section."""

    rotations: str = "cyclic"
    """Seating scheme per deal and table."""


@dataclass(frozen=True)
class DuplicateSettings:
    """The ``[duplicate]`` section (see the module docstring)."""

    mode: str = "seats"
    movement: str = "auto"
    scoring: str = "matchpoints"
    vp: bool = True


@dataclass(frozen=True)
class GauntletSettings:
    """The ``[gauntlet]`` section."""

    candidate: str
    sprt: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SwissSettings:
    """The ``[swiss]`` section (see :mod:`arena.tournaments.swiss`)."""

    rounds: int
    tiebreaks: tuple[str, ...] = TIEBREAKS
    bye_score: float = 1.0
    """A bye's result as a share of a win (1: a full point)."""
    seed: int = 0
    """Orders equal entrants (the initial ranking and the draw among equals)."""
    scoring: str = "wdl"
    """Two-sided encounters: ``vp`` (IMPs to WBF VPs / 20), ``wdl`` (win 1, draw 1/2
    on the total margin) or ``matchpoints`` (per deal 1 / 1/2 / 0, averaged)."""
    round_every: float | None = None
    """A schedule: round ``r`` is paired no earlier than ``start_at + r * round_every``
    (Unix seconds); ``None``: each round as soon as the one before is played."""
    start_at: float = 0.0
    """The schedule's start (Unix seconds)."""


@dataclass(frozen=True)
class LadderSettings:
    """The ``[ladder]`` section (see :mod:`arena.tournaments.ladder`)."""

    concurrency: int = 4
    """Encounters per batch (one batch is one round of the conductor)."""
    max_matches_per_entrant_per_hour: float | None = None
    """Encounters an entrant may start per hour (``None``: no limit)."""
    matchmaking: str = "rating"
    """``rating`` (few games / wide intervals first, close opponents) or ``random``."""
    stop_after: int | None = None
    """Stop after this many encounters (``None``: run until stopped)."""
    rating: str = "batch"
    """The leaderboard's ratings: ``batch`` (Bradley-Terry fit with 95% intervals),
    or an online rater with an interval of its own (:func:`ladder_ratings`: ``glicko2``,
    ``openskill``) fed every result in order; matchmaking
    always uses the batch fit (it needs the covariance)."""


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament; build it with :func:`load_config` or :func:`parse_config`."""

    id: str
    name: str
    game: str
    preset: str | None
    options: dict[str, Any]
    format: str
    entrants: tuple[Entrant, ...]
    deals: int
    """Number of seeded deals (bridge: boards 1..deals)."""
    seed: int
    deadline_ms: float
    settings: Any = None
    """The format's settings: what its class's ``parse_settings`` made of its table
    (:class:`RoundRobinSettings` ... :class:`LadderSettings` for the built-in formats;
    ``None`` for a format without settings)."""
    source: str | None = None
    """The file it was read from, if any."""
    max_retries: int | None = None
    """Further attempts after a refused action (``[tournament] max_retries``);
    ``None``: the game's rule (rummy and auction: a refused play is a pass)."""
    board_set: tuple[Board, ...] = ()
    """Bridge: the given boards (``boards_file``), deal ``i`` is ``board_set[i]``;
    empty: seeded deals, deal ``i`` is board ``i + 1``."""

    def make_game(self) -> Game:
        """The configured game (preset and options applied)."""
        return get_game(self.game, **({"preset": self.preset} if self.preset else {}), **self.options)

    def entrant(self, entrant_id: str) -> Entrant:
        """The entrant with that id.

        :raises KeyError: if there is none.
        """
        for e in self.entrants:
            if e.id == entrant_id:
                return e
        raise KeyError(entrant_id)

    @property
    def entrant_ids(self) -> list[str]:
        """Entrant ids in file order."""
        return [e.id for e in self.entrants]

    @property
    def rotations(self) -> str:
        """Round robin: the seating scheme per deal and table (other formats: cyclic)."""
        return self.settings.rotations if isinstance(self.settings, RoundRobinSettings) else "cyclic"

    @property
    def duplicate(self) -> DuplicateSettings | None:
        """The ``[duplicate]`` settings of a duplicate tournament, else ``None``."""
        return self.settings if isinstance(self.settings, DuplicateSettings) else None

    @property
    def gauntlet(self) -> GauntletSettings | None:
        """The ``[gauntlet]`` settings of a gauntlet, else ``None``."""
        return self.settings if isinstance(self.settings, GauntletSettings) else None

    @property
    def swiss(self) -> SwissSettings | None:
        """The ``[swiss]`` settings of a Swiss, else ``None``."""
        return self.settings if isinstance(self.settings, SwissSettings) else None

    @property
    def ladder(self) -> LadderSettings | None:
        """The ``[ladder]`` settings of a ladder, else ``None``."""
        return self.settings if isinstance(self.settings, LadderSettings) else None


# -- reading -------------------------------------------------------------------------------

def load_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament TOML file.

    :raises ConfigError: for invalid TOML (path ``<file>``) or an invalid field.
    :raises OSError: if the file cannot be read.
    """
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    return loads_config(text, source=str(p))


def loads_config(text: str, *, source: str | None = None) -> TournamentConfig:
    """Parse and validate TOML text.

    :raises ConfigError: see :func:`load_config`.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source or "<toml>", f"invalid TOML: {exc}") from None
    return parse_config(data, source=source)


def _unknown(table: dict[str, Any], known: set[str], path: str) -> None:
    extra = sorted(set(table) - known)
    if extra:
        where = f"{path}.{extra[0]}" if path else extra[0]
        raise ConfigError(where, f"unknown key; expected one of {', '.join(sorted(known))}")


def _table(data: dict[str, Any], key: str, path: str, *, required: bool = False) -> dict[str, Any] | None:
    if key not in data:
        if required:
            raise ConfigError(path, "missing table")
        return None
    value = data[key]
    if not isinstance(value, dict):
        raise ConfigError(path, f"must be a table, got {value!r}")
    return value


def _str(t: dict[str, Any], key: str, path: str, *, default: str | None = None,
         required: bool = False, choices: tuple[str, ...] | None = None) -> str | None:
    if key not in t:
        if required:
            raise ConfigError(f"{path}.{key}", "missing")
        return default
    v = t[key]
    if not isinstance(v, str) or not v:
        raise ConfigError(f"{path}.{key}", f"must be a non-empty string, got {v!r}")
    if choices is not None and v not in choices:
        raise ConfigError(f"{path}.{key}", f"must be one of {', '.join(choices)}, got {v!r}")
    return v


def _posint(t: dict[str, Any], key: str, path: str) -> int:
    v = t[key]
    if type(v) is not int or v <= 0:
        raise ConfigError(f"{path}.{key}", f"must be a positive integer, got {v!r}")
    return v


def parse_config(data: dict[str, Any], *, source: str | None = None) -> TournamentConfig:
    """Validate an already parsed TOML document (a dict).

    :raises ConfigError: naming the first invalid field.
    """
    from arena.tournaments.registry import format_class, format_names, sections

    owners = sections()  # every registered format's own table -> its format
    _unknown(data, {"tournament", "entrants", *owners}, "")
    t = _table(data, "tournament", "tournament", required=True)
    assert t is not None
    path = "tournament"
    _unknown(t, {"id", "name", "game", "preset", "options", "format", "deals", "boards", "seed",
                 "deadline_ms", "max_retries", "boards_file", "board_set"}, path)
    tid = _str(t, "id", path, required=True)
    assert tid is not None
    if not _ID_RE.match(tid):
        raise ConfigError("tournament.id", f"use letters, digits, '-', '_' and '.' only, got {tid!r}")
    name = _str(t, "name", path, default=tid) or tid
    game_name = _str(t, "game", path, required=True)
    assert game_name is not None
    if game_name not in list_games():
        raise ConfigError("tournament.game", f"unknown game {game_name!r}; known: {', '.join(list_games())}")
    preset = _str(t, "preset", path)
    options = _table(t, "options", "tournament.options") or {}
    fmt = _str(t, "format", path, required=True, choices=tuple(format_names()))
    assert fmt is not None

    # the game itself validates preset and options
    try:
        game = get_game(game_name, **({"preset": preset} if preset else {}), **options)
    except (ValueError, TypeError) as exc:
        where = "tournament.preset" if "preset" in str(exc) and preset else "tournament.options"
        raise ConfigError(where, str(exc)) from None

    if "deals" in t and "boards" in t:
        raise ConfigError("tournament.boards", "give deals or boards, not both")
    key = "boards" if "boards" in t else "deals"
    board_set = _board_set(t, game, fmt, source)
    if key not in t and not board_set:
        raise ConfigError("tournament.deals", "missing (the number of seeded deals; bridge: boards)")
    deals = _posint(t, key, path) if key in t else len(board_set)
    if board_set:
        if deals > len(board_set):
            n = len(board_set)
            raise ConfigError(f"tournament.{key}", f"{deals}, but the board set has {n} board{'' if n == 1 else 's'}")
        board_set = board_set[:deals]

    seed = t.get("seed", 0)
    if type(seed) is not int:
        raise ConfigError("tournament.seed", f"must be an integer, got {seed!r}")
    deadline = t.get("deadline_ms", 10_000.0)
    if type(deadline) not in (int, float) or not deadline > 0:
        raise ConfigError("tournament.deadline_ms", f"must be a positive number, got {deadline!r}")
    max_retries = t.get("max_retries")
    if max_retries is not None and (type(max_retries) is not int or not 0 <= max_retries <= 10):
        raise ConfigError("tournament.max_retries", f"must be an integer from 0 to 10, got {max_retries!r}")

    entrants = _entrants(data, game_name)

    for section, owner in owners.items():
        if section in data and owner != fmt:
            raise ConfigError(section, f"section given but tournament.format is {fmt!r}")
    cls = format_class(fmt)
    own = getattr(cls, "section", None)
    table = _table(data, own, own) if own else None
    settings = cls.parse_settings(table, SettingsContext(game, tuple(entrants), seed))

    return TournamentConfig(id=tid, name=name, game=game_name, preset=preset, options=dict(options),
                            format=fmt, entrants=tuple(entrants), deals=deals, seed=seed,
                            deadline_ms=float(deadline), settings=settings, source=source,
                            max_retries=max_retries, board_set=tuple(board_set))


def table_of(table: dict[str, Any] | None, section: str, keys: set[str], *, required: bool = False
             ) -> dict[str, Any]:
    """A format's table as its parser reads it: ``{}`` when absent (a
    :class:`ConfigError` ``<section>: missing table`` when ``required``), unknown keys
    refused."""
    if table is None:
        if required:
            raise ConfigError(section, "missing table")
        return {}
    _unknown(table, keys, section)
    return table


def round_robin_settings(table: dict[str, Any] | None, ctx: SettingsContext) -> RoundRobinSettings:
    """The ``[round_robin]`` table."""
    rr = table_of(table, "round_robin", {"rotations"})
    rotations = _str(rr, "rotations", "round_robin", default="cyclic", choices=ROTATION_SCHEMES) or "cyclic"
    if len(ctx.entrants) < 2:
        raise ConfigError("entrants", f"a round robin needs at least 2 entrants, got {len(ctx.entrants)}")
    return RoundRobinSettings(rotations=rotations)


def _board_set(t: dict[str, Any], game: Game, fmt: str, source: str | None) -> list[Board]:
    """The boards of ``boards_file`` (read now and written into ``t`` as
    ``board_set``) or of ``board_set``; empty without either."""
    from arena.core.cards import card_index
    from arena.records.pbn import Board, parse_deal, read_boards

    if "boards_file" not in t and "board_set" not in t:
        return []
    where = "tournament.board_set" if "board_set" in t else "tournament.boards_file"
    if game.name != "bridge" or game.options.get("scoring") != "duplicate":
        raise ConfigError(where, "a board set is for duplicate bridge (preset \"duplicate\")")
    if fmt not in ("round_robin", "duplicate", "gauntlet"):
        raise ConfigError(where, f"the {fmt} format plays seeded boards; a board set is for the "
                                 "duplicate, round_robin and gauntlet formats")
    if "board_set" not in t:
        name = _str(t, "boards_file", "tournament")
        assert name is not None
        file = Path(name).expanduser()
        if not file.is_absolute() and source and not source.startswith("store:"):
            file = Path(source).parent / file
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ConfigError("tournament.boards_file", f"cannot read {file}: {exc.strerror or exc}") from None
        try:
            boards = read_boards(text, source=str(file))
        except ValueError as exc:
            raise ConfigError("tournament.boards_file", str(exc)) from None
        t["board_set"] = [{"board": b.number, "deal": b.deal} for b in boards]
        return boards
    raw = t["board_set"]
    if not isinstance(raw, list) or not raw:
        raise ConfigError("tournament.board_set", "must be a non-empty array of {board = N, deal = \"N:...\"}")
    out: list[Board] = []
    seen: set[int] = set()
    for i, item in enumerate(raw):
        p = f"tournament.board_set[{i}]"
        if not isinstance(item, dict):
            raise ConfigError(p, f"must be a table {{board = N, deal = \"N:...\"}}, got {item!r}")
        _unknown(item, {"board", "deal"}, p)
        number = _posint(item, "board", p) if "board" in item else None
        if number is None:
            raise ConfigError(f"{p}.board", "missing")
        if number in seen:
            raise ConfigError(f"{p}.board", f"board {number} is listed twice")
        seen.add(number)
        try:
            hands = parse_deal(_str(item, "deal", p, required=True) or "")
        except ValueError as exc:
            raise ConfigError(f"{p}.deal", str(exc)) from None
        if any(len(h) != 13 for h in hands):
            raise ConfigError(f"{p}.deal", "must give all four hands")
        out.append(Board(number, tuple(tuple(sorted(h, key=card_index)) for h in hands)))
    return out


def _entrants(data: dict[str, Any], game: str) -> list[Entrant]:
    raw = data.get("entrants")
    if raw is None:
        raise ConfigError("entrants", "missing: add [[entrants]] tables with id and bot or remote")
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise ConfigError("entrants", "must be an array of tables ([[entrants]])")
    out: list[Entrant] = []
    seen: set[str] = set()
    builtins = list_bots(game)
    routes = {r.key: r for r in ROUTES.values()}  # each entrant kind's key: bot, remote, bluechip ...
    for i, e in enumerate(raw):
        path = f"entrants[{i}]"
        _unknown(e, {"id", "options", *routes}, path)
        eid = _str(e, "id", path, required=True)
        assert eid is not None
        if not _ID_RE.match(eid):
            raise ConfigError(f"{path}.id", f"use letters, digits, '-', '_' and '.' only, got {eid!r}")
        if eid in seen:
            raise ConfigError(f"{path}.id", f"duplicate entrant id {eid!r}")
        seen.add(eid)
        given = [key for key in routes if key in e]
        if len(given) != 1:
            keys = [f'{key} = "{r.entrant_hint}"' for key, r in routes.items()]
            raise ConfigError(path, f"give exactly one of {', '.join(keys[:-1])} or {keys[-1]}")
        via = routes[given[0]]
        if via.kind != "builtin":
            if via.games and game not in via.games:
                raise ConfigError(f"{path}.{via.key}", f"{via.players or via.kind + ' entrants'} play "
                                                       f"{', '.join(via.games)}, not {game}")
            if "options" in e:
                raise ConfigError(f"{path}.options", "options are for built-in bots (bot = ...)")
            try:
                ref = via.entrant_ref(_str(e, via.key, path) or "")
            except ValueError as exc:
                raise ConfigError(f"{path}.{via.key}", str(exc)) from None
        else:
            name = _str(e, "bot", path)
            assert name is not None
            if name.startswith("builtin:"):
                name = name[len("builtin:"):]
            base, _, query = name.partition("?")
            if base not in builtins:
                raise ConfigError(f"{path}.bot", f"unknown built-in bot {base!r} for {game}; "
                                                 f"built-in bots: {', '.join(builtins)}")
            bot_options = _table(e, "options", f"{path}.options") or {}
            try:
                spec = check_bot_spec(game, base + ("?" + query if query else ""))
            except ValueError as exc:
                raise ConfigError(f"{path}.bot", str(exc)) from None
            try:
                spec = check_bot_spec(game, spec, bot_options)
            except ValueError as exc:
                raise ConfigError(f"{path}.options", str(exc)) from None
            ref = f"builtin:{spec}"
        out.append(Entrant(eid, ref))
    return out


def duplicate_settings(table: dict[str, Any] | None, ctx: SettingsContext) -> DuplicateSettings:
    """The ``[duplicate]`` table."""
    game, k = ctx.game, len(ctx.entrants)
    d = table_of(table, "duplicate", {"mode", "movement", "scoring", "vp"})
    bridge = game.name == "bridge"
    if bridge and game.options.get("scoring") != "duplicate":
        raise ConfigError("tournament.options", "duplicate bridge needs scoring = \"duplicate\" "
                                                "(preset \"duplicate\")")
    units = len(game.teams())
    default_mode = "teams" if bridge else "seats"
    mode = _str(d, "mode", "duplicate", default=default_mode, choices=DUPLICATE_MODES) or default_mode
    if mode == "pairs" and not bridge:
        raise ConfigError("duplicate.mode", f"pairs is bridge's mode; use seats for {game.name}")
    if mode == "teams" and units != 2:
        raise ConfigError("duplicate.mode", f"teams needs a two-sided game; {game.name} has {units} units")
    default_scoring = "imps" if mode == "teams" else "matchpoints"
    scoring = _str(d, "scoring", "duplicate", default=default_scoring, choices=DUPLICATE_SCORING)
    assert scoring is not None
    if mode == "teams" and scoring != "imps":
        raise ConfigError("duplicate.scoring", f"a team match is scored in imps, got {scoring!r}")
    if mode != "teams" and scoring == "imps":
        raise ConfigError("duplicate.scoring", "use matchpoints, butler or cross_imps for pairs/seats")
    movement = _str(d, "movement", "duplicate", default="auto", choices=MOVEMENTS) or "auto"
    if mode == "teams" and movement == "field":
        raise ConfigError("duplicate.movement", "a team match is played in two rooms (rotation)")
    vp = d.get("vp", True)
    if not isinstance(vp, bool):
        raise ConfigError("duplicate.vp", f"must be true or false, got {vp!r}")
    if k < 2:
        raise ConfigError("entrants", f"a duplicate tournament needs at least 2 entrants, got {k}")
    if movement == "field":
        from arena.tournaments.movements import field_tables

        if field_tables(k, units, 0) is None:
            raise ConfigError("duplicate.movement",
                              f"a field movement needs at least two tables per deal: {units} units need "
                              + ("4 or more entrants" if units == 2 else
                                 f"a multiple of {units} entrants, at least {2 * units}")
                              + f", got {k}")
    return DuplicateSettings(mode=mode, movement=movement, scoring=scoring, vp=vp)


def gauntlet_settings(table: dict[str, Any] | None, ctx: SettingsContext) -> GauntletSettings:
    """The ``[gauntlet]`` table (required: it names the candidate)."""
    entrants = ctx.entrants
    g = table_of(table, "gauntlet", {"candidate", "sprt"}, required=True)
    cand = _str(g, "candidate", "gauntlet", required=True)
    ids = [e.id for e in entrants]
    if cand not in ids:
        raise ConfigError("gauntlet.candidate", f"{cand!r} is not an entrant id; entrants: {', '.join(ids)}")
    if len(entrants) < 2:
        raise ConfigError("entrants", "a gauntlet needs the candidate and at least one other entrant")
    sprt = _table(g, "sprt", "gauntlet.sprt") or {}
    _unknown(sprt, {"elo0", "elo1", "alpha", "beta", "pentanomial"}, "gauntlet.sprt")
    for key in ("elo0", "elo1", "alpha", "beta"):
        if key in sprt and type(sprt[key]) not in (int, float):
            raise ConfigError(f"gauntlet.sprt.{key}", f"must be a number, got {sprt[key]!r}")
    for key in ("alpha", "beta"):
        if key in sprt and not 0 < sprt[key] < 1:
            raise ConfigError(f"gauntlet.sprt.{key}", f"must be between 0 and 1, got {sprt[key]!r}")
    if "pentanomial" in sprt and not isinstance(sprt["pentanomial"], bool):
        raise ConfigError("gauntlet.sprt.pentanomial", f"must be true or false, got {sprt['pentanomial']!r}")
    assert cand is not None
    return GauntletSettings(candidate=cand, sprt=dict(sprt))


def _units_check(game: Game, section: str) -> int:
    units = len(game.teams())
    if game.name == "bridge" and game.options.get("scoring") != "duplicate":
        raise ConfigError("tournament.options", f"a {section} of bridge plays duplicate boards: use "
                                                "preset \"duplicate\" (scoring = \"duplicate\")")
    return units


def swiss_settings(table: dict[str, Any] | None, ctx: SettingsContext) -> SwissSettings:
    """The ``[swiss]`` table (see :mod:`arena.tournaments.swiss`)."""
    import math
    import warnings

    game, k, seed = ctx.game, len(ctx.entrants), ctx.seed
    sw = table_of(table, "swiss", {"rounds", "tiebreaks", "bye_score", "seed", "scoring", "round_every",
                                   "start_at"})
    units = _units_check(game, "Swiss")
    need = 2 if units == 2 else units
    if k < need:
        raise ConfigError("entrants", f"a Swiss of {game.name} needs at least {need} entrants, got {k}")
    # rounds in which nobody need meet anyone twice: a two-sided field meets n-1 others
    # (plus one bye each when odd); a table meets size-1 new entrants per round
    limit = (k - 1 + k % 2) if units == 2 else max(1, (k - 1) // (units - 1))
    rounds = _posint(sw, "rounds", "swiss") if "rounds" in sw else min(limit, max(1, math.ceil(math.log2(k))))
    if rounds > limit:
        warnings.warn(ConfigWarning(f"swiss.rounds: {rounds} rounds with {k} entrants cannot avoid "
                                    f"rematches (at most {limit}); rematches will be allowed"), stacklevel=2)
    tbs = sw.get("tiebreaks", list(TIEBREAKS))
    if not isinstance(tbs, list) or not all(isinstance(t, str) for t in tbs):
        raise ConfigError("swiss.tiebreaks", f"must be a list of names from {', '.join(TIEBREAKS)}, got {tbs!r}")
    for i, t in enumerate(tbs):
        if t not in TIEBREAKS:
            raise ConfigError(f"swiss.tiebreaks[{i}]", f"unknown tie-break {t!r}; known: {', '.join(TIEBREAKS)}")
    if len(set(tbs)) != len(tbs):
        raise ConfigError("swiss.tiebreaks", "a tie-break is listed twice")
    bye = sw.get("bye_score", 1.0)
    if isinstance(bye, bool) or not isinstance(bye, (int, float)) or not 0 <= bye <= 1:
        raise ConfigError("swiss.bye_score", f"must be a number in [0, 1] (a share of a win), got {bye!r}")
    sseed = sw.get("seed", seed)
    if type(sseed) is not int:
        raise ConfigError("swiss.seed", f"must be an integer, got {sseed!r}")
    default = "vp" if game.name == "bridge" else "wdl"
    scoring = _str(sw, "scoring", "swiss", default=default, choices=SWISS_SCORING) or default
    if units != 2 and scoring != "wdl":
        raise ConfigError("swiss.scoring", f"n-player tables compare entrants pairwise (wdl), got {scoring!r}")
    every = sw.get("round_every")
    if every is not None and (isinstance(every, bool) or not isinstance(every, (int, float)) or every <= 0):
        raise ConfigError("swiss.round_every", f"must be a positive number of seconds, got {every!r}")
    start = _start_at(sw.get("start_at", 0.0))
    if "start_at" in sw and every is None:
        raise ConfigError("swiss.start_at", "goes with round_every (the schedule's start)")
    return SwissSettings(rounds=rounds, tiebreaks=tuple(tbs), bye_score=float(bye), seed=sseed, scoring=scoring,
                         round_every=None if every is None else float(every), start_at=start)


def _start_at(value: Any) -> float:
    """``swiss.start_at``: Unix seconds, or an ISO 8601 text with a time zone."""
    from datetime import datetime

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            when = None
        if when is not None and when.tzinfo is not None:
            return when.timestamp()
    raise ConfigError("swiss.start_at", f"must be Unix seconds or an ISO 8601 time with a zone "
                                        f"(e.g. \"2026-01-05T18:00:00Z\"), got {value!r}")


def ladder_settings(table: dict[str, Any] | None, ctx: SettingsContext) -> LadderSettings:
    """The ``[ladder]`` table (see :mod:`arena.tournaments.ladder`)."""
    game, k = ctx.game, len(ctx.entrants)
    ld = table_of(table, "ladder", {"concurrency", "max_matches_per_entrant_per_hour", "matchmaking",
                                    "stop_after", "rating"})
    units = _units_check(game, "ladder")
    need = 2 if units == 2 else units
    if k == 0:
        raise ConfigError("entrants", "a ladder needs entrants: add [[entrants]] tables")
    if k < need:
        raise ConfigError("entrants", f"a ladder of {game.name} needs at least {need} entrants, got {k}")
    concurrency = _posint(ld, "concurrency", "ladder") if "concurrency" in ld else 4
    rate = ld.get("max_matches_per_entrant_per_hour")
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float)) or rate <= 0):
        raise ConfigError("ladder.max_matches_per_entrant_per_hour", f"must be a positive number, got {rate!r}")
    mm = _str(ld, "matchmaking", "ladder", default="rating", choices=MATCHMAKING) or "rating"
    stop = _posint(ld, "stop_after", "ladder") if "stop_after" in ld else None
    rating = _str(ld, "rating", "ladder", default="batch", choices=ladder_ratings()) or "batch"
    return LadderSettings(concurrency=concurrency,
                          max_matches_per_entrant_per_hour=None if rate is None else float(rate),
                          matchmaking=mm, stop_after=stop, rating=rating)


# -- examples ------------------------------------------------------------------------------

def example_paths() -> list[Path]:
    """The example tournament files shipped with the package (one per game), sorted."""
    return sorted(_EXAMPLES.glob("*.toml"))


def example_path(game: str) -> Path:
    """The shipped example tournament of ``game``.

    :raises FileNotFoundError: if there is none.
    """
    p = _EXAMPLES / f"{game}.toml"
    if not p.exists():
        raise FileNotFoundError(f"no example tournament for {game!r} in {_EXAMPLES}")
    return p
