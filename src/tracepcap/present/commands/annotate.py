"""The annotation commands: `override`, `accept`, `evidence add|edit|delete`, `dismiss`,
`reaffirm` (each prints the new verdict) and `explain`."""

from __future__ import annotations

import argparse
import json

from ...adjudicate import annotations, networks
from ...adjudicate.actor import SYSTEM_ACTOR
from ...adjudicate.contract import Key
from ...adjudicate.registry import get_registry
from ...errors import UsageError
from ...ingest import find_capture
from ...store import open_database
from ..read.hosts import require_host
from ..read.shapes import plain
from ..read.trail import EvidenceEntry, trail
from ..read.verdicts import require_verdict
from ..report import verdict_headline, verdict_lines
from . import ExitCode, settings_for


def _annotate(args: argparse.Namespace, action) -> ExitCode:
    """Open the store, resolve the key, run one annotation service call as the current actor,
    print the new verdict."""
    settings = settings_for(args)
    db = open_database(settings.database_url)
    registry = get_registry()
    try:
        with db.session() as s:
            # the service resolves the entity (key, address or MAC) after taking its write turn
            key = Key(args.question, find_capture(s, args.capture).id, args.entity)
            verdict = action(s, registry, key, SYSTEM_ACTOR)
    finally:
        db.dispose()
    if args.json:
        print(json.dumps(verdict.to_document(), indent=2))
    else:
        print("\n".join(verdict_lines(key.question, verdict, indent=0, reasons=10)))
    return ExitCode.OK


def cmd_override(args: argparse.Namespace) -> ExitCode:
    if args.clear:
        return _annotate(args, lambda s, r, k, actor: annotations.clear_override(s, r, k, actor=actor))
    if not args.label:
        raise UsageError("override needs LABEL (or --clear)")
    return _annotate(args, lambda s, r, k, actor: annotations.set_override(
        s, r, k, args.label, args.rationale or "", actor=actor))


def cmd_accept(args: argparse.Namespace) -> ExitCode:
    return _annotate(args, lambda s, r, k, actor: annotations.accept(s, r, k, actor=actor))


def cmd_evidence_add(args: argparse.Namespace) -> ExitCode:
    return _annotate(args, lambda s, r, k, actor: annotations.add_evidence(
        s, r, k, args.label, args.weight, args.reason, actor=actor)[1])


def cmd_evidence_edit(args: argparse.Namespace) -> ExitCode:
    return _annotate(args, lambda s, r, k, actor: annotations.edit_evidence(
        s, r, k, args.id, actor=actor, label=args.label, weight=args.weight, reason=args.reason)[1])


def cmd_evidence_delete(args: argparse.Namespace) -> ExitCode:
    return _annotate(args, lambda s, r, k, actor: annotations.delete_evidence(s, r, k, args.id, actor=actor))


def cmd_dismiss(args: argparse.Namespace) -> ExitCode:
    if args.undo:
        return _annotate(args, lambda s, r, k, actor: annotations.undismiss(s, r, k, args.label, actor=actor))
    return _annotate(args, lambda s, r, k, actor: annotations.dismiss(
        s, r, k, args.label, args.reason or "", actor=actor))


def cmd_explain(args: argparse.Namespace) -> ExitCode:
    settings = settings_for(args)
    db = open_database(settings.database_url)
    registry = get_registry()
    try:
        with db.session() as s:
            capture_id = find_capture(s, args.capture).id
            key = Key(args.question, capture_id, require_host(s, capture_id, args.entity))
            evidence = annotations.list_evidence(s, registry, key)  # checks the key
            verdict = require_verdict(s, key)
            evidence = [EvidenceEntry.of(e) for e in evidence]
            events = trail(s, registry, key)
    finally:
        db.dispose()
    if args.json:
        print(json.dumps({"verdict": verdict.to_document(), "evidence": plain(evidence), "trail": plain(events)},
                         indent=2))
        return ExitCode.OK
    print(f"{key.question} of {key.entity_key} in capture {key.capture_id}")
    print(f"  answer: {verdict_headline(verdict)}")
    for note in verdict.notes:
        print(f"  note: {note}")
    if o := verdict.override:
        print(f"  override: {o.label} by {o.actor} at {o.at}: {o.rationale}")
    print("  candidates:")
    for c in verdict.candidates:
        mark = f"  (dismissed by {c.dismissed.by}: {c.dismissed.reason})" if c.dismissed else ""
        print(f"    {c.label}  score {c.score}  [{c.source}]{mark}")
        for vote in c.votes:
            frames = f"  frames {', '.join(map(str, vote.frames))}" if vote.frames else ""
            print(f"      - {vote.reason}  <{vote.signal}, {vote.grade}>{frames}")
    print("  evidence:" if evidence else "  evidence: none")
    for e in evidence:
        print(f"    #{e.id} {e.label} ({e.weight:+d}) by {e.actor} at {plain(e.updated_at)}: {e.reason}")
    print("  trail:" if events else "  trail: none")
    for e in events:
        via = f"  (on {e.via})" if e.via else ""
        print(f"    {plain(e.at)}  {e.actor}  {e.action}{via}  {e.change}")
    return ExitCode.OK


def cmd_reaffirm(args: argparse.Namespace) -> ExitCode:
    return _annotate(args, lambda s, r, k, actor: networks.reaffirm(s, r, k, actor=actor))
