#!/usr/bin/env python3
"""One entry point for "LayerNorm, Step by Step".

Students:     python3 run.py lab      (opens the notebooks in JupyterLab)
Everyone:     python3 run.py test     (checks the helpers and every notebook)
Lecturers:    python3 run.py lecture  (presents the lecture with Voila: live widgets, no code)
              python3 run.py slides   (exports the lecture as offline slides)
A course:     sudo python3 run.py hub (serves the series to a class on one JupyterHub)

This file uses only the Python standard library, so it works with a fresh
Python 3.10 or newer. The first command you run creates a private environment
in .venv/ and installs everything into it; nothing is installed anywhere else.
"""

from __future__ import annotations

import argparse
import sys

MIN_PYTHON = (3, 10)

# Each command's work lives in tools/ (standard library only), split by job.
from tools.run.env import Failure, ensure_env  # noqa: E402,F401
from tools.run.present import cmd_bench, cmd_lab, cmd_lecture, cmd_slides, lecture_command, lecture_env  # noqa: E402,F401
from tools.run.tests import cmd_execute, cmd_test  # noqa: E402

# run.py hub, hub-link, hub-publish: their own options (tools/run/hub.py, classroom/hub/).
HUB_COMMANDS = {
    "hub": "serve the series to a class on one JupyterHub (needs root; see classroom/README.md)",
    "hub-link": "print the nbgitpuller link that puts the series in each student's home",
    "hub-publish": "serve this checkout's newest commit to the class's hub",
    "hub-grade": "the graded course's cycle: release, collect, autograde, feedback, export (root)",
}

# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

DESCRIPTION = """\
Run "LayerNorm, Step by Step".

The first command you run creates a private Python environment in .venv/
and installs everything the notebooks need into it (this takes a few
minutes, once). Later commands reuse it, and only reinstall when
requirements.txt or pyproject.toml change. Nothing is installed outside
this folder; delete .venv/ to start again from scratch."""

EPILOG = """\
examples:
  python3 run.py lab                 open the notebooks in JupyterLab
  python3 run.py lab --no-browser    same, but print the link instead of opening a browser
  python3 run.py test                check the helpers and every notebook
  python3 run.py test -k variance    run only the tests whose name contains "variance"
  python3 run.py lecture             present the lecture in the browser (Voila: live widgets, no code)
  python3 run.py lecture --no-browser  same, but print the link instead of opening a browser
  python3 run.py slides              export the lecture as offline slides into build/slides/
  sudo python3 run.py hub            serve the series to a class on a JupyterHub (see classroom/README.md)
  python3 run.py hub-link https://hub.example.edu
                                     the link to hand out to the class
  python3 run.py execute notebooks/03_mean.ipynb
                                     (maintainers) re-run one notebook and save its outputs"""

PASSTHROUGH = {
    "lab": (
        "open the notebooks in JupyterLab (start here)",
        "Open the notebooks/ folder in JupyterLab, running in .venv.\n\n"
        "Anything after `lab` is passed to `jupyter lab`, e.g.\n"
        "  python3 run.py lab --no-browser\n"
        "  python3 run.py lab --port 8890",
    ),
    "test": (
        "check the helpers and every notebook",
        "Run the tests in tests/ and every notebook in notebooks/ (with nbval:\n"
        "each notebook is run from a fresh kernel and its outputs are compared\n"
        "with the saved ones).\n\n"
        "Anything after `test` is passed to pytest, e.g.\n"
        "  python3 run.py test -k variance      only tests matching 'variance'\n"
        "  python3 run.py test tests/test_x.py  only that file\n"
        "  python3 run.py test -x               stop at the first failure\n"
        "  python3 run.py test --fast           the inner loop: no browser, hub or kernel, and lint (< 30 s)\n"
        "  python3 run.py test --changed        the tests of the packages you changed, then the notebooks\n"
        "                                       they feed re-executed and checked with nbval\n"
        "  python3 run.py test --busy 2         every test, with 2 busy loops beside it (does it hold on a\n"
        "                                       busy machine? the runner starts and ends them)\n"
        "  python3 run.py test -- --help        pytest's own help\n\n"
        "Every test waits for a state, never a time; how long it may wait scales with the\n"
        "machine's load (LAYERNORM_TEST_PATIENCE=3 sets the factor yourself). The run ends\n"
        "by naming its ten slowest tests.",
    ),
    "lecture": (
        "present the lecture with Voila: live widgets, no code on screen",
        "Serve lecture/layernorm_lecture.ipynb with Voila (from .venv) and open it in\n"
        "the browser: the whole lesson on the lesson's matrix, built around the\n"
        "step-through explorer, with working widgets and no code on screen.\n"
        "Presenter mode: PageDown / PageUp (a clicker's keys) or the arrows step\n"
        "through stage by stage; N shows the speaker notes; P the whole page.\n\n"
        "Anything after `lecture` is passed to `voila`, e.g.\n"
        "  python3 run.py lecture --no-browser\n"
        "  python3 run.py lecture --port 8867",
    ),
    "slides": (
        "export the lecture as offline slides (reveal.js) into build/slides/",
        "Export the lecture as reveal.js slides that open from disk, offline: one\n"
        "slide per stage of the walkthrough, each widget shown as its result (no\n"
        "controls), speaker notes (press S), code hidden. The first run fetches\n"
        "reveal.js with npm (pinned versions, checked) into build/npm/, so it needs\n"
        "network access once; later runs need none.\n\n"
        "  python3 run.py slides\n"
        "  python3 run.py slides --output /tmp/handout",
    ),
    "bench": (
        "run the benchmark scripts in benchmarks/",
        "Run every benchmarks/*.py script, in order, with the .venv Python.\n"
        "Anything after `bench` is passed to each script.",
    ),
}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(
        prog="run.py", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    subs = {}
    for name, passed_to in (("lab", "JUPYTER-LAB-OPTIONS"), ("test", "PYTEST-OPTIONS")):
        summary, text = PASSTHROUGH[name]
        subs[name] = sub.add_parser(
            name,
            help=summary,
            description=text,
            usage=f"run.py {name} [{passed_to} ...]",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    ex = sub.add_parser(
        "execute",
        help="(maintainers) re-run the notebooks and save their outputs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Re-run notebooks in place, in order, each from a fresh kernel,\n"
        "and save them with their new outputs. Use this after changing\n"
        "helpers/ or a notebook, so that `run.py test` compares against\n"
        "up-to-date outputs. Review the diff before committing.",
    )
    ex.add_argument(
        "notebooks", nargs="*", metavar="NOTEBOOK", help="notebooks to re-run (default: every notebooks/*.ipynb)"
    )
    ex.add_argument(
        "--timeout",
        type=int,
        default=120,
        metavar="SECONDS",
        help="give up on a cell after this many seconds (default: 120)",
    )
    subs["execute"] = ex
    for name, summary in HUB_COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    for name, usage in (
        ("lecture", "run.py lecture [VOILA-OPTIONS ...]"),
        ("slides", "run.py slides [--output DIR]"),
        ("bench", "run.py bench [SCRIPT-ARGS ...]"),
    ):
        summary, text = PASSTHROUGH[name]
        subs[name] = sub.add_parser(
            name, help=summary, description=text, usage=usage, formatter_class=argparse.RawDescriptionHelpFormatter
        )
    return parser, subs


def main(argv: list[str]) -> int:
    if sys.version_info < MIN_PYTHON:
        raise Failure(
            "error: this project needs Python %d.%d or newer (this is %s)" % (*MIN_PYTHON, sys.version.split()[0])
        )
    parser, subs = build_parser()
    if argv and argv[0] in PASSTHROUGH:
        # Everything after the command belongs to jupyter / pytest / the scripts.
        command, extra = argv[0], argv[1:]
        if extra[:1] in (["-h"], ["--help"]):
            subs[command].print_help()
            return 0
        if extra[:1] == ["--"]:
            extra = extra[1:]
        return {"lab": cmd_lab, "test": cmd_test, "lecture": cmd_lecture, "slides": cmd_slides, "bench": cmd_bench}[
            command
        ](extra)
    if argv and argv[0] in HUB_COMMANDS:
        from tools.run import hub as run_hub

        commands = {
            "hub": run_hub.cmd_hub,
            "hub-link": run_hub.cmd_hub_link,
            "hub-publish": run_hub.cmd_hub_publish,
            "hub-grade": run_hub.cmd_hub_grade,
        }
        return commands[argv[0]](argv[1:])
    args = parser.parse_args(argv)
    if args.command == "execute":
        if args.timeout <= 0:
            parser.error("--timeout must be a positive number of seconds")
        return cmd_execute(args.notebooks, args.timeout)
    parser.print_help()
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Failure as failure:
        print(failure, file=sys.stderr)
        sys.exit(failure.code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
