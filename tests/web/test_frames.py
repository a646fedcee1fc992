"""From a reason to the packet: a frame number in a reason opens the packet view (summary,
layers up to the application layer, hex dump, previous/next frame of the conversation); the reason's "download the
witness frames" saves a slice that tshark reads as those frames of the original; "copy
Wireshark filter" gives the filter; past 8 frames a "+N more" shows the rest."""

from __future__ import annotations

import re
import shutil
import subprocess

from web_helpers import DNS_DEMO, DNS_SERVER, panel
from playwright.sync_api import expect

from tracepcap.present.web.routes import ENV

TSHARK = shutil.which("tshark") or "/usr/bin/tshark"
FIELDS = ("frame.time_epoch", "frame.len", "eth.src", "eth.dst", "ip.src", "ip.dst", "udp.srcport", "udp.dstport")


def tshark(path, *args: str) -> list[str]:
    fields = [arg for field in FIELDS for arg in ("-e", field)]
    return subprocess.run([TSHARK, "-n", "-r", str(path), *args, "-T", "fields", *fields], capture_output=True,
                          text=True, check=True, timeout=60).stdout.splitlines()


def test_reason_to_frame_view_to_downloaded_slice(analyzed, captures, tmp_path):
    _api, pages, cid = analyzed
    page = pages.open(f"/captures/{cid}/hosts/{DNS_SERVER}")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    reason = panel(page, "host-identity").locator(".candidate").first.locator(".reason").first
    expect(reason.locator(".frames")).to_have_text("frame 2")

    # copy the Wireshark filter: copied, or shown to copy by hand where the clipboard is refused
    reason.get_by_role("button", name="copy Wireshark filter").click()
    expect(reason.locator(".copy-filter")).to_contain_text("frame.number in {2}")

    # download the witness frames: tshark reads them as frame 2 of the original
    with page.expect_download() as download:
        reason.get_by_role("link", name="download the witness frames").click()
    saved = tmp_path / "witness.pcapng"
    download.value.save_as(saved)
    assert tshark(saved) == tshark(captures / DNS_DEMO, "-Y", "frame.number in {2}") != []

    # the frame number opens the packet view
    reason.locator(".frames").get_by_role("link", name="2", exact=True).click()
    expect(page.locator("h1")).to_contain_text("Frame 2")
    expect(page.locator("#frame-summary")).to_contain_text(f"{DNS_SERVER} → 192.168.1.20 UDP 53 → 40001")
    expect(page.locator(".layer summary")).to_have_text(["Frame", "Ethernet", "IPv4", "UDP", "DNS"])
    expect(page.locator(".layer", has_text="UDP").locator("tr", has_text="source port")).to_contain_text("53")
    # the application layer, as the DNS extractor's decoder reads it (tshark: example.com A 93.184.216.34)
    expect(page.get_by_role("table", name="DNS fields").get_by_role("row", name="answer example.com")).to_contain_text(
        "example.com A 93.184.216.34 ttl 300")
    expect(page.locator(".hexdump")).to_contain_text("0000")

    # previous frame of this conversation: the query it answers; then back with next
    page.locator("#conv-prev").click()
    expect(page.locator("h1")).to_contain_text("Frame 1")
    expect(page.locator("#frame-summary")).to_contain_text("192.168.1.20 → 192.168.1.1 UDP 40001 → 53")
    page.locator("#conv-next").click()
    expect(page.locator("h1")).to_contain_text("Frame 2")

    # the frame view's conversation as a pcap: tshark reads the same frames as in the original
    with page.expect_download() as download:
        page.get_by_role("link", name="download the conversation").click()
    saved = tmp_path / "conversation.pcapng"
    download.value.save_as(saved)
    conversation = "ip.addr == 192.168.1.20 && ip.addr == 192.168.1.1 && udp.port == 40001 && udp.port == 53"
    original = tshark(captures / DNS_DEMO, "-Y", conversation)
    assert tshark(saved) == original and len(original) >= 2
    # each packet carries its frame number in the original (a pcapng comment)
    numbers = subprocess.run([TSHARK, "-n", "-r", str(captures / DNS_DEMO), "-Y", conversation, "-T", "fields",
                              "-e", "frame.number"],
                             capture_output=True, text=True, check=True, timeout=60).stdout.split()
    comments = subprocess.run([TSHARK, "-n", "-r", str(saved), "-T", "fields", "-e", "frame.comment"],
                              capture_output=True, text=True, check=True, timeout=60).stdout.splitlines()
    assert [re.search(r"\d+", c).group() for c in comments] == numbers


def test_past_eight_frames_a_more_control_shows_the_rest():
    html = ENV.from_string('{% import "_macros.html" as m %}{{ m.frames(list, "abc") }}').render(
        list=[1, 2, 3, 4, 5, 6, 7, 8, 20, 21, 22])
    assert html.count('class="frame-link"') == 11
    assert "+3 more</summary>" in html
    assert 'href="/captures/abc/frames/22"' in html
    assert 'data-filter="frame.number in {1..8, 20..22}"' in html
    assert 'href="/api/captures/abc/frames.pcap?frames=1-8,20-22"' in html
