"""`tracepcap analyze`: exit codes, the JSON document, and bad input (SQLite and PostgreSQL)."""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy.exc import DataError

from tracepcap import analysis
from tracepcap.present import cli as cli_module
from tracepcap.present.commands import analyze as analyze_command
from tracepcap.present.cli import ExitCode


def facts_of(document, ip):
    host = next(h for h in document["hosts"] if h["ip"] == ip)
    return {(f["kind"], f["value"], f["source"]): f for f in host["facts"]}


def test_ftp_capture_facts(cli, captures):
    code, out, err = cli("analyze", captures / "ftp.pcap", "--json")
    assert code == ExitCode.OK and err == ""
    doc = json.loads(out)
    assert doc["capture"]["format"] == "pcap" and doc["capture"]["packets"] == 38
    # frames 20-22 close an HTTP connection to 63.245.209.21: a host too, sorted numerically
    assert [h["ip"] for h in doc["hosts"]] == ["63.245.209.21", "192.168.0.114", "192.168.0.193", None]
    # issue 24: the router's MAC that carried it is a device of its own, keyed by the MAC
    assert doc["hosts"][-1]["key"] == "mac-00-05-5d-21-99-4c"
    server = facts_of(doc, "192.168.0.193")
    # frame 2 is the SYN-ACK from 21/tcp; frame 30 the one from the passive data port 7254
    assert server[("served", "tcp/21", "services")]["first_frame"] == 2
    assert server[("served", "tcp/7254", "services")]["first_frame"] == 30
    client = facts_of(doc, "192.168.0.114")
    assert client[("initiated", "tcp/21", "services")]["first_frame"] == 1
    assert all(f["grade"] == "MEASURED" for k, f in server.items() if k[0] in ("served", "ttl", "mac"))


def test_every_host_says_where_it_sits_and_why(cli, captures):
    """Issue 11 item 2: locality (and its reason) after "macs" in each host document."""
    code, out, _ = cli("analyze", captures / "demo_all_rules.pcap", "--json")
    hosts = {a: h for h in json.loads(out)["hosts"] for a in h["addresses"] or [h["key"]]}
    assert code == ExitCode.OK
    assert list(hosts["192.168.1.1"]) == ["key", "ip", "addresses", "macs", "locality", "locality_reason",
                                          "randomised", "traffic", "facts", "software", "verdicts"]
    # a locally administered MAC keys a device of its own, flagged so (the router's is global)
    assert (hosts["192.168.100.10"]["key"], hosts["192.168.100.10"]["randomised"]) == ("mac-aa-bb-cc-dd-ee-01", True)
    assert hosts["192.168.1.1"]["randomised"] is False
    assert (hosts["192.168.1.1"]["key"], hosts["192.168.1.1"]["addresses"]) == ("mac-10-13-31-f1-39-76",
                                                                                ["192.168.1.1"])
    assert {ip: hosts[ip]["locality"] for ip in ("192.168.1.1", "192.168.1.75", "91.108.8.1")} == {
        "192.168.1.1": "on-link", "192.168.1.75": "on-link", "91.108.8.1": "remote"}
    # the router owns its MAC by the subnet rule although its DNS answers arrive with TTL 57
    assert "owns 10:13:31:f1:39:76 (10:13:31:f1:39:76 carries" in hosts["192.168.1.1"]["locality_reason"]
    assert hosts["192.168.1.75"]["locality_reason"].startswith("192.168.1.75 owns 8c:fe:57:23:37:e4 (")
    assert hosts["91.108.8.1"]["locality_reason"] == (
        "a public address 13 hops away, seen through 10:13:31:f1:39:76, a router's MAC")
    assert {h["locality"] for h in hosts.values()} == {"on-link", "local-routed", "remote"}
    assert all(h["locality_reason"] for h in hosts.values())
    code, table, _ = cli("analyze", captures / "demo_all_rules.pcap", "--long")
    assert "    locality: remote (a public address 13 hops away" in table


def test_pcapng_named_pcap_is_read(cli, captures):
    code, out, _ = cli("analyze", captures / "discord.pcap", "--json")
    doc = json.loads(out)
    assert code == ExitCode.OK and doc["capture"]["format"] == "pcapng"
    assert doc["capture"]["packets"] == 411


def test_output_is_byte_identical_twice(cli, captures):
    first = cli("analyze", captures / "dns_demo.pcap", "--json")
    second = cli("analyze", captures / "dns_demo.pcap", "--json")
    assert first[0] == ExitCode.OK and first[1] == second[1]


def test_table_output_names_hosts(cli, captures):
    code, out, _ = cli("analyze", captures / "dns_demo.pcap")
    assert code == ExitCode.OK
    assert "46 packets" in out and "serves: udp/53" not in out  # a line per device: no reasons
    assert any(line.startswith("  192.168.1.1 ") for line in out.splitlines())
    code, out, _ = cli("analyze", captures / "dns_demo.pcap", "--long")
    assert code == ExitCode.OK
    assert "192.168.1.1 " in out and "serves: udp/53" in out and "46 packets" in out


def test_missing_file(cli, tmp_path):
    code, out, err = cli("analyze", tmp_path / "nope.pcap")
    assert code == ExitCode.UNUSABLE_INPUT and out == ""
    assert err.strip() == f"tracepcap: no such capture file: {tmp_path / 'nope.pcap'}"
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"\x89PNG\r\n\x1a\n" + bytes(64), "first bytes 89504e47 match no pcap or pcapng magic"),
])
def test_unusable_input(cli, tmp_path, content, message):
    path = tmp_path / "bad.pcap"
    path.write_bytes(content)
    code, out, err = cli("analyze", path)
    assert code == ExitCode.UNUSABLE_INPUT and message in err and len(err.splitlines()) == 1


def test_truncated_capture_is_partial_with_what_was_read(cli, captures, tmp_path):
    data = (captures / "http_demo.pcap").read_bytes()
    cut = tmp_path / "cut.pcap"
    cut.write_bytes(data[: len(data) * 2 // 3])
    code, out, _ = cli("analyze", cut, "--json")
    doc = json.loads(out)
    assert code == ExitCode.PARTIAL and doc["capture"]["status"] == "partial"
    reader = doc["manifest"][0]
    assert reader["extractor"] == "reader" and reader["status"] == "partial"
    assert "file ends" in reader["error"]
    assert 0 < doc["capture"]["packets"] < 84 and doc["hosts"]
    assert all(h["verdicts"]["host-identity"]["candidates"] for h in doc["hosts"])  # what was read is judged


def test_pcapng_with_unknown_block_is_complete(cli, captures, tmp_path):
    from tracepcap.testing import frames
    from tracepcap.testing.writers import PcapngWriter
    path = tmp_path / "odd.pcapng"
    with open(path, "wb") as f:
        w = PcapngWriter(f)
        w.interface(1)
        w.raw_block(0x40000BAD, b"future block")
        ip = frames.ipv4("10.0.0.1", "10.0.0.2", 17, frames.udp("10.0.0.1", "10.0.0.2", 9, 9, b"x"))
        w.write(1.0, frames.ethernet("00:1b:21:00:00:01", "00:1b:21:00:00:02", 0x0800, ip))
    code, out, _ = cli("analyze", path, "--json")
    assert code == ExitCode.OK and json.loads(out)["capture"]["packets"] == 1


def test_gzip_pcap(cli, captures, tmp_path):
    path = tmp_path / "ftp.pcap.gz"
    path.write_bytes(gzip.compress((captures / "ftp.pcap").read_bytes()))
    code, out, _ = cli("analyze", path, "--json")
    assert code == ExitCode.OK and json.loads(out)["capture"]["format"] == "pcap+gzip"


def test_every_shared_capture_analyzes(cli, captures):
    for path in sorted(captures.iterdir()):
        if path.suffix in (".pcap", ".pcapng"):
            code, out, err = cli("analyze", path, "--json")
            assert code in (ExitCode.OK, ExitCode.PARTIAL), (path.name, err)
            assert json.loads(out)["hosts"], path.name


@pytest.mark.parametrize("host, allowed", [
    ("192.168.7.2", ["localhost", "127.0.0.1", "::1", "192.168.7.2"]),  # the bound address is answered to
    ("0.0.0.0", ["localhost", "127.0.0.1", "::1"]),  # every interface: the names come from the setting
    ("[::1]", ["localhost", "127.0.0.1", "::1"]),
])
def test_serve_answers_to_its_bound_host_and_closes_idle_connections(cli, monkeypatch, host, allowed):
    import uvicorn
    served = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: served.update(app=app, **options))
    assert cli("serve", "--host", host)[0] == ExitCode.OK
    assert served["app"].state.settings.allowed_hosts == allowed
    assert served["timeout_keep_alive"] == 5


# -- hostile captures and failures (issue 17, items 6, 7, 10) -----------------------------------

def test_corrupt_gzip_is_partial_with_what_came_before(cli, captures, tmp_path):
    packed = bytearray(gzip.compress((captures / "dns_demo.pcap").read_bytes()))
    packed[-8] ^= 0xFF  # the CRC-32: every packet decodes, then zlib refuses the stream
    (tmp_path / "crc.pcap.gz").write_bytes(bytes(packed))
    code, out, err = cli("analyze", tmp_path / "crc.pcap.gz", "--json")
    assert code == ExitCode.PARTIAL and err == ""
    reader = json.loads(out)["manifest"][0]
    assert reader["status"] == "partial" and "incorrect data check" in reader["error"]


def test_a_short_last_packet_block_is_partial_not_an_internal_error(cli, captures, tmp_path):
    data = (captures / "telegram_voice.pcapng").read_bytes() + struct.pack("<III", 6, 16, 0) + b"\x10\x00\x00\x00"
    (tmp_path / "short.pcapng").write_bytes(data)
    code, out, err = cli("analyze", tmp_path / "short.pcapng", "--json")
    whole = json.loads(cli("analyze", captures / "telegram_voice.pcapng", "--json")[1])
    doc = json.loads(out)
    assert code == ExitCode.PARTIAL and err == ""
    assert doc["capture"]["packets"] == whole["capture"]["packets"]  # every packet before it kept
    assert "impossible length 16" in doc["manifest"][0]["error"]


def test_an_internal_error_exits_1_with_one_line_and_no_sql(cli, captures, monkeypatch):
    def broken(*_args):
        raise DataError("INSERT INTO vote (reason) VALUES (%(reason)s)", {"reason": "x"},
                        ValueError("a driver's message"))
    monkeypatch.setattr(analysis, "_swap_in", broken)
    code, out, err = cli("analyze", captures / "dns_demo.pcap")
    assert code == ExitCode.FAILED == 1 and out == ""
    assert err.strip().splitlines()[-1] == ("tracepcap: internal error (DataError) while analyzing; "
                                            "the server log has the details")
    assert "Traceback" not in err and "INSERT" not in err.splitlines()[-1]


def test_an_unexpected_error_outside_analysis_is_one_line_exit_1(cli, captures, monkeypatch):
    def broken(*_args, **_kw):
        raise RuntimeError("disk on fire\nsecond line")
    monkeypatch.setattr(analyze_command, "store_file", broken)
    code, out, err = cli("analyze", captures / "dns_demo.pcap")
    assert (code, out, err) == (ExitCode.FAILED, "", "tracepcap: internal error (RuntimeError) disk on fire\n")


def test_output_cut_by_its_reader_ends_quietly(settings, captures):
    """`tracepcap analyze ... | head -c 10`: no BrokenPipeError traceback, the command's code."""
    env = {**os.environ, "TRACEPCAP_DATA_DIR": str(settings.data_dir),
           "PYTHONPATH": str(Path(cli_module.__file__).parents[2])}
    proc = subprocess.Popen([sys.executable, "-m", "tracepcap.present.cli", "analyze", "--json",
                             str(captures / "demo_all_rules.pcap"), "--db", settings.database_url],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout.read(10) == b'{\n  "captu'
    proc.stdout.close()  # the reader goes away with ~260 KB still to come
    err = proc.stderr.read().decode()
    assert proc.wait(60) == ExitCode.OK and err == ""
