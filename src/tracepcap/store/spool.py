"""Rows made before their writing transaction, kept compactly until it.

A stage that computes many rows from what it read (Scan's votes, entities, host localities)
makes them outside the transaction that writes them, so that on SQLite, one writer per file,
the write lock is held only while they are written. A `Spool` keeps them in the meantime, as
tuples of fixed columns: up to `HOLD_ROWS` of them as they are (pickling costs more than it
saves on a small capture); past that all of them pickled a batch at a time into a temporary
file that stays in memory while small (`MEMORY_BYTES`) and moves to disk past it, so a capture
of 100,000 hosts never holds its million votes as Python objects. Reading gives them back in
the order they were added.

Pickle is safe here, unlike in a cache (derived.py keeps JSON): the file is anonymous
(`SpooledTemporaryFile` rolls over to an unlinked `TemporaryFile`), written and read back by
this process only, and never outlives it; no other process can name it, let alone plant one.
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterable, Iterator, Sequence

from .bulk import BATCH, insert_rows

#: rows a spool holds as Python tuples before it pickles them
HOLD_ROWS = 50_000
#: bytes of pickled rows a spool keeps in memory before it moves them to a temporary file
MEMORY_BYTES = 8 << 20


class Spool:
    """Rows of `keys` (tuples in that order), appended, then read back once or more in order."""

    def __init__(self, keys: Sequence[str], batch: int = BATCH, memory: int | None = None,
                 hold: int | None = None) -> None:
        self.keys = tuple(keys)
        self._batch_size = batch
        self._memory = MEMORY_BYTES if memory is None else memory
        self._hold = HOLD_ROWS if hold is None else hold
        self._held: list[tuple] | None = []  # None once the rows went to the file
        self._pending: list[tuple] = []
        self._file: tempfile.SpooledTemporaryFile | None = None
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def __enter__(self) -> Spool:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def add(self, row: tuple) -> None:
        self._count += 1
        if self._held is not None:
            self._held.append(row)
            if len(self._held) > self._hold:
                held, self._held = self._held, None
                self._file = tempfile.SpooledTemporaryFile(max_size=self._memory)  # noqa: SIM115 - close()
                for start in range(0, len(held), self._batch_size):
                    self._pending = held[start:start + self._batch_size]
                    self._spill()
            return
        self._pending.append(row)
        if len(self._pending) >= self._batch_size:
            self._spill()

    def extend(self, rows: Iterable[tuple]) -> None:
        for row in rows:
            self.add(row)

    @property
    def pickled(self) -> bool:
        """Whether the rows went past `hold` to the (temporary) file."""
        return self._file is not None

    @property
    def on_disk(self) -> bool:
        """Whether the pickled rows went past memory to disk."""
        return bool(getattr(self._file, "_rolled", False))

    def _spill(self) -> None:
        if self._pending and self._file is not None:
            self._file.seek(0, 2)
            pickle.dump(self._pending, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._pending = []

    def batches(self) -> Iterator[list[tuple]]:
        """The rows in the order added, a batch (a list of tuples) at a time."""
        if self._held is not None:
            held = self._held
            for start in range(0, len(held), self._batch_size):
                yield held[start:start + self._batch_size]
            return
        assert self._file is not None
        self._spill()
        self._file.seek(0)
        while True:
            try:
                batch = pickle.load(self._file)
            except EOFError:
                return
            yield batch

    def rows(self) -> Iterator[tuple]:
        for batch in self.batches():
            yield from batch

    def dicts(self) -> Iterator[dict]:
        keys = self.keys
        for row in self.rows():
            yield dict(zip(keys, row, strict=True))

    def insert_into(self, session, model) -> int:
        """Insert every row into `model`'s table (store/bulk.py); how many."""
        return insert_rows(session, model, self.rows(), keys=self.keys)

    def close(self) -> None:
        self._held, self._pending = [], []
        if self._file is not None:
            self._file.close()
