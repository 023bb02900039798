"""Canasta (placeholder docstring, replaced below)."""
from arena.games.canasta.actions import CanastaAction
from arena.games.canasta.game import CanastaGame
from arena.games.canasta.state import CanastaObservation, CanastaState, Phase

GAME = CanastaGame
__all__ = ["GAME", "CanastaAction", "CanastaGame", "CanastaObservation", "CanastaState", "Phase"]
