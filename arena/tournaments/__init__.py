"""Tournaments: formats that expand into match specs, and standings from records."""

from arena.records.spec import MatchSpec, make_match_id, parse_bot_ref

__all__ = ["MatchSpec", "make_match_id", "parse_bot_ref"]

# formats, configuration and standings (load_config -> expand -> standings)
from arena.tournaments.config import ConfigError, Entrant, TournamentConfig, load_config, loads_config  # noqa: E402
from arena.tournaments.formats import deal_groups, expand  # noqa: E402
from arena.tournaments.standings import Standings, format_standings, standings  # noqa: E402

__all__ += ["ConfigError", "Entrant", "TournamentConfig", "load_config", "loads_config", "expand",
            "deal_groups", "Standings", "standings", "format_standings"]
