"""The class list is UTF-8 whatever the machine's locale: a hub started by a service manager often runs
with LANG unset (the C locale, ASCII), and a lecturer's comment may hold "É". Run in a child Python
with the C locale and neither UTF-8 mode nor locale coercion, so that a default encoding would be ASCII.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import sys
from pathlib import Path
from classroom.hub import roster
print(roster.read(Path(sys.argv[1])))
"""


def test_a_class_list_with_accents_reads_under_the_c_locale(tmp_path):
    path = tmp_path / "students.txt"
    path.write_text("# Élodie's group — the TA is José\nlecturer instructor\nalice\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHON"))}
    env.update(LC_ALL="C", LANG="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0", PYTHONPATH=str(ROOT))
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "Roster(students=('alice',), instructors=('lecturer',))"
