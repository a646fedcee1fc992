"""The credentials view over HTTP and the CLI: one row per login with protocol, user, client
device, server, port, the secret masked (never stored) and its frames; paged, filtered, 4xx
on bad input."""

from __future__ import annotations

import base64
import json

from api_helpers import assert_error

from tracepcap.extract.extractors.credentials import login_parts
from tracepcap.present.cli import main
from tracepcap.testing import app, snmp
from tracepcap.testing.scenario import Scenario

SECRET = "Hunter2!"


def test_login_parts_reads_every_shape():
    assert login_parts("ftp user csanders, password ****** to 192.168.0.193:21") == (
        "ftp", "csanders", "password ******", "192.168.0.193", 21)
    assert login_parts("ftp user ftpuser, no password seen to 192.0.2.99:21") == (
        "ftp", "ftpuser", "no password seen", "192.0.2.99", 21)
    assert login_parts("http-form user a, b, secret ****** to [2001:db8::1]:8080") == (
        "http-form", "a, b", "secret ******", "2001:db8::1", 8080)
    assert login_parts("snmp community ****** to 10.0.0.1:161") == ("snmp", None, "community ******", "10.0.0.1", 161)
    assert login_parts("http-bearer token ****** to 10.0.0.9:80") == ("http-bearer", None, "token ******", "10.0.0.9", 80)


def _logins(tmp_path):
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    laptop = net.host("10.0.0.6", "00:1b:21:00:00:06")
    srv = net.host("10.0.0.9", "00:1b:21:00:00:09")
    net.tcp_session(pc, srv, 50001, 110, client=[b"USER bob\r\n", f"PASS {SECRET}\r\n".encode()],
                    server=[b"+OK\r\n", b"+OK\r\n"])
    net.tcp_session(laptop, srv, 50003, 8080, client=[app.http_request(
        "GET", "/", "srv", headers=[("Authorization", "Basic " + base64.b64encode(f"erin:{SECRET}".encode()).decode())])])
    net.udp(pc, srv, 50004, 161, snmp.get_request(1, ["1.3.6.1.2.1.1.5.0"], community=SECRET))
    return net.write_pcap(tmp_path / "logins.pcap")


def test_credentials_route(api, client, tmp_path):
    cid = api.analyzed(client, _logins(tmp_path))
    response = client.get(f"/captures/{cid}/credentials")
    assert response.status_code == 200, response.text
    rows = response.json()
    assert response.headers["x-total-count"] == "3"
    assert [(r["protocol"], r["user"], r["server"], r["port"], r["secret"]) for r in rows] == [
        ("pop3", "bob", "10.0.0.9", 110, "password ******"),
        ("http", "erin", "10.0.0.9", 8080, "password ******"),
        ("snmp", None, "10.0.0.9", 161, "community ******")]
    assert [r["first_frame"] for r in rows] == sorted(r["first_frame"] for r in rows)
    devices = {r["user"]: r["client"] for r in rows}
    assert devices["bob"] == devices[None] != devices["erin"]
    assert rows[0]["client_address"] == "10.0.0.5" and rows[0]["server_device"] is not None
    assert SECRET not in response.text

    one = client.get(f"/captures/{cid}/credentials", params={"device": "10.0.0.5", "limit": 1})
    assert one.headers["x-total-count"] == "2" and [r["user"] for r in one.json()] == ["bob"]
    http = client.get(f"/captures/{cid}/credentials", params={"protocol": "http"})
    assert [r["user"] for r in http.json()] == ["erin"]
    assert_error(client.get(f"/captures/{cid}/credentials", params={"device": "10.9.9.9"}), 404)
    assert_error(client.get(f"/captures/{cid}/credentials", params={"offset": "-1"}), 422)
    assert_error(client.get("/captures/ffffffffffff/credentials"), 404)


def test_demo_logins_listed_by_the_cli(captures, tmp_path, capsys):
    """frames 1725 (a form), 1730 (JSON with a token) and 1737 (HTTP Basic) of the demo."""
    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    assert main(["analyze", str(captures / "demo_all_rules.pcap"), "--db", db, "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["capture"]["id"]
    assert main(["credentials", cid, "--db", db]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["FRAME", "PROTOCOL", "USER", "CLIENT", "SERVER", "SECRET"]
    assert [line.split()[:3] for line in out[1:4]] == [["1725", "http-form", "admin"], ["1730", "http-json", "admin"],
                                                       ["1737", "http", "user"]]
    assert all(line.endswith("******") for line in out[1:4]) and "never stored" in out[4]
    assert main(["credentials", cid, "--db", db, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [(c["first_frame"], c["server"], c["port"]) for c in document["credentials"]] == [
        (1725, "203.0.113.100", 80), (1730, "203.0.113.100", 8080), (1737, "203.0.113.100", 80)]
    assert main(["credentials", "0123abc", "--db", db]) == 2
    assert "no capture" in capsys.readouterr().err
