"""Presence is passed in: a ladder made with a presence seats the remote entrants
it says are connected, without any process-wide registration, and the conductor
hands its presence to the format it makes."""

from __future__ import annotations

from arena.store import Store
from arena.tournaments import service
from arena.tournaments.config import parse_config
from arena.tournaments.presence import AllPresent, Presence
from arena.tournaments.rounds import make_format


class Online:
    def __init__(self, *bots: str) -> None:
        self.bots = set(bots)

    def is_connected(self, bot_id: str) -> bool:
        return bot_id in self.bots


def _doc(tid: str = "pl") -> dict[str, object]:
    return {"tournament": {"id": tid, "game": "calypso", "format": "ladder", "deals": 1, "seed": 3},
            "ladder": {"concurrency": 3},
            "entrants": [{"id": f"e{i}", "bot": "random"} for i in range(4)]
            + [{"id": "far", "remote": "far-bot"}, {"id": "near", "remote": "near-bot"}]}


def test_a_ladder_asks_the_presence_it_was_given() -> None:
    cfg = parse_config(_doc())
    online = Online("near-bot")
    assert isinstance(online, Presence) and isinstance(AllPresent(), Presence)
    specs = make_format(cfg, presence=online).first_round(cfg.entrants)
    assert specs and all(s.tags["offline"] == ["far"] for s in specs)
    assert all("far" not in s.entrants for s in specs)
    everyone = make_format(cfg, presence=AllPresent()).first_round(cfg.entrants)
    assert all("offline" not in s.tags for s in everyone)
    again = service.first_round(cfg, presence=online)  # the same batch (but its clock time)
    assert [(s.entrants, s.tags["offline"]) for s in again] == [(s.entrants, s.tags["offline"]) for s in specs]


def test_the_conductor_passes_its_presence_to_the_next_round() -> None:
    store = Store("sqlite://")
    store.migrate()
    try:
        cfg = parse_config(_doc("pl2"))
        specs = service.first_round(cfg, presence=Online())
        assert all(s.tags["offline"] == ["far", "near"] for s in specs)
        store.add_tournament(cfg.id, cfg.name, cfg.game, _doc("pl2"), specs)
        from arena.tournaments.runner import play_spec

        for spec in specs:
            store.record_result(play_spec(spec))
        assert service.advance(store, cfg.id, presence=Online("far-bot", "near-bot")) == "pending"
        nxt = [s for s in store.specs(cfg.id) if s.round == 1]
        assert nxt and all("offline" not in s.tags for s in nxt)
        assert any("far" in s.tags["sides"] or "near" in s.tags["sides"] for s in nxt)
    finally:
        store.dispose()
