#!/usr/bin/env python3
"""Golden-free parity check for the extract stage: prints a digest, asserts nothing itself.

    PYTHONPATH=TREE/src python benchmarks/extract_parity.py CAPTURE... [--dump FILE]

Runs `pipeline.extract()` on each capture with the source tree on PYTHONPATH and prints one
sha256 per capture over everything extract hands on: every observation (entity, kind, value,
source, grade, witness), the manifest, the hosts, every conversation row in the order it was
spilled, the notices and their counts, the packet count and the first/last time. Run it with
two trees (say main's and a branch's) and `diff` the outputs: identical digests mean the two
produce the same facts, conversations and manifest on those captures. `--dump FILE` writes
the canonical text itself, to find where two trees differ.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path


def canonical(path: Path) -> str:
    from tracepcap.extract.pipeline import extract
    conversations: list[dict] = []
    res = extract(path, "parity", on_conversation=conversations.append)
    lines = [f"format {res.format} packets {res.packets} partial {res.partial!r} "
             f"conversations {res.conversations} first {res.first_time!r} last {res.last_time!r} "
             f"extra {sorted(res.extra.items())!r}"]
    lines += [f"manifest {row!r}" for row in res.manifest]
    lines += [f"host {h}" for h in res.hosts]
    lines += [f"obs {o!r}" for o in res.observations]
    lines += [f"conv {sorted(c.items())!r}" for c in conversations]
    lines += [f"notice {n!r}" for n in res.notices]
    lines += [f"notice-count {sorted(res.notice_counts.items())!r}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    args = sys.argv[1:]
    dump = None
    if "--dump" in args:
        i = args.index("--dump")
        dump = Path(args[i + 1])
        del args[i:i + 2]
    out = []
    for name in args:
        text = canonical(Path(name))
        out.append(text)
        print(f"{hashlib.sha256(text.encode()).hexdigest()}  {text.count(chr(10))} lines  {name}",
              flush=True)
    if dump:
        dump.write_text("".join(out))


if __name__ == "__main__":
    main()
