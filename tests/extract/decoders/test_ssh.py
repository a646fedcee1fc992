"""SSH identification lines (RFC 4253 4.2)."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, ssh


def test_real_client_banner(payload):
    # demo_all_rules.pcap frame 1660: 10.10.0.1 -> 10.10.0.3:22
    banner = ssh.decode(payload("demo_all_rules.pcap", 1660))
    assert banner == ssh.Identification("SSH-2.0-OpenSSH_8.9", "2.0", "OpenSSH_8.9", "")


def test_comment_and_following_binary_packet():
    data = b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n\x00\x00\x05\xdc\x07\x14"
    assert ssh.decode(data) == ssh.Identification(
        "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13", "2.0", "OpenSSH_9.6p1", "Ubuntu-3ubuntu13")


def test_bare_lf_and_old_protocol():
    banner = ssh.decode(b"SSH-1.99-Cisco-1.25\n")  # a '-' in the software, as Cisco sends it
    assert (banner.line, banner.proto, banner.software) == ("SSH-1.99-Cisco-1.25", "1.99",
                                                            "Cisco-1.25")


def test_truncation_sweep(payload):
    data = payload("demo_all_rules.pcap", 1660)
    for n in range(len(data) + 1):
        try:
            ssh.decode(data[:n])
        except (Truncated, Malformed):
            pass
    with pytest.raises(Truncated):
        ssh.decode(data[:-2])


def test_malformed():
    with pytest.raises(Malformed, match="does not start"):
        ssh.decode(b"DATA 10.10.0.3\r\n")
    with pytest.raises(Malformed, match="identification"):
        ssh.decode(b"SSH-2.0\r\n")
    with pytest.raises(Malformed, match="no line end"):
        ssh.decode(b"SSH-2.0-" + b"x" * 300)
