"""The field movement of a duplicate tournament: which entrants sit at which
table for each deal (see :mod:`arena.tournaments.formats` for the schedules).

A pure function of the field's size, the units (sides) per table and the deal:
:mod:`arena.tournaments.config` asks it whether a field is large enough for
``movement = "field"``, :mod:`arena.tournaments.formats` expands the schedule with
it (and hands it on as ``formats.field_tables``).
"""

from __future__ import annotations

__all__ = ["field_tables"]


def field_tables(entrants: int, units: int, deal: int) -> list[tuple[int, ...]] | None:
    """The field movement's tables for one deal (entrant index per unit), or ``None``.

    ``None`` when the field is too small for two tables per deal (see
    :mod:`arena.tournaments.formats` for the schedules).

    >>> field_tables(4, 2, 0), field_tables(4, 2, 3)
    ([(3, 0), (1, 2)], [(0, 3), (2, 1)])
    >>> field_tables(6, 3, 1)
    [(2, 0, 4), (5, 3, 1)]
    """
    if units == 2:
        if entrants < 4:
            return None
        n = entrants + (entrants % 2)
        rounds = n - 1
        r, cycle = deal % rounds, (deal // rounds) % 2
        pairs = [(n - 1, r) if (r + cycle) % 2 == 0 else (r, n - 1)]
        for i in range(1, n // 2):
            a, b = (r + i) % rounds, (r - i) % rounds
            pairs.append((a, b) if cycle == 0 else (b, a))
        return [p for p in pairs if entrants not in p]  # drop the bye (phantom) table
    if units < 2 or entrants % units or entrants < 2 * units:
        return None
    m = entrants // units
    grid: list[list[int]] = [[-1] * units for _ in range(m)]
    for e in range(entrants):
        t, u = divmod(e, units)
        grid[(t + u * deal) % m][(u + deal) % units] = e
    return [tuple(row) for row in grid]
