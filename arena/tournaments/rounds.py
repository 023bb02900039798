"""Formats play in rounds: the :class:`Format` protocol, the registry, and the
one-round formats (round robin, duplicate, gauntlet).

A format is an object made from a tournament's config (:func:`make_format`) with

``first_round(entrants)``
    the specs of round 0;
``next_round(tournament, records)``
    the specs of the next round, computed from the stored records of the rounds
    before (so a round is reproducible from the store and the seed), or ``None``
    when the event is over (``[]``: nothing to add yet, the conductor asks again
    at its next pass);
``standings(records)``
    the standings from records;
``stop_early(records)``
    optional: a reason to end the event before its schedule is played (a
    gauntlet's SPRT decision), else ``None``.

The conductor (:mod:`arena.tournaments.conductor`) asks for the next round when
every spec of the current one is done or has failed for good, and finalizes the
tournament when ``next_round`` returns ``None``. Specs of round ``r`` carry
``round = r`` and take the next free indexes (``make_match_id(tournament, index)``
with ``index`` counting on from the earlier rounds), so match ids stay stable.

Adding a format is one module with a :class:`Format` subclass decorated with
:func:`register_format` (and its name in ``tournament.format``), plus an import of
that module in :data:`arena.tournaments.registry.BUILTIN_MODULES` so the registry finds it.
A format with settings names its TOML table in ``section`` and reads it in
``parse_settings`` (a :class:`~arena.tournaments.config.ConfigError` for a bad value);
``config.settings`` then holds what it returned. The configuration is not touched.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from arena.records.spec import MatchSpec
from arena.tournaments.config import (DuplicateSettings, Entrant, GauntletSettings, RoundRobinSettings,
                                      SettingsContext, TournamentConfig, duplicate_settings,
                                      gauntlet_settings, round_robin_settings)
from arena.tournaments import registry
from arena.tournaments.presence import Presence

__all__ = ["Format", "TournamentView", "register_format", "unregister_format", "make_format", "format_names",
           "RoundRobinFormat", "DuplicateFormat", "GauntletFormat", "SprtCheck"]

@dataclass(frozen=True)
class TournamentView:
    """What a format may know of a stored tournament when it pairs the next round."""

    id: str
    config: TournamentConfig
    round: int
    """The newest round added so far."""
    specs: Sequence[MatchSpec]
    """Every spec added so far, by index."""


class Format(ABC):
    """A tournament format (see the module docstring)."""

    name: ClassVar[str]
    section: ClassVar[str | None] = None
    """The format's own table in a tournament file (``[swiss]``), if it has settings."""
    presence: Presence | None = None
    """Which remote bots are connected now (:mod:`arena.tournaments.presence`), for a
    format that pairs only those present (the ladder); set by :func:`make_format`."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config

    @classmethod
    def parse_settings(cls, table: dict[str, Any] | None, context: SettingsContext) -> Any:
        """The format's settings from its ``section`` table (``None`` when the file has
        none), checked against the game and entrants: ``config.settings``. Raises
        :class:`~arena.tournaments.config.ConfigError` naming the field. Default: no
        settings (``None``)."""
        return None

    @abstractmethod
    def first_round(self, entrants: Sequence[Entrant]) -> list[MatchSpec]:
        """The specs of round 0."""

    def next_round(self, tournament: TournamentView, records: Iterable[Any]) -> list[MatchSpec] | None:
        """The specs of the round after ``tournament.round``, or ``None`` when the
        event is over (one-round formats: always ``None``)."""
        return None

    def standings(self, records: Iterable[Any]) -> Any:
        """The :class:`~arena.tournaments.standings.Standings` from records. Default:
        every entrant's matches, wins and points over the records as a round robin's
        table (:func:`~arena.tournaments.standings.table_standings`)."""
        from arena.tournaments.standings import table_standings

        return table_standings(self.config, records)

    def stop_early(self, records: Iterable[Any]) -> str | None:
        """A reason to stop before the schedule is played, or ``None``."""
        return None


F = TypeVar("F", bound=type[Format])


def unregister_format(name: str) -> None:
    """Remove a registered format (tests that register their own)."""
    registry.unregister(name)


def register_format(name: str) -> Callable[[F], F]:
    """Class decorator: register a :class:`Format` under ``tournament.format = name``
    (:mod:`arena.tournaments.registry`)."""
    def deco(cls: F) -> F:
        cls.name = name
        registry.register(name, cls)
        return cls
    return deco


def format_names() -> list[str]:
    """Registered format names, in registration order (the built-in ones first)."""
    return registry.format_names()


def make_format(config: TournamentConfig, *, presence: Presence | None = None) -> Format:
    """The format object of a config; ``presence`` tells it which remote bots are
    connected (the caller's router; default: :func:`arena.tournaments.presence.from_env`).

    :raises ValueError: for an unregistered format name.
    """
    fmt: Format = registry.build(config)
    fmt.presence = presence
    return fmt


class _OneRound(Format):
    """The whole schedule in round 0 (:func:`arena.tournaments.formats.expand`)."""

    def standings(self, records: Iterable[Any]) -> Any:
        from arena.tournaments.standings import standings

        return standings(self.config, records)

    def first_round(self, entrants: Sequence[Entrant]) -> list[MatchSpec]:
        from arena.tournaments.formats import expand

        if [e.id for e in entrants] != [e.id for e in self.config.entrants]:
            raise ValueError("a one-round format plays the config's entrants")
        return expand(self.config)


@register_format("round_robin")
class RoundRobinFormat(_OneRound):
    """Every table combination of the entrants, every deal, seats rotated."""

    section = "round_robin"

    @classmethod
    def parse_settings(cls, table: dict[str, Any] | None, context: SettingsContext) -> RoundRobinSettings:
        return round_robin_settings(table, context)


@register_format("duplicate")
class DuplicateFormat(_OneRound):
    """Duplicate teams, pairs or seats (see :mod:`arena.tournaments.formats`)."""

    section = "duplicate"

    @classmethod
    def parse_settings(cls, table: dict[str, Any] | None, context: SettingsContext) -> DuplicateSettings:
        return duplicate_settings(table, context)


@register_format("gauntlet")
class GauntletFormat(_OneRound):
    """The candidate against each field entrant; with ``[gauntlet.sprt]`` it stops
    as soon as the SPRT on the recorded results decides."""

    section = "gauntlet"

    @classmethod
    def parse_settings(cls, table: dict[str, Any] | None, context: SettingsContext) -> GauntletSettings:
        return gauntlet_settings(table, context)

    def stop_early(self, records: Iterable[Any]) -> str | None:
        check = SprtCheck.of(self.config)
        if check is None:
            return None
        decision = check(records)
        return None if decision is None else f"SPRT decided {decision} (LLR {check.llr:.3f}, " \
            f"bounds {check.bounds[0]:.3f} .. {check.bounds[1]:.3f})"


class SprtCheck:
    """A gauntlet's SPRT over recorded results.

    Each call refeeds the candidate's recorded results
    (:func:`arena.tournaments.standings.sprt_results`) to a fresh
    :class:`arena.ratings.Sprt` with the file's ``[gauntlet.sprt]`` settings (elo0,
    elo1, alpha, beta, pentanomial) and returns the decision (``"H0"``/``"H1"``
    value of :class:`arena.ratings.SprtDecision`) or ``None``. The LLR depends only on
    the counts, so refeeding gives the sequential test's value at this point.
    """

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.decision: str | None = None
        self.llr = 0.0
        self.bounds = (0.0, 0.0)

    @classmethod
    def of(cls, config: TournamentConfig) -> SprtCheck | None:
        """The check of a gauntlet with ``[gauntlet.sprt]``, else ``None``."""
        gauntlet = config.gauntlet
        if config.format != "gauntlet" or gauntlet is None or not gauntlet.sprt:
            return None
        return cls(config)

    def __call__(self, records: Iterable[Any]) -> str | None:
        from arena.ratings import Sprt, SprtDecision, SprtFeeder
        from arena.tournaments.standings import sprt_results

        assert self.config.gauntlet is not None
        params = dict(self.config.gauntlet.sprt)
        sprt = Sprt(float(params.get("elo0", 0.0)), float(params.get("elo1", 5.0)),
                    float(params.get("alpha", 0.05)), float(params.get("beta", 0.05)),
                    pentanomial=bool(params.get("pentanomial", False)))
        feeder = SprtFeeder(sprt, self.config.gauntlet.candidate)
        for result in sprt_results(self.config, records):
            feeder.add(result)
        self.llr, self.bounds = sprt.llr, (sprt.lower, sprt.upper)
        decided = sprt.decision != SprtDecision.CONTINUE
        self.decision = sprt.decision.value if decided else None
        return self.decision
