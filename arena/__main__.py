"""``python -m arena``: the ``arena`` command (:mod:`arena.cli`)."""

from arena.cli import main

if __name__ == "__main__":
    main()
