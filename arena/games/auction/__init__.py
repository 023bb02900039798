"""Aukció (auction): collect a three-card combination of pictures bought with number cards.

The authority is ``shared/rules/auction.md`` (from seed 000, "Aukció francia kártya
játék"); section numbers below refer to it.

Rules summary
-------------
* 3 to 6 players (option ``players``, presets ``3p`` .. ``6p``). Three players use one
  pack and 3 jokers; four to six use two packs and 6 jokers. Pictures (J Q K A: 16 or
  32) form the picture stock; number cards 2-10 and the jokers (39 or 78) are money.
* Seat ``(i + 1) mod n`` is "to the right" of seat i: dealing, turning, bidding and
  ace draws go that way. The dealer of game g (0-based) of a match is seat ``g mod n``.
* Setup: 5 money cards each, money card j of the shuffled money stock going to seat
  ``(dealer + 1 + j) mod n``; the rest is the face-down stock.
* A round: the turner (dealer + 1 in round 1, then one seat further each round) turns
  the top picture. On an ace every other player draws one money card (turner + 1
  first). Then each eligible player (everyone but the buyer of the previous round),
  starting with the turner, is asked once: ``PASS`` or a bid that is a multiple of
  1000, at least 1000, above the high bid and at most the bidder's purchasing power.
  A player with no legal bid passes (see the rule decisions: the engine still makes
  it the current player, with ``PASS`` as its only legal action); everyone sees an
  ordinary pass. No bid: the picture goes to the public dead pile. Otherwise the
  high bidder pays (``PAY``), the paid cards go face up to the paid pile, the picture
  to the buyer's collection; a combination ends the game at once, else the buyer
  draws two money cards and is barred from the next round's bidding.
* Purchasing power: the sum of the number cards, plus the highest one again if the
  hand holds a joker. A legal payment holds at least one number card and at most one
  joker, is worth at least the bid (a joker doubles the highest number card of the
  payment) and is minimal (dropping any card makes it illegal or short). No change.
* Drawing from an empty money stock first reshuffles the paid pile (put in canonical
  order, then ``dealer.shuffle``) into a new stock; with nothing to reshuffle the draw
  is skipped.
* Combinations: J-Q-K or Q-K-A of one suit (no wrap); three cards of one rank in
  three different suits (two identical copies count once).
* The game ends when a buyer completes a combination (that player wins) or after the
  round that empties the picture stock (a draw, nobody wins).
* A match is ``games`` games (option; default n, so every seat deals once). Each game
  won scores 1 match point; drawn games score nothing. ``returns()`` are the match
  points (cumulative before the end; ``zero_sum`` is false). Ranking is by match
  points, equal players sharing a rank.

Shuffles (``seed=`` / ``deck=`` / ``decks=``)
---------------------------------------------
Every game's stocks are shuffled when the match is created, pictures first:
shuffle ``2g`` is game g's picture stock (canonical order: pack by pack, suits
C D H S, ranks J Q K A) and shuffle ``2g + 1`` its money stock (pack by pack, suits
C D H S, ranks 2..T, then the jokers). Index 0 is the top card. So ``deck=`` stacks
game 1's picture stock, ``decks=[pictures, money]`` game 1's whole deal, and
``decks`` of length ``2 * games`` every game's deal. Reshuffles of paid cards are the
shuffles ``2 * games``, ``2 * games + 1``, ... in the order they happen in the match;
each shuffles the paid pile in canonical multiset order (the k-th copy of a card
belongs to pack k: first copies in card order, then second copies, then jokers).
Shuffling all deals up front keeps game g's deal independent of play in earlier
games, so a seat-rotated replay meets the same cards in every game.

Actions (:mod:`arena.games.auction.actions`)
--------------------------------------------
Frozen values with a canonical text form (``action_space_size`` is ``None``):

========================  ==================  =====================================
value                     text                id
========================  ==================  =====================================
``Bid(0)`` (``PASS``)     ``PASS``            bid id 0
``Bid(k * 1000)``         ``BID 4000``        bid id k (``Bid.id``, ``Bid.from_id``)
``Pay(cards)``            ``PAY 6H 4C JK``    none (a multiset of money cards)
========================  ==================  =====================================

``Pay`` keeps its cards in canonical order: higher value first, equal values in suit
order C D H S, the joker last. Parsing is case-insensitive and accepts ``BID(4000)``,
``PAY(6H, 4C)`` and ``10H`` for ``TH``. ``legal_actions()`` when bidding lists ``PASS``
and every bid from ``min_bid`` to the purchasing power; when paying it lists every
minimal payment up to the choice of suits (equal values use the hand's cards in suit
order), at most 256 of them, plus the fallback payment; any legal payment is accepted.
Legal actions are ordered by amount (bids) or by value, card count, cards (payments).
``default_action()`` is ``PASS`` when bidding and the fallback payment of section 6
when paying. Illegal actions raise :class:`~arena.core.errors.IllegalActionError`
with the reason (below the high bid, above purchasing power, card not held, two
jokers, short, not minimal naming the card that could be dropped, wrong phase);
malformed ones (a bid not a multiple of 1000, not an action) raise
:class:`~arena.core.errors.InvalidActionError`.

Observation (:class:`AuctionObservation`, per seat)
---------------------------------------------------
=====================  ====================================================================
field                  meaning
=====================  ====================================================================
seat                   the observing seat
num_players            n
game_number            1-based number of the current game of the match
games_in_match         games in the match
dealer                 dealer of the current game
phase                  ``"bid"``, ``"pay"`` or ``"over"``
to_act                 seat asked now, -4 when the match is over
hand                   own money cards, canonical order (``6H 4C 3D JK``)
purchasing_power       own purchasing power (the highest bid this seat may make)
hand_sizes             number of money cards of every seat
collections            every seat's bought pictures, in order bought (public)
dead_pile              unsold pictures of this game, in order
paid_pile              cards in the paid pile (public), canonical order
picture_stock          pictures left face down
money_stock            money cards left in the stock
reshuffles             reshuffles of the paid pile so far in this game
round                  round number in this game (1-based; 0 before the first)
turner                 seat that turned the current picture
picture                the picture being auctioned, ``""`` if none
barred                 seat barred from this round's bidding (previous buyer), -1 none;
                       when ``phase == "pay"`` the payer is barred from the next round
bidding_order          seats asked this round, in order (the barred seat left out)
bids                   ``(seat, amount)`` so far this round, 0 for a pass (automatic too)
high_bid, high_bidder  current high bid (0) and its seat (-1); the winning bid when paying
min_bid                smallest legal bid now (``high_bid + 1000``)
match_points           games won by every seat so far
game_winners           winner of every finished game of the match, -1 for a draw
log                    public events of the current game (turns, bids, passes, payments
                       with their cards, who drew, reshuffles, dead pictures, the end)
=====================  ====================================================================

Another seat's money cards and any drawn card's identity never appear.
``hidden_positions(seat)``: undrawn pictures and undrawn money of the current game,
and the origins of the cards in other seats' hands.

Rule decisions
--------------
The rules file settles every open point (its section 13); the engine follows it,
with one representation choice:

* **Forced pass.** Section 5 passes a player without a legal bid "automatically,
  without being asked". The engine makes that player the current player with
  ``legal_actions() == [PASS]`` instead of skipping it. Skipping would make the
  position after a public action depend on hidden money (whether the next seat is
  asked or the bidding is over), so every other seat's observation at that moment
  would reveal it; the protocol's no-leak check fails on exactly that. With a
  forced decision the public sequence is the same whatever the hidden cards, and
  the pass looks like any other (section 13.19). A referee that applies a sole
  legal action without asking the bot gives the rules' "not asked" literally.

Other engine-level choices: every game's deal is shuffled at match creation
(above); the presets ``3p`` .. ``6p`` are one-game matches (``games=1``), while the
default options give the rules' match of n games; the paid pile is public card by
card; when several copies of a paid card are held, the one received first leaves
the hand (invisible to everyone); the log is per game.

Version history
---------------
* v1: first version.
"""

from __future__ import annotations

from arena.core.descriptor import GameDescriptor
from arena.games.auction.actions import PASS, Bid, Pay, parse_action
from arena.games.auction.game import AuctionGame
from arena.games.auction.observation import AuctionObservation
from arena.games.auction.state import AuctionState, Phase

__all__ = ["DESCRIPTOR", "GAME", "AuctionGame", "AuctionState", "AuctionObservation", "Bid", "Pay", "PASS",
           "Phase", "parse_action"]

GAME = AuctionGame

DESCRIPTOR = GameDescriptor(
    "auction", AuctionGame, AuctionObservation, proto_field="auction", bots="arena.bots.auction",
    replay="auction", per_seat=("hand_sizes", "collections"))
"""What the layers above the engine read of auction (:mod:`arena.core.descriptor`)."""
