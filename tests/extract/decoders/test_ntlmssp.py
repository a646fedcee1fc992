"""NTLMSSP messages and SMB1 session setups: names and versions hosts give of themselves."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, ntlmssp, smb
from tracepcap.testing import windows as w

CHALLENGE = w.ntlm_challenge("FS01", "CORP", "fs01.corp.example", "corp.example", version=(6, 3, 9600))
AUTHENTICATE = w.ntlm_authenticate("alice", "CORP", "WS01", version=(10, 0, 19041))


def test_challenge():
    msg = ntlmssp.decode(CHALLENGE)
    assert (msg.msg_type, msg.version_text) == (ntlmssp.CHALLENGE, "6.3.9600")
    assert msg.names == {ntlmssp.AV_NB_DOMAIN: "CORP", ntlmssp.AV_NB_COMPUTER: "FS01",
                         ntlmssp.AV_DNS_DOMAIN: "corp.example", ntlmssp.AV_DNS_COMPUTER: "fs01.corp.example"}


def test_authenticate():
    msg = ntlmssp.decode(AUTHENTICATE)
    assert (msg.msg_type, msg.workstation, msg.user, msg.domain, msg.version_text) == (
        ntlmssp.AUTHENTICATE, "WS01", "alice", "CORP", "10.0.19041")


def test_negotiate_with_and_without_version():
    assert ntlmssp.decode(w.ntlm_negotiate()).version == (10, 0, 19041)
    assert ntlmssp.decode(w.ntlm_negotiate(version=None)).version is None


def test_found_inside_spnego_and_smb2():
    data = w.smb2_session_setup(w.spnego(CHALLENGE, response=True), reply=True)
    (at,) = ntlmssp.find(data)
    assert ntlmssp.decode(data[at:]).names[ntlmssp.AV_NB_COMPUTER] == "FS01"


def test_refusals():
    with pytest.raises(Malformed, match="signature"):
        ntlmssp.decode(b"NTLMSSX\x00" + bytes(8))
    assert ntlmssp.decode(b"NTLMSSP\x00\x09\x00\x00\x00") is None
    with pytest.raises(Truncated):
        ntlmssp.decode(CHALLENGE[:-20])


@pytest.mark.parametrize("message", [CHALLENGE, AUTHENTICATE, w.ntlm_negotiate()])
def test_sweep(message, sweep):
    sweep(ntlmssp.decode, message)


@pytest.mark.parametrize("message, expected", [
    (w.smb1_session_setup_request("Windows 5.1", "Windows 2000 LAN Manager", blob=AUTHENTICATE),
     smb.SessionSetup(False, "Windows 5.1", "Windows 2000 LAN Manager")),
    (w.smb1_session_setup_request("Windows 2002 Service Pack 2 2600", "Windows 2002 5.1"),
     smb.SessionSetup(False, "Windows 2002 Service Pack 2 2600", "Windows 2002 5.1")),
    (w.smb1_session_setup_request("Unix", "Samba", unicode=False),
     smb.SessionSetup(False, "Unix", "Samba")),
    (w.smb1_session_setup_response("Windows Server 2003 3790 Service Pack 2",
                                   "Windows Server 2003 5.2", blob=CHALLENGE),
     smb.SessionSetup(True, "Windows Server 2003 3790 Service Pack 2", "Windows Server 2003 5.2")),
    (w.smb1_session_setup_response("Unix", "Samba 4.15.13"), smb.SessionSetup(True, "Unix", "Samba 4.15.13")),
    (w.smb1_session_setup_response("Unix", "Samba 3.0.37", unicode=False),
     smb.SessionSetup(True, "Unix", "Samba 3.0.37")),
])
def test_smb1_session_setup(message, expected):
    (body,) = smb.messages(message)
    assert smb.session_setup(body) == expected


def test_smb_messages_skip_keepalives_and_smb2():
    keepalive = b"\x85\x00\x00\x00"
    data = keepalive + w.smb2_session_setup(CHALLENGE) + w.smb1_session_setup_response("Unix", "Samba")
    assert [m[:4] for m in smb.messages(data)] == [b"\xffSMB"]
    assert smb.messages(data[:-1]) == []


def test_smb_sweep(sweep):
    for message in (w.smb1_session_setup_request("Windows 5.1", "Windows 2000 LAN Manager", blob=AUTHENTICATE),
                    w.smb1_session_setup_response("Unix", "Samba 4.15.13")):
        sweep(smb.session_setup, smb.messages(message)[0])
