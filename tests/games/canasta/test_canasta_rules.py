"""Rule-by-rule tests: validation reasons, freezing, threes, pickups, going out, exhaustion."""

from __future__ import annotations

from collections import Counter

import pytest
from canasta_helpers import play, stack

from arena.core.errors import IllegalActionError, InvalidActionError
from arena.games.canasta import CanastaAction, CanastaGame, Phase
from arena.games.canasta.rules import is_red3, is_wild

A = CanastaAction.parse


def position(preset: str = "classic", hand: str = "", pile: str = "9C", melds: dict | None = None,
             opened: bool = True, phase: str = "play", **opts):
    g = CanastaGame(preset=preset, deals=1, **opts)
    s = g.new_initial_state(seed=1)
    seat = s.current
    side = s.side_of[seat]
    s.hands[seat] = Counter(hand.split())
    s.private[seat] = []
    s.pile = pile.split()
    s.pile_wild = sum(1 for c in s.pile if is_wild(c))
    s.pile_red3 = sum(1 for c in s.pile if is_red3(c))
    s.melds[side] = {k: v.split() for k, v in (melds or {}).items()}
    s.opened[side] = opened
    s.phase = Phase.PLAY if phase == "play" else Phase.DRAW
    s._legal_cache = None
    return s


def reason(s, text: str) -> str:
    with pytest.raises(IllegalActionError) as exc:
        s.apply_action(A(text))
    return exc.value.reason


# -- text forms ------------------------------------------------------------
@pytest.mark.parametrize("text", ["draw", "decline", "discard 7H", "take K:", "take K:KC,KD A:AC,AD,AS",
                                  "meld 7:7C,7D,2H K:KH,KS,JK", "meld WILD:2C,2D,JK", "meld BLACK3:3C,3S,3S"])
def test_text_round_trip(text: str) -> None:
    a = A(text)
    assert str(a) == text and A(str(a)) == a and eval(repr(a)) == a  # noqa: S307


def test_parse_is_lenient_and_canonical() -> None:
    assert A("meld k:ks,kh,jk 7:7c,2h,7d") == A("meld 7:7C,7D,2H K:KH,KS,JK")
    assert A("discard 10h") == A("discard TH")


@pytest.mark.parametrize("text", ["", "jump", "draw 7H", "discard", "discard 1X", "meld", "meld K",
                                  "meld Z:ZZ", "take 3:3C"])
def test_garbage_raises_invalid(text: str) -> None:
    with pytest.raises(InvalidActionError):
        A(text)


def test_non_action_is_invalid() -> None:
    s = CanastaGame(deals=1).new_initial_state(seed=1)
    with pytest.raises(InvalidActionError):
        s.apply_action("draw")
    with pytest.raises(InvalidActionError):
        s.apply_action(5)


# -- phases ------------------------------------------------------------------
def test_phase_errors() -> None:
    s = CanastaGame(deals=1).new_initial_state(seed=1)
    assert "draw phase" in reason(s, "discard " + next(iter(s.hands[s.current])))
    play(s, "draw")
    assert "play phase" in reason(s, "draw")
    assert "not in your hand" in reason(s, "discard JK" if not s.hands[s.current]["JK"] else "discard 3H")


# -- melds -------------------------------------------------------------------
def test_meld_validity_reasons() -> None:
    s = position(hand="KC KD KH 2C 2D 2H JK 3C 3S 3C 9C 9D 5C")
    assert "at most 3 wild" in reason(s, "meld K:KC,KD,2C,2D,2H,JK")
    assert "at least 2 natural" in reason(s, "meld 9:9C,2C,2D")
    assert "at least 3 cards" in reason(s, "meld 9:9C,9D")
    assert "does not belong" in reason(s, "meld 9:9C,9D,5C")
    assert "only in a BLACK3" in reason(s, "meld 9:9C,9D,3C")
    assert "not allowed in this preset" in reason(s, "meld WILD:2C,2D,2H")
    assert "only once" in s.problem(CanastaAction("meld", (("K", ("KC",)), ("K", ("KD",)))))
    assert "BLACK3 meld is allowed only when going out" in reason(s, "meld BLACK3:3C,3C,3S")
    assert s.problem(A("meld K:KC,KD,KH,2C,2D,2H")) is None


def test_ratio_limit_in_hungarian_and_004() -> None:
    for preset in ("hungarian", "classic-004"):
        s = position(preset, hand="KC KD 2C 2D JK 9C 9D 9H 5C")
        assert "more wild cards than natural" in reason(s, "meld K:KC,KD,2C,2D,JK")
        assert s.problem(A("meld K:KC,KD,2C,2D")) is None
    s = position("classic", hand="KC KD 2C 2D JK 9C 9D 9H 5C")
    assert s.problem(A("meld K:KC,KD,2C,2D,JK")) is None


def test_wild_meld_hungarian() -> None:
    s = position("hungarian", hand="2C 2D JK 9C 9D 9H 5C")
    assert s.problem(A("meld WILD:2C,2D,JK")) is None
    assert "at least 3" in reason(s, "meld WILD:2C,2D")
    assert "only jokers and 2s" in reason(s, "meld WILD:2C,2D,9C")


def test_two_card_rule_and_going_out_needs_canasta() -> None:
    s = position(hand="KC KD KH 9C")
    assert "keep at least 2 cards" in reason(s, "meld K:KC,KD,KH")
    s = position(hand="KC KD KH")
    assert "going out needs 1 canasta" in reason(s, "meld K:KC,KD,KH")
    s = position(hand="KC KD KH 9C", melds={"A": "AC AD AH AS AC AD AH"})
    assert s.problem(A("meld K:KC,KD,KH")) is None
    s = position(hand="9C")
    assert "going out needs" in reason(s, "discard 9C")
    s = position("classic-2p", hand="KC KD KH 9C", melds={"A": "AC AD AH AS AC AD AH"})
    assert "needs 2 canasta" in reason(s, "meld K:KC,KD,KH")


def test_black3_meld_when_going_out() -> None:
    s = position(hand="3C 3S 3C 9D", melds={"A": "AC AD AH AS AC AD AH"})
    assert s.problem(A("meld BLACK3:3C,3C,3S")) is None
    play(s, "meld BLACK3:3C,3C,3S", "discard 9D")
    assert s.hand_details[0]["went_out"] >= 0
    assert s.hand_details[0]["sides"][s.side_of[s.hand_details[0]["went_out"]]]["melded"] == 15 + 140


def test_opening_minimum_one_action() -> None:
    s = position(hand="KC KD KH 9C 9D 9H 5C 6C", opened=False)
    assert "counts 30, below the minimum 50" in reason(s, "meld K:KC,KD,KH")
    assert s.problem(A("meld K:KC,KD,KH 9:9C,9D,9H")) is None
    s = position(hand="KC KD KH 9C 9D 9H 5C 6C", opened=False)
    s.requirement[s.side_of[s.current]] = 15  # negative cumulative score, classic
    assert s.problem(A("meld K:KC,KD,KH")) is None


def test_legal_meld_listing_covers_opening_combinations() -> None:
    s = position(hand="KC KD KH 9C 9D 9H 5C 6C", opened=False)
    texts = [str(a) for a in s.legal_actions()]
    assert "meld 9:9C,9D,9H K:KC,KD,KH" in texts and "meld K:KC,KD,KH" not in texts
    assert texts == [str(a) for a in sorted(s.legal_actions(), key=CanastaAction.sort_key)]


# -- the pile ----------------------------------------------------------------
def test_take_pile_conditions_classic() -> None:
    s = position(hand="KC KD 2C 9C 9D", pile="5C KH", phase="draw")
    assert s.problem(A("take K:KC,KD")) is None
    assert s.problem(A("take K:KC,2C")) is None  # natural + wild, pile unfrozen, side opened
    # two wild cards are not "a natural and a wild card": refused with the rule's reason
    wilds = position(hand="KC KD 2C JK 9C 9D", pile="5C KH", phase="draw")
    assert "two natural Ks" in reason(wilds, "take K:2C,JK")
    assert "top card's rank K" in reason(s, "take 9:9C,9D")
    s = position(hand="KC KD 2C 9C 9D", pile="2D KH", phase="draw")  # frozen by a wild card
    assert "the pile is frozen" in reason(s, "take K:KC,2C")
    assert s.problem(A("take K:KC,KD")) is None
    s = position(hand="KC KD 2C 9C 9D", pile="5C KH", phase="draw", opened=False)
    assert "has not opened" in reason(s, "take K:KC,2C")
    assert "below the minimum 50" in reason(s, "take K:KC,KD")  # 30 with the top card


def test_take_onto_existing_meld() -> None:
    s = position(hand="QC 9C 9D", pile="5C KH", phase="draw", melds={"K": "KC KD KS"})
    assert s.problem(A("take K:")) is None
    play(s, "take K:")
    assert s.melds[s.side_of[s.current]]["K"] == ["KC", "KD", "KS", "KH"]
    assert s.hands[s.current]["5C"] == 1 and s.pile == [] and s.phase is Phase.PLAY
    s = position(hand="QC 9C 9D", pile="2C KH", phase="draw", melds={"K": "KC KD KS"})
    assert "frozen" in reason(s, "take K:")


def test_hungarian_natural_plus_wild_never_enough() -> None:
    s = position("hungarian", hand="KC 2C 9C 9D", pile="5C KH", phase="draw")
    assert "two natural Ks" in reason(s, "take K:KC,2C")


def test_top_card_not_natural_or_black3_blocks() -> None:
    for top in ("3C", "2C", "JK"):
        s = position(hand="KC KD 3C 3S", pile=f"KH {top}", phase="draw")
        assert "cannot be taken" in reason(s, "take K:KC,KD")


def test_full_round_black3_block() -> None:
    g = CanastaGame(preset="hungarian", deals=1, black3_block="full_round")
    s = g.new_initial_state(seed=3)
    seat = s.current
    play(s, "draw")
    s.hands[seat]["3C"] += 1
    play(s, "discard 3C")
    assert s.black3_blocker == seat
    nxt = s.current
    play(s, "draw")
    card = next(c for c in sorted(s.hands[nxt]) if c[0] in "456789TJQKA")
    play(s, f"discard {card}")
    third = s.current
    s.hands[third][card] += 2
    assert "black three" in s.problem(A(f"take {card[0]}:{card},{card}"))
    obs = s.observation(third)
    assert obs.black3_block_seat == seat


def test_red_threes_in_pile_go_to_side_without_replacement() -> None:
    s = position(hand="KC KD 9C 9D", pile="3H 5C KH", phase="draw", melds={"A": "AC AD AH"})
    side = s.side_of[s.current]
    before = len(s.red3[side]), s.stock_pos
    play(s, "take K:KC,KD")
    assert len(s.red3[side]) == before[0] + 1 and s.stock_pos == before[1]
    assert sorted(s.hands[s.current].elements()) == ["5C", "9C", "9D"]


def test_pickup_turn_completion_counts_pile_cards() -> None:
    s = position(hand="KC KD", pile="5C KH", phase="draw")
    assert "keep at least 2 cards" in reason(s, "take K:KC,KD")  # only 5C would be left
    s2 = position(hand="KC KD", pile="5C 6C KH", phase="draw")
    assert s2.problem(A("take K:KC,KD")) is None


# -- threes at the deal and from the stock ---------------------------------
FILL = {1: "9C 9D 9H QC QD QH 5C 5D 5H 6C 6D".split(), 2: "9S TC TD TH TS JC JD JH JS 6H 6S".split(),
        3: "7C 7D 7H 7S 8C 8D 8H 8S AH AS KH".split()}


def deal(preset: str, hand0: str, up: list[str], draws: list[str], last: list[str] = (), **opts):
    g = CanastaGame(preset=preset, deals=1, **opts)
    deck = stack(g, {0: hand0.split(), **FILL}, up, draws, first_dealer=3, last=list(last))
    return g.new_initial_state(deck=deck, first_dealer=3)


def test_red3_at_deal_replaced_classic() -> None:
    s = deal("classic", "3H 3D KC KD KS 4C 4D 5S 6S 7H 2C", ["JC"], ["3H", "QS", "TS"])
    assert sorted(s.red3[0]) == ["3D", "3H", "3H"]  # a red three replacement is placed and replaced too
    assert s.hands[0]["QS"] == 1 and s.hands[0]["TS"] == 1 and sum(s.hands[0].values()) == 11
    assert sorted(s.observation(1).red_threes[0]) == ["3D", "3H", "3H"]


def test_red3_first_turn_hungarian() -> None:
    s = deal("hungarian", "KC KD KS 4C 4D 5S 6S 7H 2C 3S QS", ["JC"], ["3H", "TS"])
    play(s, "draw")  # the 3H drawn is placed and replaced by TS
    assert s.red3[0] == ["3H"] and s.hands[0]["TS"] == 1 and sum(s.hands[0].values()) == 12


def test_upcards_and_freezing() -> None:
    s = deal("classic", "KC KD KS 4C 4D 5S 6S 7H 2C 3S QS", ["3H", "9C"], [])
    assert s.pile == ["3H", "9C"] and s._frozen()
    s = deal("classic-004", "KC KD KS 4C 4D 5S 6S 7H 2C 3S QS", ["3H", "9C"], [])
    assert not s._frozen()
    s = deal("hungarian", "KC KD KS 4C 4D 5S 6S 7H 2C 3S QS", ["2D", "3C", "9C"], [])
    assert s.pile == ["2D", "3C", "9C"] and s._frozen() and s.observation(0).pile_frozen


def test_red3_last_stock_card_ends_hand() -> None:
    g = CanastaGame(deals=1)
    s = g.new_initial_state(seed=5)
    # move the stock's red threes away and put one at the bottom
    stock = s.deck[s.stock_pos:]
    s.deck = s.deck[:s.stock_pos] + [c for c in stock if not is_red3(c)][:2] + ["3H"]
    play(s, "draw")
    play(s, "discard " + sorted(s.hands[s.current])[0])
    play(s, "draw")
    play(s, "discard " + sorted(s.hands[s.current])[0])
    assert not s.is_terminal()
    seat = s.current
    play(s, "draw")
    assert s.is_terminal() and s.hand_details[0]["went_out"] == -1
    assert "3H" in s.red3[s.side_of[seat]]


# -- exhaustion --------------------------------------------------------------
def exhausted(preset: str, hand: str, pile: str, melds: dict | None = None, opened: bool = True):
    s = position(preset, hand=hand, pile=pile, melds=melds, opened=opened, phase="draw")
    s.stock_pos = len(s.deck)
    s._start_turn(s.current)
    s._legal_cache = None
    return s


def test_classic_forced_take() -> None:
    s = exhausted("classic", "9C 9D 5C", "6C KH", melds={"K": "KC KD KS"})
    assert s.forced_take and all(a.kind == "take" for a in s.legal_actions())
    assert "must take the pile" in reason(s, "decline")
    assert s.default_action() == A("take K:")


def test_classic_optional_take_and_automatic_end() -> None:
    s = exhausted("classic", "KC KD 5C", "2C KH")
    assert s.decline_allowed and A("decline") in s.legal_actions()
    play(s, "decline")
    assert s.is_terminal()
    s = exhausted("classic", "QC QD 5C", "6C KH")
    assert s.is_terminal()  # nobody can take: the hand ended at the start of the turn


def test_hungarian_one_last_take() -> None:
    s = exhausted("hungarian", "KC KD 5C 6C", "7C KH", melds={"K": "KS KH KD"})
    assert s.decline_allowed and s.last_take_turn
    assert s.observation(0).last_take
    play(s, "take K:KC,KD")
    play(s, "discard 5C")
    assert s.is_terminal() and s.hand_details[0]["went_out"] == -1


def test_default_action_always_legal() -> None:
    from arena.core.dealing import SeedStream
    for preset in CanastaGame.presets:
        g = CanastaGame(preset=preset, deals=1)
        s = g.new_initial_state(seed=7)
        rng = SeedStream(7)
        while not s.is_terminal():
            assert s.problem(s.default_action()) is None
            s.apply_action(rng.choice(s.legal_actions()))


# -- going out ---------------------------------------------------------------
def test_concealed_requires_new_canasta_and_no_earlier_meld() -> None:
    s = position(hand="KC KD KH KS KC KD KH 9C", opened=True, melds={"A": "AC AD AH"})
    s.has_melded[s.current] = False
    s.melded_before_turn = False
    s.start_keys = frozenset({"A"})
    s._start_sizes = {"A": 3}
    play(s, "meld K:KC,KC,KD,KD,KH,KH,KS", "discard 9C")
    assert s.hand_details[0]["concealed"]
    s = position(hand="KC KD KH KS KC KD KH 9C", opened=True, melds={"A": "AC AD AH"})
    s.melded_before_turn = False
    s.start_keys = frozenset({"A"})
    s._start_sizes = {"A": 3}
    s.hands[s.current]["AS"] += 1
    play(s, "meld K:KC,KC,KD,KD,KH,KH,KS A:AS", "discard 9C")
    assert not s.hand_details[0]["concealed"]  # added to an older meld


# -- match ---------------------------------------------------------------------
def test_fixed_deals_and_dealer_rotation() -> None:
    from arena.testing.conformance import random_playout
    g = CanastaGame(deals=3)
    s = random_playout(g, 4)
    assert len(s.hand_scores) == 3 and len(s.dealer.realized) >= 3
    assert [row["dealer"] for row in g.score_sheet(s)] == [0, 1, 2]
    assert sum(s.returns()) == 0
    assert "hands" in g.describe(s)


def test_action_cap_is_a_bound() -> None:
    from arena.testing.conformance import random_playout
    g = CanastaGame(max_actions=50)
    assert g.max_game_length == 50
    s = random_playout(g, 1)
    assert s.is_terminal() and len(s.history) == 50
    assert CanastaGame().max_game_length == min(40000, 60 * (4 * 108 + 2))


def test_play_to_target() -> None:
    from arena.testing.conformance import random_playout
    s = random_playout(CanastaGame(target=1500), 2)
    assert max(s.scores) >= 1500
    r = s.returns()
    best = s.scores.index(max(s.scores))
    assert r[s.game.teams()[best][0]] == 1.0


def test_options_validation() -> None:
    with pytest.raises(ValueError):
        CanastaGame(players=6)  # classic family: 2-4 players
    with pytest.raises(ValueError):
        CanastaGame(preset="hungarian", players=5, sides="pairs")
    with pytest.raises(ValueError):
        CanastaGame(bogus=1)
    g = CanastaGame(preset="hungarian", players=8, sides="two_teams")
    assert g.rules.packs == 4 and g.rules.jokers == 12 and g.teams() == [[0, 2, 4, 6], [1, 3, 5, 7]]
    g = CanastaGame(preset="hungarian", players=6, sides="pairs")
    assert g.rules.packs == 3 and g.teams() == [[0, 3], [1, 4], [2, 5]]
    assert CanastaGame(preset="hungarian", players=3).rules.packs == 2


def test_default_forced_take_with_single_card_melds_it() -> None:
    s = exhausted("classic", "KS", "KH", melds={"K": "KC KD KS KC KD"})
    assert s.forced_take
    assert "keep at least 2" in s.problem(A("take K:"))
    assert s.default_action() == A("take K:KS")  # the 7th king makes the canasta: out
    play(s, "take K:KS")
    assert s.hand_details[0]["went_out"] >= 0


# -- hidden information --------------------------------------------------------
def test_hidden_positions_never_hold_own_or_public_cards() -> None:
    from arena.core.dealing import SeedStream
    g = CanastaGame(deals=2)
    s = g.new_initial_state(seed=11)
    rng = SeedStream(11)
    steps = 0
    while not s.is_terminal() and steps < 400:
        for seat in range(4):
            hidden = s.hidden_positions(seat)
            assert len(set(hidden)) == len(hidden)
            k = s.shuffle_idx
            mine = Counter(s.hands[seat])
            pos_cards = Counter(s.deck[p] for d, p in hidden if d == k)
            obs = s.observation(seat)
            assert len(obs.hand) == sum(mine.values())
            assert all(not is_red3(s.dealer.realized[d][p]) for d, p in hidden)
            # every hidden card of this shuffle is somewhere the seat cannot see
            unseen = Counter(s.deck[s.stock_pos:])
            for o in range(4):
                if o != seat:
                    unseen.update(s.hands[o])
            assert not (pos_cards - unseen) or not s.hand_active
        s.apply_action(rng.choice(s.legal_actions()))
        steps += 1


def test_observation_hides_partner_hand() -> None:
    s = CanastaGame(deals=1).new_initial_state(seed=2)
    o = s.observation(0)
    assert o.hand == tuple(sorted(s.hands[0].elements(), key=lambda c: (("CDHS".find(c[1]) if c != "JK" else 9), "23456789TJQKA".find(c[0]))))
    text = o.to_json()
    assert "hand_sizes" in text and o.hand_sizes[2] == 11 and len(o.hand) == 11
    fields = set(o.to_dict())
    assert fields == {"seat", "side", "seat_sides", "hand_number", "dealer", "current_player", "phase", "hand",
                      "hand_sizes", "melds", "red_threes", "pile", "pile_top", "pile_size", "pile_frozen",
                      "black3_block_seat", "stock_size", "last_take", "scores", "requirements", "opened",
                      "melded", "hand_scores", "last_hand_hands"}


def test_unlisted_legal_actions_are_accepted() -> None:
    s = position(hand="KC KD KH KS 9C 9D 5C")
    listed = set(s.legal_actions())
    other = A("meld K:KD,KH,KS")
    assert other not in listed and s.problem(other) is None
    s.apply_action(other)
    assert sorted(s.hands[s.current].elements()) == ["5C", "9C", "9D", "KC"]
    assert s.problem(A("meld K:KC")) is None  # laying off one card
