"""What the pages tell people (issue 27's dashboard items), through FastAPI's TestClient:
a game's own points where its returns only rank the sides (canasta), deals, rotations
and tables counted from 1 with the bridge board and seat letters beside them, the
vulnerable seats marked, IMPs as whole numbers per board (one decimal for averages),
and a URL for every step of a replay."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from arena.games.bridge.scoring import board_vulnerability
from arena.records.record import MatchRecord


def _record(client: Any, match_id: str) -> MatchRecord:
    return MatchRecord.from_dict(json.loads(client.get(f"/matches/{match_id}/record.jsonl").text))


def _row(page: str, match_id: str) -> str:
    """The tournament page's match-list row of ``match_id``."""
    listed = page[page.index('id="matches"'):]
    m = re.search(r'<tr data-match="' + re.escape(match_id) + r'">(.*?)</tr>', listed, re.S)
    assert m, match_id
    return m.group(1)


def _cell(row: str, cls: str) -> str:
    m = re.search(r'<td class="[^"]*\b' + cls + r'\b[^"]*">(.*?)</td>', row, re.S)
    assert m, cls
    return re.sub(r"<[^>]+>", "", m.group(1)).strip()


def _pts(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


# -- 1. canasta: the points, not the +-1 returns ------------------------------------------------

def test_canasta_match_list_shows_points(client: Any, dashboard_store: dict[str, Any]) -> None:
    tid, match_id = dashboard_store["finished"]["canasta"]
    record = _record(client, match_id)
    assert set(record.returns) <= {-1.0, 0.0, 1.0} and record.points  # a ranking, and the points beside it
    page = client.get(f"/tournaments/{tid}").text
    head = page[page.index('id="matches"'):]
    assert "<th>Points</th>" in head[:head.index("</thead>")]
    shown = _cell(_row(page, match_id), "returns")
    assert shown == " / ".join(_pts(p) for p in record.points), shown


def test_canasta_match_page_shows_points(client: Any, dashboard_store: dict[str, Any]) -> None:
    _, match_id = dashboard_store["finished"]["canasta"]
    record = _record(client, match_id)
    page = client.get(f"/matches/{match_id}").text
    seats = page[page.index('id="seats"'):page.index("</table>", page.index('id="seats"'))]
    assert '<th class="num">Points</th>' in seats and "Return</th>" not in seats
    cells = re.findall(r'<td class="num points"[^>]*>([^<]*)</td>', seats)
    assert cells == [_pts(p) for p in record.points]


def test_bot_page_shows_canasta_points(client: Any, dashboard_store: dict[str, Any]) -> None:
    _, match_id = dashboard_store["finished"]["canasta"]
    record = _record(client, match_id)
    page = client.get("/bots/random").text
    row = re.search(r'href="/matches/' + re.escape(match_id.replace(":", "%3A")) + r'">.*?</tr>', page, re.S)
    assert row, "the canasta match is on random's page"
    mine = [record.points[s] for s, b in enumerate(record.seats) if b == "random"]
    assert _cell(row.group(0), "points") == _pts(sum(mine) / len(mine))


def test_bridge_returns_are_its_score(client: Any, dashboard_store: dict[str, Any]) -> None:
    """A game whose returns are its score keeps them (bridge: the N-S / E-W score)."""
    tid, match_id = dashboard_store["finished"]["bridge"]
    record = _record(client, match_id)
    page = client.get(f"/tournaments/{tid}").text
    assert _cell(_row(page, match_id), "returns") == " / ".join(_pts(r) for r in record.returns)


# -- 2. counted from 1; the board and the seat letters ---------------------------------------------

def test_match_list_counts_from_one_with_board_and_seats(client: Any) -> None:
    from arena.store import Store

    page = client.get("/tournaments/example-bridge").text
    store: Store = client.app.state.store
    specs = store.specs("example-bridge")
    for spec in specs:
        row = _row(page, spec.match_id)
        assert re.search(r'<td class="num">' + str(spec.index + 1) + "</td>", row), spec.match_id
        assert (_cell(row, "deal"), _cell(row, "rotation"), _cell(row, "table")) == (
            str(spec.deal + 1), str(spec.rotation + 1), str(spec.table + 1))
        assert _cell(row, "board") == str(spec.tags["board"])
        assert _cell(row, "seats") == " · ".join(f"{s} {e}" for s, e in zip("NESW", spec.entrants))
        # the traveller holding this match says the same board
        trav = re.search(r'<details class="traveller" data-board="(\d+)"(?:(?!</details>).)*?data-match="'
                         + re.escape(spec.match_id) + '"', page, re.S)
        assert trav and trav.group(1) == str(spec.tags["board"]), spec.match_id
    # nothing on the page counts a deal from 0
    assert not re.search(r'<td class="num (deal|rotation|table)">0</td>', page)
    spec = specs[3]
    match = client.get(f"/matches/{spec.match_id}").text
    found = re.search(r'id="match-place">(.*?)</span>', match)
    assert found
    place = re.sub(r"<[^>]+>", "", found.group(1))
    assert place == (f"board {spec.tags['board']} · deal {spec.deal + 1} · rotation {spec.rotation + 1}"
                     f" · table {spec.table + 1}")


# -- 3. vulnerable seats marked --------------------------------------------------------------------

def test_vulnerable_seats_marked_on_match_page(client: Any) -> None:
    from arena.store import Store

    store: Store = client.app.state.store
    seen = set()
    for spec in store.specs("example-bridge"):
        ns, ew = board_vulnerability(int(spec.tags["board"]))
        page = client.get(f"/matches/{spec.match_id}").text
        rows = re.findall(r'<tr class="([^"]*)" data-seat="(\d)">\s*<td class="seat-label([^"]*)"[^>]*>(.*?)</td>',
                          page, re.S)
        assert len(rows) == 4
        for cls, seat, label_cls, label in rows:
            vul = (ns, ew)[int(seat) % 2]
            assert ("vul" in cls.split()) == vul and ("vul" in label_cls.split()) == vul, (spec.match_id, seat)
            assert ("vulnerable" in label) == vul
        seen.add((ns, ew))
    assert len(seen) == 4  # the four boards: none, N-S, E-W, both


def test_vulnerable_sides_marked_on_travellers(client: Any) -> None:
    page = client.get("/tournaments/example-bridge").text
    boards = re.findall(r'<details class="traveller" data-board="(\d+)".*?</details>', page, re.S)
    blocks = re.split(r'(?=<details class="traveller")', page)[1:]
    assert len(boards) == len(blocks) == 4
    for block in blocks:
        found = re.search(r'data-board="(\d+)"', block)
        assert found
        board = int(found.group(1))
        ns, ew = board_vulnerability(board)
        head = block[block.index("<thead>"):block.index("</thead>")]
        assert ('<th class="vul" title="vulnerable">N-S' in head) == ns, board
        assert ('<th class="vul" title="vulnerable">E-W' in head) == ew, board
        assert head.count("(vulnerable)") == ns + ew
        body = block[block.index("<tbody>"):block.index("</tbody>")]
        assert all(("vul" in c.split()) == ns for c in re.findall(r'<td class="(ns[^"]*)">', body))
        assert all(("vul" in c.split()) == ew for c in re.findall(r'<td class="(ew[^"]*)">', body))


# -- 4. IMPs: whole numbers per board, one decimal for averages ----------------------------------------

def test_team_imps_are_whole_numbers(client: Any) -> None:
    page = client.get("/tournaments/example-bridge").text
    cells = re.findall(r'<td class="num" data-key="(imps_for|imps_against|net_imps)">([^<]*)</td>', page)
    assert len(cells) == 6
    assert all(re.fullmatch(r"-?\d+", v) for _, v in cells), cells
    details = page[page.index("<summary>boards</summary>"):]
    details = details[:details.index("</details>")]
    heads = re.findall(r"<th>([^<]*)</th>", details)
    rows = [re.findall(r"<td>([^<]*)</td>", r) for r in re.findall(r"<tr>(<td>.*?)</tr>", details)]
    imps = [r[heads.index("imps")] for r in rows]
    assert len(imps) == 4 and all(re.fullmatch(r"-?\d+", v) for v in imps), imps


def test_imps_format() -> None:
    from arena.dashboard.app import _imps

    assert [_imps(v) for v in (23.0, -95.0, 0.0, 10 / 3, -7 / 3, 2.5, 0.04, None, float("nan"))] == [
        "23", "-95", "0", "3.3", "-2.3", "2.5", "0", "-", "-"]


@pytest.fixture(scope="module")
def cross_imps_client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A store with one bridge pairs event scored in cross-IMPs: 8 pairs, 4 tables, 2 boards
    (each result against 3 others: averages in thirds of an IMP)."""
    from fastapi.testclient import TestClient

    from arena.dashboard import create_app
    from arena.store import Store
    from arena.tournaments.config import parse_config
    from arena.tournaments.formats import expand
    from arena.tournaments.runner import play_spec

    raw = {"tournament": {"id": "xi", "name": "Cross-IMPs", "game": "bridge", "preset": "duplicate",
                          "format": "duplicate", "boards": 2, "seed": 5, "deadline_ms": 2000},
           "duplicate": {"mode": "pairs", "scoring": "cross_imps"},
           "entrants": [{"id": f"p{i}", "bot": "heuristic" if i % 2 else f"heuristic?noise=0.{i + 1}"}
                        for i in range(8)]}
    url = f"sqlite:///{tmp_path_factory.mktemp('xi') / 'arena.db'}"
    store = Store(url)
    store.migrate()
    config = parse_config(raw)
    specs = expand(config)
    store.add_tournament(config.id, config.name, config.game, raw, specs)
    for spec in specs:
        store.record_result(play_spec(spec))
    store.dispose()
    with TestClient(create_app(url)) as c:
        yield c


def test_cross_imps_averages_have_one_decimal(cross_imps_client: Any) -> None:
    page = cross_imps_client.get("/tournaments/xi").text
    travellers = page[page.index('id="travellers"'):page.index('id="matches"')]
    standings = page[page.index('id="standings"'):page.index("</table>", page.index('id="standings"'))]
    two = re.findall(r'<td class="num[^"]*"[^>]*>(-?\d+\.\d\d+)</td>', travellers)
    two += re.findall(r'<td class="num" data-key="(?:total|score)">(-?\d+\.\d\d+)</td>', standings)
    assert not two, two  # IMPs, not 3.33
    trav = re.findall(r'<td class="num imps">([^<]*)</td>', page)
    assert len(trav) == 2 * 2 * 4  # N-S and E-W, 4 lines, 2 boards
    assert all(re.fullmatch(r"-?\d+(\.\d)?", v) for v in trav), trav
    assert any("." in v for v in trav), "cross-IMPs of 4 lines average over 3: some are fractional"
    cells = re.findall(r'<td class="num" data-key="(total|score)">([^<]*)</td>', page)
    assert len(cells) == 16 and all(re.fullmatch(r"-?\d+(\.\d)?", v) for _, v in cells), cells
    head = page[page.index('id="standings"'):page.index("</thead>", page.index('id="standings"'))]
    assert "IMPs/result" in html.unescape(head)


# -- 5. every replay step has a URL -------------------------------------------------------------------

def test_replay_step_url(client: Any, dashboard_store: dict[str, Any]) -> None:
    _, match_id = dashboard_store["finished"]["bridge"]
    q = match_id.replace(":", "%3A")
    page = client.get(f"/matches/{match_id}?step=7").text
    assert 'data-start="7"' in page
    assert f'id="step-link" class="small" href="/matches/{q}?step=7"' in page
    for bad in ("abc", "-3", ""):
        assert 'data-start="0"' in client.get(f"/matches/{match_id}?step={bad}").text, bad
    assert 'data-start="0"' in client.get(f"/matches/{match_id}").text
    # that the viewer opens on it, follows #step-N and keeps the address on the step shown:
    # the browser test (browser/run.js, stepUrls)
