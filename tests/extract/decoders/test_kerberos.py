"""Kerberos AS and TGS messages, read to their principal names; TCP framing."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, kerberos
from tracepcap.testing import asn1
from tracepcap.testing import windows as w

REALM = "CORP.EXAMPLE"


def test_as_req():
    assert kerberos.decode(w.krb_as_req("alice", REALM)) == kerberos.Krb(
        kerberos.AS_REQ, REALM, "alice", f"krbtgt/{REALM}")


def test_tgs_req_names_the_service_not_the_client():
    msg = kerberos.decode(w.krb_tgs_req("cifs/fs01.corp.example", REALM))
    assert (msg.msg_type, msg.cname, msg.sname) == (kerberos.TGS_REQ, None, "cifs/fs01.corp.example")
    assert msg.principal(msg.sname) == "cifs/fs01.corp.example@CORP.EXAMPLE"


@pytest.mark.parametrize("msg_type", [kerberos.AS_REP, kerberos.TGS_REP])
def test_replies(msg_type):
    assert kerberos.decode(w.krb_rep(msg_type, "WS01$", REALM, "host/ws01")) == kerberos.Krb(
        msg_type, REALM, "WS01$", None)


def test_other_messages_are_not_read():
    assert kerberos.decode(asn1.application(30, asn1.sequence())) is None  # KRB-ERROR
    assert kerberos.decode(b"\x30\x00") is None


def test_reply_without_cname_is_malformed():
    with pytest.raises(Malformed, match="without cname"):
        kerberos.decode(asn1.application(11, asn1.sequence(asn1.context(0, asn1.integer(5)))))


def test_tcp_framing():
    one, two = w.krb_as_req("alice", REALM), w.krb_tgs_req("http/web", REALM)
    data = w.krb_tcp(one) + w.krb_tcp(two)
    assert kerberos.tcp_messages(data) == [one, two]
    assert kerberos.tcp_messages(data[:-1]) == [one]
    with pytest.raises(Malformed, match="reserved length bit"):
        kerberos.tcp_messages(b"\x80\x00\x00\x01x")


@pytest.mark.parametrize("message", [w.krb_as_req("alice", REALM), w.krb_tgs_req("cifs/fs", REALM),
                                     w.krb_rep(13, "bob", REALM, "cifs/fs")])
def test_sweep(message, sweep):
    sweep(kerberos.decode, message)
