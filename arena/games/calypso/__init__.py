"""Calypso: four players, two partnerships, a personal trump suit each.

Authority: ``shared/rules/calypso.md`` (from seed 000, section "Calypso"); its
section numbers are cited below.

Rules summary
-------------
* Seats N=0, E=1, S=2, W=3, play clockwise (``s + 1``); partnerships NS (side 0)
  and EW (side 1). Personal trumps: N hearts, E diamonds, S spades, W clubs.
* Four 52-card packs (208 cards, no jokers). A **game** is one shuffle of the
  canonical 208-card list (pack by pack; C, D, H, S; 2..A) followed by four deals.
  Deal ``d`` of a game uses pack positions ``52d .. 52d+51``, one card at a time
  from ``dealer + 1`` clockwise. The dealer of the match's deal ``n`` (counted
  across games) is ``(first_dealer + n) mod 4``; ``dealer + 1`` leads trick 1.
* Follow suit if able; a void player may play any card. Nobody must trump or beat.
* Trick winner (5.2): a card is a **trump** iff it is of its player's own suit and
  either led, or played by a follower void in the suit led (following with one's
  own suit is not trumping). Highest trump wins; with no trump the highest card
  of the suit led wins; at equal rank the earlier card wins (identical copies and
  equal-rank trumps alike). Any other card is a discard and never wins.
* Collection is automatic after every trick (6.2): for the winner, then the
  partner, cards of that player's suit join their calypso in progress in playing
  order unless the rank is there already (duplicate). When a calypso reaches 13
  ranks it is completed, and that trick's duplicates, in playing order, start the
  next calypso (a rank already there goes on). Remaining duplicates and all other
  cards (opponents' suits included) go to the winning side's pile. Calypsos and
  piles carry over between the deals of a game and are reset for a new game.
* Scoring after the 4th deal (7): per player 500 / 750 / 1000 / 1000 for the
  1st..4th completed calypso and 20 per card of the calypso in progress; per side
  10 per pile card. The side's score is the sum over its two players and its pile.
* Match (8): ``games`` games (default 1), or with ``target_score`` whole games
  until some side's cumulative total reaches it. Higher total wins; equal is a draw.

Options: ``games`` (int >= 1, default 1), ``target_score`` (int or None, default
None; overrides ``games``), ``first_dealer`` (seat 0..3, default 0). Preset:
``default`` only (the shared conformance suite runs every preset, and a
several-game preset would multiply its run time; ``games=2`` is checked by
``tests/games/calypso/test_calypso_conformance.py``).

Action ids
----------
The only decision is which card to play. ``action_space_size = 52``.

=========  ==============================================================
id         action
=========  ==============================================================
0..51      PLAY the card with index ``suit * 13 + rank``
           (:func:`arena.core.cards.card_index`): suits C=0, D=1, H=2, S=3;
           ranks 2=0 .. 9=7, T=8, J=9, Q=10, K=11, A=12.
           ``2C``=0, ``AC``=12, ``2D``=13, ``2H``=26, ``2S``=39, ``AS``=51.
=========  ==============================================================

The four copies of a card share one id. Text form: the card token (``QS``);
``string_to_action`` also accepts ``play QS``, lower case and ``10`` for ``T``.
Legal ids are sorted, so the referee's default (the first legal id) is the first
legal card in canonical order, as rules 5.1 require.

Observation layout (:class:`CalypsoObservation`, frozen)
---------------------------------------------------------
``seat``; ``to_play`` (-4 at the end); ``hand`` (own cards, canonical order,
copies repeated); ``hand_sizes`` (4); ``game_number`` (from 0); ``deal_number``
(0..3); ``dealer``; ``leader`` (of the current trick); ``trick_number`` (tricks
finished in this deal); ``current_trick`` (tokens in playing order from
``leader``); ``tricks`` (every finished trick of the current game as
:class:`CalypsoTrick` ``(leader, cards, winner)``); ``calypsos`` (per seat, the
tokens of the calypso in progress); ``completed`` (per seat); ``pile_sizes``,
``tricks_won``, ``game_points`` (current game's score if it ended now) and
``scores`` (cumulative totals of finished games), each per side (NS, EW);
``undealt`` (cards of the pack not yet dealt). Another seat's hand and the
undealt pack never appear; ``hidden_positions`` names the other hands' unplayed
cards of the current deal and every undealt position of the current game's pack.

Returns: per seat, its side's cumulative points (finished games plus the
current game as if it ended now; final at the end). Not zero-sum.

Rule decisions
--------------
The rules file's section 11 is settled and implemented as written (automatic
collection, duplicates to the pile, second copies start the next calypso, ties to
the earlier card, dealer rotating across games, default card = first legal in
canonical order). Where it is silent:

* ``returns()`` before the end include the current game's provisional score
  (rules 7 counts only at the end of a game; this is a running view).
* With ``target_score`` the number of games is bounded by ``ceil(target / 1040)``
  (every card scores at least 10), which gives ``max_game_length``.
* The pile's contents are public (rules 9 allows it) but only its size is in the
  observation; the contents follow from ``tricks``.
* Stacked decks: ``new_initial_state(deck=...)`` stacks the first game's 208-card
  pack; ``decks=[...]`` stacks several games.

Version history
---------------
* v1 (ruleset ``calypso@v1``): first version.
"""

from arena.core.descriptor import GameDescriptor
from arena.games.calypso.game import CalypsoGame
from arena.games.calypso.observation import CalypsoObservation, CalypsoTrick
from arena.games.calypso.rules import collect, side_points, trick_winner
from arena.games.calypso.sampling import void_groups
from arena.games.calypso.state import CalypsoState

__all__ = ["DESCRIPTOR", "GAME", "CalypsoGame", "CalypsoState", "CalypsoObservation", "CalypsoTrick",
           "collect", "side_points", "trick_winner"]

GAME = CalypsoGame

DESCRIPTOR = GameDescriptor(
    "calypso", CalypsoGame, CalypsoObservation, proto_field="calypso", bots="arena.bots.calypso",
    sampling=void_groups,
    replay="calypso", per_seat=("hand_sizes", "calypsos", "completed"))
"""What the layers above the engine read of calypso (:mod:`arena.core.descriptor`)."""
