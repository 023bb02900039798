"""AdminService over loopback: operator token, register/list/revoke (in memory and in the
store); the tournament calls are in ``test_admin_tournaments.py``."""

from __future__ import annotations

import time

import grpc
import pytest

from arena.admin.v1 import admin_pb2, admin_pb2_grpc
from arena.gateway import Gateway
from arena.store.registry import SqliteRegistry

from gateway.helpers import BotThread  # noqa: I001
from arenabot import BotStopped, RandomBot

AUTH = (("authorization", "Bearer op-secret"),)


def test_admin_register_list_revoke(gateway: Gateway) -> None:
    with grpc.insecure_channel(gateway.target) as channel:
        admin = admin_pb2_grpc.AdminServiceStub(channel)
        with pytest.raises(grpc.RpcError) as exc:
            admin.ListBots(admin_pb2.ListBotsRequest(), metadata=(("authorization", "Bearer nope"),))
        assert exc.value.code() == grpc.StatusCode.UNAUTHENTICATED
        reply = admin.RegisterBot(admin_pb2.RegisterBotRequest(bot_id="ops-bot", owner="ops"), metadata=AUTH)
        assert reply.token.startswith("arena_bot_") and reply.bot.bot_id == "ops-bot"
        assert gateway.registry.get("ops-bot").token_sha256 != reply.token  # stored hashed
        with pytest.raises(grpc.RpcError) as exc:
            admin.RegisterBot(admin_pb2.RegisterBotRequest(bot_id="ops-bot"), metadata=AUTH)
        assert exc.value.code() == grpc.StatusCode.ALREADY_EXISTS
        with pytest.raises(grpc.RpcError) as exc:
            admin.RegisterBot(admin_pb2.RegisterBotRequest(bot_id="bad id!"), metadata=AUTH)
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT

        thread = BotThread(RandomBot(), gateway.target, reply.token).start()
        assert gateway.wait_connected("ops-bot", 10)
        bots = admin.ListBots(admin_pb2.ListBotsRequest(), metadata=AUTH).bots
        assert [(b.bot_id, b.connected, b.revoked) for b in bots] == [("ops-bot", True, False)]

        revoked = admin.RevokeBot(admin_pb2.RevokeBotRequest(bot_id="ops-bot"), metadata=AUTH)
        assert revoked.bot.revoked
        thread.join(10)  # the session is closed with UNAUTHENTICATED and the SDK gives up
        assert isinstance(thread.error, BotStopped)
        assert thread.error.code == grpc.StatusCode.UNAUTHENTICATED
        assert not gateway.is_connected("ops-bot")
        with pytest.raises(grpc.RpcError) as exc:
            admin.RevokeBot(admin_pb2.RevokeBotRequest(bot_id="ghost"), metadata=AUTH)
        assert exc.value.code() == grpc.StatusCode.NOT_FOUND


def test_sqlite_registry_persists_hashes_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = str(tmp_path / "bots.sqlite3")
    reg = SqliteRegistry(path)
    entry, token = reg.register("persist", owner="me")
    reg.close()
    reg = SqliteRegistry(path)
    assert reg.authenticate(token) == entry
    assert token.encode() not in open(path, "rb").read()
    assert reg.revoke("persist").revoked and reg.authenticate(token) is None
    assert [b.bot_id for b in reg.list()] == ["persist"]
    reg.close()
    assert time.time() * 1000 >= entry.created_unix_ms
