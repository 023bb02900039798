"""Reusable test helpers: the conformance suite every registered game passes."""
