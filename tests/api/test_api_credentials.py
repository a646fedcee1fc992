"""The credentials view over HTTP and the CLI: one row per login with protocol, user, client
device, server, port, the secret masked (never stored) and its frames; paged, filtered, 4xx
on bad input."""

from __future__ import annotations

import base64
import csv
import io
import json

from api_helpers import assert_error
from sqlalchemy import select

from tracepcap.extract.extractors.credentials import login_parts
from tracepcap.present.cli import main
from tracepcap.store import open_database
from tracepcap.store.models import AuditEvent
from tracepcap.testing import app, snmp
from tracepcap.testing import windows as w
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


def _domain_logins(tmp_path):
    """An LDAP simple bind and an SMB NTLMv2 session setup with the server's challenge."""
    net = Scenario()
    pc = net.host("10.0.0.5", "00:1b:21:00:00:05")
    dc = net.host("10.0.0.1", "00:1b:21:00:00:01")
    net.tcp_session(pc, dc, 50100, 389, client=[w.ldap_simple_bind(1, "cn=admin,dc=example", SECRET)])
    net.tcp_session(pc, dc, 50103, 445, client=[
        w.smb2_session_setup(w.spnego(w.ntlm_negotiate())),
        w.smb2_session_setup(w.spnego(w.ntlm_authenticate("alice", "CORP", "WS1"), response=True), message_id=2)],
        server=[w.smb2_session_setup(w.spnego(w.ntlm_challenge("DC1", "CORP", server_challenge=bytes.fromhex(
            "0123456789abcdef")), response=True), reply=True)])
    net.tcp_session(pc, dc, 50104, 21, client=[b"USER nopass\r\n", b"QUIT\r\n"])
    net.udp(pc, dc, 50105, 161, snmp.get_request(1, ["1.3.6.1.2.1.1.5.0"], community=SECRET))
    net.udp(pc, dc, 50106, 88, w.krb_as_req("alice", "CORP.EXAMPLE", pre_auth=(23, bytes(range(52)))))
    return net.write_pcap(tmp_path / "domain.pcap")


def test_reveal_reads_the_secret_again_and_is_audited(api, client, tmp_path):
    cid = api.analyzed(client, _domain_logins(tmp_path))
    listed = client.get(f"/captures/{cid}/credentials").json()
    assert SECRET not in json.dumps(listed)
    by_protocol = {r["protocol"]: r for r in listed}
    ldap = client.post(f"/captures/{cid}/credentials/{by_protocol['ldap']['id']}/reveal")
    assert ldap.status_code == 200, ldap.text
    assert (ldap.json()["secret"], ldap.json()["format"], ldap.json()["user"]) == (SECRET, "cleartext", "cn=admin,dc=example")
    ntlm = client.post(f"/captures/{cid}/credentials/{by_protocol['ntlm']['id']}/reveal").json()
    assert ntlm["secret"].startswith("alice::CORP:0123456789abcdef:" + "22" * 16 + ":0101")
    assert ntlm["format"] == "hashcat -m 5600 (NetNTLMv2)"
    ftp = client.post(f"/captures/{cid}/credentials/{by_protocol['ftp']['id']}/reveal").json()
    assert ftp["secret"] is None and "nothing to reveal" in ftp["note"]
    snmp_ = client.post(f"/captures/{cid}/credentials/{by_protocol['snmp']['id']}/reveal").json()
    assert snmp_["secret"] == SECRET
    krb = client.post(f"/captures/{cid}/credentials/{by_protocol['kerberos']['id']}/reveal").json()
    cipher = bytes(range(52))
    assert krb["secret"] == f"$krb5pa$23$alice$CORP.EXAMPLE$${cipher[16:].hex()}{cipher[:16].hex()}"

    events = client.get(f"/captures/{cid}/audit", params={"action": "credential.revealed"}).json()
    assert len(events) == 5 and {e["actor"] for e in events} == {"system"}
    assert {e["after"]["credential"] for e in events} == {by_protocol[p]["id"] for p in
                                                          ("ldap", "ntlm", "ftp", "snmp", "kerberos")}
    assert any("revealed the ldap secret of cn=admin,dc=example" in e["change"] for e in events)
    assert SECRET not in json.dumps(events) and "0123456789abcdef" not in json.dumps(events)
    assert client.get(f"/captures/{cid}/credentials").json() == listed  # nothing was stored

    assert_error(client.post(f"/captures/{cid}/credentials/999999/reveal"), 404)
    assert_error(client.post(f"/captures/{cid}/credentials/0/reveal"), 422)


def test_only_analysts_reveal(oidc, issuer, tmp_path):
    path = _domain_logins(tmp_path)
    with oidc.client(issuer.token("alice", ("analyst",))) as alice:
        cid = oidc.analyzed(alice, path)
        ldap = next(r for r in alice.get(f"/captures/{cid}/credentials").json() if r["protocol"] == "ldap")
    with oidc.client(issuer.token("victor", ("viewer",))) as victor:
        assert victor.get(f"/captures/{cid}/credentials").status_code == 200
        refused = assert_error(victor.post(f"/captures/{cid}/credentials/{ldap['id']}/reveal"), 403, "forbidden",
                               "the analyst role is required")
        assert SECRET not in json.dumps(refused)
    with oidc.client(issuer.token("alice", ("analyst",))) as alice:
        shown = alice.post(f"/captures/{cid}/credentials/{ldap['id']}/reveal")
        assert shown.status_code == 200 and shown.json()["secret"] == SECRET
        events = alice.get(f"/captures/{cid}/audit").json()
    revealed = [e for e in events if e["action"] == "credential.revealed"]
    assert [(e["actor"], e["after"]["credential"], e["after"]["shown"]) for e in revealed] == [("alice", ldap["id"], True)]
    assert revealed[0]["at"]
    denied = [e for e in events if e["action"] == "access.denied"]
    assert [e["actor"] for e in denied] == ["victor"] and denied[0]["after"]["required_role"] == "analyst"


def test_the_cli_reveals_and_audits(captures, tmp_path, capsys, monkeypatch):
    """The demo's three logins shown again from the stored capture (tshark reads frame 1725's
    body "username=admin&password=secret123", 1730's {"username":"admin","token":"abc123xyz"}
    and 1737's Basic "user:pass"), each reveal an audit event of the local CLI actor."""
    monkeypatch.setenv("TRACEPCAP_DATA_DIR", str(tmp_path / "data"))
    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    assert main(["analyze", str(captures / "demo_all_rules.pcap"), "--db", db, "--json"]) == 0
    cid = json.loads(capsys.readouterr().out)["capture"]["id"]
    assert main(["credentials", cid, "--db", db, "--reveal"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[1:4]] == ["1725", "1730", "1737"]
    assert [line.split()[-1] for line in out[1:4]] == ["password=secret123", "token=abc123xyz", "pass"]
    assert "audit log" in out[4]
    assert main(["credentials", cid, "--db", db, "--json", "--reveal"]) == 0
    rows = json.loads(capsys.readouterr().out)["credentials"]
    assert [r["revealed"]["secret"] for r in rows] == ["password=secret123", "token=abc123xyz", "pass"]
    assert main(["credentials", cid, "--db", db]) == 0
    assert "secret123" not in capsys.readouterr().out  # masked unless asked
    store = open_database(db)
    try:
        with store.session() as s:
            events = s.scalars(select(AuditEvent).where(AuditEvent.action == "credential.revealed")).all()
            assert len(events) == 6 and {e.actor for e in events} == {"system"}
            assert all(e.at is not None and e.capture_id == cid for e in events)
            assert {e.after["frame"] for e in events} == {1725, 1730, 1737}
            assert not any("secret123" in json.dumps(e.after) for e in events)
    finally:
        store.dispose()


def test_exports_carry_credentials_masked_and_applications(api, client, tmp_path):
    cid = api.analyzed(client, _logins(tmp_path))
    listed = client.get(f"/captures/{cid}/credentials").json()
    document = client.get(f"/captures/{cid}/export.json").json()
    assert document["credentials"] == listed and SECRET not in json.dumps(document)
    assert {"capture", "manifest", "hosts", "human"} <= document.keys()  # the document's own keys stay
    apps = {a["name"]: a for a in document["applications"]}
    assert apps == {a["name"]: a for a in client.get(f"/captures/{cid}/applications").json()}
    assert {"POP3", "SNMP"} <= apps.keys()

    response = client.get(f"/captures/{cid}/export.csv", params={"format": "credentials"})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert f"tracepcap-{cid}-credentials.csv" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [(r["protocol"], r["user"], r["server"], r["port"], r["secret"], r["first_frame"]) for r in rows] == [
        (c["protocol"], c["user"] or "", c["server"], str(c["port"]), c["secret"], str(c["first_frame"])) for c in listed]
    assert {r["capture_id"] for r in rows} == {cid} and SECRET not in response.text

    response = client.get(f"/captures/{cid}/export.csv", params={"format": "applications"})
    rows = {r["name"]: r for r in csv.DictReader(io.StringIO(response.text))}
    assert rows.keys() == apps.keys()
    assert rows["POP3"]["packets"] == str(apps["POP3"]["packets"])
    assert rows["POP3"]["clients"] == " | ".join(apps["POP3"]["clients"])
