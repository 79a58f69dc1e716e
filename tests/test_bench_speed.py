"""benchmarks/bench_speed.py --quick: runs, and writes a JSON file of the documented shape.

Timings vary from run to run, so only the structure and the correctness checks are asserted.
"""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_speed.py"


def test_quick_run_writes_results(tmp_path):
    output = tmp_path / "speed.json"
    finished = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--output", str(output)],
                              capture_output=True, text=True, timeout=240)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "copy bandwidth" in finished.stderr  # progress lines while running
    document = json.loads(output.read_text())
    assert document["quick"] is True
    assert {"cpu", "cores", "numpy", "torch", "date"} <= set(document["machine"])
    assert document["copy_bandwidth_gb_per_s"] > 0
    assert document["torch_compile"]["works"] is None  # skipped in --quick
    names = {r["implementation"] for r in document["results"]}
    assert {"pure Python loops", "numpy copy (new array)", "numpy two-pass", "numpy one-pass",
            "torch F.layer_norm"} <= names
    sizes = {(r["rows"], r["features"]) for r in document["results"]}
    assert sizes == {tuple(size) for size in document["sizes"]}
    for result in document["results"]:
        assert result["seconds"] > 0 and result["repeats"] >= 3
        assert result["bytes_moved"] == 2 * 4 * result["rows"] * result["features"]
        assert abs(result["gb_per_s"] - result["bytes_moved"] / result["seconds"] / 1e9) < 1e-9 * result["gb_per_s"]
        assert abs(result["fraction_of_copy"] * document["copy_bandwidth_gb_per_s"] - result["gb_per_s"]) \
            < 1e-9 * result["gb_per_s"]
        assert result["agrees"], result
