"""The `tracepcap` command line. Errors are one line on stderr, never a traceback; exit codes
are `ExitCode`. Output cut off by its reader (`| head`) ends quietly with the command's code.

This module only parses: each subcommand names its handler as "module:function" in
present/commands/, imported after parsing, so `--help` and a usage error load nothing heavy and
each command loads what it needs (present/commands/__init__.py). A new subcommand is a parser
entry in `build_parser` with `set_defaults(run="module:cmd_name")` and its module there."""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from importlib import import_module

from ..errors import TracePcapError
from .commands import BATCH_GC_THRESHOLD, ExitCode, batch_gc  # noqa: F401 - the CLI's public names

log = logging.getLogger(__name__)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _workers(text: str) -> int:
    """--workers: 1 .. MAX_CAPTURE_WORKERS, refused by argparse (usage, exit 2) otherwise."""
    value = _positive(text)
    from ..settings import MAX_CAPTURE_WORKERS  # only when given: --help loads no pydantic
    if value > MAX_CAPTURE_WORKERS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_CAPTURE_WORKERS}")
    return value


def command_function(run):
    """The function a parsed command runs: `run` is itself one, or "module:function" naming one
    in present/commands/, imported now."""
    if callable(run):
        return run
    module, _, name = run.partition(":")
    return getattr(_import_for_good(f"{__package__}.commands.{module}"), name)


def _import_for_good(name: str):
    """Import a command's module with the cyclic garbage collector paused, then freeze what
    exists (`gc.freeze`): the modules, classes and tables imported live as long as the process,
    yet the collector ran ~160 times while they were built and scanned them again at every
    later full collection, ~10 % of a short `analyze` (issue 29). Once per module and process:
    a caller that runs many commands (the tests) freezes only what existed at its first."""
    if name in sys.modules:
        return sys.modules[name]
    enabled = gc.isenabled()
    gc.disable()
    try:
        return import_module(name)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


COMMAND_MODULES = ("analyze", "annotate", "credentials", "import_labels", "network", "serve")  #: present/commands/*, for `__getattr__`


def __getattr__(name: str):
    """`cli.cmd_explain` and the other handlers, for callers that import them from here."""
    if name.startswith("cmd_"):
        for module in COMMAND_MODULES:
            found = getattr(import_module(f"{__package__}.commands.{module}"), name, None)
            if found is not None:
                return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def cmd_questions(args: argparse.Namespace) -> ExitCode:
    from ..adjudicate.registry import get_registry
    print("\n".join(get_registry().listing()))
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
    parser = argparse.ArgumentParser(prog="tracepcap", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("analyze", help="store a capture, analyze it, print hosts and facts")
    p.add_argument("path", nargs="?", help="pcap/pcapng file, optionally gzip'd (default: the demo office LAN)")
    p.add_argument("--db", help="SQLAlchemy database URL (default: SQLite in the data directory)")
    p.add_argument("--json", action="store_true", help="print the JSON document instead of the table")
    p.add_argument("--long", action="store_true", help="a block per host with each answer's reasons, not a line")
    p.add_argument("--workers", type=_workers, metavar="N",
                   help="processes to shard the walk over (default: the machine's cores from 3 up, else 1: one walk)")
    p.add_argument("--scheduler", metavar="URL",
                   help="a trusted Dask scheduler (tls://host:8786 with TRACEPCAP_DASK_TLS_* files, or "
                        "tcp:// on this machine): its workers walk the shards")
    p.add_argument("--network", help="put the capture into this network (see `tracepcap network create`)")
    p.set_defaults(run="analyze:cmd_analyze")

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
    network_parser("create", "create a network", "network:cmd_network_create")
    network_parser("list", "list the networks", "network:cmd_network_list")
    network_parser("add", "attach an analysed capture to a network", "network:cmd_network_add", capture=True)
    network_parser("remove", "take a capture out of its network", "network:cmd_network_remove", capture=True)
    network_parser("show", "the network's captures and inventory, with carried and stale answers",
                   "network:cmd_network_show").add_argument("--limit", type=int, default=100, help="devices shown (default 100)")
    network_parser("changes", "a summary of the changes against the network's history, then the high and medium "
                   "ones", "network:cmd_network_changes").add_argument("--all", action="store_true",
                                                                      help="list the low changes too")

    p = sub.add_parser("reaffirm", help="say a stale (or carried) human answer still holds here")
    _key_arguments(p)
    p.set_defaults(run="annotate:cmd_reaffirm")

    p = sub.add_parser("override", help="set (or --clear) a human's final answer")
    _key_arguments(p, label="optional")
    p.add_argument("--rationale", help="why (required when setting)")
    p.add_argument("--clear", action="store_true", help="revert to the machine's answer")
    p.set_defaults(run="annotate:cmd_override")

    p = sub.add_parser("accept", help="accept the machine's suggestion (an override with its label)")
    _key_arguments(p)
    p.set_defaults(run="annotate:cmd_accept")

    evidence = sub.add_parser("evidence", help="analyst evidence: add, edit, delete").add_subparsers(
        dest="evidence_command", required=True)
    p = evidence.add_parser("add", help="add a weighted vote for a label")
    _key_arguments(p, label="required")
    p.add_argument("--weight", type=int, default=40, help="1..100 (default 40)")
    p.add_argument("--reason", required=True)
    p.set_defaults(run="annotate:cmd_evidence_add")
    p = evidence.add_parser("edit", help="edit your own evidence")
    _key_arguments(p)
    p.add_argument("id", type=int)
    p.add_argument("--label")
    p.add_argument("--weight", type=int)
    p.add_argument("--reason")
    p.set_defaults(run="annotate:cmd_evidence_edit")
    p = evidence.add_parser("delete", help="delete your own evidence")
    _key_arguments(p)
    p.add_argument("id", type=int)
    p.set_defaults(run="annotate:cmd_evidence_delete")

    p = sub.add_parser("dismiss", help='say "it is NOT this label" (or --undo)')
    _key_arguments(p, label="required")
    p.add_argument("--reason", help="why (required when dismissing)")
    p.add_argument("--undo", action="store_true", help="remove the dismissal")
    p.set_defaults(run="annotate:cmd_dismiss")

    p = sub.add_parser("import-labels", help="apply a CSV (or .json) of overrides, evidence and dismissals "
                       "to a capture, all or nothing")
    p.add_argument("path", help="CSV with a header line: kind,question,entity,label,reason,weight")
    p.add_argument("capture", help="capture id, unique id prefix, or sha256")
    p.add_argument("--db", help="SQLAlchemy database URL")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run="import_labels:cmd_import_labels")

    p = sub.add_parser("credentials", help="the logins clients sent in a capture, secrets masked")
    p.add_argument("capture", help="capture id, unique id prefix, or sha256")
    p.add_argument("--db", help="SQLAlchemy database URL")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--reveal", action="store_true", help="read each secret (or its cracker line) again from the "
                   "stored capture and show it; each reveal is audited")
    p.set_defaults(run="credentials:cmd_credentials")

    p = sub.add_parser("explain", help="verdict, candidates, reasons, annotations and the trail")
    _key_arguments(p)
    p.set_defaults(run="annotate:cmd_explain")

    p = sub.add_parser("serve", help="serve the REST API (docs at /api/docs)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", help="SQLAlchemy database URL (default: SQLite in the data directory)")
    p.set_defaults(run="serve:cmd_serve")

    p = sub.add_parser("questions", help="list the registered questions and their signals")
    p.set_defaults(run=cmd_questions)
    return parser


class _OneLine(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return f"tracepcap: {record.getMessage()}"


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command != "serve" and not logging.getLogger().handlers:
        # a warning is one line on stderr, no traceback; `serve` keeps full records for its log
        handler = logging.StreamHandler()
        handler.setFormatter(_OneLine())
        logging.getLogger().addHandler(handler)
    try:
        code = int(command_function(args.run)(args))
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
