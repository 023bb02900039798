"""The engine rule by rule: setup, bidding, payment, draws, reshuffle, end, match."""

from __future__ import annotations

import pytest

from arena.core.errors import IllegalActionError, InvalidActionError
from arena.core.state import TERMINAL
from arena.games import get_game
from arena.games.auction import PASS, AuctionGame, Bid, Pay, Phase, parse_action

from auction_helpers import hand, stacked_state

# Section 12: seat 2 holds 8D 5C 2H JK 3S; stock top: two cards for seat 2, then seat 0, seat 1.
EXAMPLE_STOCK = ["7C", "6C", "5D", "4D"]


def example_state():  # type: ignore[no-untyped-def]
    return stacked_state(3, pictures=["KS", "AH", "QD"],
                         hands={1: ["4C", "2C", "3C", "9D", "TD"], 2: ["8D", "5C", "2H", "JK", "3S"],
                                0: ["2D", "3H", "4H", "5H", "6H"]},
                         stock=EXAMPLE_STOCK)


def reason(state, action) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalActionError) as info:
        state.apply_action(action)
    return info.value.reason


def test_worked_example_section12() -> None:
    s = example_state()
    assert s.dealer_seat == 0 and s.turner == 1 and s.picture == "KS"
    assert hand(s, 2) == sorted(["8D", "5C", "2H", "JK", "3S"])
    assert s.current_player() == 1 and s.order == [1, 2, 0]
    s.apply_action(Bid(4000))
    s.apply_action(parse_action("BID 7000"))
    assert s.current_player() == 0
    s.apply_action(PASS)
    assert s.phase is Phase.PAY and s.current_player() == 2
    assert Pay(("8D",)) in s.legal_actions()
    assert s.default_action() == Pay(("8D",))
    s.apply_action(Pay(("8D",)))
    assert s.collections[2] == ["KS"] and s.paid == ["8D"]
    assert hand(s, 2) == sorted(["5C", "2H", "JK", "3S", "7C", "6C"])  # drew two
    # Round 2: seat 2 turns AH; seats 0 then 1 draw one each; seat 2 is barred.
    assert s.round == 2 and s.turner == 2 and s.picture == "AH" and s.barred == 2
    assert "5D" in s.hand_tokens(0) and "4D" in s.hand_tokens(1)
    assert s.order == [0, 1] and s.current_player() == 0
    s.apply_action(PASS)
    s.apply_action(PASS)
    assert s.dead == ["AH"] and s.barred == -1
    assert s.round == 3 and s.turner == 0 and s.picture == "QD" and s.order == [0, 1, 2]
    log = s.observation(1).log
    assert log[:3] == ("game 1: dealer 0 deals 5 each", "round 1: 1 turns KS", "1 bids 4000")
    assert "2 pays 8D for KS (7000)" in log and "no bid: AH is dead" in log


def test_deal_order_and_sizes() -> None:
    for n in (3, 4, 5, 6):
        game = AuctionGame(players=n)
        s = game.new_initial_state(seed=5)
        money = s.dealer.realized[1]
        for j in range(5 * n):
            assert money[j] in s.hand_tokens((1 + j) % n) or s.round > 1
        assert len(s.dealer.realized) == 2 * game.games
        assert len(s.pictures) == (16 if n == 3 else 32)
        assert len(money) == (39 if n == 3 else 78)
        obs = s.observation(0)
        assert obs.money_stock == len(money) - 5 * n - (n - 1) * (s.picture[0] == "A")


def test_bid_rules() -> None:
    s = example_state()  # seat 1 to bid, power 4+2+3+9+10 = 28000
    assert s.legal_actions()[0] == PASS and s.legal_actions()[-1] == Bid(28000)
    assert [b.amount for b in s.legal_actions()[1:4]] == [1000, 2000, 3000]
    assert "exceeds your purchasing power 28000" in reason(s, Bid(29000))
    with pytest.raises(InvalidActionError):
        s.apply_action(Bid(1500))
    with pytest.raises(InvalidActionError):
        parse_action("BID 1500")
    with pytest.raises(InvalidActionError):
        s.apply_action("BID 1000")  # text must go through string_to_action
    assert "not to pay" in reason(s, Pay(("4C",)))
    s.apply_action(Bid(5000))
    assert "must exceed the high bid 5000" in reason(s, Bid(5000))
    assert s.legal_actions()[1] == Bid(6000)
    s.apply_action(PASS)  # seat 2's pass is final: it is not asked again
    s.apply_action(Bid(6000))  # seat 0: 2+3+4+5+6 = 20000
    assert s.phase is Phase.PAY and s.current_player() == 0


def test_forced_pass_when_no_bid_is_possible() -> None:
    # Seat 0 holds 2D 3H 4H 5H 6H = 20000; after a bid of 20000 its only action is PASS.
    s = example_state()
    s.apply_action(Bid(20000))
    s.apply_action(PASS)
    assert s.current_player() == 0 and s.legal_actions() == [PASS]
    s.apply_action(PASS)
    assert s.observation(2).bids == ((1, 20000), (2, 0), (0, 0))


def test_payment_validation_reasons() -> None:
    s = example_state()
    s.apply_action(PASS)
    s.apply_action(Bid(9000))
    s.apply_action(PASS)
    assert s.current_player() == 2  # hand 8D 5C 2H JK 3S, power 18000 + 8000
    assert "9D is not in your hand" in reason(s, Pay(("9D",)))
    assert "you pay 2 x 8D but hold 1" in reason(s, Pay(("8D", "8D")))
    assert "below the winning bid 9000" in reason(s, Pay(("8D",)))
    assert "without 2H" in reason(s, Pay(("8D", "3S", "2H")))
    assert "without JK" in reason(s, Pay(("8D", "5C", "JK")))
    assert "not a bid" in reason(s, PASS) or "not a bid" in reason(s, Bid(1000))
    legal = s.legal_actions()
    assert Pay(("8D", "JK")) in legal and Pay(("8D", "2H")) in legal and Pay(("5C", "3S", "2H")) in legal
    for p in legal:
        assert s.illegal_reason(p).endswith("is legal")
    s.apply_action(parse_action("pay jk 8d"))
    assert sorted(s.paid) == ["8D", "JK"]


def test_reshuffle_and_skipped_draw() -> None:
    # 3 players: 39 money cards, 15 dealt, 24 in stock. Empty the stock by buying.
    game = AuctionGame(players=3, games=1)
    s = game.new_initial_state(seed=11)
    s.stock_pos = len(s.stock)  # pretend the stock ran out (keep cards conserved below)
    drained = [t for t, _ in s.stock]
    s.paid.extend(drained)
    buyer = s.current_player()
    s.apply_action(Bid(1000))
    while s.phase is Phase.BID:
        s.apply_action(PASS)
    assert s.current_player() == buyer
    k = len(s.dealer.realized)
    s.apply_action(s.default_action())
    assert s.reshuffles == 1 or s.is_terminal()
    if s.reshuffles:
        assert len(s.dealer.realized) == k + 1  # one further dealer.shuffle
        assert s.stock_pos == 2 and s.paid == []
        assert "reshuffle" in " ".join(s.observation(0).log)


def test_reshuffle_uses_stacked_deck_and_skip_when_nothing_left() -> None:
    s = stacked_state(3, pictures=["KS", "JC", "QD"], hands={1: ["TC", "TD", "TH", "TS", "9C"]})
    # Empty the stock and the paid pile by hand: move every stock card into seat 0's hand.
    for t, o in s.stock[s.stock_pos:]:
        s.hands[0].append((t, o))
    s.stock_pos = len(s.stock)
    s.powers[0] = 10 ** 6  # irrelevant here; seat 0 only passes
    s.apply_action(Bid(1000))  # seat 1
    s.apply_action(PASS)
    s.apply_action(PASS)
    s.apply_action(Pay(("9C",)))
    # The draw of the first card reshuffled the paid pile (9C) and the second found nothing.
    assert s.reshuffles == 1 and s.hand_tokens(1).count("9C") == 1
    assert any("cannot draw" in e for e in s.log)


def test_barred_turner_still_turns() -> None:
    s = example_state()
    s.apply_action(PASS)          # seat 1
    s.apply_action(Bid(2000))     # seat 2
    s.apply_action(PASS)          # seat 0
    s.apply_action(s.default_action())
    assert s.turner == 2 and s.barred == 2 and s.order == [0, 1]
    assert s.current_player() == 0


def test_win_ends_game_without_draw_and_match_scoring() -> None:
    s = stacked_state(3, pictures=["JS", "KC", "QS", "JD", "KS"],
                      hands={0: ["TC", "TD", "TH", "TS", "9C"], 1: ["2C", "2D", "3C", "3D", "4C"],
                             2: ["2H", "2S", "3H", "3S", "4D"]}, games=2)
    while not s.results:
        if s.phase is Phase.PAY:
            s.apply_action(s.default_action())
        else:
            s.apply_action(Bid(1000) if s.current_player() == 0 and s.high == 0 else PASS)
    # Seat 0 bought JS, QS, KS; KC and JD went dead while it was barred.
    assert s.results[0]["rounds"] == 5
    assert s.results[0]["winner"] == 0 and s.results[0]["combination"] == ("JS", "QS", "KS")
    assert s.points == [1, 0, 0] and s.returns() == [1.0, 0.0, 0.0]
    # Game 2 started: dealer 1, turner 2, fresh stocks, empty collections.
    assert s.g == 1 and s.dealer_seat == 1 and s.turner == 2 and s.collections == [[], [], []]
    obs = s.observation(1)
    assert obs.game_number == 2 and obs.game_winners == (0,) and obs.match_points == (1, 0, 0)


def test_drawn_game_when_stock_runs_out() -> None:
    game = AuctionGame(players=3, games=1)
    s = game.new_initial_state(seed=3)
    while not s.is_terminal():
        s.apply_action(PASS if s.phase is Phase.BID else s.default_action())
    assert s.results[0]["winner"] == -1 and len(s.dead) == 16 and s.returns() == [0.0, 0.0, 0.0]
    assert s.current_player() == TERMINAL and s.legal_actions() == []
    assert "no winner" in game.describe(s)
    assert game.score_sheet(s)[0]["combo"] == "(drawn)"


def test_observation_never_shows_other_hands() -> None:
    s = example_state()
    obs = s.observation(0)
    assert obs.hand == ("6H", "5H", "4H", "3H", "2D") and obs.purchasing_power == 20000
    assert obs.hand_sizes == (5, 5, 5)
    text = obs.to_json()
    for t in ["8D", "5C", "JK", "TD", "9D"]:
        assert t not in text
    assert obs.picture == "KS" and obs.min_bid == 1000 and obs.to_act == 1
    assert obs.picture_stock == 15 and obs.money_stock == 24 and obs.barred == -1


def test_hidden_positions() -> None:
    s = example_state()
    hidden = set(s.hidden_positions(0))
    assert (0, 0) not in hidden and (0, 1) in hidden          # turned KS; next picture hidden
    own = {(1, j) for j in range(15) if (1 + j) % 3 == 0}
    assert not own & hidden and {(1, 0), (1, 1)} <= hidden     # other seats' cards
    assert all((1, p) in hidden for p in range(15, 39))        # the stock


def test_options_and_presets() -> None:
    assert set(AuctionGame.presets) == {"3p", "4p", "5p", "6p"}
    g = get_game("auction", preset="5p")
    assert g.num_players == 5 and g.games == 1 and g.ruleset == "auction_5p@v1"
    assert AuctionGame(players=4).games == 4
    assert AuctionGame(players=6).max_game_length == 6 * 32 * 7
    for bad in ({"players": 2}, {"players": 7}, {"games": 0}):
        with pytest.raises(ValueError):
            AuctionGame(**bad)


def test_text_forms() -> None:
    for text in ["PASS", "BID 1000", "BID 442000", "PAY 6H 4C", "PAY 6H JK", "PAY TC TC 2S JK"]:
        assert str(parse_action(text)) == text
    assert parse_action("bid(4000)") == Bid(4000) and parse_action("PAY(10h, jk)") == Pay(("TH", "JK"))
    for bad in ["", "BID", "BID x", "BID 0", "PAY", "PAY XX", "PASS 3", "FOLD"]:
        with pytest.raises(InvalidActionError):
            parse_action(bad)
    assert Bid.from_id(7) == Bid(7000) and PASS.id == 0


def test_serialize_round_trip_with_reshuffles() -> None:
    game = AuctionGame(players=3, games=2)
    from arena.testing.conformance import random_playout

    s = random_playout(game, seed=7)
    assert len(s.dealer.realized) > 4  # at least one reshuffle after the 2 x 2 deal shuffles
    again = game.deserialize_state(s.serialize())
    assert again.history == s.history and again.returns() == s.returns()
    assert again.dealer.realized == s.dealer.realized
    # A stacked reshuffle deck is used as the k-th shuffle: reverse the first reshuffle.
    decks = [list(d) for d in s.dealer.realized[:5]]
    decks[4] = decks[4][::-1]
    other = game.new_initial_state(decks=decks)
    for a in s.history:
        if other.is_terminal():
            break
        try:
            other.apply_action(a)
        except ValueError:
            break
    assert other.dealer.realized[4] == decks[4]


def test_winning_buyer_does_not_draw() -> None:
    s = stacked_state(3, pictures=["KH"], hands={1: ["TC", "TD", "TH", "9C", "9D"]},
                      stock=["2C", "2D"])
    s.collections[1] = ["QH", "AH"]  # set up by hand: KH completes Q-K-A of hearts
    s.apply_action(Bid(1000))
    s.apply_action(PASS)
    s.apply_action(PASS)
    s.apply_action(Pay(("9C",)))
    assert s.is_terminal() and s.results[0]["winner"] == 1
    assert sorted(s.hand_tokens(1)) == ["9D", "TC", "TD", "TH"]  # no draw after the win
    assert s.results[0]["combination"] == ("QH", "KH", "AH")
