"""`tracepcap analyze`'s progress bar (issue 28): drawn on stderr when it is a terminal (here a
pseudo-terminal), never when stderr is piped, and never with `--json` into a pipe."""

from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest

from tracepcap.present import cli as cli_module
from tracepcap.present.progress import Bars, wanted

CAPTURE = "demo_all_rules.pcap"  # 377 KB: read in several ticks, so the bar moves


def run(args: list[str], settings, *, stderr_tty: bool, stdout_tty: bool = False) -> tuple[int, str, str]:
    """`tracepcap analyze ARGS` in a child process; stderr (and stdout, if asked) on a
    pseudo-terminal of 120 columns, the other on a pipe: (exit code, stdout, stderr)."""
    env = {**os.environ, "TRACEPCAP_DATA_DIR": str(settings.data_dir),
           "PYTHONPATH": os.pathsep.join([str(Path(cli_module.__file__).parents[2]),
                                          os.environ.get("PYTHONPATH", "")])}
    env.pop("COLUMNS", None)
    master = slave = None
    if stderr_tty or stdout_tty:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "tracepcap.present.cli", "analyze", *args,
                             "--db", settings.database_url],
                            stdout=slave if stdout_tty else subprocess.PIPE,
                            stderr=slave if stderr_tty else subprocess.PIPE, env=env)
    piped = {}  # each pipe drained by a thread of its own, so neither can fill and stall the child
    readers = [threading.Thread(target=lambda name, pipe: piped.__setitem__(name, pipe.read()), args=(name, pipe))
               for name, pipe in (("out", proc.stdout), ("err", proc.stderr)) if pipe is not None]
    for reader in readers:
        reader.start()
    tty = b""
    if slave is not None:
        os.close(slave)  # the child holds it; reading the master ends when the child closes it
        while True:  # drained as it comes: a full terminal buffer would stall the child
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                proc.kill()
                pytest.fail("the child wrote nothing to its terminal for 120 s")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every holder of the terminal closed it
                break
            if not chunk:
                break
            tty += chunk
        os.close(master)
    code = proc.wait(300)
    for reader in readers:
        reader.join(60)
    piped_out, piped_err = piped.get("out", b""), piped.get("err", b"")
    text = tty.decode(errors="replace").replace("\r\n", "\n")
    out = text if stdout_tty else piped_out.decode()
    err = text if stderr_tty else piped_err.decode()
    return code, out, err


def test_a_terminal_sees_the_bar_while_the_packets_are_read_and_the_stages_run(settings, captures):
    code, out, err = run([str(captures / CAPTURE)], settings, stderr_tty=True)
    assert code == 0, err
    assert "reading packets" in err and "100%" in err
    assert "368k/368k" in err and "B/s" in err  # bytes of the file (377,232: 368 KiB), their rate
    assert "scanning" in err and "adjudicating" in err
    assert "\r" in err  # redrawn in place
    assert out.startswith("capture ") and "on-link (" in out  # the table still goes to stdout, whole


def test_piped_stderr_has_no_bar(settings, captures):
    code, out, err = run([str(captures / CAPTURE)], settings, stderr_tty=False)
    assert code == 0 and err == ""
    assert out.startswith("capture ")


def test_json_into_a_pipe_is_silent_even_with_a_terminal_on_stderr(settings, captures):
    code, out, err = run([str(captures / CAPTURE), "--json"], settings, stderr_tty=True)
    assert code == 0 and err == ""
    assert json.loads(out)["capture"]["name"] == CAPTURE


def test_who_wants_a_bar():
    class Stream:
        def __init__(self, tty):
            self.tty = tty

        def isatty(self):
            return self.tty

    term, pipe = Stream(True), Stream(False)
    assert wanted(as_json=False, stderr=term, stdout=pipe)
    assert wanted(as_json=True, stderr=term, stdout=term)
    assert not wanted(as_json=True, stderr=term, stdout=pipe)
    assert not wanted(as_json=False, stderr=pipe, stdout=term)


def test_a_bar_per_stage_follows_the_ticks():
    made = []

    class FakeBar:  # records what Bars asks of tqdm
        def __init__(self, **kw):
            self.kw, self.n, self.total, self.closed = kw, 0, kw["total"], False
            made.append(self)

        def update(self, n):
            self.n += n

        def close(self):
            self.closed = True

    bars = Bars(FakeBar, stream=None)
    for done in (0, 4096, 4096, 10_000):
        bars("read", done, 10_000)
    bars("scan", 0, 1)
    bars("scan", 1, 1)
    bars.close()
    assert [(b.kw["desc"], b.kw["unit"], b.n, b.total, b.closed) for b in made] == [
        ("reading packets", "B", 10_000, 10_000, True), ("scanning", "stage", 1, 1, True)]
