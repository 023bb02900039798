"""Canasta: the classic partnership game and the Hungarian *kanaszta*.

Authority: ``shared/rules/canasta.md`` (seeds 000 Hungarian, 001 classic, 004);
section numbers below refer to it. Ruleset label ``canasta_<preset>@v1``.

Rules summary
-------------
Two or more 52-card packs plus jokers; 2s and jokers are wild, red threes are
bonus cards placed at once, black threes stop the pile and are melded only when
going out. Sides (partnerships or single players) meld sets of 3+ cards of one
rank (4 to A) with at least 2 naturals and at most 3 wild cards (``max3_and_ratio``:
also no more wilds than naturals); 7+ cards is a canasta (natural 500, mixed
300). A turn: draw from the stock (``stock_draw`` cards; red threes placed and
replaced) or take the whole discard pile with cards justifying its top card,
then meld, then discard. The first action that melds for a side must reach the
opening minimum from the side's cumulative score (table of section 1.2), in one
action. A frozen pile (wild card in it, or a red-three upcard when
``red3_upcard_freezes``, or the side has not opened) needs two natural cards of
the top rank from the hand. After melding the player must keep 2 cards unless
the side has ``canastas_to_go_out`` canastas. Going out (empty hand, by a
discard, a meld or a pickup) ends the hand: +100, or +200 concealed (no earlier
meld this hand, no card added to older melds this turn, a canasta made this
turn; a concealed MELD needs no opening minimum). Stock exhaustion: classic
``continue`` (forced/optional pickups, otherwise the hand ends), hungarian
``one_last_take``; a red three as the last stock card ends the hand at once.
Scoring per side (section 12): canasta bonuses, red threes (+100 each, doubled
from 4; a side without melds loses them), going out, melded cards, minus cards
in hand. A match is a game to ``target`` (5000), or exactly ``deals`` hands.

Presets: ``classic`` (4 players, seats {0,2} v {1,3}), ``classic-2p`` (15 cards,
draw 2, 2 canastas to go out), ``classic-3p`` (13 cards, draw 2, 2 canastas),
``classic-004`` (ratio wild limit, +100 concealed canasta, red-three upcard does
not freeze), ``hungarian`` (2-8 players via ``players``; packs 2/3/4 by table
size, 3 jokers per pack; ``sides=individual|pairs|two_teams``; substituted wild
value and canasta opening; WILD meld of only wild cards, 1000 as a canasta;
black three in hand -100; concealed going out doubles the others' hand cards;
dealt red threes placed at the holder's first turn). Every parameter of the
table in section 1.1 is an option (see ``rules.DEFAULT_OPTIONS``), plus
``deals`` (the rules' ``fixed_hands``; 0 = play to target), ``max_hands`` (60),
``max_actions`` (safety cap) and ``first_dealer``. ``new_initial_state`` also
takes ``first_dealer=`` and ``start_scores=[...]`` (per side, for tests and
continued games).

Actions (``action_space_size = None``)
--------------------------------------
:class:`CanastaAction`, a frozen value with a canonical text form
(``str``/``CanastaAction.parse`` round trip)::

    draw                        DRAW_STOCK
    take K:KC,KD A:AC,AD,AS     TAKE_PILE: the group keyed by the top card's rank is the top
    take K:                     group (the top card joins it); only it may be empty (adds
                                the top card to the side's existing meld)
    decline                     DECLINE: stock exhausted and taking is optional
    meld 7:7C,7D,2H K:KS,KH,JK  MELD one or more groups at once (keys 4-9,T,J,Q,K,A,WILD,BLACK3)
    discard 7H                  DISCARD (a discard that empties the hand goes out)

Groups are sorted by key, cards in canonical card order. ``legal_actions()``
is sorted by (kind draw<take<decline<meld<discard, card, groups) and lists a
canonical subset: every discard (each distinct card); every single-group meld by
rank with every count of naturals and 0-3 wild cards (2s first, or jokers first),
naturals and 2s taken in canonical order; WILD melds; multi-group melds that
lay down all naturals of several ranks with minimal or maximal wild cards (plus
WILD and BLACK3 groups when possible): for an opened side all eligible ranks at
once (going out), for an unopened side every subset of two or more of its five
most numerous ranks (openings); for the pile, every top-group count, and for an
unopened side the top group with subsets of other ranks. Any other action is
validated by :meth:`CanastaState.problem`, and an illegal one raises
:class:`~arena.core.errors.IllegalActionError` naming the rule it breaks.
``default_action()`` follows section 16.

Observation (:class:`CanastaObservation`; per-side tuples are indexed by side)
-----------------------------------------------------------------------------
``seat, side, seat_sides, hand_number, dealer, current_player, phase, hand,
hand_sizes, melds, red_threes, pile, pile_top, pile_size, pile_frozen,
black3_block_seat, stock_size, last_take, scores, requirements, opened, melded,
hand_scores, last_hand_hands``. Never another seat's hand (partners included) or
the stock; all hands left at a hand's end are revealed in ``last_hand_hands``.
``hidden_positions(seat)``: undrawn stock positions of the current shuffle, the
positions of cards other seats got from the deal or the stock and have not shown
(melded or discarded), and the undrawn stock of finished hands. Positions holding
red threes are never listed (their placement is public, so exchanging one with a
hidden card would change what everyone sees).

Rule decisions (where the rules file leaves room)
--------------------------------------------------
* Returns: sides are ranked by cumulative score; a side gets (sides below - sides
  above) / (sides - 1), every seat its side's value; zero-sum (all sides have
  equal size). Before the end they reflect the current scores.
* Safety cap: a match also ends when ``max_actions`` (default 40000) actions have
  been applied; the hand in progress is then not scored. One hand has at most
  ``4 * deck_size + 2`` actions: each turn has one draw-phase action and at most
  one discard; each DRAW removes a stock card, each TAKE and MELD puts at least one
  card on the table for good, DECLINE ends the hand. So ``max_game_length =
  min(max_actions, (deals or max_hands) * (4 * deck_size + 2))`` is a true bound.
* "Has a legal pickup" in stock exhaustion (section 11) means the engine's listed
  pickups: exact for an opened side (every top-group count is listed); for an
  unopened side, pickups needing extra groups are found over subsets of ranks.
* Concealed canasta (``concealed_canasta_bonus``): a meld that did not exist
  before an action and had 7+ cards after it.
* The classic family accepts 2 to 4 players only (Decision 28); hungarian 2 to 8.
* Option ``deals`` is the rules' ``fixed_hands``.
* ``CanastaGame.conformance_options = {"deals": 1}``: whole random games are long
  (hungarian random games often reach ``max_hands``), and the conformance suite
  replays the history at every step; one-hand matches exercise every rule.

Version history
---------------
* v1: first version (all presets of the rules file).
* v1, internals only (issue 19, no change to rules, listings, observations or records):
  the observation in a module of its own (:mod:`arena.games.canasta.observation`,
  re-exported by :mod:`arena.games.canasta.state`), so that the state module can be
  compiled with mypyc (``ARENA_COMPILE=1``, see ``setup.py``); ``clone()`` copies
  attribute by attribute when compiled.
* v1, internals only (issue 28, no change to rules, listings, observations or records):
  the one engine shape. The meld search (why a MELD or TAKE_PILE is illegal, the listed
  melds and pickups, their memos) moved from :mod:`~arena.games.canasta.state` to
  :mod:`~arena.games.canasta.melds`, compiled beside it; it reads the position through a
  :class:`~arena.games.canasta.melds.Table` the state builds and never imports the state.
"""

from arena.core.descriptor import GameDescriptor
from arena.games.canasta.actions import CanastaAction
from arena.games.canasta.game import CanastaGame
from arena.games.canasta.state import CanastaObservation, CanastaState, Phase

GAME = CanastaGame
__all__ = ["DESCRIPTOR", "GAME", "CanastaAction", "CanastaGame", "CanastaObservation", "CanastaState", "Phase"]

DESCRIPTOR = GameDescriptor(
    "canasta", CanastaGame, CanastaObservation, proto_field="canasta", bots="arena.bots.canasta",
    replay="canasta", per_seat=("hand_sizes", "melded"))
"""What the layers above the engine read of canasta (:mod:`arena.core.descriptor`)."""
