"""Reusable test helpers: the conformance suite every registered game passes
(:mod:`arena.testing.conformance`) and seeded random playouts (:mod:`arena.testing.playouts`)."""
