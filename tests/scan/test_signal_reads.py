"""Signals that declare the fact kinds they vote from (`READS`) are not run for a host holding
none of them, and skipping them changes no vote: every capture here is scanned with the
declarations honoured and with them ignored, and the votes (and the answers handed to later
questions) must be the same."""

from __future__ import annotations

import sys

import pytest

from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.registry import get_registry
from tracepcap.adjudicate.runner import machine_answer
from tracepcap.analysis import analyze
from tracepcap.extract.kinds import SSH_BANNER, USER_AGENT
from tracepcap.ingest import store_file
from tracepcap.scan import clouds, knowledge, run
from tracepcap.scan.context import CaptureContext, HostFacts
from tracepcap.scan.signals import consults_of, reads_of, signal_name
from tracepcap.settings import Settings
from tracepcap.store import open_database
from tracepcap.testing.demo import build_demo_office


@pytest.fixture(scope="module")
def analysed(tmp_path_factory, captures):
    """(database, capture ids) of the shared captures, a few real device captures and the demo
    office, each analysed once."""
    data = tmp_path_factory.mktemp("reads")
    settings = Settings(data_dir=data, database_url=f"sqlite:///{data / 'db.sqlite3'}")
    db = open_database(settings.database_url)
    real = captures / "real"
    devices = sorted(real.glob("iot-sentinel/*/Setup-A-1-STA.pcap"))[:6]
    hubs = sorted(real.glob("campos/*.pcap"))
    assert len(devices) == 6 and hubs, f"the real captures are expected in {real}"
    paths = sorted(captures.glob("*.pcap*")) + devices + hubs + [build_demo_office(data / "demo-office.pcap")]
    ids = []
    for path in paths:
        with db.session() as s:
            capture, _ = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR.name,
                                       max_bytes=settings.max_capture_bytes)
            ids.append(capture.id)
        analyze(db, settings, ids[-1])
    yield db, ids
    db.dispose()


def scan_rows(db, capture_id: str) -> tuple[list[dict], dict]:
    registry = get_registry()
    with db.session() as s:
        context = CaptureContext.load(s, capture_id)
        rows = list(run._votes(context, registry.signals(), run.ScanReport(), machine_answer(registry)))
    return rows, context.answers


def test_skipping_by_declared_kinds_changes_no_vote(analysed, monkeypatch):
    db, ids = analysed
    honoured = [scan_rows(db, i) for i in ids]
    monkeypatch.setattr(run, "reads_of", lambda signal: frozenset())
    ignored = [scan_rows(db, i) for i in ids]
    assert sum(len(rows) for rows, _ in honoured) > 100  # the captures voted
    for capture_id, with_skip, without in zip(ids, honoured, ignored, strict=True):
        assert with_skip == without, capture_id


def test_most_signals_declare_what_they_read():
    signals = [s for question in get_registry().signals().values() for s in question]
    declared = [s for s in signals if reads_of(s)]
    assert len(declared) >= len(signals) * 2 // 3
    assert all(kind.islower() and "-" in kind or kind.isalpha() for s in declared for kind in reads_of(s))


def test_a_signal_is_asked_only_of_hosts_holding_a_kind_it_reads(analysed, monkeypatch):
    db, ids = analysed
    asked: dict[str, list[str]] = {"reads": [], "plain": []}

    def reads_user_agent(host):
        asked["reads"].append(host.key)
        return iter(())
    reads_user_agent.reads = (USER_AGENT, SSH_BANNER)

    def reads_anything(host):
        asked["plain"].append(host.key)
        return iter(())
    monkeypatch.setattr(sys.modules[run.__name__], "signal_name", lambda signal: signal.__name__)
    skipped = 0
    with db.session() as s:
        for capture_id in ids:
            context = CaptureContext.load(s, capture_id)
            list(run._votes(context, {"os-family": (reads_user_agent, reads_anything)}, run.ScanReport()))
            holding = [e.key for e in context.entities
                       if context.entity(e).facts(USER_AGENT) or context.entity(e).facts(SSH_BANNER)]
            assert asked["reads"] == holding
            assert asked["plain"] == [e.key for e in context.entities]
            skipped += len(context.entities) - len(holding)
            asked["reads"].clear(), asked["plain"].clear()
    assert skipped > 0


class RecordingKinds(dict):
    """A host's facts by kind that notes each kind a signal asks for (`reading`); asking for
    all of them (iterating) notes "*"."""

    reading: set[str] | None = None

    def _note(self, kind: str) -> None:
        if RecordingKinds.reading is not None:
            RecordingKinds.reading.add(kind)

    def get(self, kind, default=None):
        self._note(kind)
        return super().get(kind, default)

    def __getitem__(self, kind):
        self._note(kind)
        return super().__getitem__(kind)

    def __contains__(self, kind):
        self._note(kind)
        return super().__contains__(kind)

    def __iter__(self):
        self._note("*")
        return super().__iter__()

    def keys(self):
        self._note("*")
        return super().keys()

    def items(self):
        self._note("*")
        return super().items()

    def values(self):
        self._note("*")
        return super().values()


def kinds_read(db, ids, signals, monkeypatch) -> dict[str, set[str]]:
    """Signal name ("question/signal") -> every fact kind it asked for of any host, running every
    signal on every entity of the captures: the host's own kinds and, through the capture,
    any other address's (its `main_ttl`, another host's view)."""
    registry = get_registry()
    read: dict[str, set[str]] = {}
    original = CaptureContext.kinds_of
    with db.session() as s:
        for capture_id in ids:
            context = CaptureContext.load(s, capture_id)
            list(run._votes(context, registry.signals(), run.ScanReport(), machine_answer(registry)))
            # the capture-wide tables are built now (by the run above)
            monkeypatch.setattr(CaptureContext, "kinds_of",
                                lambda self, entity: RecordingKinds(original(self, entity)))
            views = [HostFacts(v.ip, context, v.device, RecordingKinds(v.kinds))
                     for v in map(context.entity, context.entities)]
            for question, question_signals in signals.items():
                for signal in question_signals:
                    # what one signal read of a host and kept is read again by the next
                    context._main_ttls.clear()
                    context._owned.clear()
                    context._owned_vendors.clear()
                    knowledge._MATCHED.pop(context, None)
                    clouds._ENDPOINTS.pop(context, None)
                    RecordingKinds.reading = read.setdefault(f"{question}/{signal_name(signal)}", set())
                    try:
                        for view in views:
                            list(signal(view))
                    finally:
                        RecordingKinds.reading = None
            monkeypatch.setattr(CaptureContext, "kinds_of", original)
    return read


def undeclared(read: dict[str, set[str]], signals: dict[str, tuple]) -> dict[str, list[str]]:
    """Declaring signal -> the kinds it read that it declares neither in READS nor in CONSULTS,
    or the kinds of its READS it never asked for (a stale or misspelt declaration)."""
    out = {}
    for question, question_signals in signals.items():
        for signal in question_signals:
            gate, name = reads_of(signal), f"{question}/{signal_name(signal)}"
            if gate:
                wrong = sorted(read[name] - gate - consults_of(signal)) + [f"never {k}" for k in sorted(gate - read[name])]
                if wrong:
                    out[name] = wrong
    return out


def test_a_declaring_signal_reads_only_the_kinds_it_declares(analysed, monkeypatch):
    db, ids = analysed
    signals = get_registry().signals()
    read = kinds_read(db, ids, signals, monkeypatch)
    assert sum(1 for question in signals.values() for s in question if reads_of(s)) >= 35
    assert undeclared(read, signals) == {}


def test_the_recording_finds_an_undeclared_read(analysed, monkeypatch):
    db, ids = analysed

    def banner_and_agent(host):
        host.facts(USER_AGENT)
        host.facts(SSH_BANNER)
        return iter(())
    banner_and_agent.reads = (USER_AGENT,)

    def never_reads_its_kind(host):
        return iter(())
    never_reads_its_kind.reads = (SSH_BANNER,)
    signals = {"os-family": (banner_and_agent, never_reads_its_kind)}
    read = kinds_read(db, ids[:2], signals, monkeypatch)
    assert undeclared(read, signals) == {"os-family/banner_and_agent": ["ssh-banner"],
                                         "os-family/never_reads_its_kind": ["never ssh-banner"]}
