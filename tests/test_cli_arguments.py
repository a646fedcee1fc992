"""Arguments out of range are usage errors (exit 2, argparse's message), never an internal
error (issue 23, item 6: `--workers 257` exited 1)."""

from __future__ import annotations

import pytest

from tracepcap.present.cli import main
from tracepcap.settings import MAX_CAPTURE_WORKERS


@pytest.mark.parametrize("workers, said", [(MAX_CAPTURE_WORKERS + 1, f"at most {MAX_CAPTURE_WORKERS}"),
                                           (10**6, "at most"), (0, "1 or more"), ("many", "invalid")])
def test_workers_out_of_range_is_a_usage_error(workers, said, capsys, tmp_path):
    with pytest.raises(SystemExit) as exited:
        main(["analyze", str(tmp_path / "x.pcap"), "--workers", str(workers)])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "--workers" in err and said in err
