"""Golden legal-action lists of canasta: the speed work changed nothing that is listed.

Digests of every legal-action list (as text) and the serialized end state of seeded
random playouts, recorded with the engine before the speed work (commit 5b65b43);
any change to what ``legal_actions()`` lists, or to its order, changes them. Also:
the listed melds and pickups, which ``validate`` accepts without re-checking when the
very listed object comes back, pass the full check (``problem``).
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.games.canasta import CanastaAction, CanastaState
from arena.testing.playouts import listing_digest, random_playout

GOLDEN: list[tuple[dict[str, Any], list[str]]] = [
    ({'preset': 'classic', 'deals': 1},
     ['fd3d7f7bbf3a3fd543b8', '28eb443fb6a9f17d8380', 'e12850c36a0f90606286']),
    ({'preset': 'classic-2p', 'deals': 1},
     ['c9216204b8539f3d6240', '2ef306b04d24c8ac05c7', 'eaa2c6c7905555888ab9']),
    ({'preset': 'classic-3p', 'deals': 1},
     ['6d4630e9edd334f32e20', '5d7bbab508f8d6052dbc', '58b70351da72c1158d94']),
    ({'preset': 'classic-004', 'deals': 1},
     ['eaa522f503e3acbad6f5', '24ea94079596421ff65b', 'b70011c5109cb4c85190']),
    ({'preset': 'hungarian', 'deals': 1},
     ['f0493f8ef8af5ad460a3', 'dd83c9bc94d104f73f10', '2049919c4705b4161e9d']),
    ({'preset': 'hungarian', 'players': 6, 'deals': 1},
     ['561c7a7a980e86750cd1', 'f01bf4df65dfb68aae16', '238c7e99f408f3a0c025']),
    ({'preset': 'classic', 'deals': 2},
     ['37252f2095af8ed23dad', 'ccbffbd0420c1c1c4982', '62e944b00451c4760b9d']),
]


@pytest.mark.parametrize("opts,digests", GOLDEN, ids=[repr(g[0]) for g in GOLDEN])
def test_golden_legal_action_lists(opts: dict[str, Any], digests: list[str]) -> None:
    assert [listing_digest("canasta", seed, **opts) for seed in range(len(digests))] == digests


@pytest.mark.parametrize("preset", ["classic", "hungarian", "classic-2p"])
def test_listed_actions_pass_the_full_check(preset: str) -> None:
    checked = 0
    for seed in range(3):
        for state, legal in random_playout("canasta", seed, "fast", preset=preset, deals=1):
            assert isinstance(state, CanastaState)
            for a in legal:
                assert isinstance(a, CanastaAction)
                assert state.problem(a) is None, (str(a), state.problem(a))
                # the engine's constructor normalizes as the public one does
                again = CanastaAction(a.kind, a.groups, a.card)
                assert again == a and again.sort_key() == a.sort_key() and str(again) == str(a)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("preset", ["classic", "hungarian", "classic-2p", "classic-3p"])
def test_direct_meld_check_agrees_with_the_full_check(preset: str) -> None:
    """Multi-group melds and pickups are checked by a direct test of their shape
    (``_meld_ok``; an opened side's melds by ``_opened_melds``), not by
    ``group_problem``; in every position of seeded random playouts both give the same
    melds (PLAY) and pickups (DRAW), and some of those are multi-group ones."""
    from arena.games.canasta.melds import listing_context, meld_candidates, take_candidates

    compared = taken = combined = 0
    for seed in range(12):
        for state, _legal in random_playout("canasta", seed, "direct", preset=preset, deals=1):
            assert isinstance(state, CanastaState)
            table = state._table()
            if state.phase.value == "play":
                ctx = listing_context(table)
                fast = sorted(str(a) for _raw, a in meld_candidates(table, ctx))
                assert fast == sorted(str(a) for _raw, a in meld_candidates(table, ctx, plain=True))
                combined += sum(1 for a in fast if " " in a[5:])
                compared += 1
            elif state.phase.value == "draw":
                picks = [str(a) for a in take_candidates(table)]
                assert picks == [str(a) for a in take_candidates(table, plain=True)]
                taken += len(picks)
                combined += sum(1 for a in picks if " " in a[5:])
    assert compared > 300 and taken > 20 and combined > 20


@pytest.mark.parametrize("preset", ["classic", "hungarian", "classic-2p"])
def test_kept_facts_and_pool_agree_with_their_definitions(preset: str) -> None:
    """The side's meld facts, brought up to date by every meld (``_apply_groups``), equal
    a recount from the melds; the one-pass pool of a hand (``hand_pool``) equals the pool
    of its sorted cards (``tokens_pool``)."""
    from arena.games.canasta.melds import hand_pool, sorted_tokens, tokens_pool
    from arena.games.canasta.rules import WILDS
    from arena.games.canasta.scoring import is_canasta

    checked = 0
    for seed in range(4):
        for state, _legal in random_playout("canasta", seed, "facts", preset=preset, deals=1):
            assert isinstance(state, CanastaState)
            for side in range(state.nsides):
                melds, canastas, stats = state._side_facts(side)
                assert melds is state.melds[side]
                assert canastas == sum(1 for k, c in melds.items() if is_canasta(k, c))
                assert stats == {k: (len(v), sum(1 for c in v if c in WILDS)) for k, v in melds.items()}
            for hand in state.hands:
                assert hand_pool(hand) == tokens_pool(sorted_tokens(hand.elements()))
            checked += 1
    assert checked > 200


def test_hand_score_to_dict_is_asdict_and_total() -> None:
    from dataclasses import asdict

    from arena.games.canasta.scoring import HandScore

    hs = HandScore(300, 200, 100, 85, -15)
    assert hs.to_dict() == {**asdict(hs), "total": 670}
    assert list(hs.to_dict()) == [*asdict(hs), "total"]
