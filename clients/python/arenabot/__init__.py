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

from arenabot.bot import Bot, BotStopped, backoff_delays, legal_choices, observation_of, tls_credentials
from arenabot.examples.random_bot import RandomBot

__all__ = ["Bot", "BotStopped", "RandomBot", "backoff_delays", "legal_choices", "observation_of",
           "tls_credentials"]
