"""Referee and match runner: plays matches between agents and writes records."""

from arena.match.referee import MatchResult, run_match

__all__ = ["MatchResult", "run_match"]
