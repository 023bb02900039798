"""arenabot: write a bot for the arena in a few lines.

>>> from arenabot import Bot
>>> class MyBot(Bot):
...     def decide(self, request):
...         return request.legal_actions[0].text
>>> MyBot.name
'bot'

Run it with ``MyBot().run("127.0.0.1:50051", token)`` or
``python -m arenabot --bot mymodule:MyBot --token ...``; over TLS,
``MyBot().run(target, token, credentials=tls_credentials("ca.pem"))`` or
``python -m arenabot --ca-file ca.pem ...`` (``--tls`` for the system's roots).
"""

import os as _os
import sys as _sys

if _sys.argv[:1] == ["-m"] and not {"-v", "--verbose"} & set(_sys.argv):
    # ``python -m arenabot`` (argv[0] is "-m" while its package is imported): the gRPC
    # runtime reads its log level once, on import, and at its default it would print
    # its own line for a failed TLS handshake beside the one line arenabot prints
    _os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

from arenabot.bot import (Bot, BotStopped, NotConnected, backoff_delays, legal_choices, observation_of,
                          tls_credentials)
from arenabot.examples.random_bot import RandomBot

__all__ = ["Bot", "BotStopped", "NotConnected", "RandomBot", "backoff_delays", "legal_choices", "observation_of",
           "tls_credentials"]
