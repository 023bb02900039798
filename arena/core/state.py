"""The Game/State protocol every engine implements.

A :class:`Game` holds static facts and options (seat count, ruleset version,
presets, bounds); a :class:`State` is one position of one match and changes only
through :meth:`State.apply_action`. The verbs follow OpenSpiel:
``current_player()``, ``legal_actions()``, ``apply_action(a)``, ``is_terminal()``,
``returns()``, ``observation(seat)``, ``action_to_string(a)`` /
``string_to_action(text)``, ``clone()``, ``serialize()``.

Actions
    Where a game's actions are enumerable they are stable integer ids documented
    in the engine's docstring (``Game.action_space_size`` is then set). Where they
    are compound (a rummy layout, a canasta meld, a payment) the action is a
    hashable value object with a canonical text form; ``legal_actions()`` lists a
    useful canonical subset and every proposed action is validated by the engine.

Randomness
    Engines own no generator. Every shuffle goes through the state's
    :class:`~arena.core.dealing.Dealer`, created from ``seed`` or from stacked
    decks (``deck=`` for the first shuffle, ``decks=`` for several). The realized
    decks are kept, so a serialized state replays without the seed. There are no
    chance nodes: ``is_chance_node()`` is always ``False`` (kept for callers
    written against OpenSpiel); a whole shuffle is one draw from the dealer, which
    is what lets a duplicate deal be replayed exactly and stacked from a file.

Hidden information
    ``observation(seat)`` returns a frozen dataclass with exactly what that seat
    may see. ``hidden_positions(seat)`` names the realized deck positions whose
    cards the seat cannot know; the conformance suite exchanges cards between such
    positions, replays, and checks that the observation does not change.

The base class owns the public methods (legality check, history, legal-action
cache); a game writes the ``_``-prefixed hooks.
"""

from __future__ import annotations

import copy
import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields, is_dataclass
from typing import Any, ClassVar, Hashable, TypeAlias

from arena.core.dealing import Dealer
from arena.core.errors import GameOverError, IllegalActionError, InvalidActionError

__all__ = [
    "Action",
    "ActionId",
    "SeatIndex",
    "TERMINAL",
    "Game",
    "State",
    "Observation",
    "observation_to_dict",
]

ActionId: TypeAlias = int
"""A stable integer action id (enumerable games)."""
Action: TypeAlias = Hashable
"""An action: an :data:`ActionId` or a game's frozen action value."""
SeatIndex: TypeAlias = int
"""A seat, 0 .. num_players - 1."""

TERMINAL: SeatIndex = -4
"""``current_player()`` of a terminal state (OpenSpiel's kTerminalPlayerId)."""


def observation_to_dict(obs: Any) -> Any:
    """A JSON-ready form of an observation (dataclasses, tuples, enums, mappings)."""
    if is_dataclass(obs) and not isinstance(obs, type):
        return {f.name: observation_to_dict(getattr(obs, f.name)) for f in fields(obs)}
    if isinstance(obs, Mapping):
        return {str(k): observation_to_dict(v) for k, v in obs.items()}
    if isinstance(obs, (list, tuple)):
        return [observation_to_dict(v) for v in obs]
    if isinstance(obs, (frozenset, set)):
        return sorted(observation_to_dict(v) for v in obs)
    if isinstance(obs, bool) or obs is None:
        return obs
    if isinstance(obs, int) and type(obs) is not int:  # IntEnum
        return int(obs)
    return obs


class Observation:
    """Mixin for the frozen per-game observation dataclasses."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        out = observation_to_dict(self)
        assert isinstance(out, dict)
        return out

    def to_json(self) -> str:
        """Canonical JSON text (sorted keys); equal observations give equal text."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))


class Game(ABC):
    """Static facts and options of a game; a factory of initial states.

    Subclasses set the class attributes and implement :meth:`_new_state`.
    ``options`` are validated in ``__init__``; unknown options raise
    :class:`ValueError` naming them.
    """

    name: ClassVar[str]
    """Registry name, e.g. ``"bridge"``."""
    ruleset_version: ClassVar[int] = 1
    """Bumped on any change to rules, scoring or observations."""
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {"default": {}}
    """Named option sets; the conformance suite runs every one."""
    default_options: ClassVar[Mapping[str, Any]] = {}
    """Every option the game accepts, with its default."""
    action_space_size: ClassVar[int | None] = None
    """Number of action ids for enumerable games, ``None`` for compound actions."""
    zero_sum: ClassVar[bool] = False
    """Whether ``sum(returns()) == 0`` at every terminal state."""
    max_retries: ClassVar[int | None] = None
    """Further attempts the referee allows after a refused action, when the rules
    say (0: a refused action is replaced by ``default_action()`` at once); ``None``:
    the referee's default. A tournament may override it."""
    conformance_options: ClassVar[Mapping[str, Any]] = {}
    """Options the shared conformance test adds to every preset to keep a random
    match short (e.g. one deal instead of a game to 5000); the game's own tests
    cover the full length."""

    def __init__(self, **options: Any) -> None:
        preset = options.pop("preset", None)
        merged: dict[str, Any] = dict(self.default_options)
        if preset is not None:
            if preset not in self.presets:
                raise ValueError(f"{self.name}: unknown preset {preset!r}; "
                                 f"choose one of {', '.join(self.presets)}")
            merged.update(self.presets[preset])
        unknown = sorted(set(options) - set(self.default_options))
        if unknown:
            raise ValueError(f"{self.name}: unknown option(s) {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(self.default_options)) or 'none'}")
        merged.update(options)
        self.preset: str | None = preset
        self.options: dict[str, Any] = merged
        self._configure()

    def _configure(self) -> None:
        """Validate ``self.options`` and derive facts from them (override)."""

    # -- facts -----------------------------------------------------------
    @property
    @abstractmethod
    def num_players(self) -> int:
        """Number of seats."""

    @property
    @abstractmethod
    def max_game_length(self) -> int:
        """An upper bound on the number of actions in one match."""

    @property
    def ruleset(self) -> str:
        """Ruleset label ``name[_preset]@vN``; ratings are kept per ruleset."""
        tag = self.name if not self.preset or self.preset == "default" else f"{self.name}_{self.preset}"
        return f"{tag}@v{self.ruleset_version}"

    @abstractmethod
    def full_deck(self) -> list[str]:
        """Every card of the game in canonical order (for conservation checks)."""

    # -- states ----------------------------------------------------------
    def new_initial_state(self, *, seed: int | str | None = None,
                          deck: Sequence[str] | None = None,
                          decks: Sequence[Sequence[str]] | None = None,
                          **kwargs: Any) -> State:
        """A new match from a ``seed`` or from stacked decks.

        :param seed: the match seed, an integer or a string; every shuffle derives
            from it (default 0).
        :param deck: tokens, top first, used for the match's first shuffle.
        :param decks: tokens for the first ``len(decks)`` shuffles, in order.
        :param kwargs: game-specific (bridge: ``board``).
        :raises InvalidActionError: if a stacked deck is not a permutation of the
            cards being shuffled.
        """
        if deck is not None and decks is not None:
            raise ValueError("give deck= or decks=, not both")
        stacked = [list(deck)] if deck is not None else [list(d) for d in decks or ()]
        return self._new_state(Dealer(seed, stacked), **kwargs)

    @abstractmethod
    def _new_state(self, dealer: Dealer, **kwargs: Any) -> State:
        """Build the initial state, drawing shuffles from ``dealer``."""

    def deserialize_state(self, text: str) -> State:
        """Rebuild a state from :meth:`State.serialize` output.

        :raises ValueError: if the text is for another game or does not replay.
        """
        data = json.loads(text)
        if data.get("game") != self.name:
            raise ValueError(f"serialized state is for {data.get('game')!r}, not {self.name!r}")
        state = self.new_initial_state(seed=data.get("seed"), decks=data.get("decks") or None,
                                       **data.get("init", {}))
        for item in data.get("actions", []):
            state.apply_action(item if isinstance(item, int) else state.string_to_action(item))
        return state

    # -- optional presentation hooks (pure: they return text, never print) --
    def describe(self, state: State) -> str:
        """One line summing up a finished match (override for a richer line)."""
        return "returns " + " ".join(f"{r:g}" for r in state.returns())

    def score_sheet(self, state: State) -> list[dict[str, Any]]:
        """Rows of a per-deal score sheet of a finished match (override)."""
        return []

    def match_points(self, state: State) -> list[float]:
        """Per-seat points of a finished match in the game's own scoring unit.

        Default: ``returns()``. Games whose returns are a ranking rather than
        points (canasta: the result against the other sides) override it with the
        score each seat's side made, so a comparison can report point margins.
        """
        return list(state.returns())

    def own_points(self) -> bool:
        """Whether :meth:`match_points` is the game's own (overridden: canasta), so that
        records carry the points beside the returns and standings report them."""
        return type(self).match_points is not Game.match_points

    def margin_points(self, margin: float) -> float:
        """Convert a per-deal duplicate margin into the unit results are reported in.

        The margin is the mean, over the rotations of one seeded deal, of the score
        difference between two entrants. Default: unchanged (points); bridge: IMPs.
        """
        return margin

    def seat_name(self, seat: SeatIndex) -> str:
        """Display name of a seat."""
        return str(seat)

    def teams(self) -> list[list[SeatIndex]]:
        """Partnerships as lists of seats (solo games: one seat per team)."""
        return [[s] for s in range(self.num_players)]

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"


class State(ABC):
    """One position of one match; see the module docstring."""

    def __init__(self, game: Game, dealer: Dealer, init: Mapping[str, Any] | None = None) -> None:
        self.game = game
        self.dealer = dealer
        self.history: list[Action] = []
        self._init_kwargs: dict[str, Any] = dict(init or {})
        self._legal_cache: list[Action] | None = None

    # -- the protocol ----------------------------------------------------
    @abstractmethod
    def current_player(self) -> SeatIndex:
        """The seat to act, or :data:`TERMINAL`."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the match is over."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Per-seat results of the match (cumulative so far before the end)."""

    @abstractmethod
    def observation(self, seat: SeatIndex) -> Any:
        """What ``seat`` may see now, as the game's frozen observation dataclass."""

    @abstractmethod
    def _legal_actions(self) -> list[Action]:
        """Legal actions of the current player, sorted, no duplicates."""

    @abstractmethod
    def _apply_action(self, action: Action) -> None:
        """Apply a validated action."""

    @abstractmethod
    def action_to_string(self, action: Action) -> str:
        """Canonical text of an action."""

    @abstractmethod
    def string_to_action(self, text: str) -> Action:
        """Parse canonical (or lenient) text.

        :raises InvalidActionError: if the text is not an action of this game.
        """

    @abstractmethod
    def card_locations(self) -> Mapping[str, Iterable[str]]:
        """Every card of the game by location (hands, stock, piles, melds, tricks)."""

    @abstractmethod
    def hidden_positions(self, seat: SeatIndex) -> list[tuple[int, int]]:
        """Realized deck positions ``(shuffle index, position)`` whose card ``seat`` cannot know.

        A game may leave out positions (fewer checks) but must never list a
        position whose card the seat's observation reveals, now or earlier.
        """

    # -- base-class machinery ----------------------------------------------
    def is_chance_node(self) -> bool:
        """Always ``False``: shuffles come from the dealer, not from chance actions."""
        return False

    def legal_actions(self) -> list[Action]:
        """Legal actions of the current player (empty at terminal states)."""
        cache = self._legal_cache
        if cache is None:
            cache = self._legal_cache = [] if self.is_terminal() else self._legal_actions()
        return cache

    def apply_action(self, action: Action) -> None:
        """Validate and apply ``action`` for the current player.

        :raises GameOverError: if the match is over.
        :raises InvalidActionError: if the action is malformed or out of range.
        :raises IllegalActionError: if the rules forbid it, with the reason.
        """
        if self.is_terminal():
            raise GameOverError("the match is over; no action can be applied")
        self.validate(action)
        self._apply_action(action)
        self.history.append(action)
        self._legal_cache = None

    def validate(self, action: Action) -> None:
        """Raise if ``action`` is not legal now; games with compound actions override."""
        size = self.game.action_space_size
        if size is not None and (type(action) is not int or not 0 <= action < size):
            if isinstance(action, bool) or not isinstance(action, int):
                raise InvalidActionError(f"action must be an integer id, got {action!r}")
            raise InvalidActionError(f"action id {action} is outside 0..{size - 1}")
        if action not in self.legal_actions():
            raise IllegalActionError(self.illegal_reason(action))

    def illegal_reason(self, action: Action) -> str:
        """Why a well-formed ``action`` is illegal now (override for precise reasons)."""
        return f"{self.action_to_string(action)} is not legal now"

    def default_action(self) -> Action:
        """The action the referee applies for a seat that gave no legal one."""
        return self.legal_actions()[0]

    def clone(self) -> State:
        """An independent copy (override for speed)."""
        return copy.deepcopy(self)

    def serialize(self) -> str:
        """JSON text: game, options, seed, realized decks and the action history.

        Enumerable games store action ids; compound games store each action's
        canonical text, which for them must not depend on the position.
        """
        return json.dumps({
            "game": self.game.name,
            "preset": self.game.preset,
            "options": self.game.options,
            "init": self._init_kwargs,
            "seed": self.dealer.seed,
            "decks": self.dealer.realized,
            "actions": self.history_strings(),
        }, sort_keys=True)

    def history_strings(self) -> list[Any]:
        """The history in serializable form: ids, or canonical texts for compound games."""
        if self.game.action_space_size is not None:
            return [int(a) for a in self.history]  # type: ignore[call-overload]  # enumerable: int ids
        return [self.action_to_string(a) for a in self.history]

    def __str__(self) -> str:
        return f"{type(self).__name__}(history={len(self.history)} actions)"


