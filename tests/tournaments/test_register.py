"""``service.register`` is idempotent for a stored tournament: the stored specs are
the truth, so a format whose first round depends on the clock (the ladder's rate
limit stamps ``scheduled_at``) registers again without a conflict."""

from __future__ import annotations

import pytest

from arena.store import SpecConflictError, Store
from arena.tournaments import service
from arena.tournaments.config import example_path
from arena.tournaments.ladder import LadderFormat


def test_registering_a_stored_tournament_again_adds_nothing(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    store.migrate()
    monkeypatch.setattr(LadderFormat, "clock", staticmethod(lambda: 1000.0))
    config, added = service.register(example_path("ladder"), store)
    assert added > 0
    specs = store.specs(config.id)
    monkeypatch.setattr(LadderFormat, "clock", staticmethod(lambda: 5000.0))  # later: other stamps
    assert service.register(example_path("ladder"), store) == (config, 0)
    assert store.specs(config.id) == specs
    # a changed file is still refused
    changed = tmp_path / "ladder.toml"
    changed.write_text(example_path("ladder").read_text(encoding="utf-8").replace(
        "seed = ", "seed = 1", 1), encoding="utf-8")
    with pytest.raises(SpecConflictError):
        service.register(changed, store)
