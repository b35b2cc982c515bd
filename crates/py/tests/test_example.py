"""The README's example runs and writes its plot."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "heights.py"


def test_the_heights_example_writes_a_plot(shared, tmp_path):
    out = tmp_path / "heights.png"
    scene = shared / "scenes" / "box_stack.xml"
    done = subprocess.run([sys.executable, str(EXAMPLE), str(scene), str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 10_000, "a non-trivial PNG"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
