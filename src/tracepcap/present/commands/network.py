"""`tracepcap network create|list|add|remove|show|changes`: series of captures of one site."""

from __future__ import annotations

import argparse
import json

from ...adjudicate import networks
from ...adjudicate.actor import SYSTEM_ACTOR
from ...adjudicate.registry import get_registry
from ...ingest import find_capture
from ...store import open_database
from ..read.networks import NetworkDetail, change_documents, inventory, network_detail, network_fields
from ..read.networks import networks as read_networks
from ..read.shapes import plain
from . import ExitCode, settings_for


def _with_session(args: argparse.Namespace, work):
    settings = settings_for(args)
    db = open_database(settings.database_url)
    try:
        with db.session(write=True) as s:
            return work(s)
    finally:
        db.dispose()


def cmd_network_create(args: argparse.Namespace) -> ExitCode:
    network = _with_session(args, lambda s: network_fields(networks.create_network(s, args.name, actor=SYSTEM_ACTOR), 0))
    print(_json(network) if args.json else f"network {network.id}  {network.name}")
    return ExitCode.OK


def cmd_network_list(args: argparse.Namespace) -> ExitCode:
    rows = _with_session(args, read_networks)
    if args.json:
        print(_json(rows))
    for n in [] if args.json else rows:
        print(f"{n.id}  {n.name}  {n.captures} captures")
    return ExitCode.OK


def cmd_network_add(args: argparse.Namespace) -> ExitCode:
    def work(s):
        network = networks.find_network(s, args.name)
        networks.add_capture(s, get_registry(), network, find_capture(s, args.capture).id, actor=SYSTEM_ACTOR)
        return network_detail(s, network)
    _print_network(_with_session(args, work), args.json)
    return ExitCode.OK


def cmd_network_remove(args: argparse.Namespace) -> ExitCode:
    def work(s):
        network = networks.find_network(s, args.name)
        networks.remove_capture(s, get_registry(), network, find_capture(s, args.capture).id, actor=SYSTEM_ACTOR)
        return network_detail(s, network)
    _print_network(_with_session(args, work), args.json)
    return ExitCode.OK


def _json(value) -> str:
    return json.dumps(plain(value), default=str, indent=2)


def _print_network(detail: NetworkDetail, as_json: bool) -> None:
    if as_json:
        print(_json(detail))
        return
    print(f"network {detail.id}  {detail.name}  {detail.captures} captures")
    for c in detail.capture_list:
        print(f"  {c.position + 1}. {c.id}  {c.name}  {c.status}")


def cmd_network_show(args: argparse.Namespace) -> ExitCode:
    def work(s):
        network = networks.find_network(s, args.name)
        return network_detail(s, network), inventory(s, network, 0, args.limit)
    detail, devices = _with_session(args, work)
    if args.json:
        print(_json(plain(detail) | {"inventory": plain(devices)}))
        return ExitCode.OK
    _print_network(detail, False)
    print(f"devices: {devices.total}")
    for row in devices.rows:
        held = ", ".join(row.addresses + tuple(m for m in row.macs if row.entity_key not in row.addresses))
        print(f"  {row.entity_key}{f' ({held})' if held and held != row.entity_key else ''}  "
              f"first seen {row.first_seen}  last seen {row.last_seen}")
        for question, a in row.answers.items():
            if a.state == "machine":
                continue
            extra = f" ({a.note})" if a.note else ""
            stale = f"  STALE since {a.stale_since}: {a.moved}" if a.state == "stale" else ""
            print(f"    {question}: {a.label}  [{a.state}, by {a.author}]{extra}{stale}")
    return ExitCode.OK


def cmd_network_changes(args: argparse.Namespace) -> ExitCode:
    """The summary (counts by kind and severity), then the high and medium changes; the low
    ones (churn, behaviour that came back) with --all."""
    from ..read.change_summary import change_summary, summary_lines

    def work(s):
        network = networks.find_network(s, args.name)
        summary = change_summary(s, network.id, networks.ordered_captures(s, network.id))
        return network_detail(s, network), change_documents(s, network.id), summary
    detail, events, summary = _with_session(args, work)
    if args.json:
        print(_json(events))
        return ExitCode.OK
    if not events:
        print(f"no changes between the {detail.captures} captures of {detail.name}")
        return ExitCode.OK
    print("\n".join(summary_lines(summary)))
    shown = events if args.all else [e for e in events if e.severity != "low"]
    current = None
    for e in shown:
        if e.capture_id != current:
            current = e.capture_id
            print(f"{e.previous_name} -> {e.capture_name}")
        frames = f"  frames {', '.join(map(str, e.frames[:8]))}" if e.frames else ""
        reviewed = f"  (reviewed by {e.reviewed_by})" if e.reviewed else ""
        print(f"  [{e.severity}] {e.kind}: {e.summary}{frames}{reviewed}")
    if len(shown) < len(events):
        print(f"{len(events) - len(shown)} low changes folded (devices coming and going, behaviour back after "
              f"an absence): --all lists them")
    return ExitCode.OK
