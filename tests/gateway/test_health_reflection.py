"""Health checking and reflection (served when their optional packages are installed)."""

from __future__ import annotations

import grpc
import pytest

from arena.gateway import Gateway

health_pb2 = pytest.importorskip("grpc_health.v1.health_pb2")
health_pb2_grpc = pytest.importorskip("grpc_health.v1.health_pb2_grpc")
reflection_pb2 = pytest.importorskip("grpc_reflection.v1alpha.reflection_pb2")
reflection_pb2_grpc = pytest.importorskip("grpc_reflection.v1alpha.reflection_pb2_grpc")


def test_health_and_reflection(gateway: Gateway) -> None:
    with grpc.insecure_channel(gateway.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "arena.bot.v1.BotService", "arena.admin.v1.AdminService"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        replies = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                                 timeout=5))
        names = {s.name for s in replies[0].list_services_response.service}
        assert {"arena.bot.v1.BotService", "arena.admin.v1.AdminService"} <= names
        replies = list(stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="arena.bot.v1.BridgeObservation")]), timeout=5))
        assert replies[0].file_descriptor_response.file_descriptor_proto
