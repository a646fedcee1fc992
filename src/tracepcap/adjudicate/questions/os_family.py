"""os-family: which operating system family runs on this host?

Signals: scan/signals/os_family/ (initial TTL, TCP SYN signature, DHCP parameter-request
list and vendor class, User-Agent, SSH banner, HTTP Server header, SMB/NTLM OS version,
SNMP/LLDP/CDP system description, and the note that a User-Agent contradicts the SYNs).

Weights, on one scale for every signal: a measured TCP stack fingerprint 40 per family the
stack runs under; what the host's management or file-sharing software says its OS is 30;
its own server software (SSH 25, HTTP 20), its DHCP client and its User-Agent 20 each; the
initial TTL 10. A SYN signature names a kernel, not always a family: the Linux kernel's is
shared by Linux, Android and ChromeOS, Apple's by macOS and iOS, so it votes 40 for each
and what the host reports decides among them. Measured evidence outweighs any one claim.
When nothing the host reports decides, the answer is the family the stack names (Apple,
Linux-based) with its members as candidates, not a contest.
"""

from ..contract import Adjudicator, Tier

ADJUDICATOR = Adjudicator(
    question="os-family",
    title="OS family",
    tier=Tier.DETERMINISTIC,
    labels=("Windows", "Linux", "macOS", "iOS", "Android", "ChromeOS", "BSD", "Network OS",
            "Embedded", "Unknown"),
    # A margin of 50 is one stack fingerprint plus its TTL with no rival (Windows: 40 + 10),
    # or two and a half reported claims among families that share a stack: full confidence.
    margin_for_full=50,
    # Contested below 35, i.e. a margin under 17.5. One reported claim (20) is enough to pick
    # macOS over iOS, or Android over Linux, when the SYNs tie them at 40 each (confidence
    # 40); a tie, or two claims against a stack fingerprint (40 vs 40), stays contested.
    contest_below=35,
    parents={"macOS": "Apple", "iOS": "Apple",
             "Linux": "Linux-based", "Android": "Linux-based", "ChromeOS": "Linux-based"},
    position=30,
)
