"""Duplicate groups of tournament records: one table's seatings of a deal, never the
deal's other tables (whose results come against other opponents)."""

from __future__ import annotations

from itertools import combinations

import pytest

from arena.ratings.records import deal_group, rate_records
from arena.records.record import MatchRecord

ENTRANTS = ["a", "b", "c", "d"]


def _round_robin(deals: int = 12) -> list[MatchRecord]:
    """A 2-player duplicate round robin of four entrants in which every table is a tie
    between its two entrants (each scores the same with the same cards), while the
    tables with ``a`` at them score high for both seats and the others low (the game's
    points are not zero-sum): a comparison across tables would credit ``a`` with the
    tables' differences, which say nothing of who plays better."""
    records = []
    for deal in range(deals):
        for table, pair in enumerate(combinations(ENTRANTS, 2)):
            first = 30.0 if "a" in pair else -30.0
            for rotation, seats in enumerate((list(pair), list(reversed(pair)))):
                i = len(records)
                records.append(MatchRecord(
                    f"rr:{i:06d}", "rummy", "rummy@v1", "2p", {}, {}, i, [], seats,
                    returns=[first, first], terminal=True,
                    tags={"tournament_id": "rr", "deal": deal, "table": table, "rotation": rotation,
                          "entrants": seats}))
    return records


def test_a_tournament_record_is_grouped_with_its_own_table_only() -> None:
    records = _round_robin(1)
    assert [deal_group(r) for r in records[:4]] == ["rr:0:0", "rr:0:0", "rr:0:1", "rr:0:1"]
    field = records[0]
    field.tags["movement"] = "field"  # duplicate pairs: the whole field holds the deal
    assert deal_group(field) == "rr:0"
    field.tags["group"] = "mine"
    assert deal_group(field) == "mine"


def test_tied_tables_rate_every_entrant_alike() -> None:
    rating = rate_records(_round_robin())["rummy@v1"]
    assert rating.fit is not None and rating.notes == []
    values = [rating.fit.rating(e) for e in ENTRANTS]
    assert values == pytest.approx([0.0] * 4, abs=1e-6)
    # one game per deal and opponent: 12 deals x 3 opponents
    assert rating.fit.games.tolist() == [36.0] * 4
    # grouped by deal (every table of the deal together), as before, the same records
    # rated a +206 and the others -69 each, from 324 "games" per entrant
