"""Example bots."""
