"""Issue 28's change test for a transport: a new kind of entrant is one
:class:`~arena.tournaments.routes.Route` in ``ROUTES`` plus its agent, no other file
touched. Here the transport is a bot process speaking JSON lines on its stdin and
stdout (written below from that one-line protocol, not from arena's code): a
tournament file names it with the route's own key (``pipe = "first"``), a bad name
is the usual one-line error, and the embedded conductor plays the tournament to the
end, every decision of the pipe seats answered by the process."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.core.state import Action
from arena.match.agent import Agent, AgentFailure, DecisionTimeout, MatchInfo
from arena.records.spec import MatchSpec
from arena.tournaments import routes, service
from arena.tournaments.config import ConfigError, loads_config
from arena.tournaments.executors import open_store

BOT = r'''
import json, sys
# The pipe protocol: one JSON object per line in, {"legal": [texts]}; one line out, the
# chosen text. The strategy is argv[1]; every request is logged to argv[2].
strategy, log = sys.argv[1], open(sys.argv[2], "a")
for line in sys.stdin:
    legal = json.loads(line)["legal"]
    log.write(line)
    log.flush()
    print(legal[0] if strategy == "first" else legal[-1], flush=True)
'''


class PipeAgent(Agent):
    """The transport's agent: one bot process per seat, a request per decision."""

    def __init__(self, script: Path, strategy: str, log: Path, deadline_ms: int) -> None:
        self.name = f"pipe:{strategy}"
        self._argv = [sys.executable, str(script), strategy, str(log)]
        self._deadline = deadline_ms / 1000
        self._proc: subprocess.Popen[str] | None = None

    def start_match(self, info: MatchInfo) -> None:
        self._proc = subprocess.Popen(self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def act(self, observation: Any, legal_actions: Sequence[Action]) -> Action | str:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None or proc.poll() is not None:
            raise AgentFailure("the bot process is not running")
        texts = list(getattr(legal_actions, "texts", [str(a) for a in legal_actions]))
        proc.stdin.write(json.dumps({"legal": texts}) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], self._deadline)
        if not ready:
            raise DecisionTimeout(f"no answer in {self._deadline:.1f} s")
        answer = proc.stdout.readline()
        if not answer:
            raise AgentFailure("the bot process closed its output")
        return answer.strip()

    def end_match(self, seat: int, returns: Sequence[float]) -> None:
        self.close()

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


def _strategy(name: str) -> str:
    if name not in ("first", "last"):
        raise ValueError(f"unknown strategy {name!r}; use first or last")
    return name


FILE = """
[tournament]
id = "piped"
game = "calypso"
format = "round_robin"
deals = 2
seed = 11
deadline_ms = 5000

[[entrants]]
id = "p"
{entrant}

[[entrants]]
id = "r"
bot = "random"
"""


@pytest.fixture()
def pipe_route(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    script, log = tmp_path / "pipe_bot.py", tmp_path / "requests.jsonl"
    script.write_text(BOT)

    def make_agent(spec: MatchSpec, seat: int, name: str, router: Any) -> Agent:
        return PipeAgent(script, name, log, spec.deadline_ms)

    # the one line a new transport adds (threaded: its agents live in the conductor's process)
    route = routes.Route("pipe", make_agent, threaded=True, entrant_hint="<strategy>", check_name=_strategy)
    monkeypatch.setitem(routes.ROUTES, "pipe", route)
    yield log


def test_a_new_transport_is_one_route_and_its_agent(pipe_route: Path, tmp_path: Path) -> None:
    config = loads_config(FILE.format(entrant='pipe = "first"'))
    assert config.entrant("p").bot == "pipe:first" and config.entrant("r").bot == "builtin:random"
    with pytest.raises(ConfigError, match=r"^entrants\[0\]\.pipe: unknown strategy 'middle'; use first or last$"):
        loads_config(FILE.format(entrant='pipe = "middle"'))
    with pytest.raises(ConfigError, match=r'^entrants\[0\]: give exactly one of bot = .*, bluechip = "<team>" or pipe = "<strategy>"$'):
        loads_config(FILE.format(entrant='pipe = "first"\nbot = "random"'))
    with pytest.raises(ConfigError, match=r"^entrants\[0\]\.options: options are for built-in bots"):
        loads_config(FILE.format(entrant='pipe = "first"\noptions = {noise = 0.1}'))

    file = tmp_path / "piped.toml"
    file.write_text(FILE.format(entrant='pipe = "first"'))
    url = f"sqlite:///{tmp_path / 'piped.db'}"
    store = open_store(url)
    _, added = service.register(file, store)
    service.run_embedded(url, "piped", jobs=1)
    assert store.tournament("piped").status == "done" and store.progress("piped") == (added, added)
    records = list(store.records("piped"))
    assert len(records) == added and all("pipe:first" in r.tags["bots"] for r in records)
    assert not any(r.faults for r in records)
    # every decision of a pipe seat went to the process, which answered the first legal text
    requests = [json.loads(line)["legal"] for line in pipe_route.read_text().splitlines()]
    asked = sum(1 for r in records for a in r.actions
                if r.tags["bots"][a.seat] == "pipe:first" and not a.forced)
    assert requests and len(requests) == asked
    st = service.standings(store, "piped")
    assert st.recorded == st.expected == added and {row["entrant"] for row in st.rows} == {"p", "r"}


def test_without_its_route_the_key_is_unknown() -> None:
    with pytest.raises(ConfigError, match=r"^entrants\[0\]\.pipe: unknown key; expected one of bluechip, bot, id, options, remote$"):
        loads_config(FILE.format(entrant='pipe = "first"'))
