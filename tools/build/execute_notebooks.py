"""Re-execute notebooks in place, each from a fresh kernel, keeping outputs.

Maintainers run it through `python3 run.py execute [NOTEBOOK ...]`, which uses
the .venv Python (this script needs nbformat and nbclient).

* With no arguments: every notebooks/*.ipynb, in numbered order.
* Each notebook gets a new kernel ("python3", i.e. the Python running this
  script), with the notebook's folder as its working directory.
* A cell that runs longer than --timeout seconds fails the notebook.
* A notebook that fails is left untouched on disk; the others are still run.
* Metadata that only records who ran it, where, or when (Python version,
  per-cell timings, widget state) is removed, and so are the links to live
  widgets in outputs (random model ids that point at nothing once the kernel
  is gone; the widget's text form stays), so that re-executing an unchanged
  notebook gives a clean `git diff`. nbval ignores widget links anyway.

Prints one line per notebook with its duration; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

KERNELSPEC = {
    "display_name": "Python 3 (ipykernel)",
    "language": "python",
    "name": "python3",
}
# Cell metadata written by execution tools, not by authors.
VOLATILE_CELL_METADATA = ("execution", "ExecuteTime")
# Output data that only makes sense while the kernel that made it is alive.
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def natural_key(path: Path) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


def tidy(nb) -> None:
    """Drop metadata that would make every re-execution show up in diffs."""
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    language_info = nb.metadata.get("language_info")
    if language_info is not None:
        language_info.pop("version", None)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for key in VOLATILE_CELL_METADATA:
            cell.metadata.pop(key, None)
        if cell.cell_type != "code":
            continue
        kept = []
        for output in cell.outputs:
            data = output.get("data")
            if data is not None and WIDGET_VIEW in data:
                del data[WIDGET_VIEW]
                if not data:
                    continue
            kept.append(output)
        cell.outputs = kept


ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def describe(error: BaseException) -> str:
    name = type(error).__name__
    text = ANSI_ESCAPE.sub("", str(error)).strip()
    if name == "CellExecutionError":
        # nbclient's message ends with the exception line, e.g. "ValueError: ..."
        last = [line for line in text.splitlines() if line.strip()]
        text = last[-1] if last else ""
    else:
        text = text.splitlines()[0] if text else ""
    return f"{name}: {text}"[:200] if text else name


def execute(path: Path, timeout: int, kernel_log) -> None:
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
        store_widget_state=False,
        # Only errors from the kernel process itself (not its start-up notices).
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
    )
    # The kernel's own stderr goes to kernel_log: a kernel stopped after a
    # timeout prints shutdown tracebacks that are noise.
    client.execute(stderr=kernel_log)
    tidy(nb)
    nbformat.write(nb, path)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--timeout", type=int, default=120, help="seconds a single cell may run (default: 120)")
    args = parser.parse_args(argv)

    paths = args.notebooks or sorted(NOTEBOOKS.glob("*.ipynb"), key=natural_key)
    if not paths:
        print("No notebooks to execute (notebooks/*.ipynb is empty).")
        return 0

    # Same hash seed in every kernel, so set/dict-of-str orderings in outputs
    # do not change from one run to the next.
    os.environ.setdefault("PYTHONHASHSEED", "0")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")

    width = max(len(p.name) for p in paths)
    failed = []
    total = time.monotonic()
    for path in paths:
        start = time.monotonic()
        kernel_output = ""
        with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as kernel_log:
            try:
                execute(path, args.timeout, kernel_log)
                status = "ok"
            except KeyboardInterrupt:
                print(f"{path.name:<{width}}  interrupted")
                return 130
            except Exception as error:  # noqa: BLE001 (any failure:) report and carry on with the next notebook
                status = f"FAILED  {describe(error)}"
                failed.append(path.name)
                if type(error).__name__ not in ("CellExecutionError", "CellTimeoutError"):
                    # The kernel died or would not start: what it said may explain why.
                    kernel_log.seek(0)
                    kernel_output = "\n".join(kernel_log.read().splitlines()[-20:])
        print(f"{path.name:<{width}}  {time.monotonic() - start:6.1f} s  {status}", flush=True)
        if kernel_output:
            print(kernel_output, file=sys.stderr, flush=True)

    print(f"{len(paths) - len(failed)} of {len(paths)} notebook(s) executed in {time.monotonic() - total:.1f} s")
    if failed:
        print("failed (left unchanged on disk): " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
