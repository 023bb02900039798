"""arena: a tournament and bot-arena platform for card games."""

__version__ = "0.1.0"
