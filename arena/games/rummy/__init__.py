"""Robber rummy (rablórömi): 2-6 players, two packs without jokers, a free-for-all table.

Rules (authority: ``rules/rummy.md``, ruleset ``rummy@v1``)
    104 cards (two 52-card packs, no jokers); 10 cards each, dealt one at a time
    from the dealer's right ((dealer + 1 + j) mod n gets shuffled card j); the rest
    is the stock. Each turn the player draws the top stock card automatically (none
    once the stock is empty) and then passes or plays. There is no discard. A play
    gives the whole table after it: every group must be a valid meld (a set: 3-4
    cards of one rank, suits all different; a run: 3-13 cards of one suit in
    sequence, ace low A-2-3 or high Q-K-A, never K-A-2), it may use only cards of the
    hand and the table, and the hand must end at least one card smaller than after
    the draw (table cards left out of the layout go into the hand). A player's first
    play (the initial meld) must keep every table meld unchanged and add only melds
    made from the hand; later plays may rearrange the whole table. Option
    ``strict_table`` (off) forbids taking table cards into the hand.

    The deal ends when a player empties the hand (+20 to that player), when the
    stock is empty and n turns in a row had no draw and no play (blocked, no
    winner), or after 1000 turns (safety cap, as blocked). The others score minus
    the value of their hand (2-10 face value; J, Q, K, A 10), or -10 per card for a
    player who never melded in the deal. Seats play in order 0, 1, ..., the dealer of
    the first deal is seat 0 and the deal passes to seat + 1.

    Match: ``deals`` deals (default ``None`` = one per seat), or with ``loss_limit``
    L deals until some total is -L or less (hard cap 50 deals). ``returns()`` are the
    cumulative scores. Options: ``players`` (2-6, default 4), ``deals``,
    ``loss_limit``, ``strict_table``. Presets: default (4 players), 2p, 4p, 6p; the
    shared conformance suite plays them with ``deals=2``.

Actions (compound values, ``action_space_size = None``): :class:`RummyAction`
    ``PASS`` and ``PLAY [4H 5H 6H 7H 8H] [QC QD QS]`` (the complete table after the
    play; melds and cards in canonical order, see :mod:`arena.games.rummy.melds`).
    ``legal_actions()`` lists ``PASS`` first and then, sorted by text, plays found by
    :mod:`arena.games.rummy.solver`: the best melds of the hand alone laid beside the
    table (most cards, then most points; exact DP) and up to 24 simple plays (one meld
    of the hand added; once melded, one hand card added to a table meld). The full
    table rearrangement (``solver.best_rearrangement``, ~30-250 ms median) is
    left to bots, so listing stays cheap for random playouts. Every listed play is
    valid. Any other layout may be
    proposed; ``apply_action`` validates it and raises :class:`IllegalActionError`
    naming the failed check: ``V2`` (a group is not a meld), ``V3`` (card not
    available), ``V4`` (hand would not shrink), ``V5``/``V6`` (initial meld touches the
    table), ``strict_table``; malformed text or more than 104 cards (``V1``) raise
    :class:`InvalidActionError`.

Observation (:class:`RummyObservation`, frozen)
    ``seat, num_players, deal, dealer, current_player, hand, drawn, table,
    stock_size, hand_sizes, melded, initial_meld_pending, blocked_turns, turn, scores,
    deals_won, strict_table, log``; ``log`` holds one :class:`RummyEvent` per turn of
    the current deal (``seat, drew, passed, played, taken``). Never another hand, the
    identity of another player's draw, or the stock.

Rule decisions (beyond ``rules/rummy.md`` section 14)
    * An invalid play raises; the referee's default action (``PASS``) then ends the
      turn, which is the rules' "restore the position, count as a pass".
    * The observation carries the public log as played/taken cards per turn, not the
      full before/after layouts (the table before a turn is the table after the
      previous one; the record keeps every layout).
    * The end-of-deal reveal is not in observations: each finished deal's hands are
      kept in ``RummyState.deal_results`` (with end, winner, turns and scores, which
      :meth:`RummyGame.score_sheet` turns into one row per deal).
    * Checks run in the order V1, V2, V5-V6 (initial meld only), V3, V4,
      ``strict_table``; the first failure is reported.
    * Each deal shuffles the canonical 104-card list (``standard_deck(2)``) with
      ``self.dealer.shuffle``; deal k of a match is shuffle k, so ``deck=`` stacks the
      first deal and ``decks=`` several.
    * Hidden positions (for the leak test): during a deal, the undrawn stock and the
      cards dealt or drawn to other seats, except one position per card those seats
      have played to the table; at the end of the match only the stock (the final
      scores reveal the hands).

Version history
    * v1 (2026-11): first version.
    * v1, internals only (issue 19, no change to rules, listings, observations or
      records): the observation and its log events in a module of their own
      (:mod:`arena.games.rummy.observation`, re-exported by :mod:`arena.games.rummy.game`),
      so that the engine and the solver can be compiled with mypyc (``ARENA_COMPILE=1``,
      see ``setup.py``); ``clone()`` copies attribute by attribute when compiled.
    * v1, internals only (issue 28, no change to rules, listings, observations or
      records): the one engine shape. :mod:`~arena.games.rummy.state` holds
      :class:`RummyState` (the compiled hot path, in place of ``game.py``),
      :mod:`~arena.games.rummy.game` :class:`RummyGame`, :mod:`~arena.games.rummy.actions`
      :class:`RummyAction` and ``PASS`` (from ``melds.py``), :mod:`~arena.games.rummy.rules`
      the options, presets and caps; :mod:`~arena.games.rummy.melds` keeps the cards and
      melds, :mod:`~arena.games.rummy.solver` the meld search.
"""

from arena.core.descriptor import GameDescriptor
from arena.games.rummy.actions import PASS, RummyAction
from arena.games.rummy.game import RummyGame
from arena.games.rummy.observation import RummyEvent, RummyObservation
from arena.games.rummy.state import RummyState

GAME = RummyGame

__all__ = ["DESCRIPTOR", "GAME", "PASS", "RummyAction", "RummyEvent", "RummyGame", "RummyObservation", "RummyState"]

DESCRIPTOR = GameDescriptor(
    "rummy", RummyGame, RummyObservation, proto_field="rummy", bots="arena.bots.rummy",
    replay="rummy", per_seat=("hand_sizes", "melded", "deals_won"))
"""What the layers above the engine read of rummy (:mod:`arena.core.descriptor`)."""
