"""Canasta bots: registry, determinism, legality, and a small heuristic-vs-random check."""

from __future__ import annotations

from arena.bots import list_bots, make_bot
from arena.games import get_game
from arena.match.referee import run_match


def test_registry() -> None:
    assert {"random", "heuristic"} <= set(list_bots("canasta"))


def _match(preset: str, bots: list[str], seed: int):
    g = get_game("canasta", preset=preset, deals=1)
    agents = [make_bot("canasta", b, seed=i) for i, b in enumerate(bots)]
    return run_match(g, agents, seed=seed, match_id=f"t{seed}")


def test_bots_play_legally_and_deterministically() -> None:
    for preset in ("classic", "hungarian", "classic-3p"):
        n = get_game("canasta", preset=preset).num_players
        bots = ["heuristic" if i % 2 == 0 else "random" for i in range(n)]
        a = _match(preset, bots, 3)
        b = _match(preset, bots, 3)
        assert not a.record.faults
        assert [e.action for e in a.record.actions] == [e.action for e in b.record.actions]


def test_heuristic_beats_random_small_sample() -> None:
    wins = 0
    for seed in range(6):
        r = _match("classic", ["heuristic", "random", "heuristic", "random"], seed)
        wins += r.record.returns[0] > 0
        r = _match("classic", ["random", "heuristic", "random", "heuristic"], seed)
        wins += r.record.returns[1] > 0
    assert wins >= 9  # of 12 (measured: about 90% of single hands)
