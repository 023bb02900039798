"""Contract bridge: auction, play, duplicate and rubber scoring (rules/bridge.md).

Modules: :mod:`.actions` (card ids 0..51, call ids, auction legality), :mod:`.rules`
(options, presets, seats, the deck of given hands), :mod:`.cardmasks` (52-bit hands),
:mod:`.scoring` (Law 77 scores, IMPs, matchpoints, rubber pieces, boards),
:mod:`.state` (:class:`BridgeState`), :mod:`.observation` (:class:`BridgeObservation`),
:mod:`.game` (:class:`BridgeGame`). PBN lives in :mod:`arena.records.pbn`.

Seats and deal
    N=0, E=1, S=2, W=3; partners are two apart (N-S side 0, E-W side 1). Each deal
    shuffles the canonical 52-card list with ``dealer.shuffle(standard_deck())``;
    card ``j`` of the shuffled deck goes to seat ``(dealer + 1 + j) mod 4``.
    Duplicate: one board per match; ``new_initial_state(seed=..., board=N)`` (or
    ``deck=...``) takes dealer and vulnerability from board ``N`` (default 1).
    Rubber: the first deal is dealt by N, the deal rotates clockwise after every deal
    (passed-out ones too, and across rubbers); deal ``k`` of the match is the ``k``-th
    shuffle of the match's dealer.

Action ids (stable)
    ======== =====================================================================
    0..51    cards, id = suit*13 + rank (suit C=0 D=1 H=2 S=3; rank 2=0 .. A=12),
             i.e. :func:`arena.core.cards.card_index` (``2C``=0, ``AS``=51)
    52       ``P`` pass
    53       ``X`` double
    54       ``XX`` redouble
    55..89   bids, level-major: id = 55 + 5*(level-1) + strain, strain C=0 D=1 H=2
             S=3 N=4 (``1C``=55, ``1N``=59, ``3N``=69, ``7N``=89)
    ======== =====================================================================

    Text: cards ``AS``, calls ``P X XX 1C .. 7N`` (``NT``/``Pass`` also parse). ``2C``..``7S``
    are both a card and a bid: :meth:`BridgeState.string_to_action` reads them by phase.

Phases (:class:`Phase`)
    AUCTION -> PLAY -> OVER; a passed-out duplicate board goes AUCTION -> OVER; in
    rubber each new deal starts again at AUCTION until the match is OVER.

Who acts
    Auction: dealer first, then clockwise. Play: the opening leader is the declarer's
    left; when dummy is to play, ``current_player()`` is the declarer and the card
    comes from dummy's hand (``observation.playing_hand`` says which). Dummy's seat is
    never asked after the auction. A card that is the only legal one is still an
    ordinary action (so a history replays on any deal consistent with what a seat
    saw); the referee applies a single legal action without asking the bot (rules
    section 5, "Further rules") and tells nobody that it was forced.

Observation (:class:`BridgeObservation`, frozen; tokens, not ids)
    seat, phase ("auction"/"play"/"over"), scoring, board, deal, dealer,
    vulnerable (NS, EW), hand, auction (call tokens from the dealer), contract
    ("" / "Pass" / "4SX"), declarer, dummy, dummy_hand (after the opening lead),
    to_act, playing_hand, trick_leader, current_trick, tricks ((leader, 4 cards,
    winner), ...), tricks_won (NS, EW), games, part_scores, score (NS, EW).

Returns
    Duplicate: the N-S board score to N and S, its negation to E and W. Rubber: N-S
    points minus E-W points (all rubbers of the match) to N and S, negated for E-W.
    Zero-sum.

Rule decisions (beyond rules/bridge.md section 12)
    * Forced single cards are actions in the history; skipping the bot is the
      referee's job (see "Who acts").
    * A match is one rubber by default (option ``rubbers``; the rules' "rubber match"
      of R=2 rubbers is ``rubbers=2``). ``deal_cap`` (default 30, counting passed-out
      deals) ends an unfinished rubber with the Law 80 bonuses (300 for the only side
      with a game, 100 for the only side with a part-score in the current game).
    * Honours (option ``honours``, rubber only, default off) use the dealt hands.
    * Incomplete-rubber and rubber bonuses go above the line of the side.
    * In rubber, hands are not revealed to bots after a deal (the rules allow, not
      require, it).
    * ``Game.describe`` and ``score_sheet`` are text/rows for people, not for bots.
    * Contract text writes notrump ``NT`` (``3NT``, ``7NTXX``, PBN style); call tokens
      write it ``N`` (``3N``).
    * ``score`` in a duplicate observation is (0, 0) until the board is over; then the
      scoring side's entry holds its positive score.

Version history
    * v1 (2026-11-29): first version.
"""

from __future__ import annotations

from arena.core.descriptor import GameDescriptor
from arena.games.bridge.actions import Call
from arena.games.bridge.game import BridgeGame
from arena.games.bridge.observation import BridgeObservation
from arena.games.bridge.state import BridgeState, DealRecord, Phase

__all__ = ["DESCRIPTOR", "GAME", "BridgeGame", "BridgeState", "BridgeObservation", "Call", "DealRecord", "Phase"]

GAME = BridgeGame
"""The registered game class."""

DESCRIPTOR = GameDescriptor(
    "bridge", BridgeGame, BridgeObservation, proto_field="bridge", bots="arena.bots.bridge",
    replay="bridge", per_seat=())
"""What the layers above the engine read of bridge (:mod:`arena.core.descriptor`)."""
