"""The match record: everything needed to replay and verify one match.

A :class:`MatchRecord` is written once per match as one JSON object per line
(JSON Lines). It holds the game, ruleset and options, the seed and the realized
decks (so a replay never depends on the RNG), the bots at each seat, every action
with its seat and thinking time, the per-seat results and every fault the referee
handled. Ratings and standings are computed from records, so they can always be
recomputed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from typing import IO, Any

from arena.core.errors import DecodeError

__all__ = ["ActionEntry", "Fault", "MatchRecord", "dumps", "loads", "dump", "load", "read_records"]

RECORD_FORMAT = 1
"""Version of the record layout; bumped on incompatible changes."""


@dataclass(slots=True)
class ActionEntry:
    """One applied action."""

    seat: int
    """The seat that acted (the one asked; bridge: declarer for dummy's cards)."""
    action: str
    """Canonical text of the applied action."""
    id: int | None = None
    """Integer action id, for games with enumerable actions."""
    ms: float = 0.0
    """Wall time the agent took, in milliseconds (0 for defaults of absent agents)."""
    default: bool = False
    """Whether the referee applied its default instead of the agent's answer."""
    forced: bool = False
    """Whether it was the only legal action and was applied without asking."""


@dataclass(slots=True)
class Fault:
    """A decision the referee had to adjudicate."""

    seat: int
    step: int
    """Index of the decision in the action list."""
    kind: str
    """``timeout``, ``late``, ``invalid``, ``ambiguous``, ``illegal``, ``crash``, ``exception`` or ``absent``."""
    reason: str
    """Human-readable reason (as sent to the bot)."""
    answer: str = ""
    """What the agent answered, if anything (truncated to 200 characters)."""


@dataclass(slots=True)
class MatchRecord:
    """A finished (or aborted) match."""

    match_id: str
    game: str
    ruleset: str
    preset: str | None
    options: dict[str, Any]
    init: dict[str, Any]
    """Extra arguments of ``new_initial_state`` (bridge: ``board``)."""
    seed: int | str | None
    decks: list[list[str]]
    """Every realized shuffle, top card first."""
    seats: list[str]
    """Bot name at each seat."""
    actions: list[ActionEntry] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    points: list[float] = field(default_factory=list)
    """Per-seat points in the game's own unit (``Game.match_points``) for games whose
    ``returns`` are a ranking rather than points (canasta); empty otherwise (the
    returns are the points) and in records written before it existed."""
    faults: list[Fault] = field(default_factory=list)
    terminal: bool = False
    started_at: str = ""
    finished_at: str = ""
    tags: dict[str, Any] = field(default_factory=dict)
    """Free-form labels: tournament, deal index, rotation, room ..."""
    format: int = RECORD_FORMAT

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (equal to ``dataclasses.asdict(self)``, built without
        its generic deep copy, which cost more than the rest of storing a record)."""
        data = {name: getattr(self, name) for name in _RECORD_FIELDS}
        for name in ("options", "init", "tags"):
            data[name] = copy.deepcopy(data[name])
        data["decks"] = [list(deck) for deck in self.decks]
        data["seats"] = list(self.seats)
        data["returns"] = list(self.returns)
        data["points"] = list(self.points)
        data["actions"] = [{name: getattr(a, name) for name in _ACTION_FIELDS} for a in self.actions]
        data["faults"] = [{name: getattr(f, name) for name in _FAULT_FIELDS} for f in self.faults]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRecord:
        """Build from :meth:`to_dict` output.

        :raises KeyError, TypeError: on missing or unknown fields.
        """
        data = dict(data)
        data["actions"] = [ActionEntry(**a) for a in data.get("actions", [])]
        data["faults"] = [Fault(**f) for f in data.get("faults", [])]
        return cls(**data)


_RECORD_FIELDS = tuple(f.name for f in fields(MatchRecord))
_ACTION_FIELDS = tuple(f.name for f in fields(ActionEntry))
_FAULT_FIELDS = tuple(f.name for f in fields(Fault))


def dumps(record: MatchRecord) -> str:
    """One JSON line (no trailing newline)."""
    return json.dumps(record.to_dict(), separators=(",", ":"), sort_keys=True)


def loads(line: str, lineno: int = 0) -> MatchRecord:
    """Parse one JSON line.

    :raises DecodeError: with the line number, if it is not a record.
    """
    try:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise TypeError("a record must be a JSON object")
        return MatchRecord.from_dict(data)
    except json.JSONDecodeError as exc:
        text = line.strip()
        if text.startswith("{") and (not text.endswith("}") or exc.pos >= len(line.rstrip())):
            raise DecodeError("truncated record: the line ends before the record does; was the file "
                              "cut off while it was written?", line[:200], lineno) from None
        raise DecodeError(f"not a match record: {exc}", line[:200], lineno) from None
    except (ValueError, TypeError, KeyError) as exc:
        raise DecodeError(f"not a match record: {exc}", line[:200], lineno) from None


def dump(records: Iterable[MatchRecord], fp: IO[str]) -> None:
    """Write records as JSON Lines."""
    for r in records:
        fp.write(dumps(r) + "\n")


def read_records(fp: IO[str], errors: list[DecodeError] | None = None) -> Iterator[MatchRecord]:
    """Read records one at a time; bad lines are appended to ``errors`` (or raised)."""
    for lineno, line in enumerate(fp, 1):
        if not line.strip():
            continue
        try:
            yield loads(line, lineno)
        except DecodeError as exc:
            if errors is None:
                raise
            errors.append(exc)


def load(fp: IO[str]) -> list[MatchRecord]:
    """Every record of a JSON Lines file.

    :raises DecodeError: at the first bad line.
    """
    return list(read_records(fp))
