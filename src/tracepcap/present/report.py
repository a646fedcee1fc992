"""The capture document written out: as JSON (`analyze --json`) or as a plain-text table,
host by host. What it holds is read by `read.document`."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TextIO

from sqlalchemy.orm import Session

from ..adjudicate.contract import Verdict
from ..adjudicate.registry import Registry
from ..extract.facts import FactKind
from ..extract.kinds import HOSTNAME_CLAIM, OUI_VENDOR, SERVED, TTL
from ..statuses import WHOLE
from ..store.models import Capture
from .read.document import capture_head, host_documents, host_parts
from .read.hosts import host_count

TOP_REASONS = 3


def write_capture(session: Session, capture: Capture, registry: Registry, out: TextIO, *,
                  as_json: bool) -> None:
    """Write the capture document (as JSON, or as the host table) host by host: byte for byte
    what printing the whole document would give, without holding it."""
    head = capture_head(session, capture)
    if as_json:
        write_json(head, host_parts(session, capture.id, registry), out)
        return
    for line in table_lines(head, host_documents(session, capture.id, registry), host_count(session, capture.id)):
        out.write(line + "\n")


def write_json(head: dict, hosts: Iterable[tuple[dict, list[tuple[str, str]]]], out: TextIO) -> None:
    """The capture document, `head | {"hosts": [...]}`, one host at a time: the head indented,
    each host on a line of its own. (An indented host cost 80 % of the report of a capture of
    100,000 hosts: `json` has no C encoder for `indent`; a host per line reads as well with
    `jq` or `grep` and keeps the document the same JSON.) A host comes as `read.host_parts`
    gives it: its verdicts, its last key, are their stored JSON text, copied as it is
    (`json.dumps` wrote it: decoding and encoding it again gives the same text, and was half
    the report's time)."""
    text = json.dumps(head, indent=2)
    out.write(text[:-2] + ',\n  "hosts": [' if head else '{\n  "hosts": [')
    separator = "\n    "
    for host, verdicts in hosts:
        answers = ", ".join(f"{json.dumps(question)}: {document}" for question, document in verdicts)
        out.write(f"{separator}{json.dumps(host)[:-1]}, \"verdicts\": {{{answers}}}}}")
        separator = ",\n    "
    out.write("]\n}\n" if separator == "\n    " else "\n  ]\n}\n")


def notice_line(counts: dict[str, int]) -> str:
    """One line of counts by kind, most frequent first."""
    kinds = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return (f"notices: {sum(counts.values())} (traffic that violated its protocol: "
            + ", ".join(f"{kind} {n}" for kind, n in kinds) + ")")


def _values(host: dict, kind: FactKind, *, with_source: bool = False) -> list[str]:
    out: list[str] = []
    for fact in host["facts"]:
        if fact["kind"] == kind.name:
            text = f"{fact['value']} ({fact['source']})" if with_source else fact["value"]
            if text not in out:
                out.append(text)
    return out


def head_lines(head: dict, count: int) -> Iterator[str]:
    """The capture's summary: its line of counts, what could not be read, notices, findings."""
    cap = head["capture"]
    yield (f"capture {cap['id']}  {cap['name']}  {cap['format']}  {cap['packets']} packets  "
           f"{count} hosts  {head['conversations']} conversations  status: {cap['status']}")
    for row in (row for row in head["manifest"] if row["status"] not in WHOLE):
        yield f"  ! {row['extractor']}: {row['status']}: {row['error']}"
    if head["notice_counts"]:
        yield "  " + notice_line(head["notice_counts"])
    for finding in head["findings"]:
        frames = ", ".join(map(str, finding["frames"][:5]))
        yield f"  finding [{finding['severity']}] {finding['kind']}: {finding['summary']} (frames {frames})"


def table_lines(head: dict, hosts: Iterable[dict], count: int) -> Iterator[str]:
    """The long form (`analyze --long`): the summary, then one block per host with reasons."""
    yield from head_lines(head, count)
    yield ""
    header = f"{'IP':<40} {'MAC':<18} {'TTL':<8} VENDOR"
    yield header
    yield "-" * len(header)
    for host in hosts:
        macs = host["macs"] or ["-"]
        vendor = ", ".join(_values(host, OUI_VENDOR)) or "-"
        ttl = ",".join(sorted(_values(host, TTL), key=int)) or "-"
        yield f"{host['ip'] or host['key']:<40} {macs[0]:<18} {ttl:<8} {vendor}"
        for mac in macs[1:]:
            yield f"{'':<40} {mac}"
        if host.get("key") and (host["key"] != host["ip"] or len(host.get("addresses", ())) > 1):
            also = [a for a in host["addresses"] if a != host["ip"]]
            yield (f"{'':<4}device {host['key']}" + (f", also {', '.join(also)}" if also else "")
                   + (", no address (seen only by its MAC)" if not host["addresses"] else ""))
        if host["locality"]:
            yield f"{'':<4}locality: {host['locality']} ({host['locality_reason']})"
        names = _values(host, HOSTNAME_CLAIM, with_source=True)
        if names:
            yield f"{'':<4}names: {', '.join(names)}"
        served = _values(host, SERVED)
        if served:
            yield f"{'':<4}serves: {', '.join(sorted(served))}"
        for question, verdict in host["verdicts"].items():
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
