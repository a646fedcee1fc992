"""The expert labels of the shared captures (../shared/captures/LABELS.md) for device type
and OS family, analyzed through the CLI (issue 13, items 2 and 3): the evidence the facts
hold (self-given names, announced models, Browser announcements, OUI vendors of one class,
mobile-core signalling) answers, and thin traffic shapes no longer do."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tracepcap.present.cli import ExitCode, main


def hosts_of(path, tmp_path) -> dict[str, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}"])
    assert code == ExitCode.OK
    return {a: h for h in json.loads(out.getvalue())["hosts"] for a in h["addresses"] or [h["key"]]}


def answer(host: dict, question: str) -> tuple[str | None, bool]:
    verdict = host["verdicts"][question]
    return verdict["primary_label"], verdict["contested"]


def reasons(host: dict, question: str) -> list[str]:
    return host["verdicts"][question]["candidates"][0]["reasons"]


@pytest.fixture(scope="module")
def demo(captures, tmp_path_factory):
    return hosts_of(captures / "demo_all_rules.pcap", tmp_path_factory.mktemp("demo"))


@pytest.mark.parametrize("ip", ["192.168.1.75", "fe80::4ba:91a:7817:e318"])
def test_gabrieles_ipad_is_a_mobile_running_ios(demo, ip):
    assert answer(demo[ip], "host-identity") == ("Mobile", False)
    assert answer(demo[ip], "os-family") == ("iOS", False)
    assert reasons(demo[ip], "os-family") == [
        "it calls itself Gabrieles-iPad.local over mDNS, frame 29: an iPad's naming (+20)"]


def test_the_apple_phone_that_only_browses_is_a_mobile_running_ios(demo):
    # 192.168.1.53 (Apple OUI c0:9a:d0) announces nothing; it browses for HomeKit, companion
    # link, AirPlay, Spotify Connect and Google Cast receivers, and in frame 720 for
    # `_CC32E753._sub._googlecast._tcp`: a Cast sender app's filtered discovery (issue 25)
    host = demo["192.168.1.53"]
    assert answer(host, "host-identity") == ("Mobile", False)
    assert answer(host, "os-family") == ("iOS", False)
    assert reasons(host, "host-identity")[0].startswith(
        "browses for _cc32e753._sub._googlecast._tcp over mDNS, frame 720: the Google Cast SDK of a phone")
    assert host["verdicts"]["host-identity"]["confidence"] < 80  # a phone by what it browses: no more


def test_lucas_imac_is_a_macos_workstation(demo):
    host = demo["192.168.1.77"]
    assert answer(host, "host-identity") == ("Workstation", False)
    assert answer(host, "os-family") == ("macOS", False)
    assert "announces model iMac11,3 over mDNS TXT, frame 11: a Mac (+30)" in reasons(host, "host-identity")
    assert host["verdicts"]["host-identity"]["confidence"] == 100  # three signals agree


def test_desktop_rb5t12g_is_a_windows_workstation(demo):
    host = demo["192.168.1.43"]
    assert answer(host, "host-identity") == ("Workstation", False)
    assert answer(host, "os-family") == ("Windows", False)
    assert reasons(host, "host-identity")[0] == (
        "its Browser announcement, frame 612, sets the type bits workstation,server,nt-workstation: "
        "a Windows desktop edition (+25)")


def test_the_tp_link_switch_is_a_switch_running_a_network_os(demo):
    host = demo["192.168.0.1"]
    assert answer(host, "host-identity") == ("Switch", False)
    assert answer(host, "os-family") == ("Network OS", False)
    assert reasons(host, "host-identity") == [
        "it calls itself TL-SG116E over DHCP, frame 1: a TP-Link managed switch model (TL-SG, TL-SX) (+20)"]


def test_the_sonos_speaker_is_an_iot_device(demo):
    # LABELS.md: IoT (a Sonos speaker); a speaker is the IoT class Media Device (issue 25)
    assert answer(demo["192.168.1.69"], "host-identity") == ("Media Device", False)
    said = " ".join(reasons(demo["192.168.1.69"], "host-identity"))
    assert "_spotify-connect._tcp" in said


def test_the_discord_client_is_a_workstation_not_an_iot_device(captures, tmp_path):
    host = hosts_of(captures / "discord.pcap", tmp_path)["10.0.2.15"]
    assert answer(host, "host-identity") == ("Workstation", False)
    assert reasons(host, "host-identity") == [
        "MAC OUI is PCS Systemtechnik GmbH, VirtualBox's virtual NIC: a virtual machine, most often "
        "on a desktop (+10)"]
    assert host["verdicts"]["host-identity"]["confidence"] <= 50  # an inferred hint, no more


def test_the_free5gc_smf_is_a_server(captures, tmp_path):
    host = hosts_of(captures / "free5gc.pcap", tmp_path)["10.200.200.1"]
    assert answer(host, "host-identity") == ("Server", False)
    # the request is frame 1; the `initiated` fact is dated by the reply that proves the exchange
    assert reasons(host, "host-identity") == [
        "opened PFCP on udp/8805 (frame 2): mobile-core signalling, spoken by core network functions (+45)"]
    assert host["verdicts"]["host-identity"]["confidence"] == 75  # one signal alone
