"""The store's typed interface (:class:`arena.store.protocol.StoreProtocol`): the
concrete store satisfies it, member by member, with the same parameters."""

from __future__ import annotations

import inspect

from arena.store import Store
from arena.store.protocol import StoreProtocol


def _members() -> list[str]:
    """The protocol's own members: its methods and its annotated attributes."""
    names = set(StoreProtocol.__annotations__)
    names |= {n for n, v in vars(StoreProtocol).items() if not n.startswith("_") and callable(v)}
    return sorted(names)


def test_the_store_satisfies_the_protocol() -> None:
    store = Store("sqlite://")
    try:
        assert isinstance(store, StoreProtocol)
        members = _members()
        assert "tournament" in members and "records" in members and "url" in members
        for name in members:
            assert hasattr(store, name), name
            want = getattr(StoreProtocol, name, None)
            if callable(want):
                got = inspect.signature(getattr(Store, name))
                assert list(inspect.signature(want).parameters) == list(got.parameters), name
    finally:
        store.dispose()


def test_an_object_without_the_methods_is_not_a_store() -> None:
    class Half:
        url = "sqlite://"

        def tournament(self, tournament_id: str) -> None: ...

    assert not isinstance(Half(), StoreProtocol)
