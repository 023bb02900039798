"""The dashboard opens its store read-only (``arena serve`` and ``python -m
arena.dashboard``): serving pages leaves the database file as it was, and a store
that is not there is one line, with nothing created."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the dashboard needs fastapi (not installed)")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_pages_leave_the_store_file_as_it_was(dashboard_store: dict[str, Any], tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from arena.dashboard import create_app

    src = Path(dashboard_store["url"].removeprefix("sqlite:///"))
    db = tmp_path / "copy.db"
    for suffix in ("", "-wal", "-shm"):  # a consistent copy: the checkpointed file and its WAL
        if Path(f"{src}{suffix}").exists():
            shutil.copyfile(f"{src}{suffix}", f"{db}{suffix}")
    before = _digest(db)
    app = create_app(f"sqlite:///{db}", readonly=True)
    assert app.state.store.readonly
    with TestClient(app) as client:
        assert client.get("/").status_code == 200
        tids = [t.id for t in app.state.store.tournaments()]
        assert tids
        for tid in tids[:3]:
            assert client.get(f"/tournaments/{tid}").status_code == 200
    assert _digest(db) == before


def test_a_missing_store_is_one_line_and_nothing_is_created(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "arena.dashboard", "--store", f"sqlite:///{tmp_path / 'none.db'}",
                          "--port", "0"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stdout + out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "no store at" in lines[0] and "Traceback" not in out.stderr, out.stderr
    assert list(tmp_path.iterdir()) == []


def test_arena_serve_makes_the_store_and_its_dashboard_reads_it(tmp_path: Path) -> None:
    import os
    import signal
    import socket
    import time
    import urllib.request

    def free() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])

    web, grpc_port = free(), free()
    proc = subprocess.Popen([sys.executable, "-m", "arena", "serve", "--store", f"sqlite:///{tmp_path / 'new.db'}",
                             "--address", f"127.0.0.1:{grpc_port}", "--dashboard-port", str(web)],
                            cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, ARENA_OPERATOR_TOKEN="t"))
    try:
        end, page = time.monotonic() + 60, None
        while page is None:
            assert proc.poll() is None and time.monotonic() < end, proc.communicate()[0]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web}/", timeout=2) as r:
                    page = (r.status, r.read().decode())
            except OSError:
                time.sleep(0.2)
        assert page[0] == 200 and "arena" in page[1].lower()
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
    assert "Traceback" not in out, out
    assert (tmp_path / "new.db").exists()
