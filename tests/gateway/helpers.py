"""Shared helpers of the gateway and client tests: SDK bots on threads or in processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SDK_PATH = ROOT / "clients" / "python"
if str(SDK_PATH) not in sys.path:
    sys.path.insert(0, str(SDK_PATH))

from arenabot import Bot  # noqa: E402


class BotThread:
    """Runs an SDK bot on its own thread and event loop (same process, no fork)."""

    def __init__(self, bot: Bot, target: str, token: str, **kwargs: Any) -> None:
        self.bot = bot
        self.error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._args = (target, token)
        self._kwargs = {"initial_backoff": 0.05, "max_backoff": 0.2, **kwargs}
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self.bot.run_async(*self._args, **self._kwargs))
        except BaseException as exc:  # noqa: BLE001 - inspected by the test
            self.error = exc
        finally:
            loop.close()

    def start(self) -> BotThread:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.bot.stop)
            except RuntimeError:
                pass
        self._thread.join(timeout)

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


def sdk_process(target: str, token: str, *args: str) -> subprocess.Popen[bytes]:
    """``python -m arenabot`` in a child process (started fresh, never forked from gRPC state)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SDK_PATH), str(ROOT), env.get("PYTHONPATH", "")])
    return subprocess.Popen([sys.executable, "-m", "arenabot", "--target", target, "--token", token,
                             *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
