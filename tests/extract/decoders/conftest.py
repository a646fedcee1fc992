"""Real application payloads, read from the shared captures by frame number (1-based, as
Wireshark counts) through our own reader and hot-path decoder."""

from __future__ import annotations

import pytest

from tracepcap.extract.packet import decode_frame
from tracepcap.extract.reader import CaptureReader


@pytest.fixture(scope="session")
def payload(captures):
    """payload(capture name, frame number, ...) -> the transport payloads of those frames,
    joined in the order given (consecutive TCP segments of one direction make its stream)."""
    def read(name: str, *numbers: int) -> bytes:
        wanted, found = set(numbers), {}
        with CaptureReader(captures / name) as reader:
            for n, (linktype, ts, wire_len, data) in enumerate(reader.records(), 1):
                if n in wanted:
                    found[n] = bytes(decode_frame(linktype, data, n, ts, wire_len).payload)
                    if len(found) == len(wanted):
                        break
        return b"".join(found[n] for n in numbers)
    return read
