"""The `tracepcap` command line. Errors are one line on stderr, never a traceback; exit codes
are `ExitCode`. Output cut off by its reader (`| head`) ends quietly with the command's code."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import sys
from enum import IntEnum
from pathlib import Path

from ..adjudicate import annotations, networks
from ..adjudicate.actor import SYSTEM_ACTOR
from ..adjudicate.contract import Key
from ..adjudicate.registry import get_registry
from ..analysis import DELETED, analyze
from ..errors import NotFound, TracePcapError, UsageError
from ..ingest import find_capture, store_file
from ..settings import Settings
from ..store import open_database
from ..store.models import CaptureStatus
from .read.hosts import require_host
from .read.networks import change_documents, inventory, network_detail, network_fields, networks as read_networks
from .read.trail import describe, event_document, evidence_document
from .read.verdicts import require_verdict
from .report import verdict_headline, verdict_lines, write_capture


log = logging.getLogger(__name__)


class ExitCode(IntEnum):
    OK = 0  #: the analysis completed
    FAILED = 1  #: an internal error; the message says what
    UNUSABLE_INPUT = 2  #: not a capture, missing file, bad arguments, unknown reference
    PARTIAL = 3  #: the capture was only partly readable; the manifest says what was lost


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {"database_url": args.db} if getattr(args, "db", None) else {}
    if getattr(args, "workers", None):
        overrides["capture_workers"] = args.workers
    if getattr(args, "scheduler", None):
        overrides["dask_scheduler"] = args.scheduler
    return Settings(**overrides)


def _demo_capture(settings: Settings) -> Path:
    from ..testing.demo import build_demo_office
    path = settings.data_dir / "demo" / "demo-office.pcap"
    path.parent.mkdir(parents=True, exist_ok=True)
    return build_demo_office(path)


#: gen-0 collection threshold for a one-shot analysis (Python's default is 700): a many-host
#: capture keeps millions of objects alive (facts, votes, verdict documents), and collecting
#: every 700 allocations re-walked them for about 13 % of the run. Cyclic garbage is still
#: collected, only less often; the server (`serve`) keeps the default.
BATCH_GC_THRESHOLD = 10_000


def batch_gc() -> None:
    gc.set_threshold(BATCH_GC_THRESHOLD, *gc.get_threshold()[1:])


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def cmd_analyze(args: argparse.Namespace) -> ExitCode:
    batch_gc()
    settings = _settings(args)
    path = Path(args.path) if args.path else _demo_capture(settings)
    db = open_database(settings.database_url)
    try:
        with db.session() as s:
            capture, _created = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR.name,
                                           max_bytes=settings.max_capture_bytes)
            capture_id = capture.id
            if args.network:  # joined before the analysis, which carries answers into it at its end
                networks.attach(s, networks.find_network(s, args.network), capture_id, actor=SYSTEM_ACTOR)
        from .progress import terminal_progress
        with terminal_progress(as_json=args.json) as progress:
            status = analyze(db, settings, capture_id, raise_failure=True, progress=progress)
        if status == DELETED:
            raise NotFound(f"capture {capture_id} was deleted while it was analyzed")
        with db.session() as s:
            from ..store.models import Capture
            capture = s.get(Capture, capture_id)
            args.outcome = ExitCode.OK if status == CaptureStatus.DONE else ExitCode.PARTIAL  # kept if `| head` cuts us
            if args.json or args.long:
                write_capture(s, capture, get_registry(), sys.stdout, as_json=args.json)
            else:
                from .table import write_table
                write_table(s, capture, get_registry(), sys.stdout)
    finally:
        db.dispose()
    return args.outcome


def _annotate(args: argparse.Namespace, action) -> ExitCode:
    """Open the store, resolve the key, run one annotation service call as the current actor,
    print the new verdict."""
    settings = _settings(args)
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
    settings = _settings(args)
    db = open_database(settings.database_url)
    registry = get_registry()
    try:
        with db.session() as s:
            capture_id = find_capture(s, args.capture).id
            key = Key(args.question, capture_id, require_host(s, capture_id, args.entity))
            evidence = annotations.list_evidence(s, registry, key)  # checks the key
            verdict = require_verdict(s, key)
            evidence = [evidence_document(e) for e in evidence]
            events = [event_document(e) | {"change": describe(e)} for e in annotations.trail(s, key)]
    finally:
        db.dispose()
    if args.json:
        print(json.dumps({"verdict": verdict.to_document(), "evidence": evidence, "trail": events}, indent=2))
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
        print(f"    #{e['id']} {e['label']} ({e['weight']:+d}) by {e['actor']} at {e['updated_at']}: {e['reason']}")
    print("  trail:" if events else "  trail: none")
    for e in events:
        print(f"    {e['at']}  {e['actor']}  {e['action']}  {e['change']}")
    return ExitCode.OK


def _with_session(args: argparse.Namespace, work):
    settings = _settings(args)
    db = open_database(settings.database_url)
    try:
        with db.session(write=True) as s:
            return work(s)
    finally:
        db.dispose()


def cmd_network_create(args: argparse.Namespace) -> ExitCode:
    network = _with_session(args, lambda s: network_fields(networks.create_network(s, args.name, actor=SYSTEM_ACTOR)))
    print(json.dumps(network, default=str, indent=2) if args.json else f"network {network['id']}  {network['name']}")
    return ExitCode.OK


def cmd_network_list(args: argparse.Namespace) -> ExitCode:
    rows = _with_session(args, read_networks)
    if args.json:
        print(json.dumps(rows, default=str, indent=2))
    for n in [] if args.json else rows:
        print(f"{n['id']}  {n['name']}  {n['captures']} captures")
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


def _print_network(detail: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(detail, default=str, indent=2))
        return
    print(f"network {detail['id']}  {detail['name']}  {detail['captures']} captures")
    for c in detail["capture_list"]:
        print(f"  {c['position'] + 1}. {c['id']}  {c['name']}  {c['status']}")


def cmd_network_show(args: argparse.Namespace) -> ExitCode:
    def work(s):
        network = networks.find_network(s, args.name)
        return network_detail(s, network) | {"inventory": inventory(s, network, 0, args.limit)}
    detail = _with_session(args, work)
    if args.json:
        print(json.dumps(detail, default=str, indent=2))
        return ExitCode.OK
    _print_network(detail, False)
    print(f"devices: {detail['inventory']['total']}")
    for row in detail["inventory"]["rows"]:
        held = ", ".join(row["addresses"] + [m for m in row["macs"] if row["entity_key"] not in row["addresses"]])
        print(f"  {row['entity_key']}{f' ({held})' if held and held != row['entity_key'] else ''}  "
              f"first seen {row['first_seen']}  last seen {row['last_seen']}")
        for question, a in row["answers"].items():
            if a["state"] == "machine":
                continue
            extra = f" ({a['note']})" if a.get("note") else ""
            stale = f"  STALE since {a['stale_since']}: {a['moved']}" if a["state"] == "stale" else ""
            print(f"    {question}: {a['label']}  [{a['state']}, by {a.get('author')}]{extra}{stale}")
    return ExitCode.OK


def cmd_network_changes(args: argparse.Namespace) -> ExitCode:
    def work(s):
        network = networks.find_network(s, args.name)
        return network_detail(s, network), change_documents(s, network.id)
    detail, events = _with_session(args, work)
    if args.json:
        print(json.dumps(events, default=str, indent=2))
        return ExitCode.OK
    current = None
    for e in events:
        if e["capture_id"] != current:
            current = e["capture_id"]
            print(f"{e['previous_name']} -> {e['capture_name']}")
        frames = f"  frames {', '.join(map(str, e['frames'][:8]))}" if e["frames"] else ""
        reviewed = f"  (reviewed by {e['reviewed_by']})" if e["reviewed"] else ""
        print(f"  [{e['severity']}] {e['kind']}: {e['summary']}{frames}{reviewed}")
    if not events:
        print(f"no changes between the {detail['captures']} captures of {detail['name']}")
    return ExitCode.OK


def cmd_reaffirm(args: argparse.Namespace) -> ExitCode:
    return _annotate(args, lambda s, r, k, actor: networks.reaffirm(s, r, k, actor=actor))


WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")  # every interface: no name to allow; see TRACEPCAP_ALLOWED_HOSTS


def cmd_serve(args: argparse.Namespace) -> ExitCode:
    """Serve the REST API (and its background analysis worker) until interrupted."""
    import uvicorn
    from pydantic import ValidationError

    from .api import create_app
    try:
        settings = _settings(args)
    except ValidationError as err:
        problems = "; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors())
        raise UsageError(f"invalid settings: {problems}") from err
    bound = args.host.strip("[]").lower()
    if bound not in WILDCARD_ADDRESSES and bound not in settings.allowed_hosts:
        settings.allowed_hosts.append(bound)  # the address it listens on is a name it answers to
    # a keep-alive connection idle for 5 s is closed (slow uploads: see present/api/upload.py)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, timeout_keep_alive=5)
    return ExitCode.OK


def _key_arguments(p: argparse.ArgumentParser, *, label: str | None = None) -> None:
    p.add_argument("capture", help="capture id, unique id prefix, or sha256")
    p.add_argument("question", help="question key, e.g. host-identity")
    p.add_argument("entity", help="the host or device: its key, one of its addresses or one of its MACs")
    if label:
        p.add_argument("label", nargs="?" if label == "optional" else None, help="the label")
    p.add_argument("--db", help="SQLAlchemy database URL")
    p.add_argument("--json", action="store_true", help="print JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tracepcap", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("analyze", help="store a capture, analyze it, print hosts and facts")
    p.add_argument("path", nargs="?", help="pcap/pcapng file, optionally gzip'd (default: the demo office LAN)")
    p.add_argument("--db", help="SQLAlchemy database URL (default: SQLite in the data directory)")
    p.add_argument("--json", action="store_true", help="print the JSON document instead of the table")
    p.add_argument("--long", action="store_true", help="a block per host with each answer's reasons, not a line")
    p.add_argument("--workers", type=_positive, metavar="N",
                   help="processes to shard the walk over (default: the machine's cores from 3 up, else 1: one walk)")
    p.add_argument("--scheduler", metavar="URL",
                   help="a Dask scheduler (tcp://host:8786): its workers walk the shards")
    p.add_argument("--network", help="put the capture into this network (see `tracepcap network create`)")
    p.set_defaults(run=cmd_analyze)

    network = sub.add_parser("network", help="networks: series of captures of one site").add_subparsers(
        dest="network_command", required=True)

    def network_parser(name: str, help: str, run, *, capture: bool = False):
        p = network.add_parser(name, help=help)
        if name != "list":
            p.add_argument("name", help="network name (or id)")
        if capture:
            p.add_argument("capture", help="capture id, unique id prefix, or sha256")
        p.add_argument("--db", help="SQLAlchemy database URL")
        p.add_argument("--json", action="store_true", help="print JSON")
        p.set_defaults(run=run)
        return p
    network_parser("create", "create a network", cmd_network_create)
    network_parser("list", "list the networks", cmd_network_list)
    network_parser("add", "attach an analysed capture to a network", cmd_network_add, capture=True)
    network_parser("remove", "take a capture out of its network", cmd_network_remove, capture=True)
    network_parser("show", "the network's captures and inventory, with carried and stale answers",
                   cmd_network_show).add_argument("--limit", type=int, default=100, help="devices shown (default 100)")
    network_parser("changes", "the changes between consecutive captures", cmd_network_changes)

    p = sub.add_parser("reaffirm", help="say a stale (or carried) human answer still holds here")
    _key_arguments(p)
    p.set_defaults(run=cmd_reaffirm)

    p = sub.add_parser("override", help="set (or --clear) a human's final answer")
    _key_arguments(p, label="optional")
    p.add_argument("--rationale", help="why (required when setting)")
    p.add_argument("--clear", action="store_true", help="revert to the machine's answer")
    p.set_defaults(run=cmd_override)

    p = sub.add_parser("accept", help="accept the machine's suggestion (an override with its label)")
    _key_arguments(p)
    p.set_defaults(run=cmd_accept)

    evidence = sub.add_parser("evidence", help="analyst evidence: add, edit, delete").add_subparsers(
        dest="evidence_command", required=True)
    p = evidence.add_parser("add", help="add a weighted vote for a label")
    _key_arguments(p, label="required")
    p.add_argument("--weight", type=int, default=40, help="1..100 (default 40)")
    p.add_argument("--reason", required=True)
    p.set_defaults(run=cmd_evidence_add)
    p = evidence.add_parser("edit", help="edit your own evidence")
    _key_arguments(p)
    p.add_argument("id", type=int)
    p.add_argument("--label")
    p.add_argument("--weight", type=int)
    p.add_argument("--reason")
    p.set_defaults(run=cmd_evidence_edit)
    p = evidence.add_parser("delete", help="delete your own evidence")
    _key_arguments(p)
    p.add_argument("id", type=int)
    p.set_defaults(run=cmd_evidence_delete)

    p = sub.add_parser("dismiss", help='say "it is NOT this label" (or --undo)')
    _key_arguments(p, label="required")
    p.add_argument("--reason", help="why (required when dismissing)")
    p.add_argument("--undo", action="store_true", help="remove the dismissal")
    p.set_defaults(run=cmd_dismiss)

    p = sub.add_parser("explain", help="verdict, candidates, reasons, annotations and the trail")
    _key_arguments(p)
    p.set_defaults(run=cmd_explain)

    p = sub.add_parser("serve", help="serve the REST API (docs at /api/docs)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", help="SQLAlchemy database URL (default: SQLite in the data directory)")
    p.set_defaults(run=cmd_serve)

    p = sub.add_parser("questions", help="list the registered questions and their signals")
    p.set_defaults(run=lambda args: print("\n".join(get_registry().listing())) or ExitCode.OK)
    return parser


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"tracepcap: {record.getMessage()}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.run is not cmd_serve and not logging.getLogger().handlers:
        # a warning is one line on stderr, no traceback; `serve` keeps full records for its log
        handler = logging.StreamHandler()
        handler.setFormatter(_OneLine())
        logging.getLogger().addHandler(handler)
    try:
        code = int(args.run(args))
        sys.stdout.flush()  # here, not at interpreter exit, so a closed pipe is caught below
        return code
    except BrokenPipeError:
        # the reader went away (`| head`); what it read was right. Point stdout at /dev/null
        # so the interpreter's last flush does not fail again, and end quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return getattr(args, "outcome", ExitCode.OK)
    except TracePcapError as err:
        print(f"tracepcap: {err}", file=sys.stderr)
        return ExitCode(err.exit_code)
    except Exception as err:  # noqa: BLE001 - the CLI's named boundary: one line, not a traceback
        log.debug("internal error", exc_info=err)
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else ""
        print(f"tracepcap: internal error ({type(err).__name__}) {first_line}".rstrip(), file=sys.stderr)
        return ExitCode.FAILED


if __name__ == "__main__":
    sys.exit(main())
