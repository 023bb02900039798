"""Step-by-step views of a stored match, computed with the engine.

A record is replayed action by action (as :func:`arena.records.replay.replay_record`
does); after the deal and after every action the table is captured as a *view*:

``public``
    The observation fields every seat sees identically (the auction, tricks,
    melds, piles, scores ...). A field whose value differs between two seats'
    observations is private to some seat, so it is never public.
``seats``
    Per seat, the fields that differ between seats (the hand, a drawn card ...),
    taken from that seat's own observation. Present only when ``reveal`` is true.

The hidden-cards rule of the dashboard: :func:`replay_views` reveals the seats
only for a record that ended (``record.terminal``); a match without a stored
record has no replay at all, and a record that did not end shows public fields
only.

Names: ``seat_labels`` and ``side_labels`` (:mod:`arena.dashboard.labels`) are what
the viewer calls the seats and sides (bridge and calypso: N, E, S, W and N-S, E-W;
other games: the entrants' names); ``status`` says where the match stands with
those names, and auction's log lines name the seats too. Bridge views at the end
of a deal (phase ``over``) carry ``dealt``: every seat's thirteen cards as dealt,
so the whole deal can be seen once the hands are played out (revealed records
only).
"""

from __future__ import annotations

from typing import Any

from arena.core.state import State, observation_to_dict
from arena.dashboard.labels import named_status, relabel_line, seat_labels, side_labels
from arena.games import get_descriptor, get_game
from arena.records.record import MatchRecord

__all__ = ["replay_views", "public_private", "LOG_TAIL"]

LOG_TAIL = 16
"""Growing log fields are cut to their last entries in each view."""
_SEAT_KEYS = frozenset({"seat", "side"})
_LOG_KEYS = frozenset({"log"})


def _trim(obs: dict[str, Any]) -> dict[str, Any]:
    out = dict(obs)
    for k in _LOG_KEYS & out.keys():
        v = out[k]
        if isinstance(v, list) and len(v) > LOG_TAIL:
            out[k] = v[-LOG_TAIL:]
    return out


def public_private(observations: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Split the seats' observations into the fields they all share (public) and
    each seat's own remainder (private).

    >>> pub, priv = public_private([{"seat": 0, "hand": ["AS"], "trick": []},
    ...                             {"seat": 1, "hand": ["KH"], "trick": []}])
    >>> pub, priv
    ({'trick': []}, [{'hand': ['AS']}, {'hand': ['KH']}])
    """
    first = observations[0]
    public = {k: v for k, v in first.items()
              if k not in _SEAT_KEYS and all(k in o and o[k] == v for o in observations[1:])}
    private = [{k: v for k, v in o.items() if k not in public and k not in _SEAT_KEYS}
               for o in observations]
    return public, private


def _describe(state: State) -> str:
    try:
        return str(state.game.describe(state))
    except Exception:  # noqa: BLE001 - a description is decoration
        return ""


class _Names:
    """The labels of one record's seats and sides, and how to apply them to a view."""

    def __init__(self, game: Any, entrants: list[str]) -> None:
        self.game = game
        self.seats = seat_labels(game, entrants)
        self.sides = side_labels(game, entrants)

    def status(self, state: State, public: dict[str, Any]) -> str:
        try:
            named = named_status(self.game, public, self.seats, self.sides, state.is_terminal())
        except Exception:  # noqa: BLE001 - a description is decoration
            named = None
        return named if named is not None else _describe(state)

    def log(self, public: dict[str, Any]) -> None:
        log = public.get("log")
        if isinstance(log, list):
            public["log"] = [relabel_line(self.game.name, x, self.seats) if isinstance(x, str) else x
                             for x in log]


def _view(state: State, n: int, reveal: bool, step: int, entry: Any,
          names: _Names | None = None) -> dict[str, Any]:
    obs = [_trim(observation_to_dict(state.observation(s))) for s in range(n)]
    public, private = public_private(obs)
    terminal = state.is_terminal()
    if names is not None:
        names.log(public)
    view: dict[str, Any] = {
        "step": step,
        "action": None if entry is None else {
            "seat": entry.seat, "text": entry.action, "default": entry.default, "forced": entry.forced},
        "to_act": None if terminal else state.current_player(),
        "terminal": terminal,
        "status": names.status(state, public) if names is not None else _describe(state),
        "public": public,
        # how many cards each seat holds: public in every one of these games
        "hand_counts": [len(p["hand"]) if isinstance(p.get("hand"), list) else None for p in private],
    }
    if reveal:
        view["seats"] = private
    return view


def replay_views(record: MatchRecord, *, reveal: bool | None = None) -> dict[str, Any]:
    """Every view of ``record`` (see the module docstring), JSON-ready.

    :param reveal: show the seats' private fields; default (and forced off):
        only when the record ended.
    :returns: ``{"match_id", "game", "seats" (entrant names), "seat_names" (the
        game's), "seat_labels", "side_labels", "sides" (seats per side), "revealed",
        "terminal", "returns", "steps": [view, ...], "error", "renderer", "per_seat"}``
        (the last two from the game's descriptor: the page's centre renderer, or
        ``None`` for the generic one, and the public lists indexed by seat); ``error`` is set
        (and ``steps`` holds the views up to it) if an action does not replay.
    """
    show = bool(record.terminal) if reveal is None else bool(reveal and record.terminal)
    game = get_game(record.game, **({"preset": record.preset} if record.preset else {}),
                    **record.options)
    n = game.num_players
    descriptor = get_descriptor(record.game)
    names = _Names(game, list(record.seats))
    out: dict[str, Any] = {
        "match_id": record.match_id, "game": record.game, "ruleset": record.ruleset,
        "seats": list(record.seats), "seat_names": [game.seat_name(s) for s in range(n)],
        "seat_labels": names.seats, "side_labels": names.sides,
        "sides": [list(t) for t in game.teams()],
        "revealed": show, "terminal": record.terminal,
        "returns": list(record.returns) if record.terminal else None,
        "steps": [], "error": None,
        # the game's descriptor: the replay page's renderer and the per-seat public lists
        "renderer": descriptor.replay, "per_seat": list(descriptor.per_seat),
    }
    if record.game == "calypso":
        from arena.games.calypso.rules import TRUMP

        out["seat_trumps"] = ["CDHS"[t] for t in TRUMP]  # each seat's personal trump suit
    steps: list[dict[str, Any]] = out["steps"]
    try:
        state = game.new_initial_state(seed=record.seed,
                                       decks=record.decks or None, **record.init)
        dealt = _Dealt(record.game, show)
        steps.append(dealt(_view(state, n, show, 0, None, names)))
        for i, entry in enumerate(record.actions, 1):
            if state.is_terminal():
                raise ValueError(f"action {i} comes after the end of the match")
            state.apply_action(state.string_to_action(entry.action))
            steps.append(dealt(_view(state, n, show, i, entry, names)))
    except Exception as exc:  # noqa: BLE001 - show what replays, report the rest
        out["error"] = f"{type(exc).__name__}: {exc}"
    return out


class _Dealt:
    """Bridge: remembers the hands of each deal as dealt (the first view of a deal),
    and gives them to the views at the deal's end (``dealt``), when revealed."""

    def __init__(self, game: str, reveal: bool) -> None:
        self.on = game == "bridge" and reveal
        self.deal: Any = None
        self.hands: list[list[str]] | None = None

    def __call__(self, view: dict[str, Any]) -> dict[str, Any]:
        if not self.on:
            return view
        pub = view["public"]
        seats = view.get("seats") or []
        if pub.get("deal") != self.deal and seats and all(isinstance(p.get("hand"), list) and p["hand"]
                                                          for p in seats):
            self.deal = pub.get("deal")
            self.hands = [list(p["hand"]) for p in seats]
        if pub.get("phase") == "over" and self.hands is not None:
            view["dealt"] = [list(h) for h in self.hands]
        return view
