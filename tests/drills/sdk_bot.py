"""The soak drill's SDK bot (``clients/python/arenabot``): a deterministic bot for
any game, run as ``python -m arenabot --bot drills.sdk_bot:SoakSdkBot``.

Its choice depends only on what a decision is about, never on timing: the listed
legal action at index ``crc32("sdk" | seat | attempt | legal texts | observation)
mod len(legal_actions)``, the observation being the request's typed message
serialized deterministically. The same match played twice (distributed or
embedded) therefore gets the same actions. It answers at once (a sync ``decide``).
"""

from __future__ import annotations

import zlib

from arenabot.bot import Bot, legal_choices, observation_of


class SoakSdkBot(Bot):
    """A pseudo-random legal action, chosen by a hash of the request's contents."""

    name = "soak-sdk-bot"
    version = "1"

    def __init__(self, **kwargs: object) -> None:
        kwargs.pop("seed", None)
        super().__init__(**kwargs)  # type: ignore[arg-type]

    def decide(self, request):  # type: ignore[no-untyped-def]
        observation = observation_of(request)
        seen = b"" if observation is None else observation.SerializeToString(deterministic=True)
        key = b"|".join([b"sdk", str(request.seat).encode(), str(request.attempt).encode(),
                         "\x1f".join(a.text for a in request.legal_actions).encode(), seen])
        choices = legal_choices(request)
        return choices[zlib.crc32(key) % len(choices)]
