"""The operators' API: generated gRPC code for ``proto/arena/admin/`` lives in ``arena.admin.v1``."""
