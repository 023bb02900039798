"""Tournament TOML files: examples load, and every invalid field is named in the error."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from arena.games import list_games
from arena.tournaments.config import (ConfigError, example_path, example_paths, load_config, loads_config,
                                      parse_config)


def base() -> dict[str, Any]:
    return {
        "tournament": {"id": "t", "game": "bridge", "preset": "duplicate", "format": "duplicate",
                       "boards": 4, "seed": 3, "deadline_ms": 500},
        "duplicate": {"mode": "teams", "scoring": "imps", "vp": True},
        "entrants": [{"id": "a", "bot": "heuristic"}, {"id": "b", "remote": "my-bot"}],
    }


def test_base_is_valid() -> None:
    cfg = parse_config(base())
    assert cfg.deals == 4 and cfg.seed == 3 and cfg.deadline_ms == 500.0
    assert [e.bot for e in cfg.entrants] == ["builtin:heuristic", "remote:my-bot"]
    assert cfg.duplicate is not None and cfg.duplicate.mode == "teams" and cfg.duplicate.vp


def test_every_registered_game_has_a_valid_example() -> None:
    stems = {p.stem for p in example_paths()}
    assert set(list_games()) <= stems  # one per game, plus the format examples (swiss, ladder)
    for g in list_games():
        cfg = load_config(example_path(g))
        assert cfg.game == g and cfg.source is not None
    for p in example_paths():
        assert load_config(p).source == str(p)


def test_exact_message_from_a_file(tmp_path: Path) -> None:
    p = tmp_path / "t.toml"
    p.write_text('[tournament]\nid = "x"\ngame = "auction"\nformat = "round_robin"\ndeals = -3\n'
                 '[[entrants]]\nid = "a"\nbot = "random"\n[[entrants]]\nid = "b"\nbot = "random"\n')
    with pytest.raises(ConfigError) as exc:
        load_config(p)
    assert str(exc.value) == "tournament.deals: must be a positive integer, got -3"
    assert exc.value.path == "tournament.deals"
    assert isinstance(exc.value, ValueError)


def test_invalid_toml_names_the_file() -> None:
    with pytest.raises(ConfigError, match=r"^f.toml: invalid TOML"):
        loads_config("[tournament\n", source="f.toml")


def _set(d: dict[str, Any], path: str, value: Any) -> None:
    keys = path.split(".")
    for k in keys[:-1]:
        d = d.setdefault(k, {}) if not k.isdigit() else d[int(k)]  # type: ignore[index]
    if value is _DEL:
        del d[keys[-1]]
    else:
        d[keys[-1]] = value


_DEL = object()

CASES: list[tuple[dict[str, Any], str]] = [
    ({"tournament.boards": -3}, "tournament.boards: must be a positive integer, got -3"),
    ({"tournament.boards": _DEL}, "tournament.deals: missing"),
    ({"tournament.deals": 2}, "tournament.boards: give deals or boards"),
    ({"tournament.boards": 2.5}, "tournament.boards: must be a positive integer"),
    ({"tournament.game": "chess"}, "tournament.game: unknown game 'chess'"),
    ({"tournament.game": _DEL}, "tournament.game: missing"),
    ({"tournament.preset": "nope"}, "tournament.preset: bridge: unknown preset 'nope'"),
    ({"tournament.options": {"colour": 1}}, "tournament.options: bridge: unknown option(s) colour"),
    ({"tournament.format": "knockout"}, "tournament.format: must be one of round_robin, duplicate, gauntlet"),
    ({"tournament.seed": "abc"}, "tournament.seed: must be an integer"),
    ({"tournament.deadline_ms": 0}, "tournament.deadline_ms: must be a positive number"),
    ({"tournament.id": "a:b"}, "tournament.id: use letters"),
    ({"tournament.dealz": 3}, "tournament.dealz: unknown key"),
    ({"tournament": _DEL}, "tournament: missing table"),
    ({"extra": {}}, "extra: unknown key"),
    ({"entrants": _DEL}, "entrants: missing"),
    ({"entrants.1.bot": "random"}, "entrants[1]: give exactly one of bot"),
    ({"entrants.0.bot": "genius"}, "entrants[0].bot: unknown built-in bot 'genius' for bridge"),
    ({"entrants.1.id": "a"}, "entrants[1].id: duplicate entrant id 'a'"),
    ({"entrants.0.id": _DEL}, "entrants[0].id: missing"),
    ({"entrants.0.colour": "red"}, "entrants[0].colour: unknown key"),
    ({"duplicate.scoring": "matchpoints"}, "duplicate.scoring: a team match is scored in imps"),
    ({"duplicate.mode": "solo"}, "duplicate.mode: must be one of teams, pairs, seats"),
    ({"duplicate.vp": "yes"}, "duplicate.vp: must be true or false"),
    ({"duplicate.mode": "pairs", "duplicate.scoring": "imps"}, "duplicate.scoring: use matchpoints"),
    ({"duplicate.mode": "pairs", "duplicate.scoring": "matchpoints", "duplicate.movement": "field"},
     "duplicate.movement: a field movement needs at least two tables per deal: 2 units need 4 or more"),
    ({"tournament.preset": "rubber"}, "tournament.options: duplicate bridge needs scoring"),
    ({"round_robin": {}}, "round_robin: section given but tournament.format is 'duplicate'"),
    ({"tournament.format": "gauntlet", "duplicate": _DEL}, "gauntlet: missing table"),
    ({"tournament.format": "gauntlet", "duplicate": _DEL, "gauntlet": {"candidate": "z"}},
     "gauntlet.candidate: 'z' is not an entrant id"),
    ({"tournament.format": "gauntlet", "duplicate": _DEL,
      "gauntlet": {"candidate": "a", "sprt": {"alpha": 2}}}, "gauntlet.sprt.alpha: must be between 0 and 1"),
    ({"tournament.format": "round_robin", "duplicate": _DEL, "round_robin": {"rotations": "spiral"}},
     "round_robin.rotations: must be one of cyclic, reversed, all"),
    ({"tournament.format": "round_robin", "duplicate": _DEL, "entrants": [{"id": "a", "bot": "random"}]},
     "entrants: a round robin needs at least 2 entrants"),
]


@pytest.mark.parametrize(("changes", "message"), CASES, ids=[m.split(":")[0] + f"-{i}" for i, (_, m) in enumerate(CASES)])
def test_errors_name_the_field(changes: dict[str, Any], message: str) -> None:
    data = copy.deepcopy(base())
    for path, value in changes.items():
        _set(data, path, value)
    with pytest.raises(ConfigError) as exc:
        parse_config(data)
    assert str(exc.value).startswith(message), str(exc.value)


def test_duplicate_pairs_only_for_bridge() -> None:
    data = {"tournament": {"id": "c", "game": "canasta", "format": "duplicate", "deals": 1},
            "duplicate": {"mode": "pairs"},
            "entrants": [{"id": "a", "bot": "random"}, {"id": "b", "bot": "random"}]}
    with pytest.raises(ConfigError, match=r"^duplicate.mode: pairs is bridge's mode"):
        parse_config(data)


def test_builtin_prefix_and_defaults() -> None:
    data = {"tournament": {"id": "c", "game": "canasta", "format": "duplicate", "deals": 1},
            "entrants": [{"id": "a", "bot": "builtin:random"}, {"id": "b", "remote": "remote:x"}]}
    cfg = parse_config(data)
    assert [e.bot for e in cfg.entrants] == ["builtin:random", "remote:x"]
    assert cfg.duplicate is not None
    assert (cfg.duplicate.mode, cfg.duplicate.scoring, cfg.duplicate.movement) == ("seats", "matchpoints", "auto")
    assert cfg.name == "c" and cfg.seed == 0 and cfg.deadline_ms == 10_000.0
