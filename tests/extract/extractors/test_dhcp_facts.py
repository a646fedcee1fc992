"""DHCPv4 facts: names and fingerprints join the address the client was given; servers."""

from __future__ import annotations

from tracepcap.keys import mac_key
from tracepcap.extract.extractors.dhcp import Dhcp
from tracepcap.limits import Limits
from tracepcap.testing import app
from tracepcap.testing.scenario import Scenario

MAC = "a4:83:e7:00:00:01"
PARAMS = [1, 121, 3, 6, 15, 119, 252, 95, 44, 46]
MAC_PARAMS = "1,121,3,6,15,119,252,95,44,46"


def lan():
    net = Scenario()
    return net, net.host("192.168.1.1", "00:00:0c:00:00:01"), net.host("0.0.0.0", MAC)


def test_exchange_from_unbound_client_lands_on_the_acked_address(run, rows, manifest):
    net, server, _ = lan()
    # frames 1 DISCOVER and 3 REQUEST from 0.0.0.0:68; 2 OFFER and 4 ACK of 192.168.1.50
    net.dhcp_exchange(MAC, server, "192.168.1.50", hostname="Annas-MacBook",
                      fqdn="annas-mbp.corp.example.", param_list=PARAMS, vendor_class="MSFT 5.0")
    result = run(net, Dhcp)
    assert rows(result) == {
        ("192.168.1.50", "hostname-claim", "Annas-MacBook", "dhcp", 1, 3, 2),
        ("192.168.1.50", "hostname-claim", "annas-mbp.corp.example", "dhcp", 1, 3, 2),
        ("192.168.1.50", "dhcp-parameter-list", MAC_PARAMS, "dhcp", 1, 3, 2),
        ("192.168.1.50", "dhcp-vendor-class", "MSFT 5.0", "dhcp", 1, 3, 2),
        ("192.168.1.50", "dhcp-client-id", f"ethernet {MAC}", "dhcp", 1, 3, 2),
        ("192.168.1.1", "served", "udp/67", "dhcp", 2, 4, 2),
        ("192.168.1.50", "ip-mac-binding", MAC, "dhcp", 4, 4, 1),  # the ACK leased it to the chaddr
    }
    assert manifest(result, "dhcp").status == "completed"


def test_without_ack_the_requested_address_is_used(run, rows):
    net, server, unbound = lan()
    for msg_type in (app.DISCOVER, app.REQUEST):  # frames 1, 2; no server answer captured
        extra = {"requested_ip": "192.168.1.77"} if msg_type == app.REQUEST else {}
        net.udp(unbound, "255.255.255.255", 68, 67,
                app.dhcp(app.BOOTREQUEST, 0x1234, MAC, msg_type, hostname="printer-2", **extra))
    assert rows(run(net, Dhcp)) == {
        ("192.168.1.77", "hostname-claim", "printer-2", "dhcp", 1, 2, 2),
        ("192.168.1.77", "dhcp-client-id", f"ethernet {MAC}", "dhcp", 1, 2, 2)}


def test_no_address_at_all_lands_on_the_clients_mac(run, rows, manifest):
    """A DISCOVER nobody answered: its claims land on the MAC's key (a MAC-only device, issue 11),
    with a `mac` fact (and the MAC's registry vendor, when it has one)."""
    net, _, unbound = lan()
    net.udp(unbound, "255.255.255.255", 68, 67,
            app.dhcp(app.BOOTREQUEST, 0x99, MAC, app.DISCOVER, hostname="nowhere"))
    result = run(net, Dhcp)
    found = rows(result)
    assert {row[0] for row in found} == {mac_key(MAC)} and manifest(result, "dhcp").status == "completed"
    assert (mac_key(MAC), "hostname-claim", "nowhere", "dhcp", 1, 1, 1) in found
    assert (mac_key(MAC), "mac", MAC, "dhcp", 1, 1, 1) in found


def test_nak_forbids_the_requested_address(run, rows):
    net, server, unbound = lan()
    net.udp(unbound, "255.255.255.255", 68, 67,
            app.dhcp(app.BOOTREQUEST, 0x55, MAC, app.REQUEST, hostname="roamer",
                     requested_ip="10.9.9.9"))
    net.udp(server, "255.255.255.255", 67, 68,
            app.dhcp(app.BOOTREPLY, 0x55, MAC, 6, server_id="192.168.1.1"))  # DHCPNAK
    found = rows(run(net, Dhcp))  # refused: no address of its own; the claim is its MAC's
    assert ("192.168.1.1", "served", "udp/67", "dhcp", 2, 2, 1) in found
    assert not any(row[0] == "10.9.9.9" for row in found)
    assert (mac_key(MAC), "hostname-claim", "roamer", "dhcp", 1, 1, 1) in found


def test_renewal_from_own_address_is_attributed_directly(run, rows):
    net, server, _ = lan()
    client = net.host("192.168.1.50", MAC)
    net.udp(client, server, 68, 67, app.dhcp(app.BOOTREQUEST, 0x77, MAC, app.REQUEST,
                                             ciaddr="192.168.1.50", hostname="Annas-MacBook"))
    net.udp(server, client, 67, 68, app.dhcp(app.BOOTREPLY, 0x77, MAC, app.ACK,
                                             ciaddr="192.168.1.50", yiaddr="192.168.1.50"))
    assert rows(run(net, Dhcp)) == {
        ("192.168.1.50", "hostname-claim", "Annas-MacBook", "dhcp", 1, 1, 1),
        ("192.168.1.50", "dhcp-client-id", f"ethernet {MAC}", "dhcp", 1, 1, 1),
        ("192.168.1.1", "served", "udp/67", "dhcp", 2, 2, 1),
        ("192.168.1.50", "ip-mac-binding", MAC, "dhcp", 2, 2, 1)}


def test_relayed_request_is_not_the_relays_name(run, rows):
    net, server, _ = lan()
    relay = net.host("10.1.0.1", "00:00:0c:00:00:02")
    net.udp(relay, server, 67, 67, app.dhcp(app.BOOTREQUEST, 0x42, MAC, app.REQUEST,
                                            giaddr="10.1.0.1", hostname="branch-pc"))
    net.udp(server, relay, 67, 67, app.dhcp(app.BOOTREPLY, 0x42, MAC, app.ACK,
                                            giaddr="10.1.0.1", yiaddr="10.1.0.77"))
    assert rows(run(net, Dhcp)) == {
        ("10.1.0.77", "hostname-claim", "branch-pc", "dhcp", 1, 1, 1),
        ("10.1.0.77", "dhcp-client-id", f"ethernet {MAC}", "dhcp", 1, 1, 1),
        ("192.168.1.1", "served", "udp/67", "dhcp", 2, 2, 1)}  # no binding: its MAC is not on this segment


def test_later_renewal_and_earlier_join_merge_in_frame_order(run, rows):
    net, server, _ = lan()
    client = net.dhcp_exchange(MAC, server, "192.168.1.50", hostname="Annas-MacBook")
    net.udp(client, server, 68, 67, app.dhcp(app.BOOTREQUEST, 0x78, MAC, app.REQUEST,
                                             ciaddr="192.168.1.50", hostname="Annas-MacBook"))
    claims = rows(run(net, Dhcp), "hostname-claim")
    assert claims == {("192.168.1.50", "hostname-claim", "Annas-MacBook", "dhcp", 1, 5, 3)}


def test_pending_transactions_are_bounded_and_evictions_counted(run, rows, manifest):
    net, server, _ = lan()
    net.dhcp_exchange(MAC, server, "192.168.1.50", hostname="first")
    net.dhcp_exchange("a4:83:e7:00:00:02", server, "192.168.1.51", hostname="second")
    result = run(net, Dhcp, limits=Limits(max_pending=1))
    assert rows(result, "hostname-claim") == {
        ("192.168.1.51", "hostname-claim", "second", "dhcp", 5, 7, 2)}
    # the first transaction left the pending table, then its lease left the lease table
    assert manifest(result, "dhcp").error == "2 entries evicted from a bounded table"


def test_demo_all_rules(run, rows, captures):
    # Checked by hand in Wireshark: 192.168.0.1 (a TP-Link TL-SG116E switch) broadcasts a
    # DISCOVER from its own address 12 times (frames 1 .. 1418) with host name and vendor
    # class "TL-SG116E" and parameter list 1,3; 192.168.100.254 sends an OFFER (frame 1578).
    # pi3.ntop.org (frame 597) asks from 0.0.0.0 and is never answered: its facts land on its MAC.
    found = rows(run(captures / "demo_all_rules.pcap", Dhcp))
    pi = {row for row in found if row[0] == "mac-00-80-8f-9a-ae-bd"}
    assert ("mac-00-80-8f-9a-ae-bd", "hostname-claim", "pi3.ntop.org", "dhcp", 597, 597, 1) in pi
    assert ("mac-00-80-8f-9a-ae-bd", "dhcp-vendor-class", "dhcpcd-6.10.1:Linux-4.9.57-v7+:armv7l:BCM2835",
            "dhcp", 597, 597, 1) in pi
    assert found - pi == {
        ("192.168.0.1", "hostname-claim", "TL-SG116E", "dhcp", 1, 1418, 12),
        ("192.168.0.1", "dhcp-parameter-list", "1,3", "dhcp", 1, 1418, 12),
        ("192.168.0.1", "dhcp-vendor-class", "TL-SG116E", "dhcp", 1, 1418, 12),
        ("192.168.0.1", "dhcp-client-id", "ethernet d8:0d:17:d6:55:ab", "dhcp", 1, 1418, 12),
        ("192.168.100.254", "served", "udp/67", "dhcp", 1578, 1578, 1),
    }


def test_signal_discovers_without_answer(run, rows, captures):
    # signal.pcap frames 1, 147, 148, 171: Lucas-iMac DISCOVERs from 0.0.0.0, no OFFER/ACK:
    # everything it said is its MAC's
    found = rows(run(captures / "signal.pcap", Dhcp))
    assert {row[0] for row in found} == {"mac-d8-30-62-56-00-1c"}
    assert any(row[1:3] == ("hostname-claim", "Lucas-iMac") for row in found)


def test_user_class_and_rfc4361_client_id(run, rows):
    net, server, _ = lan()
    duid_llt = bytes.fromhex("0001 0001 1fcb 3ece b827eb3d08db")  # as pi3.ntop.org sends it
    client_id = bytes([255]) + bytes.fromhex("8f9aaebd") + duid_llt
    net.dhcp_exchange(MAC, server, "192.168.1.60", vendor_class="android-dhcp-13", client_id=False,
                      extra_options=[(61, client_id), (77, b"\x04iPXE\x03lab")])
    found = rows(run(net, Dhcp))
    assert {row[1:3] for row in found if row[0] == "192.168.1.60"} == {
        ("dhcp-vendor-class", "android-dhcp-13"), ("dhcp-user-class", "iPXE,lab"),
        ("dhcp-client-id", "rfc4361 iaid 8f9aaebd duid-llt b8:27:eb:3d:08:db"), ("ip-mac-binding", MAC)}


def _without_chaddr(message: bytes, htype: int, hlen: int) -> bytes:
    """`message` with hardware type `htype`, length `hlen` and a chaddr of zeros."""
    return message[:1] + bytes([htype, hlen]) + message[3:28] + bytes(16) + message[44:]


def test_a_discover_without_a_hardware_address_is_named_by_its_client_id(run, rows):
    """Zeek names a DHCP client by the Ethernet MAC of its client identifier (option 61, type
    1): a DISCOVER nobody answered whose chaddr names no MAC (hardware type 0 and no length;
    type 1 and six zero bytes) lands on the client identifier's MAC."""
    net, _, unbound = lan()
    other = "a4:83:e7:00:00:02"
    discover = app.dhcp(app.BOOTREQUEST, 0x77, MAC, app.DISCOVER, hostname="typeless")
    net.udp(unbound, "255.255.255.255", 68, 67, _without_chaddr(discover, 0, 0))  # frame 1
    discover = app.dhcp(app.BOOTREQUEST, 0x78, other, app.DISCOVER, hostname="zeroed")
    net.udp(unbound, "255.255.255.255", 68, 67, _without_chaddr(discover, 1, 6))  # frame 2
    found = rows(run(net, Dhcp))
    assert {row[0] for row in found} == {mac_key(MAC), mac_key(other)}
    assert (mac_key(MAC), "hostname-claim", "typeless", "dhcp", 1, 1, 1) in found
    assert (mac_key(MAC), "mac", MAC, "dhcp", 1, 1, 1) in found
    assert (mac_key(other), "hostname-claim", "zeroed", "dhcp", 2, 2, 1) in found
    assert (mac_key(other), "mac", other, "dhcp", 2, 2, 1) in found


def test_a_discover_with_a_hardware_address_keeps_it(run, rows):
    """chaddr, when it is a MAC, still names the client: a client identifier naming another
    MAC (a Windows host's other interface) does not move its claims."""
    net, _, unbound = lan()
    other = "a4:83:e7:00:00:02"
    message = app.dhcp(app.BOOTREQUEST, 0x79, MAC, app.DISCOVER, hostname="two-nics", client_id=False,
                       extra_options=[(61, b"\x01" + bytes.fromhex(other.replace(":", "")))])
    net.udp(unbound, "255.255.255.255", 68, 67, message)
    assert {row[0] for row in rows(run(net, Dhcp))} == {mac_key(MAC)}
