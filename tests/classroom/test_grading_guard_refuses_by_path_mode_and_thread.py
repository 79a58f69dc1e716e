"""The grading process's audit hook (classroom/grading/runner.py, ``_guard``), called here as Python would call
it, never installed in this process: it refuses reading inside a forbidden folder (not a sibling whose name
merely starts the same), opening to write (by mode or by flags), importing ``lecturer``, listing a forbidden
folder, each of the catalogued events, ctypes and listing every thread's frames; each refusal is one
``PermissionError`` sentence and one note in ``refused``; the main thread (the watchdog) is never refused.
"""

from __future__ import annotations

import os
import threading

import pytest

from classroom.grading import runner

OTHER_THREAD = -1  # the hook refuses in every thread but this one: here, the test's own thread is "the worker"


@pytest.fixture
def guard(tmp_path):
    forbidden = tmp_path / "lecturer"
    forbidden.mkdir()
    refused: list[str] = []
    hook = runner._guard([str(forbidden)], refused, OTHER_THREAD)
    return hook, refused, forbidden


def refusal(hook, event, args) -> str | None:
    try:
        hook(event, args)
    except PermissionError as error:
        return str(error)
    return None


def test_reading_inside_a_forbidden_folder_is_refused_in_one_sentence(guard):
    hook, refused, forbidden = guard
    said = refusal(hook, "open", (str(forbidden / "solutions.py"), "r", os.O_RDONLY))
    assert said == "Not allowed while grading: read the solutions or the course's files."
    assert refused == ["read the solutions or the course's files"]


def test_the_forbidden_folder_itself_and_its_depths_are_refused(guard):
    hook, refused, forbidden = guard
    assert refusal(hook, "open", (str(forbidden), "r", os.O_RDONLY)) is not None
    assert refusal(hook, "open", (os.fsencode(forbidden / "a" / "b.py"), "r", os.O_RDONLY)) is not None
    assert refusal(hook, "open", (forbidden.parent / "x" / ".." / "lecturer" / "s.py", "r", 0)) is not None
    assert len(refused) == 3


def test_a_sibling_whose_name_starts_the_same_is_not_forbidden(guard):
    hook, refused, forbidden = guard
    assert refusal(hook, "open", (str(forbidden) + "-notes.txt", "r", os.O_RDONLY)) is None
    assert refusal(hook, "open", (str(forbidden.parent / "lecturer2" / "a.py"), "r", os.O_RDONLY)) is None
    assert refusal(hook, "open", (str(forbidden.parent), "r", os.O_RDONLY)) is None
    assert refused == []


def test_a_link_into_the_forbidden_folder_is_refused(guard, tmp_path):
    hook, _, forbidden = guard
    (tmp_path / "way-in").symlink_to(forbidden)
    assert refusal(hook, "open", (str(tmp_path / "way-in" / "solutions.py"), "r", 0)) is not None


def test_an_open_file_descriptor_is_not_a_path():
    hook = runner._guard(["/"], [], OTHER_THREAD)
    assert refusal(hook, "open", (3, "r", os.O_RDONLY)) is None


@pytest.mark.parametrize("mode", ["w", "a", "x", "r+", "wb", "ab+"])
def test_opening_to_write_is_refused_by_mode(guard, tmp_path, mode):
    hook, refused, _ = guard
    assert refusal(hook, "open", (str(tmp_path / "out.txt"), mode, None)) == "Not allowed while grading: wrote a file."
    assert refused == ["wrote a file"]


@pytest.mark.parametrize("flag", [os.O_WRONLY, os.O_RDWR, os.O_CREAT, os.O_APPEND, os.O_TRUNC])
def test_opening_to_write_is_refused_by_flags(guard, tmp_path, flag):
    hook, refused, _ = guard
    assert refusal(hook, "open", (str(tmp_path / "out.txt"), None, flag)) == "Not allowed while grading: wrote a file."


def test_reading_elsewhere_is_allowed(guard, tmp_path):
    hook, refused, _ = guard
    assert refusal(hook, "open", (str(tmp_path / "in.txt"), "r", os.O_RDONLY)) is None
    assert refusal(hook, "open", (str(tmp_path / "in.txt"), "rb", os.O_RDONLY | os.O_CLOEXEC)) is None
    assert refused == []


def test_importing_the_lecturers_package_or_its_modules_is_refused_and_not_its_namesakes(guard):
    hook, refused, _ = guard
    assert refusal(hook, "import", ("lecturer", None, None, None, None)) == (
        "Not allowed while grading: read the solutions."
    )
    assert refusal(hook, "import", ("lecturer.solutions", None, None, None, None)) is not None
    assert refusal(hook, "import", ("lecturers", None, None, None, None)) is None
    assert refusal(hook, "import", ("helpers.lecturer", None, None, None, None)) is None
    assert refused == ["read the solutions", "read the solutions"]


@pytest.mark.parametrize("event", ["os.listdir", "os.scandir", "glob.glob"])
def test_listing_a_forbidden_folder_is_refused_and_listing_elsewhere_is_not(guard, tmp_path, event):
    hook, refused, forbidden = guard
    assert refusal(hook, event, (str(forbidden),)) == (
        "Not allowed while grading: read the solutions or the course's files."
    )
    assert refusal(hook, event, (str(tmp_path),)) is None
    assert refused == ["read the solutions or the course's files"]


@pytest.mark.parametrize("event, words", sorted(runner.WRITE_EVENTS.items()))
def test_each_catalogued_event_is_refused_in_its_own_words(guard, event, words):
    hook, refused, _ = guard
    assert refusal(hook, event, ()) == f"Not allowed while grading: {words}."
    assert refused == [words]


def test_the_catalogue_words_what_each_event_does():
    events = runner.WRITE_EVENTS
    assert {events[e] for e in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork")} == {
        "started a process"
    }
    assert events["socket.connect"] == events["socket.bind"] == "opened a network connection"
    assert events["os.remove"] == "deleted a file" and events["shutil.rmtree"] == "deleted a folder"
    assert events["os.rename"] == "renamed a file" and events["os.kill"] == "signalled a process"
    assert events["ctypes.dlopen"] == "loaded a native library"
    assert events["gc.get_objects"] == events["gc.get_referrers"] == "searched the grader's memory"


def test_ctypes_and_every_threads_frames_are_refused(guard):
    hook, refused, _ = guard
    assert refusal(hook, "ctypes.addressof", ()) == "Not allowed while grading: reached into memory with ctypes."
    assert refusal(hook, "sys._current_frames", ()) == "Not allowed while grading: searched the grader's memory."
    assert refused == ["reached into memory with ctypes", "searched the grader's memory"]


def test_what_the_standard_library_needs_is_left_alone(guard):
    hook, refused, _ = guard
    for event, args in (("sys._getframe", (None,)), ("compile", (b"", "<x>")), ("exec", (None,)), ("os.getcwd", ())):
        assert refusal(hook, event, args) is None
    assert refused == []


def test_the_main_thread_is_never_refused(tmp_path):
    refused: list[str] = []
    hook = runner._guard([str(tmp_path)], refused, threading.get_ident())
    assert refusal(hook, "open", (str(tmp_path / "s.py"), "w", os.O_WRONLY)) is None
    assert refusal(hook, "subprocess.Popen", ()) is None
    assert refusal(hook, "import", ("lecturer",)) is None
    assert refused == []

    seen = []
    worker = threading.Thread(target=lambda: seen.append(refusal(hook, "subprocess.Popen", ())))
    worker.start()
    worker.join()
    assert seen == ["Not allowed while grading: started a process."] and refused == ["started a process"]


# Python's audit events for what the docstring says the cell cannot do, listed here from the audit events table,
# not read from the runner's own catalogue: each must be refused with its kind's words.
MUST_REFUSE = {
    "deleted a file": ("os.remove",),
    "renamed a file": ("os.rename",),
    "deleted a folder": ("os.rmdir", "shutil.rmtree"),
    "made a folder": ("os.mkdir",),
    "changed a file's permissions": ("os.chmod",),
    "changed a file's owner": ("os.chown",),
    "linked a file": ("os.link", "os.symlink"),
    "truncated a file": ("os.truncate",),
    "changed a file's times": ("os.utime",),
    "copied a file": ("shutil.copyfile",),
    "started a process": (
        "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn",
    ),
    "opened a network connection": ("socket.connect", "socket.bind"),
    "loaded a native library": ("ctypes.dlopen",),
    "signalled a process": ("os.kill",),
    "searched the grader's memory": ("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames"),
}  # fmt: skip


@pytest.mark.parametrize("words, event", [(w, e) for w, events in MUST_REFUSE.items() for e in events])
def test_every_event_of_what_the_cell_cannot_do_is_refused(guard, words, event):
    hook, refused, _ = guard
    assert refusal(hook, event, ()) == f"Not allowed while grading: {words}."
