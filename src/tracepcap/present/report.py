"""The capture document written out: as JSON (`analyze --json`) or as a plain-text table,
host by host. What it holds is read by `read.document`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import TextIO

from sqlalchemy.orm import Session

from ..adjudicate.contract import Verdict
from ..adjudicate.registry import Registry
from ..extract.facts import FactKind
from ..extract.kinds import HOSTNAME_CLAIM, OUI_VENDOR, SERVED, TTL
from ..statuses import WHOLE
from ..store.models import Capture
from .read.document import DocumentHead, HostDocument, capture_head, capture_tail, host_documents, host_json
from .read.hosts import host_count
from .read.shapes import plain

TOP_REASONS = 3


def write_capture(session: Session, capture: Capture, registry: Registry, out: TextIO, *,
                  as_json: bool) -> None:
    """Write the capture document (as JSON, or as the host table) host by host: byte for byte
    what printing the whole document (`plain(read.document.capture_document(...))`) would
    give, without holding it."""
    head = capture_head(session, capture)
    if as_json:
        write_json(plain(head), host_documents(session, capture.id, registry), out,
                   plain(capture_tail(session, capture.id)))
        return
    for line in table_lines(head, host_documents(session, capture.id, registry), host_count(session, capture.id)):
        out.write(line + "\n")


def write_json(head: Mapping, hosts: Iterable[HostDocument], out: TextIO, tail: Mapping | None = None) -> None:
    """The capture document, `head | {"hosts": [...]} | tail`, one host at a time: the head
    and the tail indented, each host on a line of its own (`read.document.host_json`). (An
    indented host cost 80 % of the report of a capture of 100,000 hosts: `json` has no C
    encoder for `indent`; a host per line reads as well with `jq` or `grep` and keeps the
    document the same JSON.)"""
    text = json.dumps(head, indent=2)
    out.write(text[:-2] + ',\n  "hosts": [' if head else '{\n  "hosts": [')
    separator = "\n    "
    for host in hosts:
        out.write(separator + host_json(host))
        separator = ",\n    "
    close = "]" if separator == "\n    " else "\n  ]"
    if tail:  # its keys after the hosts: '{' of its indented text becomes the comma after them
        out.write(close + "," + json.dumps(tail, indent=2)[1:] + "\n")
    else:
        out.write(close + "\n}\n")


def notice_line(counts: Mapping[str, int]) -> str:
    """One line of counts by kind, most frequent first."""
    kinds = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return (f"notices: {sum(counts.values())} (traffic that violated its protocol: "
            + ", ".join(f"{kind} {n}" for kind, n in kinds) + ")")


def _values(host: HostDocument, kind: FactKind, *, with_source: bool = False) -> list[str]:
    out: list[str] = []
    for fact in host.facts:
        if fact.kind == kind.name:
            text = f"{fact.value} ({fact.source})" if with_source else fact.value
            if text not in out:
                out.append(text)
    return out


def head_lines(head: DocumentHead, count: int) -> Iterator[str]:
    """The capture's summary: its line of counts, what could not be read, notices, findings."""
    cap = head.capture
    yield (f"capture {cap.id}  {cap.name}  {cap.format}  {cap.packets} packets  "
           f"{count} hosts  {head.conversations} conversations  status: {cap.status}")
    for row in (row for row in head.manifest if row.status not in WHOLE):
        yield f"  ! {row.extractor}: {row.status}: {row.error}"
    if head.notice_counts:
        yield "  " + notice_line(head.notice_counts)
    for finding in head.findings:
        frames = ", ".join(map(str, finding.frames[:5]))
        yield f"  finding [{finding.severity}] {finding.kind}: {finding.summary} (frames {frames})"


def table_lines(head: DocumentHead, hosts: Iterable[HostDocument], count: int) -> Iterator[str]:
    """The long form (`analyze --long`): the summary, then one block per host with reasons."""
    yield from head_lines(head, count)
    yield ""
    header = f"{'IP':<40} {'MAC':<18} {'TTL':<8} VENDOR"
    yield header
    yield "-" * len(header)
    for host in hosts:
        macs = host.macs or ("-",)
        vendor = ", ".join(_values(host, OUI_VENDOR)) or "-"
        ttl = ",".join(sorted(_values(host, TTL), key=int)) or "-"
        yield f"{host.ip or host.key:<40} {macs[0]:<18} {ttl:<8} {vendor}"
        for mac in macs[1:]:
            yield f"{'':<40} {mac}"
        if host.key and (host.key != host.ip or len(host.addresses) > 1):
            also = [a for a in host.addresses if a != host.ip]
            yield (f"{'':<4}device {host.key}" + (f", also {', '.join(also)}" if also else "")
                   + (", no address (seen only by its MAC)" if not host.addresses else ""))
        if host.locality:
            yield f"{'':<4}locality: {host.locality} ({host.locality_reason})"
        names = _values(host, HOSTNAME_CLAIM, with_source=True)
        if names:
            yield f"{'':<4}names: {', '.join(names)}"
        served = _values(host, SERVED)
        if served:
            yield f"{'':<4}serves: {', '.join(sorted(served))}"
        for question, verdict in host.answers():
            yield from verdict_lines(question, Verdict.from_document(verdict), indent=4)


def verdict_headline(verdict: Verdict) -> str:
    if verdict.contested:
        names = " / ".join(f"{c.label} ({c.score})" for c in verdict.live[:3])
        return f"⚠ contested: {names}"
    stale = ", STALE" if verdict.stale_since else ""
    level = f" (parent level: {' · '.join(verdict.parent_of)})" if verdict.parent_of else ""
    return f"{verdict.primary_label}{level}  [{verdict.basis.lower()}, confidence {verdict.confidence}{stale}]"


def verdict_lines(question: str, verdict: Verdict, *, indent: int, reasons: int = TOP_REASONS) -> list[str]:
    pad = " " * indent
    lines = [f"{pad}{question}: {verdict_headline(verdict)}"]
    if o := verdict.override:
        lines.append(f"{pad}  override by {o.actor} at {o.at}: {o.rationale}")
    lines += [f"{pad}  note: {note}" for note in verdict.notes]
    if verdict.live:
        lines += [f"{pad}  - {reason}" for reason in verdict.live[0].reasons[:reasons]]
    return lines
