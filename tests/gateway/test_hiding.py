"""Information hiding on the wire for bridge (one pack, so a token names one card).

A full bridge board is played through the gateway by an SDK bot that keeps the
bytes of every DecisionRequest it receives. Before each decision the engine says
which cards the observing seat cannot know (``hidden_positions``); none of them
may appear in any card field of that request, and none may appear in its bytes
as a card string anywhere outside the auction (where "2C" is also a call).
"""

from __future__ import annotations

from typing import Any

from arena.bot.v1 import bot_pb2
from arena.bots.base import LegalActions, MatchInfo
from arena.games import get_game
from arena.gateway import Gateway

from gateway.helpers import BotThread  # noqa: I001
from gateway.test_gateway import Recorder, _connect


def _card_fields(obs: Any) -> set[str]:
    cards = set(obs.hand) | set(obs.dummy_hand) | set(obs.current_trick)
    for trick in obs.tricks:
        cards |= set(trick.cards)
    return cards


def test_bridge_requests_hold_no_hidden_card(gateway: Gateway) -> None:
    game = get_game("bridge")
    _, token = gateway.registry.register("bridge-recorder")
    bot = Recorder()
    thread: BotThread = _connect(gateway, bot, "bridge-recorder", token)
    try:
        for seed in (1, 2):
            state = game.new_initial_state(seed=seed)
            agents = [gateway.agent("bridge-recorder") for _ in range(4)]
            for seat, agent in enumerate(agents):
                agent.start_match(MatchInfo(game="bridge", ruleset=game.ruleset, seat=seat, num_players=4,
                                            match_id=f"hide-{seed}", options={}, deadline_ms=5000))
            checked = hidden_total = 0
            while not state.is_terminal():
                seat = state.current_player()
                obs = state.observation(seat)
                hidden = {state.dealer.realized[k][p] for k, p in state.hidden_positions(obs.seat)}
                hidden_total += len(hidden)
                legal = LegalActions(state.legal_actions(), state.action_to_string)
                before = len(bot.wire)
                answer = agents[seat].act(obs, legal)
                assert len(bot.wire) == before + 1
                raw = bot.wire[-1]
                request = bot_pb2.DecisionRequest.FromString(raw)
                assert request.seat == obs.seat and request.WhichOneof("observation") == "bridge"
                assert not (_card_fields(request.bridge) & hidden), f"seed {seed}: hidden card sent"
                without_auction = bot_pb2.DecisionRequest()
                without_auction.CopyFrom(request)
                del without_auction.bridge.auction[:]
                del without_auction.legal_actions[:]  # calls are listed here during the auction
                stripped = without_auction.SerializeToString()
                for card in hidden:
                    assert b"\x02" + card.encode() not in stripped
                state.apply_action(answer if isinstance(answer, int) else state.string_to_action(answer))
                checked += 1
            assert checked >= 4 and hidden_total > 39 * 4  # the auction alone hides 39 cards per seat
    finally:
        thread.stop()
