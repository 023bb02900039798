"""Search bots over the public State protocol: determinized rollouts (``pimc``).

:mod:`.flat` searches over samples of a seat's information set
(:class:`arena.match.infoset.InformationSet`, which the referee builds: the cards
hidden from the seat re-dealt, the public history replayed, the observation checked
unchanged) with the game's heuristic bot as the rollout policy; each game's part is
its subclass of :class:`~.flat.DeterminizedAgent` in ``arena/bots/<game>.py``. The
bridge ``pimc`` bot (:mod:`arena.bots.bridge.pimc`) is a separate, double-dummy search.
"""

from arena.bots.search.flat import DeterminizedAgent, make_search_bot

__all__ = ["DeterminizedAgent", "make_search_bot"]
