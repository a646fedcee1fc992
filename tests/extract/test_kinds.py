"""The fact-kind catalogue is the one owner of kind names: every kind in it is emitted by
some extractor, every extractor emits only kinds from it, and every kind that a signal, a
finding, the scan context, the audit writer or Present reads is one of them. A signal that
read a kind no extractor emits would silently never vote (LLDP/CDP descriptions once missed
os-family that way); these tests turn that into a failure naming the module and the kind."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import types

import pytest

import tracepcap.present
import tracepcap.scan.findings
import tracepcap.scan.signals
from tracepcap.extract import kinds
from tracepcap.extract.facts import FactKind, Grade
from tracepcap.extract.pipeline import discover
from tracepcap.scan.context import CaptureContext, Fact

EMITTED = {kind for extractor in discover() for kind in extractor.KINDS}
READERS = ("tracepcap.scan.context", "tracepcap.adjudicate.ledger.staleness")


def modules_under(package: types.ModuleType) -> list[types.ModuleType]:
    return [importlib.import_module(info.name)
            for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]


def reading_modules() -> list[types.ModuleType]:
    return (modules_under(tracepcap.scan.signals) + modules_under(tracepcap.scan.findings)
            + modules_under(tracepcap.present) + [importlib.import_module(m) for m in READERS])


def kinds_referenced(module: types.ModuleType) -> set[FactKind]:
    """FactKind objects a module holds at its top level, alone or inside a collection."""
    found: set[FactKind] = set()

    def walk(value, depth=0):
        if isinstance(value, FactKind):
            found.add(value)
        elif depth < 2 and isinstance(value, (tuple, list, set, frozenset)):
            for item in value:
                walk(item, depth + 1)
        elif depth < 2 and isinstance(value, dict):
            for item in (*value.keys(), *value.values()):
                walk(item, depth + 1)
    for value in vars(module).values():
        walk(value)
    return found


def spelled_kinds(source: str) -> list[str]:
    """Kind names spelled as string literals where a kind is read: `facts("x")`,
    `values("x")`, `.kind == "x"`, `.kind in ("x", ...)`."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("facts", "values") and node.args \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.append(node.args[0].value)
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "kind":
            for right in node.comparators:
                for const in ast.walk(right):
                    if isinstance(const, ast.Constant) and isinstance(const.value, str):
                        out.append(const.value)
    return out


def test_every_catalogued_kind_is_emitted_and_every_emitted_kind_is_catalogued():
    declared = [value for value in vars(kinds).values() if isinstance(value, FactKind)]
    assert len(declared) == len(kinds.CATALOGUE), "two catalogue constants share a wire name"
    assert set(kinds.CATALOGUE.values()) - EMITTED == set(), "catalogued but emitted by no extractor"
    for extractor in discover():
        for kind in extractor.KINDS:
            assert kinds.CATALOGUE.get(kind.name) is kind, \
                f"{extractor.__module__} declares {kind} outside the catalogue"


def test_wire_names_and_grades_are_unchanged():
    # stored in observation.kind and returned in the JSON document: a rename needs a migration
    assert {name: kind.grade for name, kind in kinds.CATALOGUE.items()} == {
        "dhcp-parameter-list": Grade.REPORTED, "dhcp-vendor-class": Grade.REPORTED,
        "dns-query": Grade.MEASURED, "gratuitous-announcement": Grade.MEASURED, "resolved-from": Grade.REPORTED,
        "dns-answer-mac": Grade.MEASURED, "dns-answer-conflict": Grade.MEASURED,
        "hostname-claim": Grade.REPORTED, "http-server": Grade.REPORTED, "initiated": Grade.MEASURED,
        "ip-mac-binding": Grade.REPORTED, "krb-principal": Grade.REPORTED,
        "lldp-capabilities": Grade.REPORTED, "lldp-platform": Grade.REPORTED,
        "lldp-software": Grade.REPORTED, "mac": Grade.MEASURED, "mdns-service": Grade.REPORTED,
        "os-version": Grade.REPORTED, "oui-vendor": Grade.INFERRED, "served": Grade.MEASURED,
        "smb-lanman": Grade.REPORTED, "snmp-sysdescr": Grade.REPORTED,
        "snmp-sysobjectid": Grade.REPORTED, "ssdp-nt": Grade.REPORTED, "ssdp-server": Grade.REPORTED,
        "ssdp-usn": Grade.REPORTED, "ssh-banner": Grade.REPORTED, "tcp-syn-signature": Grade.MEASURED,
        "tcp-synack-signature": Grade.MEASURED,
        "tls-client-fingerprint": Grade.MEASURED, "tls-sni": Grade.REPORTED,
        "ttl": Grade.MEASURED, "tunnel-endpoint": Grade.MEASURED, "user-agent": Grade.REPORTED,
        # issue 12: evidence parity
        "dns-zone": Grade.REPORTED, "dhcp-user-class": Grade.REPORTED, "dhcp-client-id": Grade.REPORTED,
        "dhcp-vendor-enterprise": Grade.REPORTED, "device-model": Grade.REPORTED,
        "device-name": Grade.REPORTED, "browser-server-type": Grade.REPORTED,
        "credential": Grade.REPORTED,
        # issue 15: topology by VLAN
        "vlan": Grade.MEASURED,
        # issue 25: the service types a host browses for over mDNS
        "mdns-query": Grade.MEASURED,
        # issue 27: applications by payload
        "application-used": Grade.MEASURED,
        # issue 24: the gateway and MAC ownership
        "mac-ttl": Grade.MEASURED, "dst-mac": Grade.MEASURED, "gateway-option": Grade.REPORTED,
        # issue 24: locality inside tunnels, a mobile core's roles
        "tunnelled": Grade.MEASURED, "pfcp-message": Grade.MEASURED}


@pytest.mark.parametrize("module", reading_modules(), ids=lambda m: m.__name__)
def test_readers_read_only_emitted_kinds(module):
    unknown = {kind.name for kind in kinds_referenced(module) - EMITTED}
    assert not unknown, f"{module.__name__} reads kinds no extractor emits: {sorted(unknown)}"
    spelled = spelled_kinds(inspect.getsource(module))
    assert not spelled, f"{module.__name__} spells kinds as strings (import them from extract.kinds): {spelled}"


def test_the_check_catches_a_phantom_kind_and_a_spelled_one():
    phantom = types.ModuleType("phantom_signal")
    phantom.KINDS = {FactKind("lldp-system-description", Grade.REPORTED): "LLDP system description",
                     kinds.SNMP_SYSDESCR: "SNMP sysDescr"}
    assert {k.name for k in kinds_referenced(phantom) - EMITTED} == {"lldp-system-description"}
    assert spelled_kinds('def vote(host):\n    return host.facts("cdp-platform")\n'
                         'ok = [f for f in x if f.kind in ("mac", "ttl")]\n') == ["cdp-platform", "mac", "ttl"]
    assert spelled_kinds("def vote(host):\n    return host.facts(LLDP_SOFTWARE)\n") == []


def test_host_facts_are_queried_by_kind_not_by_string():
    context = CaptureContext("cap", {"h": [Fact("mac", "00:25:90:00:00:05", "link-identity", "MEASURED", 1, 4, 4)]},
                             {}, ["h"])
    assert context.host("h").values(kinds.MAC) == ["00:25:90:00:00:05"]
    with pytest.raises(AttributeError):
        context.host("h").facts("mac")  # a spelled kind fails loudly instead of matching nothing
