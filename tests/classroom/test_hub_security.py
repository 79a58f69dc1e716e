"""On the class hub a student reaches only their own server, files and results, and the admin
token never lands in a file, a log or a student's process.

Every check goes through the real parts (JupyterHub, the proxy, the students' servers and
kernels as their own Unix users), as a curious or careless student would try it.
"""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

import pytest

from classroom.hub import accounts, install
from classroom.sim.client import Student

from hub_support import PASSWORD, class_hub, run_async

pytestmark = pytest.mark.hub

ALICE, BOB, CAROL = "sec-alice", "sec-bob", "sec-carol"
TEACHER = "sec-teach"


STATE: list[Path] = []  # the running hub's state folder, for the token search


@pytest.fixture(scope="module")
def hub():
    with class_hub([ALICE, BOB, CAROL], [TEACHER]) as running:
        STATE[:] = [Path(running.settings.state)]
        yield running


async def started(hub, name: str, pull: bool = True) -> Student:
    student = Student(hub.url, name, PASSWORD)
    await student.sign_in()
    await student.spawn()
    if pull:
        await student.pull(hub.settings.series_repo)
    return student


def listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on, read from /proc (root can read any process)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # state LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_a_student_cannot_reach_another_students_server(hub):
    async def attempt():
        alice = await started(hub, ALICE)
        bob = await started(hub, BOB)
        try:
            own = await alice.request(f"/user/{ALICE}/api/contents")
            other = await alice.request(f"/user/{BOB}/api/contents")
            other_kernels = await alice.request(f"/user/{BOB}/api/kernels")
            start_other = await alice.request(f"/hub/api/users/{CAROL}/server", "POST", {})
            read_other = await alice.request(f"/hub/api/users/{BOB}")
            tokens_other = await alice.request(f"/hub/api/users/{BOB}/tokens", "POST", {})
            # Past the proxy: straight to Bob's server's own port on 127.0.0.1, from Alice's kernel.
            status, user = hub.api(f"/users/{BOB}", hub.token)
            pid = user["servers"][""]["state"]["pid"]
            port = min(listening_ports(pid))
            kernel = await alice.open_kernel("02_mean.ipynb")
            direct = await kernel.run(
                "import urllib.request, urllib.error\n"
                f"url = 'http://127.0.0.1:{port}/user/{BOB}/api/contents'\n"
                "try:\n    print(urllib.request.urlopen(url, timeout=10).status)\n"
                "except urllib.error.HTTPError as e:\n    print(e.code)\n"
            )
            await kernel.close()
            return own[0], other[0], other_kernels[0], start_other[0], read_other[0], tokens_other[0], direct["text"]
        finally:
            await alice.stop_server()
            await bob.stop_server()

    own, other, other_kernels, start_other, read_other, tokens_other, direct = run_async(attempt())
    assert own == 200
    assert other == 403 and other_kernels == 403
    assert start_other in (403, 404) and read_other in (403, 404) and tokens_other in (403, 404)
    assert direct.strip() in ("302", "403"), direct  # no token: sent to log in, never served


def test_a_students_kernel_cannot_read_another_students_files(hub):
    async def attempt():
        carol = await started(hub, CAROL)
        alice = await started(hub, ALICE)
        try:
            kernel = await alice.open_kernel("02_mean.ipynb")
            home = pwd.getpwnam(CAROL).pw_dir
            answer = await kernel.run(
                "import os\nfor path in ("
                f"{home!r}, {home + '/layernorm-step-by-step/README.md'!r}, {home + '/.local/share/jupyter'!r}):\n"
                "    try:\n        open(path).read() if path.endswith('.md') else os.listdir(path)\n"
                "        print('opened', path)\n"
                "    except PermissionError:\n        print('refused', path)\n"
            )
            await kernel.close()
            return answer["text"]
        finally:
            await alice.stop_server()
            await carol.stop_server()

    text = run_async(attempt())
    assert "opened" not in text and text.count("refused") == 3, text
    assert Path(pwd.getpwnam(CAROL).pw_dir).stat().st_mode & 0o777 == 0o700


def login_status(hub, name: str, password: str) -> tuple[int, dict]:
    async def attempt():
        student = Student(hub.url, name, password)
        return await student.login(), dict(student.cookies)

    return run_async(attempt())


def stored_password(hub, name: str) -> str:
    """The password hash the authenticator stored for ``name`` ("" for none), read with the hub's own
    Python: its dbm module (Debian's, gdbm) may be one this test's Python does not have."""
    python = install.venv_python(Path(hub.settings.home))
    script = (
        "import dbm, sys\ntry:\n    db = dbm.open(sys.argv[1], 'r')\nexcept dbm.error:\n    print('')\n"
        "else:\n    print((db.get(sys.argv[2].encode()) or b'').hex())"
    )
    path = str(hub.settings.private / "passwords.dbm")
    return subprocess.run(
        [str(python), "-c", script, path, name], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_name_not_on_the_class_list_cannot_log_in_and_leaves_nothing(hub):
    status, cookies = login_status(hub, "mallory", "a-long-enough-password")
    assert status != 302 and "jupyterhub-hub-login" not in cookies
    assert hub.api("/users/mallory", hub.token)[0] == 404
    assert not accounts.is_student_account("mallory")
    with pytest.raises(KeyError):
        pwd.getpwnam("mallory")
    assert not Path("/home/mallory").exists()
    assert stored_password(hub, "mallory") == ""


def test_a_bad_login_changes_nothing(hub):
    assert login_status(hub, BOB, PASSWORD)[0] == 302  # Bob's password is set (first login)
    before = stored_password(hub, BOB)
    assert before  # a bcrypt hash
    status, cookies = login_status(hub, BOB, "not-bobs-password")
    assert status != 302 and "jupyterhub-hub-login" not in cookies
    assert stored_password(hub, BOB) == before
    _, user = hub.api(f"/users/{BOB}", hub.token)
    assert not user["servers"], "a failed login started a server"


def test_a_too_short_first_password_is_refused_and_not_stored(hub):
    status, _ = login_status(hub, TEACHER, "short")
    assert status != 302
    assert stored_password(hub, TEACHER) == ""
    assert login_status(hub, TEACHER, PASSWORD)[0] == 302  # a real one still works afterwards


def test_the_admin_token_is_in_no_file_log_or_student_process(hub):
    token = hub.token.encode()

    async def use_the_hub_then_look():
        student = await started(hub, ALICE)
        try:
            kernel = await student.open_kernel("02_mean.ipynb")
            names = await kernel.run("import os; print(sorted(k for k in os.environ if 'TOKEN' in k))")
            leaks = look_for(token, ALICE)
            await kernel.close()
            return names["text"], leaks
        finally:
            await student.stop_server()

    assert hub.api("/users", hub.token)[0] == 200  # the token works: it is registered
    names, leaks = run_async(use_the_hub_then_look())
    assert "LAYERNORM_HUB_API_TOKEN" not in names, names
    assert not leaks, f"the admin token was found in: {leaks}"


def look_for(token: bytes, running_student: str) -> list[str]:
    """Every file of the hub's state and the students' homes, and the running student's processes."""
    leaks = []
    homes = [Path(pwd.getpwnam(n).pw_dir) for n in (ALICE, BOB, CAROL, TEACHER)]
    for place in [*STATE, *homes]:
        for path in place.rglob("*"):
            if path.is_file() and not path.is_symlink() and token in path.read_bytes():
                leaks.append(str(path))
    uid = pwd.getpwnam(running_student).pw_uid
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if proc.stat().st_uid == uid and token in (proc / "environ").read_bytes():
                    leaks.append(f"environment of process {proc.name}")
            except (FileNotFoundError, PermissionError, ProcessLookupError):
                continue
    return leaks
