"""Issue 28's change test for a rating system: a new :class:`Rater` subclass plus its
line in :data:`arena.ratings.factory.RATERS`, no other file touched, is made by name,
rejected with the known names when misspelt, rates records through ``arena ratings
--system`` with its own column labels, and is offered to ladders because it has an
interval of its own. The admin API's mapping is read from the proto's enum names, so
the real systems and the wire's values are checked to agree."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from arena.cli import app
from arena.ratings import factory
from arena.ratings.comparisons import Comparison
from arena.ratings.errors import RatingError
from arena.ratings.rater import Rater
from arena.ratings.result import BotId, MatchResult

runner = CliRunner()


class ScoreRater(Rater):
    """A toy system: a bot's rating is ``scale`` times its mean comparison score, its
    interval ``scale / sqrt(comparisons)``."""

    name = "score"
    label = "Mean score"
    interval_label = "± scale/sqrt(n)"

    def __init__(self, *, scale: float = 100.0) -> None:
        super().__init__()
        self.scale = scale
        self._sums: dict[tuple[str, BotId], tuple[float, float]] = {}

    def fresh(self) -> ScoreRater:
        return ScoreRater(scale=self.scale)

    def _value(self, ruleset: str, bot: BotId) -> tuple[float, float | None]:
        total, n = self._sums.get((ruleset, bot), (0.0, 0.0))
        return (self.scale * total / n, self.scale / math.sqrt(n)) if n else (0.0, None)

    def _apply(self, result: MatchResult, comparisons: list[Comparison]) -> None:
        for c in comparisons:
            for side, score in ((c.a, c.score), (c.b, 1.0 - c.score)):
                for b in side:
                    total, n = self._sums.get((result.ruleset, b), (0.0, 0.0))
                    self._sums[(result.ruleset, b)] = (total + score * c.weight, n + c.weight)
        for b in result.seats:
            self._sums.setdefault((result.ruleset, b), (0.0, 0.0))


@pytest.fixture()
def with_score_rater(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one line a new system adds: its class in RATERS."""
    monkeypatch.setattr(factory, "RATERS", (*factory.RATERS, ScoreRater))


def test_a_registered_system_is_made_by_name(with_score_rater: None) -> None:
    rater = factory.make_rater("score", scale=10.0)
    assert isinstance(rater, ScoreRater) and rater.scale == 10.0
    rater.record(MatchResult("g@1", ["a", "b"], [1, 0]))
    assert rater.summary("g@1", "a").rating == 10.0 and rater.summary("g@1", "b").rating == 0.0
    with pytest.raises(RatingError, match="bad parameters for 'score'"):
        factory.make_rater("score", k=16)
    with pytest.raises(RatingError, match="choose from elo, glicko2, openskill, score"):
        factory.make_rater("scroe")


def test_without_its_line_it_is_unknown() -> None:
    with pytest.raises(RatingError, match="unknown rating backend 'score'"):
        factory.make_rater("score")


def test_the_cli_rates_records_with_it_and_labels_its_columns(with_score_rater: None, tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    res = runner.invoke(app, ["play", "calypso", "--bots", "heuristic,random", "-n", "2",
                              "--records", str(records), "--no-details"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["ratings", "calypso", "-r", str(records), "--system", "score"])
    assert res.exit_code == 0, res.output
    assert "Mean score, ± scale/sqrt(n): the online rater's own rating and uncertainty" in res.output
    head = next(line for line in res.output.splitlines() if line.startswith("rank"))
    assert "Mean score" in head and "± scale/sqrt(n)" in head
    out: Any = json.loads(runner.invoke(app, ["ratings", "calypso", "-r", str(records), "-f", "json",
                                              "--system", "score"]).output)
    rows = out["rulesets"]["calypso@v1"]["rows"]
    assert {r["bot"] for r in rows} == {"heuristic", "random"}
    # two bots, every comparison between them: their mean scores sum to the scale
    assert sum(r["online"] for r in rows) == pytest.approx(100.0, abs=0.02)
    assert all(r["online_interval"] is not None for r in rows)


def test_a_ladder_offers_every_system_with_an_interval(with_score_rater: None) -> None:
    from arena.tournaments.config import ladder_ratings

    assert ladder_ratings() == ("batch", "glicko2", "openskill", "score")


def test_the_admin_api_maps_every_wire_value_to_a_registered_system() -> None:
    from arena.admin.v1 import admin_pb2
    from arena.gateway.admin import RATING_SYSTEMS

    assert set(RATING_SYSTEMS) == set(admin_pb2.RatingSystem.values())
    assert set(RATING_SYSTEMS.values()) == set(factory.BACKENDS)
    assert RATING_SYSTEMS[admin_pb2.RATING_SYSTEM_UNSPECIFIED] == "elo"
    assert RATING_SYSTEMS[admin_pb2.RATING_SYSTEM_GLICKO2] == "glicko2"
