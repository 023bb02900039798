"""The ``arena.admin.v1.AdminService`` servicer, behind the operator token.

Bots: register (token returned once), revoke (closes the bot's session), list.
Tournaments, standings and ratings answer UNIMPLEMENTED until the tournaments
issue fills them in.
"""

from __future__ import annotations

import hmac

import grpc

from arena.admin.v1 import admin_pb2, admin_pb2_grpc
from arena.gateway.registry import BotEntry, BotExistsError, BotNotFoundError, BotRegistry
from arena.gateway.session import SessionHub

__all__ = ["AdminServicer"]


class AdminServicer(admin_pb2_grpc.AdminServiceServicer):  # type: ignore[misc]  # generated base, untyped
    """Operator API; every call needs ``authorization: Bearer <operator token>``."""

    def __init__(self, hub: SessionHub, registry: BotRegistry, operator_token: str | None) -> None:
        self.hub = hub
        self.registry = registry
        self._operator_token = operator_token

    async def _authorize(self, context: grpc.aio.ServicerContext) -> None:
        if not self._operator_token:
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "this gateway has no operator token configured")
        got = ""
        for key, value in context.invocation_metadata() or ():
            if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
                got = value[len("Bearer "):]
        if not hmac.compare_digest(got.encode(), str(self._operator_token).encode()):
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing or wrong operator token")

    def _info(self, entry: BotEntry) -> admin_pb2.BotInfo:
        return admin_pb2.BotInfo(bot_id=entry.bot_id, owner=entry.owner,
                                 created_unix_ms=entry.created_unix_ms, revoked=entry.revoked,
                                 connected=self.hub.is_connected(entry.bot_id))

    async def RegisterBot(self, request: admin_pb2.RegisterBotRequest,  # noqa: N802
                          context: grpc.aio.ServicerContext) -> admin_pb2.RegisterBotResponse:
        await self._authorize(context)
        try:
            entry, token = self.registry.register(request.bot_id, request.owner)
        except BotExistsError as exc:
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(exc))
        except ValueError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        return admin_pb2.RegisterBotResponse(bot=self._info(entry), token=token)

    async def RevokeBot(self, request: admin_pb2.RevokeBotRequest,  # noqa: N802
                        context: grpc.aio.ServicerContext) -> admin_pb2.RevokeBotResponse:
        await self._authorize(context)
        try:
            entry = self.registry.revoke(request.bot_id)
        except BotNotFoundError:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"no bot {request.bot_id!r}")
        self.hub.close_bot(entry.bot_id, grpc.StatusCode.UNAUTHENTICATED, "the bot's token was revoked")
        return admin_pb2.RevokeBotResponse(bot=self._info(entry))

    async def ListBots(self, request: admin_pb2.ListBotsRequest,  # noqa: N802
                       context: grpc.aio.ServicerContext) -> admin_pb2.ListBotsResponse:
        await self._authorize(context)
        return admin_pb2.ListBotsResponse(bots=[self._info(e) for e in self.registry.list()])

    async def _unimplemented(self, context: grpc.aio.ServicerContext) -> None:
        await self._authorize(context)
        await context.abort(grpc.StatusCode.UNIMPLEMENTED,
                            "tournaments, standings and ratings are not served yet")

    async def CreateTournament(self, request: admin_pb2.CreateTournamentRequest,  # noqa: N802
                               context: grpc.aio.ServicerContext) -> admin_pb2.CreateTournamentResponse:
        await self._unimplemented(context)
        return admin_pb2.CreateTournamentResponse()

    async def GetTournament(self, request: admin_pb2.GetTournamentRequest,  # noqa: N802
                            context: grpc.aio.ServicerContext) -> admin_pb2.GetTournamentResponse:
        await self._unimplemented(context)
        return admin_pb2.GetTournamentResponse()

    async def GetStandings(self, request: admin_pb2.GetStandingsRequest,  # noqa: N802
                           context: grpc.aio.ServicerContext) -> admin_pb2.GetStandingsResponse:
        await self._unimplemented(context)
        return admin_pb2.GetStandingsResponse()

    async def GetRatings(self, request: admin_pb2.GetRatingsRequest,  # noqa: N802
                         context: grpc.aio.ServicerContext) -> admin_pb2.GetRatingsResponse:
        await self._unimplemented(context)
        return admin_pb2.GetRatingsResponse()
