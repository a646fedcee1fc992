"""`tracepcap analyze`'s default output: the capture's summary, then one line per device.

Local devices come first (on-link, then local-routed, then those seen only inside a tunnel,
then those whose locality is unknown),
then remote ones grouped by the MAC they were seen through (their router, as seen from the
capture point), the largest group first. A line holds the device (its IP, or its key when it
has none; "+N" more addresses), its MAC ("+N" more), the vendor, and each question's answer
with its confidence ("⚠ a / b" when contested, "*" after an answer a person gave, "-" for
Unknown). Columns are cut (with "…") to the width given; when even cut they cannot share one
line, the answers go on a second, indented line: never more than two lines per device.
`--long` keeps the per-host blocks with reasons (`report.table_lines`)."""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from sqlalchemy.orm import Session

from ..adjudicate.registry import Registry
from ..extract.extractors.link_identity import vendor_of
from ..extract.kinds import OUI_VENDOR
from ..keys import MAC_PREFIX
from ..store.models import Capture
from .read.document import DocumentHead, HostDocument, capture_head, host_documents
from .read.hosts import host_count
from .report import head_lines

LOCAL_ORDER = ("on-link", "local-routed", "tunnel")  #: the local groups, in this order; then unknown
REMOTE = "remote"
LOCAL_MAC = "(local MAC)"  #: a locally administered MAC's vendor: none is registered
LEGEND = "⚠ contested (its two strongest)   * a person's answer   - unknown   --long: the reasons"
DEFAULT_WIDTH = 120
GAP = "  "
#: widest a column grows to, and narrowest it is cut to, by column kind
DEVICE_WIDTH, MAC_WIDTH = (15, 39), (17, 21)  # a device is never cut: it is its name
VENDOR_WIDTH = (8, 22)
ANSWER_WIDTH = (8, 22)


@dataclass(frozen=True)
class Row:
    device: str
    mac: str
    vendor: str
    answers: tuple[str, ...]


def terminal_width() -> int:
    """$COLUMNS, else the terminal's columns when stdout is one, else 120 (shutil's order)."""
    return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns


def write_table(session: Session, capture: Capture, registry: Registry, out: TextIO, *,
                width: int | None = None) -> None:
    """The summary and the device table of a stored capture, written to `out`."""
    head = capture_head(session, capture)
    questions = [a.question for a in registry]
    for line in table(head, host_documents(session, capture.id, registry), host_count(session, capture.id),
                      questions, width or terminal_width()):
        out.write(line + "\n")


def answer_cell(verdict: Mapping[str, Any] | None) -> str:
    """One question's answer as a table cell: its label, then its confidence after a tab (the
    label is what is cut when the column is narrow; see `_cut`)."""
    if not verdict:
        return "-"
    if verdict.get("contested"):
        live = [c for c in verdict["candidates"] if not c.get("dismissed")]
        return "⚠ " + " / ".join(c["label"] for c in live[:2])
    label = verdict["primary_label"]
    if label == "Unknown" and not verdict["confidence"]:
        return "-"
    human = "*" if verdict.get("basis") == "HUMAN" else ""
    stale = " stale" if verdict.get("stale_since") else ""
    return f"{label}{human}\t{verdict['confidence']}{stale}"


def _vendor(host: HostDocument, own_mac: str | None) -> str:
    """The vendor of the MAC the device owns (its key names it): another MAC its address was
    sent from (a spoofer's, a router's copy) must not lend the device its vendor."""
    if own_mac is not None:
        vendor = vendor_of(own_mac) or "-"
    else:
        vendor = next((f.value for f in host.facts if f.kind == OUI_VENDOR.name), "-")
    return LOCAL_MAC if vendor.startswith("locally administered") else vendor


def _own_mac(host: HostDocument) -> str | None:
    key = host.key
    return key[len(MAC_PREFIX):].replace("-", ":") if key.startswith(MAC_PREFIX) else None


def row_of(host: HostDocument, questions: list[str]) -> Row:
    device = host.ip or host.key
    more = len([a for a in host.addresses if a != device])
    macs = list(host.macs)
    own = _own_mac(host)
    if own in macs:  # the owned MAC first, the others counted
        macs = [own, *(m for m in macs if m != own)]
    return Row(device + (f" +{more}" if more else ""),
               (macs[0] + (f" +{len(macs) - 1}" if len(macs) > 1 else "")) if macs else "-",
               _vendor(host, own), tuple(answer_cell(host.verdict(q)) for q in questions))


def group_rows(hosts: Iterable[HostDocument], questions: list[str]) -> list[tuple[str, list[Row]]]:
    """(heading, rows) in the order they are shown. Holds one short row per device (a table
    is sorted by locality; the host documents themselves are not kept)."""
    local: dict[str, list[Row]] = {name: [] for name in LOCAL_ORDER}
    unknown: list[Row] = []
    remote: dict[str, list[Row]] = {}
    for host in hosts:
        row = row_of(host, questions)
        locality = host.locality or ""
        if locality == REMOTE:
            remote.setdefault((host.macs or ("-",))[0], []).append(row)
        elif locality in local:
            local[locality].append(row)
        else:
            unknown.append(row)
    groups = [(f"{name} ({len(rows)})", rows) for name, rows in local.items() if rows]
    if unknown:
        groups.append((f"locality unknown ({len(unknown)})", unknown))
    for mac, rows in sorted(remote.items(), key=lambda item: -len(item[1])):
        via = f"via {mac}" if mac != "-" else "no MAC seen"
        groups.append((f"remote, {via} ({len(rows)})", rows))
    return groups


def _cut(text: str, width: int) -> str:
    """`text` in at most `width` characters, "…" marking a cut; an answer ("label\tconfidence")
    keeps its confidence and loses the end of its label."""
    label, tab, rest = text.partition("\t")
    if tab:
        rest = " " + rest
        if len(label) + len(rest) <= width:
            return label + rest
        room = width - len(rest)
        return (label[:room - 1] + "…" + rest) if room >= 2 else _cut(label + rest, width)
    return text if len(text) <= width else text[:max(width - 1, 0)] + "…"


def _fit(natural: list[int], floors: list[int], budget: int) -> list[int] | None:
    """Column widths summing to at most `budget`: the widest columns cut first, none below its
    floor; None when even the floors do not fit."""
    widths = list(natural)
    while sum(widths) > budget:
        i = max(range(len(widths)), key=lambda j: (widths[j] - floors[j], widths[j]))
        if widths[i] <= floors[i]:
            return None
        widths[i] -= 1
    return widths


def table(head: DocumentHead, hosts: Iterable[HostDocument], count: int, questions: list[str], width: int) -> Iterator[str]:
    """The lines of the table: summary, a header, then each group's heading and rows."""
    yield from head_lines(head, count)
    groups = group_rows(hosts, questions)
    rows = [row for _, group in groups for row in group]
    names = ["DEVICE", "MAC", "VENDOR"] + questions
    bounds = [DEVICE_WIDTH, MAC_WIDTH, VENDOR_WIDTH] + [ANSWER_WIDTH] * len(questions)
    natural = [len(name) for name in names]
    for row in rows:
        natural = [max(n, len(cell)) for n, cell in zip(natural, _cells(row), strict=False)]
    natural = [n if i == 0 else min(n, hi) for i, (n, (_lo, hi)) in enumerate(zip(natural, bounds, strict=False))]
    floors = [n if i == 0 else min(lo, n) for i, (n, (lo, _hi)) in enumerate(zip(natural, bounds, strict=False))]
    gaps = len(GAP) * (len(names) - 1)
    one_line = _fit(natural, floors, width - 2 - gaps)  # rows are indented by 2 under a heading
    yield ""
    if one_line is not None:
        yield "  " + _join(names, one_line)
        for heading, group in groups:
            yield heading + ":"
            for row in group:
                yield "  " + _join(_cells(row), one_line)
        yield _cut(LEGEND, width)
        return
    # two lines per device: who it is, then its answers (cut to the width)
    first = _fit(natural[:3], floors[:3], width - 2 - 2 * len(GAP)) or floors[:3]
    yield "  " + _join(names[:3], first)
    yield "      " + _cut(" · ".join(questions), width - 6)
    for heading, group in groups:
        yield heading + ":"
        for row in group:
            yield _cut("  " + _join(_cells(row)[:3], first), width)
            yield "      " + _cut(" · ".join(a.replace("\t", " ") for a in row.answers), width - 6)
    yield _cut(LEGEND, width)


def _cells(row: Row) -> list[str]:
    return [row.device, row.mac, row.vendor, *row.answers]


def _join(cells: list[str], widths: list[int]) -> str:
    return GAP.join(f"{_cut(c, w):<{w}}" for c, w in zip(cells, widths, strict=False)).rstrip()
