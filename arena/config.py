"""The arena's configuration in one place: :class:`Settings`, read from ``ARENA_*``
environment variables by :meth:`Settings.from_env`.

Every process of a deployment (gateway, dashboard, Celery workers, the CLI that
submits tournaments) reads the same variables; ``deploy/compose.yaml`` and
``deploy/k8s/`` set exactly these (a test checks it). The names are the ones the
code already reads: :mod:`workers.celery` (``ARENA_REDIS_URL``, ``ARENA_STORE_URL``,
``ARENA_VISIBILITY_TIMEOUT``, ``ARENA_UNACKED_RESTORE_*``),
:func:`arena.gateway.serve` and ``arena serve`` (``ARENA_OPERATOR_TOKEN``; bots and
tournaments in ``ARENA_STORE_URL``), ``arena bots`` (``ARENA_STORE_URL``),
:mod:`arena.tournaments.commands` and :mod:`arena.tournaments.runner`
(``ARENA_STORE_URL``, ``ARENA_REDIS_URL``), ``python -m arena.dashboard``
(``ARENA_STORE_URL``; ``--host``/``--port`` default 127.0.0.1:8080).

========================================  =====================================  ==========================
variable                                  meaning                                default
========================================  =====================================  ==========================
``ARENA_STORE_URL``                       SQLAlchemy URL of the store            ``sqlite:///arena.db``
                                          (tournaments, records, bots)
``ARENA_REDIS_URL``                       Celery broker/backend and the          ``redis://127.0.0.1:6379/0``
                                          decision routes to the gateway
``ARENA_GATEWAY_ADDRESS``                 ``host:port`` the gateway listens on   ``127.0.0.1:50051``
                                          (``arena serve --address``)
``ARENA_GATEWAY_EVENT_LOOP``              the gateway's event loop: ``auto``     ``auto``
                                          (uvloop when installed), ``asyncio``,
                                          ``uvloop`` (``arena serve --event-loop``)
``ARENA_GATEWAY_TLS_CERT``                PEM certificate chain: the gateway     none (plaintext)
                                          serves TLS only (``arena serve
                                          --tls-cert``; with the key)
``ARENA_GATEWAY_TLS_KEY``                 PEM private key of that certificate    none
                                          (``arena serve --tls-key``)
``ARENA_OPERATOR_TOKEN``                  token for AdminService calls           none (a random one is
                                          (a secret)                             logged at start)
``ARENA_DASHBOARD_HOST``                  address the dashboard binds            ``127.0.0.1``
``ARENA_DASHBOARD_PORT``                  port of the dashboard (HTTP)           ``8080``
``ARENA_VISIBILITY_TIMEOUT``              seconds before Redis redelivers an     ``3600``
                                          unacknowledged task (> longest batch)
``ARENA_UNACKED_RESTORE_INTERVAL``        kombu restore scan interval            ``10``
``ARENA_UNACKED_RESTORE_THROTTLE``        kombu restore throttle                 ``10``
========================================  =====================================  ==========================

``ARENA_GATEWAY_DB`` (the separate SQLite bot file of ``arena serve --db`` in older
versions) is gone: the gateway authenticates bots against the store's ``bots`` table;
``arena bots import FILE`` copies an old file's bots into the store, tokens unchanged.

Secrets (``ARENA_OPERATOR_TOKEN``, the database password inside ``ARENA_STORE_URL``)
come from the environment only; :meth:`Settings.redacted` hides them for logs. The
deployment files hold the password in one more variable, ``ARENA_DB_PASSWORD``
(compose: from the operator's shell; Kubernetes: from the Secret), which no arena
code reads: it is only substituted into ``ARENA_STORE_URL``.

>>> s = Settings.from_env({"ARENA_REDIS_URL": "redis://redis:6379/0", "ARENA_DASHBOARD_PORT": "9000"})
>>> s.redis_url, s.dashboard_port, s.gateway_port
('redis://redis:6379/0', 9000, 50051)
>>> Settings.from_env({"ARENA_STORE_URL": "postgresql+psycopg://arena:pw@db/arena",
...                    "ARENA_OPERATOR_TOKEN": "t0k"}).redacted()["store_url"]
'postgresql+psycopg://arena:***@db/arena'
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["Settings", "ENV", "SECRET_ENV", "DEFAULT_GATEWAY_PORT", "DEFAULT_DASHBOARD_PORT"]

DEFAULT_GATEWAY_PORT = 50051
DEFAULT_DASHBOARD_PORT = 8080

ENV: dict[str, str] = {
    "store_url": "ARENA_STORE_URL",
    "redis_url": "ARENA_REDIS_URL",
    "gateway_address": "ARENA_GATEWAY_ADDRESS",
    "gateway_event_loop": "ARENA_GATEWAY_EVENT_LOOP",
    "gateway_tls_cert": "ARENA_GATEWAY_TLS_CERT",
    "gateway_tls_key": "ARENA_GATEWAY_TLS_KEY",
    "operator_token": "ARENA_OPERATOR_TOKEN",
    "dashboard_host": "ARENA_DASHBOARD_HOST",
    "dashboard_port": "ARENA_DASHBOARD_PORT",
    "visibility_timeout": "ARENA_VISIBILITY_TIMEOUT",
    "unacked_restore_interval": "ARENA_UNACKED_RESTORE_INTERVAL",
    "unacked_restore_throttle": "ARENA_UNACKED_RESTORE_THROTTLE",
}
"""Field of :class:`Settings` -> environment variable."""

SECRET_ENV = frozenset({"ARENA_OPERATOR_TOKEN"})
"""Variables that are secrets as a whole (the store URL may hold a password too)."""


class ConfigError(ValueError):
    """An environment variable has a value of the wrong kind; names the variable."""


@dataclass(frozen=True)
class Settings:
    """Configuration of every arena process; see the module docstring for the variables."""

    store_url: str = "sqlite:///arena.db"
    """``ARENA_STORE_URL``: ``sqlite:///FILE`` or ``postgresql+psycopg://USER:PASSWORD@HOST:5432/DB``;
    tournaments, match records, ratings and the registered bots."""
    redis_url: str = "redis://127.0.0.1:6379/0"
    """``ARENA_REDIS_URL``: Celery broker and result backend; decision routes to the gateway."""
    gateway_address: str = f"127.0.0.1:{DEFAULT_GATEWAY_PORT}"
    """``ARENA_GATEWAY_ADDRESS``: where ``arena serve`` listens (``0.0.0.0:50051`` in a container)."""
    gateway_event_loop: str = "auto"
    """``ARENA_GATEWAY_EVENT_LOOP``: ``auto`` (uvloop when installed), ``asyncio`` or ``uvloop``."""
    gateway_tls_cert: str | None = None
    """``ARENA_GATEWAY_TLS_CERT``: PEM certificate chain file; with the key the gateway serves TLS only."""
    gateway_tls_key: str | None = None
    """``ARENA_GATEWAY_TLS_KEY``: PEM private key file of that certificate."""
    operator_token: str | None = None
    """``ARENA_OPERATOR_TOKEN``: secret for AdminService calls."""
    dashboard_host: str = "127.0.0.1"
    """``ARENA_DASHBOARD_HOST``: bind address of the dashboard (``0.0.0.0`` in a container)."""
    dashboard_port: int = DEFAULT_DASHBOARD_PORT
    """``ARENA_DASHBOARD_PORT``: HTTP port of the dashboard."""
    visibility_timeout: int = 3600
    """``ARENA_VISIBILITY_TIMEOUT``: seconds; must stay above the longest task (a match batch)."""
    unacked_restore_interval: int = 10
    """``ARENA_UNACKED_RESTORE_INTERVAL``: seconds between kombu's scans for lost messages."""
    unacked_restore_throttle: int = 10
    """``ARENA_UNACKED_RESTORE_THROTTLE``: multiplier of that interval."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``environ`` (default ``os.environ``); unset or empty -> default.

        :raises ConfigError: if an integer variable is not an integer.
        """
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(ENV[f.name], "")
            if raw == "":
                continue
            if f.type in ("int", int):
                try:
                    values[f.name] = int(raw)
                except ValueError:
                    raise ConfigError(f"{ENV[f.name]} must be an integer, not {raw!r}") from None
            else:
                values[f.name] = raw
        return cls(**values)

    @property
    def gateway_port(self) -> int:
        """The port of :attr:`gateway_address`."""
        return int(self.gateway_address.rsplit(":", 1)[1])

    @property
    def gateway_host(self) -> str:
        """The host of :attr:`gateway_address`."""
        return self.gateway_address.rsplit(":", 1)[0]

    def to_env(self) -> dict[str, str]:
        """The ``ARENA_*`` variables for a child process (unset secrets left out)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[ENV[f.name]] = str(value)
        return out

    def redacted(self) -> dict[str, Any]:
        """The settings with secrets masked, for logs and ``status`` output."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if ENV[f.name] in SECRET_ENV and value:
                value = "***"
            elif isinstance(value, str):
                value = re.sub(r"(://[^:/@]+:)[^@]*@", r"\1***@", value)
            out[f.name] = value
        return out

    def gateway_config(self) -> Any:
        """A :class:`~arena.gateway.GatewayConfig` whose Redis bridge uses :attr:`redis_url`
        (so Celery workers reach the bots connected to this gateway)."""
        from arena.gateway.server import GatewayConfig

        return GatewayConfig(redis_url=self.redis_url, tls_cert=self.gateway_tls_cert,
                             tls_key=self.gateway_tls_key)
