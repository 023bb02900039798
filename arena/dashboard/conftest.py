"""pytest collects this package's doctests (``--doctest-modules``); without the
dashboard's optional dependencies there is nothing to collect here."""

import importlib.util

collect_ignore_glob = [] if all(importlib.util.find_spec(m) for m in ("fastapi", "jinja2")) else ["*.py"]
