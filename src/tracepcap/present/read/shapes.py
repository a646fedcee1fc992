"""The shapes the read model hands out: a generic `Page[T]` of a listing, and `plain(value)`,
the one way a read object becomes JSON-ready data (for `--json` and the export document):
dataclasses field by field, times in ISO 8601, tuples as lists, `StoredJson` decoded."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import Enum
from typing import Any, Generic, TypeVar

T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a listing: its `items`, how many match in all (`total`), and where the page
    starts (`offset`) and how long it may be (`limit`, None: the rest)."""

    items: tuple[T, ...]
    total: int
    offset: int = 0
    limit: int | None = None

    @classmethod
    def of(cls, items: Iterable[T], total: int, offset: int = 0, limit: int | None = None) -> Page[T]:
        return cls(tuple(items), total, offset, limit)

    def map(self, change: Callable[[T], U]) -> Page[U]:
        return Page(tuple(change(item) for item in self.items), self.total, self.offset, self.limit)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


class StoredJson(str):
    """JSON text as the store keeps it (a verdict's document): `plain` gives its decoded value;
    a writer that streams JSON may copy the text as it is."""

    __slots__ = ()


_AS_THEY_ARE = frozenset((str, int, float, bool, type(None)))
_FIELDS: dict[type, tuple[str, ...] | None] = {}  # a class's dataclass field names (None: no dataclass)


def _fields_of(cls: type) -> tuple[str, ...] | None:
    names = _FIELDS.get(cls, ())
    if names == ():
        names = _FIELDS[cls] = (tuple(f.name for f in dataclasses.fields(cls))
                                if dataclasses.is_dataclass(cls) else None)
    return names


def plain(value: Any) -> Any:
    """`value` as JSON-ready data: a dataclass as an object of its fields, a datetime in ISO
    8601 (a naive one is UTC, as the store keeps it), an enum as its value, stored JSON text
    as what it encodes."""
    cls = type(value)
    if cls in _AS_THEY_ARE:  # the common case first: a document holds mostly these
        return value
    if cls is StoredJson:
        return json.loads(value)
    names = _fields_of(cls)
    if names is not None:
        return {name: plain(getattr(value, name)) for name in names}
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
