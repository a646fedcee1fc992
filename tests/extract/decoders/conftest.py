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


@pytest.fixture(scope="session")
def link(captures):
    """link(capture name, frame number) -> the link payload of a frame that is not IP (an
    ARP message, an LLDPDU), as the hot path hands it to extractors."""
    def read(name: str, number: int) -> bytes:
        with CaptureReader(captures / name) as reader:
            for n, (linktype, ts, wire_len, data) in enumerate(reader.records(), 1):
                if n == number:
                    return bytes(decode_frame(linktype, data, n, ts, wire_len).link)
        raise LookupError(f"{name} has no frame {number}")
    return read


@pytest.fixture(scope="session")
def sweep():
    """sweep(decode, data): every prefix of `data` decodes or raises Truncated/Malformed,
    never anything else (an IndexError, a struct.error, a UnicodeError...)."""
    from tracepcap.extract.decoders import Malformed, Truncated

    def run(decode, data: bytes) -> None:
        for n in range(len(data) + 1):
            try:
                decode(memoryview(data)[:n])
            except (Truncated, Malformed):
                pass
    return run


@pytest.fixture(scope="session")
def carrier_payload(captures):
    """carrier_payload(capture name, frame number) -> the transport payload of the frame's
    outermost packet: a tunnel's own header and what it carries."""
    def read(name: str, number: int) -> bytes:
        with CaptureReader(captures / name) as reader:
            for n, (linktype, ts, wire_len, data) in enumerate(reader.records(), 1):
                if n == number:
                    pkt = decode_frame(linktype, data, n, ts, wire_len)
                    while pkt.outer is not None:
                        pkt = pkt.outer
                    return bytes(pkt.payload)
        raise LookupError(f"{name} has no frame {number}")
    return read
