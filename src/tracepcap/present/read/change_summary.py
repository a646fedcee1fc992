"""A network's changes in one screen: how many of each kind and severity, per capture and in
all, then the high and medium ones (what an analyst acts on). The low ones - churn of known
devices, behaviour that came back - are counted here and listed behind a disclosure (web) or
with `--all` (CLI)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...store.models import Capture, NetworkChange
from .networks import Change, change_documents

SEVERITIES = ("high", "medium", "low")
TOP = ("high", "medium")


@dataclass(frozen=True, slots=True)
class CaptureChanges:
    """A capture of the network (after the first) and its changes counted by severity."""

    id: str
    name: str
    counts: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class ChangeSummary:
    """`total` by severity; `kinds`: (kind, by severity), the most severe first; `captures`
    each after the first; `top`: the high and medium changes in capture order;
    `folded`: how many low ones are not in `top`."""

    total: Mapping[str, int]
    kinds: tuple[tuple[str, Mapping[str, int]], ...]
    captures: tuple[CaptureChanges, ...]
    top: tuple[Change, ...]
    folded: int


def change_summary(session: Session, network_id: str, captures: list[Capture]) -> ChangeSummary:
    """The network's changes counted and its high and medium ones listed (`ChangeSummary`)."""
    counts: dict[tuple[str, str, str], int] = {
        (cid, kind, sev): n for cid, kind, sev, n in session.execute(select(
            NetworkChange.capture_id, NetworkChange.kind, NetworkChange.severity, func.count()).where(
            NetworkChange.network_id == network_id).group_by(
            NetworkChange.capture_id, NetworkChange.kind, NetworkChange.severity))}
    total = {s: sum(n for (_, _, sev), n in counts.items() if sev == s) for s in SEVERITIES}
    kinds: dict[str, dict[str, int]] = {}
    for (_, kind, sev), n in counts.items():
        kinds.setdefault(kind, dict.fromkeys(SEVERITIES, 0))[sev] += n
    ordered = sorted(kinds.items(), key=lambda kv: (-kv[1]["high"], -kv[1]["medium"], -kv[1]["low"], kv[0]))
    per_capture = tuple(CaptureChanges(c.id, c.name, {
        s: sum(n for (cid, _, sev), n in counts.items() if cid == c.id and sev == s) for s in SEVERITIES})
        for c in captures[1:])
    top = change_documents(session, network_id, severities=TOP, captures=captures, detail=False)
    return ChangeSummary(total, tuple(ordered), per_capture, tuple(top), total["low"])


def summary_lines(summary: ChangeSummary) -> list[str]:
    """The summary as text (the CLI's first screen)."""
    t = summary.total
    lines = [f"{t['high']} high, {t['medium']} medium, {t['low']} low (folded) over "
             f"{len(summary.captures)} captures after the first"]
    for c in summary.captures:
        n = c.counts
        lines.append(f"  {c.name}: {n['high']} high, {n['medium']} medium, {n['low']} low")
    lines.append("by kind: " + "; ".join(
        f"{kind} {'/'.join(str(n[s]) for s in SEVERITIES)}" for kind, n in summary.kinds) + " (high/medium/low)")
    return lines
