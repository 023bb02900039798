"""What the ``arena`` command modules share: the one-line user error, the check
for an optional extra, opening a store by URL.

:mod:`arena.cli` (the ``arena`` command) and :mod:`arena.league_cli` (its
``arena league`` commands) both import these from here, so neither imports the
other's internals (:mod:`arena.cli` adds the league commands to its app).
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import typer

__all__ = ["UserError", "fail", "EXTRAS", "need", "check_store_folder", "open_store", "safe_url", "db_reason"]


def _click_class(name: str) -> type[Any]:
    """A class of the click that typer runs on (typer's own copy in recent typers)."""
    for cls in typer.BadParameter.__mro__:
        if cls.__name__ == name:
            return cls
    found = getattr(sys.modules[typer.BadParameter.__module__], name, None)
    return found if isinstance(found, type) else type(name, (Exception,), {})  # absent: never raised


_ClickException = _click_class("ClickException")
_UsageError = _click_class("UsageError")
_NoArgsIsHelpError = _click_class("NoArgsIsHelpError")


class UserError(_ClickException):  # type: ignore[misc, valid-type]
    """A user error: one line on stderr (``arena CMD: error: ...``), exit status 2
    (or ``code``), no traceback."""

    exit_code = 2

    def __init__(self, message: str, *, code: int = 2) -> None:
        super().__init__(" ".join(str(message).split()))  # one line, whatever the message held
        self.exit_code = code


def fail(message: str, *, code: int = 2) -> NoReturn:
    """Stop the command with a :class:`UserError`."""
    raise UserError(message, code=code)


EXTRAS = {"gateway": ("grpc", "google.protobuf"), "distributed": ("celery", "redis", "google.protobuf"),
          "dashboard": ("fastapi", "uvicorn", "jinja2"), "plot": ("matplotlib",)}
"""The modules each optional part of arena needs (pyproject's extras)."""


def need(extra: str, what: str) -> None:
    """Fail (one line) when the ``extra`` that ``what`` needs is not installed."""
    import importlib.util

    missing = [m for m in EXTRAS[extra] if importlib.util.find_spec(m.split(".")[0]) is None
               or importlib.util.find_spec(m) is None]
    if missing:
        fail(f"{what} needs the {extra} extra ({', '.join(missing)} not installed): "
             f"pip install 'arena[{extra}]'")


def check_store_folder(url: str) -> None:
    """Fail (one line) when ``url`` is a SQLite file in a folder that does not exist:
    a command makes the store's file, never the folders above it (a mistyped path
    would otherwise leave folders behind, as root even at the filesystem root)."""
    from arena.store.engine import StoreURLError, parse_store_url, sqlite_path

    try:
        u = parse_store_url(url)
    except StoreURLError as exc:
        fail(f"--store: {exc}")
    path = sqlite_path(u) if u.get_backend_name() == "sqlite" else None
    if path is not None and not path.parent.is_dir():
        fail(f"--store {safe_url(url)}: the folder {path.parent} does not exist "
             "(a store is one file: make its folder first)")


def open_store(url: str, *, readonly: bool = False) -> Any:
    """The store at ``url``, migrated (``readonly``: opened for reading only, its
    schema checked; nothing is created). Every way this fails is one line; a SQLite
    file is made in an existing folder only (:func:`check_store_folder`)."""
    from sqlalchemy.exc import SQLAlchemyError

    from arena.store import Store
    from arena.store.engine import StoreURLError

    if not readonly:
        check_store_folder(url)
    try:
        store = Store(url, readonly=readonly)
    except StoreURLError as exc:
        fail(f"--store: {exc}")
    try:
        store.migrate()
    except StoreURLError as exc:
        store.dispose()
        fail(f"--store: {exc}")
    except SQLAlchemyError as exc:
        store.dispose()
        fail(f"--store: cannot open the store {safe_url(url)}: {db_reason(exc)}", code=1)
    return store


def safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - not a URL at all: say it as given
        return url


def db_reason(exc: BaseException) -> str:
    """The database's own reason for a failure, on one line."""
    orig = getattr(exc, "orig", None) or exc
    text = " ".join(str(orig).split())
    return text.split(" [SQL:")[0][:300] or type(orig).__name__
