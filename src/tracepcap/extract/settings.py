"""Named limits for every per-capture table Extract keeps: memory stays bounded, and what
overflows is counted in the manifest rather than silently lost."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    max_flows: int = 200_000  #: conversations held at once; older ones are written out early
    stream_head_bytes: int = 16 * 1024  #: bytes reassembled per TCP direction
    max_open_stream_heads: int = 4096  #: directions reassembling at once (x head bytes = memory)
    max_facts: int = 2_000_000  #: distinct (entity, kind, value, source) rows per capture
    max_pending: int = 65_536  #: per-extractor join tables (DHCP transactions, HTTP requests)
