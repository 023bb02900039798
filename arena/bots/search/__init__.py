"""Search bots over the public State protocol: determinized rollouts (``pimc``).

:mod:`.infoset` samples a seat's information set (the cards hidden from it
re-dealt, the public history replayed, the observation checked unchanged);
:mod:`.flat` searches over those samples with the game's heuristic bot as the
rollout policy. The bridge ``pimc`` bot (:mod:`arena.bots.bridge.pimc`) is a
separate, double-dummy search.
"""

from arena.bots.search.flat import DeterminizedAgent, make_search_bot
from arena.bots.search.infoset import InformationSet

__all__ = ["DeterminizedAgent", "InformationSet", "make_search_bot"]
