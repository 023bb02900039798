"""Shared helpers for the bridge tests."""

from __future__ import annotations

from arena.core.dealing import SeedStream
from arena.games import get_game
from arena.games.bridge import BridgeState
from arena.games.bridge.actions import string_to_call
from arena.records.pbn import deal_from_pbn

ONE_SUIT_EACH = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
"""N holds every spade, E every heart, S every diamond, W every club."""


def stacked(deal: str = ONE_SUIT_EACH, board: int = 1, **options: object) -> BridgeState:
    """A duplicate board with the given PBN deal."""
    game = get_game("bridge", **options)
    from arena.games.bridge.scoring import board_dealer

    state = game.new_initial_state(deck=deal_from_pbn(deal, board_dealer(board)), board=board)
    assert isinstance(state, BridgeState)
    return state


def calls(state: BridgeState, text: str) -> None:
    """Apply space-separated call tokens."""
    for tok in text.split():
        state.apply_action(string_to_call(tok))


def play_randomly(state: BridgeState, seed: int = 0) -> None:
    """Random legal actions to the end."""
    rng = SeedStream(f"test|{seed}")
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))


def play_deal(state: BridgeState, seed: int = 0) -> None:
    """Random legal actions until the current deal is scored."""
    rng = SeedStream(f"deal|{seed}")
    done = len(state.records)
    while not state.is_terminal() and len(state.records) == done:
        state.apply_action(rng.choice(state.legal_actions()))
