"""The bot protocol: generated gRPC code for ``proto/arena/bot/`` lives in ``arena.bot.v1``."""
