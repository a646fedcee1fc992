"""Time of a capture's applications breakdown (present/read/applications.py, issue 28) on a
capture of N synthetic conversations stored straight in a temporary SQLite database: 60 %
TCP with a measured handshake (one row per client and service after grouping), 40 % UDP
without one (every client port its own row), clients in 1,000 addresses, servers in 25,000,
ports drawn from well-known ones and 2,000 others.

    .venv/bin/python benchmarks/listings_bench.py [--conversations 200000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert

from tracepcap.present.read.applications import applications
from tracepcap.store import open_database
from tracepcap.store.models import Capture, Conversation

CID = "f" * 16


def _fill(db, n: int) -> None:
    rnd = random.Random(1)
    with db.session(write=True) as s:
        s.add(Capture(id=CID, sha256="f" * 64, name="bench.pcap", size=1, format="pcap", status="done",
                      progress_bytes=1, uploaded_at=datetime.now(UTC), uploaded_by="system"))
        s.flush()
        rows = []
        for i in range(n):
            tcp = rnd.random() < 0.6
            rows.append({"capture_id": CID, "proto": "tcp" if tcp else "udp",
                         "src": f"10.0.{rnd.randrange(4)}.{rnd.randrange(250)}", "sport": rnd.randrange(32768, 61000),
                         "dst": f"198.51.{rnd.randrange(100)}.{rnd.randrange(250)}",
                         "dport": rnd.choice((443, 80, 53, 22, 8443, 3478, 5000 + rnd.randrange(2000))),
                         "first_time": 0.0, "last_time": 1.0, "first_frame": i + 1, "packets_fwd": 5,
                         "bytes_fwd": 500, "packets_rev": 4, "bytes_rev": 4000, "initiator": "x" if tcp else None})
        s.execute(insert(Conversation), rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(f"sqlite:///{Path(tmp) / 'bench.sqlite3'}")
        _fill(db, args.conversations)
        times = []
        for _ in range(args.repeat):
            with db.session() as s:
                start = time.perf_counter()
                found = applications(s, CID)
                times.append(time.perf_counter() - start)
        db.dispose()
    print(f"{args.conversations:,} conversations -> {len(found)} applications: median {statistics.median(times):.2f} s "
          f"(min {min(times):.2f} s, {args.repeat} runs)")


if __name__ == "__main__":
    main()
