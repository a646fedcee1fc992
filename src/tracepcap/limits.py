"""Named limits for every per-capture table Extract keeps: memory stays bounded, and what
overflows is counted in the manifest rather than silently lost."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    #: bytes walked after decompression; a 2 GiB upload of full-size frames gzip'd 3:1 fits,
    #: and at the extract rate measured in docs/BENCHMARKS.md (~60 MiB/s) it is ~2.5 minutes
    max_read_bytes: int = 8 << 30
    #: records walked: 28 M minimum-size frames fill 2 GiB, so no whole upload is cut; an
    #: empty-record flood (a gzip bomb of zeros) stops here after 318 s measured on a busy
    #: 2-core machine (docs/BENCHMARKS.md), where 20 GiB of it would take ~8,600 s
    max_records: int = 50_000_000
    #: decompressed bytes per compressed byte of a gzip'd capture: deflate's best is ~1032
    #: (a run of one byte), real captures stay under 100, so past this it is a bomb and the
    #: walk stops (partial) instead of spending minutes on ~0.8 MB of zeros (issue 23)
    max_decompression_ratio: int = 1000
    #: conversations held at once; past it the least recently active is written out early.
    #: ~600 bytes each: at 100,000 a 10 GiB capture's whole analysis peaks at ~250 MB RSS,
    #: at 200,000 it peaked at 307 MB (docs/BENCHMARKS.md). A sharded walk whose capture has
    #: more conversations than this falls back to one walk (eviction is not shard-local).
    max_flows: int = 100_000
    #: a conversation silent this long (capture time) is written out and forgotten; a later
    #: packet of its 5-tuple starts a new one (Zeek's TCP inactivity timeout is 5 minutes).
    #: Unlike the limit above, it holds in every shard alike (flows.py), so a long capture
    #: stays bounded and can still be sharded.
    flow_idle_seconds: float = 600.0
    stream_head_bytes: int = 16 * 1024  #: bytes reassembled per TCP direction
    max_open_stream_heads: int = 4096  #: directions reassembling at once (x head bytes = memory)
    #: distinct (entity, kind, value, source) rows per capture; at about 400 bytes a row this
    #: keeps the fact table near 250 MB, within the 500 MB budget of an analysis
    max_facts: int = 600_000
    #: per-extractor join tables (DHCP transactions, HTTP requests, LLDP/CDP senders waiting
    #: for the address their MAC claims in ARP, and those MAC-to-address bindings)
    max_pending: int = 65_536
    #: TCP directions an extractor reads every message of (DNS over TCP, HTTP) at once; past
    #: it the oldest is forgotten and counted in that extractor's manifest row. Each holds at
    #: most `tcp_waiting_bytes` of early segments and one partial message
    max_followed_directions: int = 8192
    tcp_waiting_bytes: int = 16 * 1024  #: out-of-order bytes held per followed direction
    #: the longest HTTP header block read; a longer one is skipped and counted
    http_header_bytes: int = 16 * 1024
    #: HTTP messages read per direction of a connection; later ones are counted, not read
    max_http_messages_per_direction: int = 1000
    #: distinct ClientHello shapes whose JA3/JA4 are remembered; a cache (past it a new
    #: shape is fingerprinted each time it is seen), so nothing is lost or counted
    max_fingerprint_shapes: int = 4096
    #: notices (traffic that violated its protocol) stored per capture; past it they are
    #: only counted by kind, so a capture of garbage cannot fill the notice table
    max_notices: int = 10_000
