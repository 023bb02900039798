"""Play, dummy handling, information hiding, golden deals, rubber matches."""

from __future__ import annotations

import json

import pytest

from arena.core.cards import STANDARD_TOKENS, card_index
from arena.core.errors import IllegalActionError
from arena.core.state import TERMINAL
from arena.games import get_game
from arena.games.bridge import BridgeObservation, BridgeState, Phase
from arena.records.pbn import deal_from_pbn, format_deal

from bridge_helpers import ONE_SUIT_EACH, calls, play_deal, play_randomly, stacked


def card(tok: str) -> int:
    return card_index(tok)


# -- play --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("trump", "cards", "leader", "winner"), [
    (-1, "2S AS KS 3S", 0, 1),   # notrump: the highest of the suit led
    (4, "2S AH KS 3S", 1, 3),    # notrump strain 4, a higher card of another suit loses
    (2, "AS 2H KS 3S", 2, 3),    # hearts trump: the only trump wins
    (2, "AS 2H 3H 4D", 3, 1),    # the higher of two trumps
    (0, "AS KS QS JS", 0, 0),    # clubs trump, none played: the leader's ace
])
def test_trick_winner_is_the_rule_every_reader_uses(trump: int, cards: str, leader: int, winner: int) -> None:
    from arena.games.bridge.actions import trick_winner

    assert trick_winner(trump, [card(t) for t in cards.split()], leader) == winner

def test_trumps_win_and_declarer_plays_dummy() -> None:
    state = stacked()
    calls(state, "1S P P P")  # N declares spades; E leads, S is dummy
    assert state.current_player() == 1 and state.dummy == 2
    obs = state.observation(1)
    assert obs.dummy_hand == () and obs.playing_hand == 1 and obs.to_act == 1
    state.apply_action(card("AH"))
    # Dummy (S) is next: the declarer (N) is asked, for a card from dummy's hand.
    assert state.current_player() == 0
    obs = state.observation(0)
    assert obs.playing_hand == 2 and obs.to_act == 0
    assert state.legal_actions() == [card(t) for t in "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD".split()]
    with pytest.raises(IllegalActionError, match="not in dummy's hand"):
        state.apply_action(card("2S"))
    state.apply_action(card("2D"))
    assert state.current_player() == 3
    state.apply_action(card("2C"))
    assert state.current_player() == 0 and state.observation(0).playing_hand == 0
    state.apply_action(card("2S"))  # ruff
    obs = state.observation(3)
    assert obs.tricks == ((1, ("AH", "2D", "2C", "2S"), 0),) and obs.tricks_won == (1, 0)
    assert state.current_player() == 0  # N won and leads
    play_randomly(state)
    assert state.returns() == [260.0, -260.0, 260.0, -260.0]  # 1S making 13: 30 + 180 + 50
    assert state.game.describe(state) == "Board 1: 1S by N, made 13, NS +260"


def test_follow_suit_reason() -> None:
    state = stacked("N:QT9.AT9653.AJ.AQ 75.Q742.963.KJ53 AJ643.KJ8.KT42.9 K82..Q875.T87642")
    calls(state, "1N P P P")  # N declares, E leads
    state.apply_action(card("5S"))
    state.apply_action(card("3S"))  # dummy S follows (declarer chose)
    with pytest.raises(IllegalActionError, match="does not follow suit: spades were led"):
        state.apply_action(card("2C"))
    with pytest.raises(IllegalActionError, match="is a call"):
        state.apply_action(52)
    with pytest.raises(IllegalActionError, match="not in your hand"):
        state.apply_action(card("AS"))


def test_notrump_defeated_and_describe() -> None:
    state = stacked()
    calls(state, "P P 1N P P P")  # S declares 1NT; W leads clubs and wins every trick
    assert state.declarer == 2 and state.current_player() == 3
    play_randomly(state)
    assert state.observation(0).tricks_won == (0, 13)
    assert state.returns()[0] == -350
    assert state.game.describe(state) == "Board 1: 1NT by S, down 7, EW +350"


def test_describe_made_for_ew() -> None:
    deal = "N:.AKQJT98765432.. AKQJT98765432... ...AKQJT98765432 ..AKQJT98765432."
    state = stacked(deal, board=3)  # S deals, E-W vulnerable; E holds every spade
    calls(state, "P P P 4S P P P")
    play_randomly(state)
    assert state.game.describe(state) == "Board 3: 4S by E, made 13, EW +710"
    assert state.returns() == [-710.0, 710.0, -710.0, 710.0]
    sheet = state.game.score_sheet(state)
    assert sheet == [{"deal": 1, "dealer": "S", "vulnerable": "EW", "contract": "4S", "declarer": "E",
                      "tricks": 13, "board": 3, "ns_score": -710, "ew_score": 710}]


def test_dummy_never_asked_and_declarer_asked_for_dummy() -> None:
    game = get_game("bridge")
    for seed in range(30):
        state = game.new_initial_state(seed=seed, board=seed % 16 + 1)
        from arena.core.dealing import SeedStream

        rng = SeedStream(seed)
        while not state.is_terminal():
            if state.phase is Phase.PLAY:
                obs = state.observation(state.current_player())
                assert state.current_player() != state.dummy
                if obs.playing_hand == state.dummy:
                    assert state.current_player() == state.declarer
                else:
                    assert state.current_player() == obs.playing_hand
                hand = set(obs.dummy_hand if obs.playing_hand == state.dummy else obs.hand)
                assert {STANDARD_TOKENS[a] for a in state.legal_actions()} <= hand
            state.apply_action(rng.choice(state.legal_actions()))
        assert state.current_player() == TERMINAL


def _tokens(obs: BridgeObservation) -> set[str]:
    """Every card token in the card-bearing fields (calls like 3S are not cards)."""
    cards = set(obs.hand) | set(obs.dummy_hand) | set(obs.current_trick)
    for _, trick, _ in obs.tricks:
        cards |= set(trick)
    return cards


def test_information_hiding() -> None:
    game = get_game("bridge")
    for seed in range(20):
        state = game.new_initial_state(seed=seed)
        from arena.core.dealing import SeedStream

        rng = SeedStream(f"hide|{seed}")
        dealt = state.initial_hands()
        while True:
            played = {STANDARD_TOKENS[c] for c in state.plays}
            for seat in range(4):
                obs = state.observation(seat)
                own = {STANDARD_TOKENS[c] for c in range(52) if dealt[seat] >> c & 1}
                allowed = own | played
                if state.dummy >= 0 and state.plays:
                    allowed |= {STANDARD_TOKENS[c] for c in range(52) if dealt[state.dummy] >> c & 1}
                    assert obs.dummy_hand == tuple(
                        STANDARD_TOKENS[c] for c in range(52) if state.hand_mask(state.dummy) >> c & 1)
                else:
                    assert obs.dummy_hand == ()
                assert _tokens(obs) <= allowed, (seed, seat, _tokens(obs) - allowed)
                assert set(obs.hand) <= own
            if state.is_terminal():
                break
            state.apply_action(rng.choice(state.legal_actions()))


def test_observation_fields_and_json() -> None:
    state = stacked()
    calls(state, "1S")
    obs = state.observation(2)
    assert obs.seat == 2 and obs.phase == "auction" and obs.scoring == "duplicate"
    assert obs.board == 1 and obs.deal == 1 and obs.dealer == 0 and obs.vulnerable == (False, False)
    assert obs.hand == tuple(f"{r}D" for r in "23456789TJQKA")
    assert obs.auction == ("1S",) and obs.contract == "" and obs.declarer == -1
    assert obs.to_act == 1 and obs.playing_hand == -1 and obs.current_trick == ()
    assert json.loads(obs.to_json())["auction"] == ["1S"]
    with pytest.raises(ValueError):
        state.observation(4)


# -- golden deals ------------------------------------------------------------------------------

GOLDEN = {
    1: ("N:QT9.AT9653.AJ.AQ 75.Q742.963.KJ53 AJ643.KJ8.KT42.9 K82..Q875.T87642",
        "Board 1: 7NTXX by N, down 4, EW +1600",
        "4N P 7C 7H 7N P P X XX P P P 3C 9C 7C AC AH 4H KH 8D AD 3D KD 7D QC KC 4D 8C QH 8H 4C "
        "9H 5S 6S 8S 9S 3H 7H JH TC AS 2S TS 7S 3S KS QS 5C 2C TH JC TD 2H JS 6C 6H JD 6D 2D 5D "
        "5H 9D 4S QD"),
    2: ("N:K43.A762.KJT5.A5 AT652.K5.Q32.K97 Q87.Q943.84.QT82 J9.JT8.A976.J643",
        "Board 1: 7NTXX by W, down 8, NS +4000",
        "3H 6D 6N 7D 7S X P 7N X XX P P P KS 5S 7S 9S AH KH QH JH 7H 5H 3H 8H 6D TD 3D 4D 6H AS "
        "9H TH JS 3S 2S 8S AD JD QD 8D 7D 5D 2D QC 6C 5C 9C TC 2C JC AC KC 4S TS QS 3C 4H 4C 2H "
        "6S 8C 9D KD 7C"),
}


@pytest.mark.parametrize("seed", sorted(GOLDEN))
def test_golden_deals(seed: int) -> None:
    deal, line, transcript = GOLDEN[seed]
    game = get_game("bridge")
    state = game.new_initial_state(seed=seed)
    assert format_deal(list(state.initial_hands()), 0) == deal
    from arena.core.dealing import SeedStream

    rng = SeedStream(f"golden|{seed}")
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert game.describe(state) == line
    assert " ".join(state.history_strings()) == transcript
    # The same deal from its PBN form, replayed from the transcript.
    again = game.new_initial_state(deck=deal_from_pbn(deal))
    for tok in transcript.split():
        again.apply_action(again.string_to_action(tok))
    assert again.returns() == state.returns()


def test_board_changes_dealer_and_vulnerability_not_cards_order() -> None:
    game = get_game("bridge")
    s1 = game.new_initial_state(seed=7, board=1)
    s2 = game.new_initial_state(seed=7, board=2)
    assert s1.dealer.realized == s2.dealer.realized
    assert s2.deal_dealer == 1 and s2.vulnerable == (True, False)
    # Card j goes to seat (dealer + 1 + j) mod 4.
    deck = s2.dealer.realized[0]
    for j, tok in enumerate(deck):
        assert s2.initial_hands()[(1 + 1 + j) % 4] >> card_index(tok) & 1


def test_clone_and_serialize() -> None:
    game = get_game("bridge", preset="rubber")
    state = game.new_initial_state(seed=3)
    from arena.core.dealing import SeedStream

    rng = SeedStream(1)
    for _ in range(150):
        state.apply_action(rng.choice(state.legal_actions()))
    clone = state.clone()
    realized = len(state.dealer.realized)
    while len(clone.dealer.realized) == realized and not clone.is_terminal():
        clone.apply_action(rng.choice(clone.legal_actions()))
    assert len(state.dealer.realized) == realized and len(state.history) == 150
    again = game.deserialize_state(state.serialize())
    assert again.serialize() == state.serialize()
    assert again.observation(1) == state.observation(1)


# -- rubber ------------------------------------------------------------------------------------

def _rubber(decks: int = 6, **options: object) -> BridgeState:
    game = get_game("bridge", preset="rubber", **options)
    state = game.new_initial_state(decks=[deal_from_pbn(ONE_SUIT_EACH, d % 4) for d in range(decks)])
    assert isinstance(state, BridgeState)
    return state


def test_rubber_two_games() -> None:
    state = _rubber()
    assert state.current_player() == 0 and state.board == 0
    calls(state, "4S P P P")  # N deals and declares: 13 tricks
    play_deal(state)
    assert not state.is_terminal() and state.deal_dealer == 1 and state.current_player() == 1
    obs = state.observation(2)
    assert obs.games == (1, 0) and obs.vulnerable == (True, False) and obs.score == (210, 0)
    assert obs.deal == 2 and obs.auction == ()
    calls(state, "P P P")  # E, S, W pass; N opens the second deal
    calls(state, "4S P P P")
    play_deal(state)
    assert state.is_terminal()
    assert state.returns() == [1120.0, -1120.0, 1120.0, -1120.0]
    assert state.game.describe(state) == "Rubber: NS 1120, EW 0, NS win by 1120 (2 deals)"
    sheet = state.game.score_sheet(state)
    assert [(r["ns_below"], r["ns_above"], r["games"]) for r in sheet] == [(120, 90, "1/0"), (120, 790, "2/0")]
    assert "rubber bonus 700" in sheet[1]["note"]


def test_rubber_passed_out_redeal_and_cap() -> None:
    state = _rubber(deal_cap=3)
    calls(state, "P P P P")
    assert state.deal_dealer == 1 and len(state.dealer.realized) == 2 and not state.is_terminal()
    calls(state, "P P P 1S P P P")  # N opens 1S in fourth seat: 13 tricks, part-score 30
    play_deal(state)
    assert state.observation(0).part_scores == (30, 0)
    calls(state, "P P P P")
    assert state.is_terminal()
    sheet = state.game.score_sheet(state)
    assert len(sheet) == 3 and "deal cap 3 reached" in sheet[2]["note"]
    assert sheet[2]["ns_above"] == 100  # the only side with a part-score
    assert state.returns()[0] == 30 + 6 * 30 + 100


def test_rubber_honours_and_two_rubbers() -> None:
    state = _rubber(decks=8, honours=True, rubbers=2)
    calls(state, "4S P P P")
    play_deal(state)
    sheet = state.game.score_sheet(state)
    assert sheet[0]["ns_above"] == 90 + 150 and "honours 150 N" in sheet[0]["note"]
    calls(state, "P P P 4S P P P")
    play_deal(state)
    assert not state.is_terminal()  # a second rubber starts
    obs = state.observation(0)
    assert obs.games == (0, 0) and obs.vulnerable == (False, False) and obs.dealer == 2
    assert state.game.max_game_length == 371 * 30 * 2


def test_options_are_checked() -> None:
    with pytest.raises(ValueError):
        get_game("bridge", scoring="chicago")
    with pytest.raises(ValueError):
        get_game("bridge", honours=True)  # duplicate has no honours
    with pytest.raises(ValueError):
        get_game("bridge", preset="rubber").new_initial_state(seed=1, board=2)
    with pytest.raises(ValueError):
        get_game("bridge").new_initial_state(seed=1, board=0)
    assert get_game("bridge").ruleset == "bridge@v1"
    assert get_game("bridge", preset="duplicate").ruleset == "bridge_duplicate@v1"
    assert get_game("bridge").teams() == [[0, 2], [1, 3]]


@pytest.mark.parametrize("preset", ["duplicate", "rubber"])
def test_state_keeps_at_most_29_attributes_in_init_order(preset: str) -> None:
    """CPython 3.11 keeps an instance's attributes in its shared-key instance values (the
    fast attribute access the engine's speed relies on) only up to 29 of them; clone()
    copies them in ``__init__``'s order so that copies share the keys too."""
    import random

    from arena.games.bridge import state as bridge_state

    if bridge_state._COMPILED:
        pytest.skip("compiled: the attributes live in native slots, there is no __dict__")
    state = get_game("bridge", preset=preset).new_initial_state(seed=4)
    rng = random.Random(4)
    order = list(vars(get_game("bridge", preset=preset).new_initial_state(seed=4)))
    assert len(order) <= 29, order
    while not state.is_terminal():
        copy = state.clone()
        assert list(vars(copy)) == order
        state.apply_action(rng.choice(state.legal_actions()))
    assert list(vars(state)) == order
