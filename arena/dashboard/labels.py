"""How the dashboard names seats and sides, and says where a match stands with
those names (the engines' own texts use seat numbers).

Seats
-----
Bridge and calypso are played at a compass table: their seats keep the names
players use (``N``, ``E``, ``S``, ``W``). Every other game's seat is named by the
entrant holding it; when one entrant holds several seats the name gets its
occurrence, ``heuristic #1`` and ``heuristic #2``, so every seat's label is
unique. A seat without a known entrant is ``seat k`` (1-based).

Sides
-----
Bridge and calypso: ``N-S`` and ``E-W``. Other games: the distinct entrant names
of a side's seats joined with ``&`` (``heuristic & random``); when two sides
would read the same (an entrant playing itself), the seats' labels instead.

>>> from arena.games import get_game
>>> seat_labels(get_game("rummy"), ["heuristic", "random", "heuristic", "random"])
['heuristic #1', 'random #1', 'heuristic #2', 'random #2']
>>> seat_labels(get_game("bridge"), ["a", "b", "a", "b"])
['N', 'E', 'S', 'W']
>>> side_labels(get_game("canasta"), ["heuristic", "random", "heuristic", "random"])
['heuristic', 'random']
>>> side_labels(get_game("canasta"), ["x", "x", "x", "x"])
['x #1 & x #3', 'x #2 & x #4']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

__all__ = ["COMPASS_GAMES", "seat_labels", "side_labels", "named_status", "relabel_line"]

COMPASS_GAMES = frozenset({"bridge", "calypso"})
"""Games whose seats are named by the compass (N, E, S, W)."""
_COMPASS_SIDES = ("N-S", "E-W")


def seat_labels(game: Any, entrants: Sequence[str]) -> list[str]:
    """One unique display label per seat of ``game`` (see the module docstring)."""
    n = int(game.num_players)
    if game.name in COMPASS_GAMES:
        return [str(game.seat_name(s)) for s in range(n)]
    names = [str(entrants[s]) if s < len(entrants) and entrants[s] else f"seat {s + 1}" for s in range(n)]
    count = Counter(names)
    seen: Counter[str] = Counter()
    out = []
    for name in names:
        if count[name] > 1:
            seen[name] += 1
            out.append(f"{name} #{seen[name]}")
        else:
            out.append(name)
    return out


def side_labels(game: Any, entrants: Sequence[str]) -> list[str]:
    """One display label per side (partnership, or seat in solo games) of ``game``."""
    teams = [list(t) for t in game.teams()]
    if game.name in COMPASS_GAMES and len(teams) == 2:
        return list(_COMPASS_SIDES)
    seats = seat_labels(game, entrants)
    names = [str(entrants[s]) if s < len(entrants) and entrants[s] else seats[s] for s in range(len(seats))]
    out = [" & ".join(dict.fromkeys(names[s] for s in team)) for team in teams]
    if len(set(out)) < len(out):
        out = [" & ".join(seats[s] for s in team) for team in teams]
    return out


def relabel_line(game_name: str, line: str, labels: Sequence[str]) -> str:
    """A log line of ``game_name`` with its seat numbers replaced by ``labels``
    (auction's log says ``3 pays 4C for AS``; other games' lines are returned as they are).

    >>> relabel_line("auction", "round 2: 1 turns KH", ["a", "b", "c"])
    'round 2: b turns KH'
    >>> relabel_line("auction", "game 1: dealer 0 deals 5 each", ["a", "b", "c"])
    'game 1: dealer a deals 5 each'
    >>> relabel_line("auction", "2 pays 8C 4S for AD (13000)", ["a", "b", "c"])
    'c pays 8C 4S for AD (13000)'
    """
    if game_name != "auction":
        return line
    import re

    def name(m: re.Match[str]) -> str:
        s = int(m.group(2))
        return m.group(1) + (labels[s] if 0 <= s < len(labels) else m.group(2))

    line = re.sub(r"^()(\d+)(?= (?:draws|bids|passes|pays|wins|cannot)\b)", name, line)
    line = re.sub(r"(dealer )(\d+)(?= deals)", name, line)
    return re.sub(r"^(round \d+: )(\d+)(?= turns)", name, line)


def _signed(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return f"{v:+}" if isinstance(v, (int, float)) else str(v)


def named_status(game: Any, public: dict[str, Any], labels: Sequence[str], sides: Sequence[str],
                 terminal: bool) -> str | None:
    """Where the match stands, with seat and side labels, for the games whose own
    description names seats by number (canasta, rummy, auction); ``None`` for the others
    (their description already uses the seats' names)."""
    name = game.name
    if name == "canasta":
        scores = public.get("scores") or []
        parts = [f"{sides[i] if i < len(sides) else i}: {sc}" for i, sc in enumerate(scores)]
        hands = len(public.get("hand_scores") or [])
        head = f"hand {int(public.get('hand_number', 0)) + 1}" if not terminal else \
            f"{hands} hand{'s' if hands != 1 else ''} played"
        text = head + ("; " + "; ".join(parts) if parts else "")
        if terminal and scores:
            best = max(scores)
            top = [sides[i] for i, sc in enumerate(scores) if sc == best and i < len(sides)]
            text += "; " + ("winner " + top[0] if len(top) == 1 else "draw between " + ", ".join(top))
        return text
    if name == "rummy":
        scores = public.get("scores") or []
        won = public.get("deals_won") or []
        parts = [f"{labels[s]} {_signed(sc)}" for s, sc in enumerate(scores) if s < len(labels)]
        text = f"deal {int(public.get('deal', 0)) + 1}; scores " + ", ".join(parts)
        if terminal and scores:
            key = [(sc, won[s] if s < len(won) else 0) for s, sc in enumerate(scores)]
            best = max(key)
            top = [labels[s] for s, k in enumerate(key) if k == best and s < len(labels)]
            text += "; first " + ", ".join(top)
        return text
    if name == "auction":
        pts = public.get("match_points") or []
        parts = [f"{labels[s]} {p}" for s, p in enumerate(pts) if s < len(labels)]
        text = f"game {public.get('game_number', 1)} of {public.get('games_in_match', 1)}; games won: " + \
            ", ".join(parts)
        if terminal and pts:
            best = max(pts)
            top = [labels[s] for s, p in enumerate(pts) if p == best and s < len(labels)]
            text += "; " + ("no winner" if best == 0 else f"{top[0]} wins" if len(top) == 1 else
                            ", ".join(top) + " share first")
        return text
    return None
