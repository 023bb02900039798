"""The soak drill of :mod:`drills.drill_soak` in its short form (about 500 remote
matches over the five games): a private redis-server, ``arena serve --redis-url``,
two ``arena worker`` processes (one pool process each, up to 48 remote matches at once
on threads: each pool process starts more remote-match threads than redis-py's
default pool of 100 connections, which the per-thread connections of issue 26
exhausted; before 7d4723a this test failed with "nothing recorded for 90 s ... Too
many connections"), the SDK bot and the bot written against the generated stubs only. No faults, no forfeits, records equal to
the embedded run, Redis clients, worker fds and RSS flat. The full drill (5,040
matches, two pool processes per worker) is ``python tests/drills/drill_soak.py``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from drills.drill_soak import SHORT_CONCURRENCY, SHORT_MATCHES, SHORT_REMOTE_MATCHES, SoakDrill, print_report

pytestmark = pytest.mark.timeout(600)


def test_soak_short_form_is_flat_and_equal_to_the_embedded_run(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed (.ci/run installs it)")
    lines: list[str] = []
    drill = SoakDrill(tmp_path, SHORT_MATCHES, concurrency=SHORT_CONCURRENCY, interval=1.0, timeout=360,
                      stall=90, echo=lines.append, remote_matches=SHORT_REMOTE_MATCHES)
    report = drill.run()
    print_report(report, lines.append)
    text = "\n".join(lines)
    assert not report.failure, text
    assert report.matches >= SHORT_MATCHES and report.recorded == report.matches, text
    assert report.faults == report.forfeits == report.failed == report.differ == 0, text
    assert report.checks and all(c.ok for c in report.checks), text
    # the drill judged real play: samples over the run, all five games recorded
    assert len([s for s in report.samples if s.done > 0]) >= 5, text
