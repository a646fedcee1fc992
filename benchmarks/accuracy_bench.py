#!/usr/bin/env python3
"""How often `tracepcap analyze` is right: prints figures, asserts nothing.

    PYTHONPATH=src .venv/bin/python benchmarks/accuracy_bench.py [--hosts 300] [--seed 1]
                                                               [--captures DIR] [--no-shared]

1. Writes `tracepcap.testing.accuracy_corpus`'s capture of --hosts devices (Windows, macOS,
   iOS, Android, ChromeOS and Linux clients and servers, printers, cameras, phones, TVs,
   speakers, consoles, NAS, switches, access points, VMs, randomised MACs; some of them
   quiet) with the truth it was built from.
2. Runs the real CLI, `tracepcap analyze FILE --db <temp SQLite> --json`, through
   `tracepcap.present.cli.main`, on it and on the shared captures that LABELS.md labels.
3. Scores three questions against the truth: host-identity (device type), os-family and
   hostname. Each answer is one of
     right        the truth, or (device type) a child of it: "Web Server" for a Server
     parent       the truth's parent label ("Apple" for iOS, "Client device" for Mobile)
     wrong        another label, or a name where the device names itself nowhere
     unknown      "Unknown" where the truth is known
     contested    the verdict is contested (whatever its leading label)
   and "confidently wrong" counts the wrong ones at confidence >= 80; "right+parent" is the
   share right at the level answered (issue 13 counts a parent-level answer as right).
4. Prints those counts per question, a confusion matrix (truth x answer) for device type
   and OS family, and a calibration table: for the answers given (not Unknown), per
   confidence band, how many and what share were right or parent-level.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from tracepcap.adjudicate.questions.host_identity import ADJUDICATOR as HOST_IDENTITY
from tracepcap.adjudicate.questions.os_family import ADJUDICATOR as OS_FAMILY
from tracepcap.testing.accuracy_corpus import Truth, build

QUESTIONS = ("host-identity", "os-family", "hostname")
PARENTS = {"host-identity": dict(HOST_IDENTITY.parents), "os-family": dict(OS_FAMILY.parents),
           "hostname": {}}
OUTCOMES = ("right", "parent", "wrong", "unknown", "contested")
BANDS = ((0, 39), (40, 59), (60, 79), (80, 100))
CONFIDENT = 80
UNSCORED = "(not labelled)"  # a label the expert does not give: that question is not scored

# Expert labels of the shared captures, from ../shared/captures/LABELS.md (device type, OS
# family, hostname; None: the label says there is none, so Unknown is right). Left out: the
# Raspberry Pi of demo_all_rules (no IP address to key it by), the "never a Router" rows of
# its remote addresses and its synthetic 10.x segment (LABELS.md accepts any answer there).
SHARED_LABELS = {
    "demo_all_rules.pcap": {
        "192.168.1.1": Truth("Router", UNSCORED, None),
        "192.168.1.75": Truth("Mobile", "iOS", "Gabrieles-iPad.local"),
        "192.168.1.77": Truth("Workstation", "macOS", "Lucas-iMac.local"),
        "192.168.1.43": Truth("Workstation", "Windows", "DESKTOP-RB5T12G"),
        "192.168.0.1": Truth("Switch", "Network OS", "TL-SG116E"),
        "192.168.1.69": Truth("IoT Device", UNSCORED, "sonos7828CA05FACC.local"),
    },
    "discord.pcap": {"10.0.2.15": Truth("Workstation", UNSCORED, UNSCORED)},
    "free5gc.pcap": {"10.200.200.1": Truth("Server", UNSCORED, UNSCORED)},
}


@dataclass(frozen=True)
class Scored:
    """One question's answer for one host, and how it compares with the truth."""

    question: str
    truth: str
    answer: str
    confidence: int
    outcome: str


def analyze(path: Path, work: Path) -> dict:
    """The JSON document of `tracepcap analyze PATH --json` on a fresh SQLite database."""
    from tracepcap.present.cli import main

    db = work / f"{path.stem}.sqlite3"
    db.unlink(missing_ok=True)
    out = io.StringIO()
    before = os.environ.get("TRACEPCAP_DATA_DIR")
    os.environ["TRACEPCAP_DATA_DIR"] = str(work / "data")  # the stored capture's copy goes here
    try:
        with contextlib.redirect_stdout(out):
            code = main(["analyze", str(path), "--db", f"sqlite:///{db}", "--json"])
    finally:
        if before is None:
            os.environ.pop("TRACEPCAP_DATA_DIR")
        else:
            os.environ["TRACEPCAP_DATA_DIR"] = before
    if code != 0:
        raise SystemExit(f"tracepcap analyze {path} exited {code}")
    return json.loads(out.getvalue())


def _short_name(name: str) -> str:
    """A host name compared as an analyst would: first label, any case (.local dropped)."""
    return name.strip().rstrip(".").split(".")[0].lower()


def expected(question: str, truth: Truth) -> str | None:
    """The label a right answer carries, or None when the question is not scored."""
    value = {"host-identity": truth.device_type, "os-family": truth.os_family,
             "hostname": truth.hostname}[question]
    if value == UNSCORED or (value is None and question != "hostname"):
        return None
    return "Unknown" if value is None else value


def score(question: str, want: str, verdict: dict | None) -> Scored:
    answer = verdict["primary_label"] if verdict else "Unknown"
    if answer is None:  # contested: shown by its leading candidate
        answer = next((c["label"] for c in verdict["candidates"]), "Unknown")
    confidence = int(verdict["confidence"]) if verdict else 0
    parents = PARENTS[question]
    if verdict and verdict.get("contested"):
        outcome = "contested"
    elif question == "hostname" and answer != "Unknown" and want != "Unknown":
        outcome = "right" if _short_name(answer) == _short_name(want) else "wrong"
    elif answer == want or parents.get(answer) == want:
        outcome = "right"
    elif answer == "Unknown":
        outcome = "unknown"
    elif answer == parents.get(want):
        outcome = "parent"
    else:
        outcome = "wrong"
    return Scored(question, want, answer, confidence, outcome)


def score_capture(document: dict, truth: dict[str, Truth]) -> list[Scored]:
    """Every scored question of every host in `truth` (a host the tool never listed
    scores as Unknown on all three)."""
    verdicts = {h["ip"]: h["verdicts"] for h in document["hosts"]}
    rows = []
    for ip, t in truth.items():
        for question in QUESTIONS:
            want = expected(question, t)
            if want is not None:
                rows.append(score(question, want, verdicts.get(ip, {}).get(question)))
    return rows


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f} %" if whole else "    - "


def report(title: str, rows: list[Scored], matrices: bool = True) -> str:
    """The printed figures: outcomes per question, confusion matrices, calibration."""
    lines = [f"== {title}", "",
             f"{'question':<14}{'scored':>7}" + "".join(f"{o:>11}" for o in OUTCOMES)
             + f"{'conf. wrong':>13}{'right+parent':>14}"]
    for question in QUESTIONS:
        mine = [r for r in rows if r.question == question]
        counts = Counter(r.outcome for r in mine)
        wrong80 = sum(r.outcome == "wrong" and r.confidence >= CONFIDENT for r in mine)
        lines.append(f"{question:<14}{len(mine):>7}"
                     + "".join(f"{counts[o]:>4} {_pct(counts[o], len(mine))[:-2]:>5}%"
                               for o in OUTCOMES) + f"{wrong80:>13}"
                     + f"{_pct(counts['right'] + counts['parent'], len(mine)):>14}")
    if matrices:
        for question in ("host-identity", "os-family"):
            lines += ["", f"confusion matrix, {question} (rows: truth, columns: answer; "
                          "* contested)"]
            cells: dict[str, Counter] = defaultdict(Counter)
            for r in rows:
                if r.question == question:
                    cells[r.truth][r.answer + ("*" if r.outcome == "contested" else "")] += 1
            columns = sorted({a for c in cells.values() for a in c})
            width = max([len(c) for c in columns] + [5]) + 1
            lines.append(f"{'':<16}" + "".join(f"{c:>{width}}" for c in columns))
            for t in sorted(cells):
                lines.append(f"{t:<16}" + "".join(
                    f"{cells[t][c] or '.':>{width}}" for c in columns))
    lines += ["", "calibration (answers other than Unknown; right = right or parent-level)",
              f"{'question':<14}" + "".join(f"{f'{lo}-{hi}':>16}" for lo, hi in BANDS)]
    for question in QUESTIONS:
        cells = []
        for lo, hi in BANDS:
            band = [r for r in rows if r.question == question and r.answer != "Unknown"
                    and lo <= r.confidence <= hi]
            good = sum(r.outcome in ("right", "parent") for r in band)
            cells.append(f"{len(band):>5} {_pct(good, len(band))}")
        lines.append(f"{question:<14}" + "".join(f"{c:>16}" for c in cells))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--captures", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "captures")
    parser.add_argument("--no-shared", action="store_true", help="skip the shared captures")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tracepcap-accuracy-") as tmp:
        work = Path(tmp)
        corpus = work / f"accuracy-{args.hosts}-{args.seed}.pcap"
        truth = build(corpus, hosts=args.hosts, seed=args.seed)
        rows = score_capture(analyze(corpus, work), truth)
        for r in rows:
            if r.outcome == "wrong":
                print(f"  wrong: {r.question} truth {r.truth!r} answer {r.answer!r} ({r.confidence})")
        print(report(f"generated corpus: {len(truth)} devices (--hosts {args.hosts} "
                     f"--seed {args.seed}, the router and admin box included)", rows))
        if not args.no_shared:
            shared = []
            for name, labels in SHARED_LABELS.items():
                path = args.captures / name
                if not path.is_file():
                    print(f"(skipped {name}: not found in {args.captures})")
                    continue
                found = score_capture(analyze(path, work), labels)
                shared += found
                for r in found:
                    if r.outcome != "right":
                        print(f"  {name}: {r.question} truth {r.truth!r} answer {r.answer!r} "
                              f"({r.confidence}): {r.outcome}")
            print(report(f"shared captures, LABELS.md rows ({len(shared)} answers)", shared,
                         matrices=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
