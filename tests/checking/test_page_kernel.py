"""The page check in a real ipykernel, driven the way JupyterLab, Notebook 7, Colab and Voilà drive it
(execute requests with store_history): ipykernel names each cell's code by a hash, not by its number,
so this is the path the learner's front ends take."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a kernel: left out by `run.py test --fast`

GOOD = "def normalise(row, eps):\n    return (row - np.mean(row)) / np.sqrt(np.var(row) + eps)\n"
BROKEN = "def normalise(row, eps):\n    centred = row - np.mean(row\n    return centred / np.sqrt(np.var(row) + eps)\n"
CHECK = "print(repr(helpers.exercises.check('normalise', normalise)))"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    pytest.importorskip("jupyter_client")
    pytest.importorskip("ipykernel")
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager

    spec_dir = tmp_path_factory.mktemp("kernels") / "this-python"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(
        json.dumps(
            {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], "language": "python"}
        ),
        encoding="utf-8",
    )
    manager = KernelManager(
        kernel_name="this-python", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(spec_dir.parent)])
    )
    env = {**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1", "MPLBACKEND": "agg", "OMP_NUM_THREADS": "1"}
    manager.start_kernel(cwd=str(ROOT), env=env, extra_arguments=["--IPKernelApp.log_level=ERROR"])
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    yield client
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def run(client, code: str) -> tuple[str, int]:
    printed = []

    def keep(message):
        if message["header"]["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    # one cell at a time, as a learner runs them after reading the last: a cell that fails must not make the
    # kernel abort the next one (ipykernel 7 aborts what reaches it before it stops aborting; under load, that was
    # the next request)
    reply = client.execute_interactive(code, output_hook=keep, timeout=60, store_history=True, stop_on_error=False)
    assert reply["content"]["status"] != "aborted", f"the kernel did not run {code[:80]!r} (aborted)"
    return "".join(printed), reply["content"]["execution_count"]


def test_in_a_kernel_a_syntax_error_in_the_defining_cell_gets_the_sentence_not_a_verdict(kernel):
    run(kernel, "import numpy as np\nimport helpers.exercises")
    run(kernel, GOOD)
    printed, _ = run(kernel, CHECK)
    assert printed.startswith("✓ normalise"), printed
    _, number = run(kernel, BROKEN)
    printed, _ = run(kernel, CHECK)
    assert printed.startswith("✗ normalise"), printed
    assert f"Cell [{number}]" in printed and "SyntaxError" in printed and "line 2" in printed, printed
    assert "right on" not in printed and "differs" not in printed
    run(kernel, GOOD)
    printed, _ = run(kernel, CHECK)
    assert printed.startswith("✓ normalise"), printed
