"""run.py hub, hub-link, hub-publish and hub-grade: the series served to a class on one JupyterHub.

The work is in classroom/hub/ (standard library only, as is this file); this is the command line.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import webbrowser
from pathlib import Path

from tools.run.env import ROOT, Failure, say

sys.path.insert(0, str(ROOT))
from classroom.hub import install, launch, link, mirror  # noqa: E402
from classroom.hub.settings import DEFAULT_STATE, TOKEN_VARIABLE, HubSettings  # noqa: E402

HUB_HELP = """\
Start a JupyterHub for a class on this machine (needs root): every student on the
class list logs in with their own password (chosen at first login) and gets their
own server, running as their own Unix user, with the series pulled into their home
by nbgitpuller. The first start installs the hub into /opt/layernorm-hub (a few
minutes). Edit the class list in STATE/students.txt (default /srv/layernorm-hub).
See classroom/README.md for a course's server, sizing and Kubernetes."""


def hub_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="run.py hub", description=HUB_HELP, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=8000, help="the port students connect to (default 8000)")
    parser.add_argument("--ip", default="", help="the address to listen on (default: every address)")
    parser.add_argument("--no-browser", action="store_true", help="print the link instead of opening a browser")
    parser.add_argument("--state", default=str(DEFAULT_STATE), help=f"the hub's folder (default {DEFAULT_STATE})")
    parser.add_argument("--students", default="", help="the class list (default STATE/students.txt)")
    parser.add_argument(
        "--repo", default="", help="a git address students pull the series from (default: this checkout's copy)"
    )
    parser.add_argument(
        "--idle-timeout",
        type=int,
        default=3600,
        help="stop a student's server after this many idle seconds (default 3600)",
    )
    return parser


def settings_from(args: argparse.Namespace) -> HubSettings:
    if args.idle_timeout < 60:
        raise Failure("error: --idle-timeout must be at least 60 seconds")
    return HubSettings(
        state=os.path.abspath(args.state),
        ip=args.ip,
        port=args.port,
        repo=args.repo,
        students_file=os.path.abspath(args.students) if args.students else "",
        idle_timeout=args.idle_timeout,
    )


def cmd_hub(extra: list[str]) -> int:
    args = hub_parser().parse_args(extra)
    settings = settings_from(args)
    try:
        launch.require_root()
        launch.check_ports(settings)
        class_list = launch.prepare(settings, say)
        hub = launch.start(settings)
        hub.wait_ready()
    except launch.HubError as error:
        raise Failure(f"error: {error}") from None
    address = hub.url if settings.ip else f"http://{os.uname().nodename}:{settings.port}"
    say(
        f"\nThe class hub is running at {address}  ({len(class_list.students)} students, "
        f"{len(class_list.instructors)} instructors; stop it with Ctrl-C)."
    )
    say(f"Hand out this link: {link.hub_link(address, settings.series_repo)}")
    say(f"Graded assignments: the course is in {settings.grading / 'course'} (classroom/README.md, Grading).")
    if not os.environ.get(TOKEN_VARIABLE):
        say(f"(For scripts: set {TOKEN_VARIABLE} before starting to register an admin API token.)")
    if not args.no_browser:
        webbrowser.open(f"{hub.url}/hub/login")
    try:
        return hub.process.wait()
    except KeyboardInterrupt:
        say("Stopping the hub and every student's server …")
        hub.process.send_signal(signal.SIGINT)
        left = hub.stop()
        if left:
            say(f"The hub left {len(left)} process(es) behind (its proxy or services); they were ended.")
        return 0


def cmd_hub_link(extra: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="run.py hub-link", description="Print the nbgitpuller link to hand out.")
    parser.add_argument("hub_url", help="the hub's address, e.g. https://hub.example.edu")
    parser.add_argument(
        "--repo",
        default=str(DEFAULT_STATE / "series.git"),
        help="the git address of the series as the hub's students reach it",
    )
    parser.add_argument(
        "--notebook", default="notebooks/00_contents.ipynb", help="the page the link opens (default the contents)"
    )
    args = parser.parse_args(extra)
    if not args.hub_url.startswith(("http://", "https://")):
        raise Failure(f"error: {args.hub_url!r} is not a web address: write it as https://…")
    if not (ROOT / args.notebook).is_file():
        raise Failure(f"error: the series has no {args.notebook}")
    print(link.hub_link(args.hub_url, args.repo, args.notebook))
    return 0


def cmd_hub_publish(extra: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="run.py hub-publish",
        description="Serve this checkout's newest commit to the class: students get it "
        "at their next link click, keeping their own changes.",
    )
    parser.add_argument("--state", default=str(DEFAULT_STATE))
    args = parser.parse_args(extra)
    try:
        launch.require_root()
        commit = mirror.publish(ROOT, Path(args.state) / "series.git")
    except (launch.HubError, mirror.MirrorError) as error:
        raise Failure(f"error: {error}") from None
    say(f"Published commit {commit[:7]}: students get it at their next link click.")
    return 0


def cmd_hub_grade(extra: list[str]) -> int:
    """The grading cycle (classroom/grading/cli.py), run as root with the hub's Python, which has nbgrader."""
    import subprocess

    python = install.venv_python(install.DEFAULT_HOME)
    if extra[:1] in (["-h"], ["--help"]) or not extra:
        runner = python if python.exists() else Path(sys.executable)
        return subprocess.run([str(runner), "-m", "classroom.grading.cli", "--help"], cwd=ROOT).returncode
    try:
        launch.require_root()
    except launch.HubError as error:
        raise Failure(f"error: {error}") from None
    if not python.exists():
        raise Failure("error: the hub is not installed here yet: start it once with `sudo python3 run.py hub`")
    return subprocess.run([str(python), "-m", "classroom.grading.cli", *extra], cwd=ROOT).returncode
