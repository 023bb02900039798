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


def test_only_a_ladder_may_name_remote_bots_not_registered_yet(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from arena.tournaments.config import ConfigError, parse_config

    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    store.migrate()

    def config(fmt: str, bot: str) -> object:
        return parse_config({"tournament": {"id": "x", "game": "calypso", "format": fmt, "deals": 1},
                             "entrants": [{"id": "a", "bot": "random"}, {"id": "b", "remote": bot},
                                          {"id": "c", "bot": "heuristic"}]})

    with pytest.raises(ConfigError, match=r"^entrants\[1\]\.remote: bot 'later' is not registered"):
        service.check_registered(store, config("round_robin", "later"))
    assert service.check_registered(store, config("ladder", "later")) == ["later"]  # joins when registered
    store.bot_registry().register("later")
    assert service.check_registered(store, config("ladder", "later")) == []
    store.bot_registry().revoke("later")
    for fmt in ("round_robin", "ladder"):
        with pytest.raises(ConfigError, match="revoked"):
            service.check_registered(store, config(fmt, "later"))
