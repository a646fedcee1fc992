"""Protocol decoders, one module per protocol, reading in place from a memoryview.

A decoder raises `Truncated` when the buffer ends before the protocol says it should, and
`Malformed` when a field holds an impossible value. It never logs, catches or touches the
store. Error tree:

* DecodeError
  * Truncated   the bytes end early (a short capture length, a cut-off segment)
  * Malformed   the bytes are there but say something impossible
"""

from __future__ import annotations


class DecodeError(Exception):
    """A packet, or a layer of it, could not be decoded."""


class Truncated(DecodeError):
    def __init__(self, proto: str, need: int, have: int) -> None:
        super().__init__(f"{proto}: truncated, need {need} bytes, have {have}")
        self.proto, self.need, self.have = proto, need, have


class Malformed(DecodeError):
    def __init__(self, proto: str, what: str) -> None:
        super().__init__(f"{proto}: malformed, {what}")
        self.proto = proto


def need(proto: str, buf, at: int, size: int) -> None:
    """Raise Truncated unless `size` bytes are available at `at`."""
    if len(buf) - at < size:
        raise Truncated(proto, need=size, have=max(0, len(buf) - at))
