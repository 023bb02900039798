"""Generated at build from ``proto/arena/admin/v1/*.proto`` (see ``setup.py``); do not edit.

Only this file is committed; the ``*_pb2*.py`` modules beside it are produced by
``pip install [-e] .``.
"""
