"""Round-based formats on real processes: a Swiss event, a ladder and a league's
two seasons (3 divisions x 8) give the same records embedded and on two
``arena worker`` processes (Celery + conductor, a private Redis), and finish by
themselves."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from arena.tournaments import league, service
from arena.tournaments.conductor import ConductorSettings
from arena.tournaments.executors import EmbeddedExecutor, open_store
from workers.celery import make_app
from workers.dispatch import CeleryDispatcher

from .conftest import TEST_SETTINGS, VISIBILITY_TIMEOUT, RedisServer, Worker, start_workers

SETTINGS = ConductorSettings.from_env(TEST_SETTINGS)
pytestmark = pytest.mark.timeout(240)

ENTRANTS = "".join(f'\n[[entrants]]\nid = "n{i}"\nbot = "heuristic?noise=0.{i}"\n' for i in range(6))


def _summary(store: Any, tid: str) -> dict[str, Any]:
    return {r.match_id: (r.returns, [(a.seat, a.action) for a in r.actions], r.seats)
            for r in store.records(tid)}


def _wait(store: Any, tids: list[str], timeout: float) -> None:
    end = time.monotonic() + timeout
    while any(store.tournament(t).status not in ("done", "stopped") for t in tids):
        assert time.monotonic() < end, {t: (store.tournament(t).status, store.status_counts(t)) for t in tids}
        time.sleep(0.2)


def _dispatcher(redis_url: str, store: Any) -> CeleryDispatcher:
    return CeleryDispatcher(make_app(redis_url, store.url, VISIBILITY_TIMEOUT), store_url=store.url)


def test_swiss_and_ladder_same_records_embedded_and_celery(tmp_path: Path, redis_server: RedisServer,
                                                           workers: list[Worker]) -> None:
    files = []
    for name, body in (("swiss", '[swiss]\nrounds = 3\n'),
                       ("ladder", '[ladder]\nconcurrency = 2\nstop_after = 6\n')):
        f = tmp_path / f"{name}.toml"
        f.write_text(f'[tournament]\nid = "{name}-x"\ngame = "bridge"\npreset = "duplicate"\n'
                     f'format = "{name}"\ndeals = 1\nseed = 9\ndeadline_ms = 5000\n{body}{ENTRANTS}',
                     encoding="utf-8")
        files.append(f)
    emb, cel = open_store(f"sqlite:///{tmp_path / 'emb.db'}"), open_store(f"sqlite:///{tmp_path / 'cel.db'}")
    for f in files:
        cfg, _ = service.register(f, emb)
        EmbeddedExecutor(emb.url, 2, settings=SETTINGS).run(cfg.id)
        assert emb.tournament(cfg.id).status == "done"
    start_workers(workers, 2, redis_server.url, cel.url, tmp_path)
    ids = []
    for f in files:
        cfg, _ = service.register(f, cel)
        service.submit(cel, cfg.id, _dispatcher(redis_server.url, cel), SETTINGS)
        ids.append(cfg.id)
    _wait(cel, ids, 150)
    for tid in ids:
        assert cel.tournament(tid).round == emb.tournament(tid).round
        assert _summary(emb, tid) == _summary(cel, tid), tid
    assert cel.tournament("swiss-x").round == 2 and len(_summary(cel, "ladder-x")) == 12


def test_league_two_seasons_same_records_embedded_and_celery(tmp_path: Path, redis_server: RedisServer,
                                                              workers: list[Worker]) -> None:
    # 3 divisions x 8 entrants of known strength, seeded weakest first
    noise = [0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5, 0.45, 0.4,
             0.35, 0.3, 0.25, 0.2, 0.15, 0.1, 0.08, 0.06, 0.04, 0.02, 0.01, 0.0]
    ents = "".join(f'\n[[entrants]]\nid = "n{i:02d}"\nbot = "heuristic?noise={p}"\n' for i, p in enumerate(noise))
    file = tmp_path / "lg.toml"
    file.write_text('[league]\nid = "lgx"\ngame = "bridge"\npreset = "duplicate"\ndeals = 1\nseed = 2\n'
                    'deadline_ms = 5000\n'
                    '[[divisions]]\nname = "top"\nsize = 8\nformat = "round_robin"\nrelegate = 2\n'
                    '[[divisions]]\nname = "mid"\nsize = 8\nformat = "swiss"\nrounds = 3\npromote = 2\n'
                    'relegate = 2\n'
                    '[[divisions]]\nname = "low"\nsize = 8\nformat = "swiss"\nrounds = 3\npromote = 2\n' + ents,
                    encoding="utf-8")
    emb, cel = open_store(f"sqlite:///{tmp_path / 'emb.db'}"), open_store(f"sqlite:///{tmp_path / 'cel.db'}")
    league.create(file, emb)
    for _ in range(2):
        league.season_start(emb, "lgx")
        league.play_round(emb, "lgx", all_rounds=True, jobs=2, settings=SETTINGS)
        league.season_end(emb, "lgx")
    start_workers(workers, 2, redis_server.url, cel.url, tmp_path)
    league.create(file, cel)
    for season in (1, 2):
        start = league.season_start(cel, "lgx")
        league.submit_season(cel, "lgx", _dispatcher(redis_server.url, cel), SETTINGS)
        _wait(cel, [d["tournament"] for d in start["divisions"]], 150)
        league.season_end(cel, "lgx")
    e, c = league.league_info(emb, "lgx"), league.league_info(cel, "lgx")
    assert e["divisions"] == c["divisions"] and e["season"] == c["season"] == 2
    assert [s["moves"] for s in e["history"]["seasons"]] == [s["moves"] for s in c["history"]["seasons"]]
    for season in (1, 2):
        for div in ("top", "mid", "low"):
            tid = league.division_tournament_id("lgx", season, div)
            assert _summary(emb, tid) == _summary(cel, tid), tid
    # promotion and relegation as configured: 2 up and 2 down between each pair, sizes kept
    for s in c["history"]["seasons"]:
        assert sorted(m["move"] for m in s["moves"]) == ["down"] * 4 + ["up"] * 4
    assert [len(d["entrants"]) for d in c["divisions"]["divisions"]] == [8, 8, 8]
    # the stronger bots rise: the strongest two, seeded in the bottom division, reached the top one
    strength = {f"n{i:02d}": -p for i, p in enumerate(noise)}
    top = c["divisions"]["divisions"][0]["entrants"]
    assert sum(strength[e] for e in top) > sum(strength[f"n{i:02d}"] for i in range(8))
    assert {"n22", "n23"} & set(c["divisions"]["divisions"][1]["entrants"] + top)
