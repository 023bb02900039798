"""The fault drills of :mod:`drills.drill_conductor` in their short form (leases of
3 s, conductor passes every 0.5 s): real Redis, real ``arena worker`` processes,
SQLite and PostgreSQL stores (a subset: see the list). Each tournament must finish by itself with every
record exactly once and equal to an embedded run of the same file. The full
drill with the default settings is ``python tests/drills/drill_conductor.py``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from drills.drill_conductor import Drill

pytestmark = pytest.mark.timeout(600)


# Each fault once (the store outage on PostgreSQL, where the connection really goes
# away; on SQLite it is a 10 s lock-1s), plus the pool child and the embedded executor.
# The full drill (every fault on both stores, default settings) is the script.
@pytest.mark.parametrize("kind,fault", [
    ("sqlite", "kill9-main"), ("sqlite", "kill9-child"), ("sqlite", "redis-volatile"),
    ("sqlite", "redis-aof"), ("sqlite", "lock-1s"),
    ("sqlite", "embedded-kill9"), ("sqlite", "embedded-store"),
    ("postgresql", "store-down"),
])
def test_tournament_finishes_by_itself_after_the_fault(kind: str, fault: str, tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed (.ci/run installs it)")
    outcome = Drill(kind, 40, True, tmp_path, timeout=120).run(fault)
    assert outcome.ok, outcome
    assert outcome.recovery_s < 60, outcome
