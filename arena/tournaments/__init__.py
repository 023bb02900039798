"""Tournaments: formats that expand into match specs, and standings from records."""

from arena.tournaments.spec import MatchSpec, make_match_id, parse_bot_ref

__all__ = ["MatchSpec", "make_match_id", "parse_bot_ref"]
