#!/usr/bin/env python3
"""How often `tracepcap analyze` is right on real networks that other people labelled.

    PYTHONPATH=src .venv/bin/python benchmarks/real_bench.py [--real DIR] [--only SUBSTR]
                                                           [--per-glob N] [--show]

Reads `../shared/captures/real/LABELS.json` (the publishers' labels: a capture path or glob ->
host (IPv4 address or MAC) -> question -> acceptable answers, the most specific first), runs
the real CLI, `tracepcap analyze FILE --json`, on every capture it names (the `mta/*.zip`
exercises are real malware traffic: they are unzipped with their published password into a
temporary folder and only read), and prints figures; it asserts nothing.

Each labelled answer is one of
  right       the first (most specific) acceptable label, or a child of it in the question's
              taxonomy ("IP Camera" where the label says "IoT Device" only)
  parent      another acceptable label ("IoT Device" where "IP Camera" is first), or an
              ancestor of the first label in the question's taxonomy
  wrong       anything else (a host name compares by its first label, any case)
  unknown     "Unknown", or the host is not in the inventory at all
  contested   the verdict is contested (shown by its leading candidate)
and "confidently wrong" counts the wrong ones at confidence >= 80.

Beside those it prints the false Default Gateways (a node-role answer of Default Gateway on a
host the labels do not call one, in a capture whose labels name its gateway, on a labelled host
that is not a gateway, or on a remote host anywhere), what the IoT devices were called, and a
calibration table per question.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from tracepcap.adjudicate.questions.host_identity import ADJUDICATOR as HOST_IDENTITY
from tracepcap.adjudicate.questions.os_family import ADJUDICATOR as OS_FAMILY

REAL = Path(__file__).resolve().parents[2] / "shared" / "captures" / "real"
OUTCOMES = ("right", "parent", "wrong", "unknown", "contested")
BANDS = ((0, 39), (40, 59), (60, 79), (80, 100))
CONFIDENT = 80
GATEWAY = "Default Gateway"
IOT = "IoT Device"
NOT_IOT = ("Workstation", "Web Server", "Router", "Network device")
PARENTS = {"host-identity": dict(HOST_IDENTITY.parents), "os-family": dict(OS_FAMILY.parents)}
ZIP_PASSWORD = b"infected"  # as published by malware-traffic-analysis.net


@dataclass(frozen=True)
class Scored:
    """One question's answer for one labelled host in one capture."""

    capture: str
    host: str
    question: str
    acceptable: tuple[str, ...]
    answer: str
    confidence: int
    outcome: str


def ancestors(question: str, label: str) -> list[str]:
    chain, parents = [], PARENTS.get(question, {})
    while label in parents and parents[label] not in chain:
        label = parents[label]
        chain.append(label)
    return chain


def short_name(name: str) -> str:
    return name.strip().rstrip(".").split(".")[0].lower()


def outcome(question: str, acceptable: tuple[str, ...], verdict: dict | None) -> tuple[str, str, int]:
    """(outcome, answer, confidence) of one verdict against the acceptable labels."""
    if verdict is None:
        return "unknown", "(not in inventory)", 0
    answer = verdict.get("primary_label")
    if answer is None:  # contested: shown by its leading candidate
        answer = next((c["label"] for c in verdict.get("candidates", [])), "Unknown")
    confidence = int(verdict.get("confidence") or 0)
    if verdict.get("contested"):
        return "contested", answer, confidence
    if answer in (None, "", "Unknown"):
        return "unknown", "Unknown", confidence
    if question == "hostname":
        names = [short_name(a) for a in acceptable]
        return ("right" if short_name(answer) in names else "wrong"), answer, confidence
    first = acceptable[0]
    if answer == first or first in ancestors(question, answer):
        return "right", answer, confidence
    if answer in acceptable or answer in ancestors(question, first):
        return "parent", answer, confidence
    return "wrong", answer, confidence


def analyze(path: Path, work: Path) -> dict:
    """The JSON document of `tracepcap analyze PATH --json` on a fresh SQLite database."""
    from tracepcap.present.cli import main  # the CLI as a user runs it, in this process

    db = work / "bench.sqlite3"
    db.unlink(missing_ok=True)
    out = io.StringIO()
    os.environ["TRACEPCAP_DATA_DIR"] = str(work / "data")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["analyze", str(path), "--db", f"sqlite:///{db}", "--json"])
    if code not in (0, 3):  # 3: partly readable, what was read is still scored
        raise SystemExit(f"tracepcap analyze {path} exited {code}")
    return json.loads(out.getvalue())


def captures(real: Path, pattern: str, work: Path, per_glob: int | None) -> list[Path]:
    """The capture files a LABELS.json key names (a zip is unzipped into `work`)."""
    found = sorted(real.glob(pattern))[:per_glob] if "*" in pattern else [real / pattern]
    paths = []
    for path in found:
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    if member.endswith((".pcap", ".pcapng")) and "/" not in member.strip("/"):
                        archive.extract(member, work / "unzipped", pwd=ZIP_PASSWORD)
                        paths.append(work / "unzipped" / member)
        else:
            paths.append(path)
    return paths


def find_host(document: dict, host: str) -> dict | None:
    """The inventory row of a labelled host: by MAC (the device keyed by it first) or address."""
    rows = document["hosts"]
    if ":" in host and len(host) == 17:
        owned = [h for h in rows if host in (h.get("macs") or [])]
        keyed = [h for h in owned if h["key"] == "mac-" + host.replace(":", "-")]
        return (keyed or owned or [None])[0]
    return next((h for h in rows if h.get("ip") == host or host in (h.get("addresses") or [])),
                None)


def role(row: dict) -> str | None:
    verdict = row.get("verdicts", {}).get("node-role") or {}
    return verdict.get("primary_label")


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f} %" if whole else "    - "


def table(rows: list[Scored]) -> list[str]:
    lines = [f"{'question':<14}{'scored':>7}" + "".join(f"{o:>11}" for o in OUTCOMES)
             + f"{'conf. wrong':>13}{'right+parent':>14}"]
    for question in sorted({r.question for r in rows}):
        mine = [r for r in rows if r.question == question]
        counts = Counter(r.outcome for r in mine)
        wrong80 = sum(r.outcome == "wrong" and r.confidence >= CONFIDENT for r in mine)
        lines.append(f"{question:<14}{len(mine):>7}"
                     + "".join(f"{counts[o]:>4} {pct(counts[o], len(mine))[:-2]:>5}%"
                               for o in OUTCOMES) + f"{wrong80:>13}"
                     + f"{pct(counts['right'] + counts['parent'], len(mine)):>14}")
    return lines


def calibration(rows: list[Scored]) -> list[str]:
    lines = ["calibration (answers other than Unknown; right = right or parent)",
             f"{'question':<14}" + "".join(f"{f'{lo}-{hi}':>16}" for lo, hi in BANDS)]
    for question in sorted({r.question for r in rows}):
        cells = []
        for lo, hi in BANDS:
            band = [r for r in rows if r.question == question and r.outcome != "unknown"
                    and lo <= r.confidence <= hi]
            good = sum(r.outcome in ("right", "parent") for r in band)
            cells.append(f"{len(band):>5} {pct(good, len(band))}")
        lines.append(f"{question:<14}" + "".join(f"{c:>16}" for c in cells))
    confident = [r for r in rows if r.outcome != "unknown" and r.confidence >= CONFIDENT]
    good = sum(r.outcome in ("right", "parent") for r in confident)
    lines.append(f"answers at >= {CONFIDENT}: {len(confident)}, right or parent {pct(good, len(confident))} "
                 f"(the goal: >= 95 %)")
    iot = [r for r in rows if r.question == "host-identity" and IOT in r.acceptable
           and r.outcome != "unknown"]
    for lo, hi in BANDS:
        band = [r for r in iot if lo <= r.confidence <= hi]
        if band:
            lines.append(f"  IoT devices at {lo}-{hi}: {len(band)}, right or parent "
                         f"{pct(sum(r.outcome in ('right', 'parent') for r in band), len(band))}")
    return lines


def said_vendor(says: str, makes: Counter) -> bool:
    """The most frequent vendor-model answer's vendor (its first word) is in the source's words."""
    top = makes.most_common(1)[0][0]
    return top not in ("Unknown", "contested") and top.split()[0].lower() in says.lower()


def said_model(says: str, makes: Counter) -> bool:
    """... and so is its model (the answer's last word, which is not the vendor's)."""
    top = makes.most_common(1)[0][0]
    return said_vendor(says, makes) and len(top.split()) > 1 and top.split()[-1].lower() in says.lower()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, default=REAL, help="the folder of LABELS.json")
    parser.add_argument("--only", help="score only the LABELS.json keys containing this text")
    parser.add_argument("--per-glob", type=int, help="at most this many captures per glob key")
    parser.add_argument("--show", action="store_true", help="print every answer, not only misses")
    args = parser.parse_args(argv)
    labels = json.loads((args.real / "LABELS.json").read_text())
    rows: list[Scored] = []
    false_gateways: list[str] = []
    iot_names: dict[str, Counter] = defaultdict(Counter)
    iot_os: Counter = Counter()  # the os-family answers of IoT devices (not labelled, but never Windows)
    # the vendor-model answers of IoT devices, beside the source's own words ('_says')
    iot_makes: dict[str, tuple[str, Counter]] = {}
    with tempfile.TemporaryDirectory(prefix="tracepcap-real-") as tmp:
        work = Path(tmp)
        for pattern, hosts in labels.items():
            if pattern.startswith("_") or (args.only and args.only not in pattern):
                continue
            gateways = {h for h, q in hosts.items() if GATEWAY in q.get("node-role", [])}
            for path in captures(args.real, pattern, work, args.per_glob):
                name = str(path.relative_to(args.real)) if path.is_relative_to(args.real) \
                    else path.name
                document = analyze(path, work)
                labelled = {}
                for host, questions in hosts.items():
                    row = find_host(document, host)
                    if row is not None:
                        labelled[row["key"]] = host
                        if IOT in questions.get("host-identity", []):
                            os_verdict = row.get("verdicts", {}).get("os-family") or {}
                            iot_os[os_verdict.get("primary_label") or "contested"] += 1
                            make = row.get("verdicts", {}).get("vendor-model") or {}
                            iot_makes.setdefault(host, (questions.get("_says", ""), Counter()))[1][
                                make.get("primary_label") or "contested"] += 1
                    for question, acceptable in questions.items():
                        if question.startswith("_"):
                            continue
                        verdict = (row or {}).get("verdicts", {}).get(question)
                        result, answer, confidence = outcome(question, tuple(acceptable), verdict)
                        scored = Scored(name, host, question, tuple(acceptable), answer,
                                        confidence, result)
                        rows.append(scored)
                        if IOT in questions.get("host-identity", []) and question == "host-identity":
                            iot_names[host][answer] += 1
                        if args.show or result not in ("right", "parent"):
                            print(f"  {name} {host} {question}: {answer!r} ({confidence}) "
                                  f"{result}; labels {list(acceptable)}")
                for row in document["hosts"]:
                    if role(row) != GATEWAY:
                        continue
                    host = labelled.get(row["key"])
                    false = (row.get("locality") == "remote"
                             or (gateways and host not in gateways)
                             or (host is not None and host not in gateways))
                    if false:
                        false_gateways.append(f"{name}: {row['key']} ({row.get('ip')}, "
                                              f"{row.get('locality')})")
    print()
    print(f"== real development set: {len({r.capture for r in rows})} captures, "
          f"{len(rows)} labelled answers")
    print("\n".join(table(rows)))
    print()
    print(f"false Default Gateways: {len(false_gateways)}")
    for line in false_gateways:
        print(f"  {line}")
    iot = [r for r in rows if r.question == "host-identity" and IOT in r.acceptable]
    if iot:
        print()
        called = Counter(r.answer for r in iot)
        print(f"IoT devices (host-identity): {len(iot)} answers, "
              f"{pct(sum(r.outcome in ('right', 'parent') for r in iot), len(iot))} right or "
              f"IoT Device; called {', '.join(f'{a} x{n}' for a, n in called.most_common())}")
        bad = sum(r.answer in NOT_IOT for r in iot)
        print(f"  IoT called Workstation/Web Server/Router/Network device: {bad}; "
              f"IoT with os-family Windows: {iot_os['Windows']} "
              f"(os-family answers: {', '.join(f'{a} x{n}' for a, n in iot_os.most_common())})")
        for host, names in sorted(iot_names.items()):
            print(f"  {host}: {', '.join(f'{a} x{n}' for a, n in names.most_common())}")
        print(f"IoT devices (vendor-model), beside what the source says; vendor named in the source's words: "
              f"{sum(said_vendor(says, c) for says, c in iot_makes.values())} of {len(iot_makes)} devices, "
              f"model too: {sum(said_model(says, c) for says, c in iot_makes.values())}")
        for host, (says, makes) in sorted(iot_makes.items()):
            print(f"  {host}: {', '.join(f'{a} x{n}' for a, n in makes.most_common())}  [{says}]")
    print()
    print("\n".join(calibration(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
