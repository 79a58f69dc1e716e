"""Where the class hub keeps its files, and the settings ``run.py hub`` hands to the hub's config.

The state folder (default /srv/layernorm-hub) holds::

    students.txt      the class list the lecturer edits (see roster.py)
    series.git        the series as the students' nbgitpuller reads it (see mirror.py)
    gitconfig         the students' system git config that allows reading series.git
    grading/          nbgrader's course (root and the instructors only), its exchange and the
                      students' and instructors' Jupyter configuration (classroom/grading/hubsetup.py)
    private/          mode 700, root only: the hub's database, cookie secret, the students'
                      password hashes, settings.json, and the hub's log when it runs in the background

No token is ever written here: the admin token lives only in the LAYERNORM_HUB_API_TOKEN
variable of the process that starts the hub.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

DEFAULT_STATE = Path("/srv/layernorm-hub")
SETTINGS_VARIABLE = "LAYERNORM_HUB_SETTINGS"
TOKEN_VARIABLE = "LAYERNORM_HUB_API_TOKEN"
# One thread per student: numpy's BLAS and torch otherwise start one per core of the machine, and
# 120 kernels × all the cores is far more threads than cores.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")


@dataclass
class HubSettings:
    state: str = str(DEFAULT_STATE)
    home: str = "/opt/layernorm-hub"  # the hub's environment and proxy (install.py)
    ip: str = ""  # "" listens on every address; the tests use 127.0.0.1
    port: int = 8000
    hub_port: int = 8081  # the hub's own API, on 127.0.0.1
    proxy_api_port: int = 8001  # the proxy's API, on 127.0.0.1
    repo: str = ""  # what nbgitpuller clones; "" means the local copy, state/series.git
    students_file: str = ""  # "" means state/students.txt
    idle_timeout: int = 3600  # seconds without activity before a student's server is stopped
    cull_every: int = 300  # how often the culler looks
    kernel_idle_timeout: int = 1200  # an idle kernel (the memory-heavy part) is shut down sooner
    kernel_cull_every: int = 60
    concurrent_spawn_limit: int = 200  # spawns in flight at once (the start-of-class rush)
    spawn_timeout: int = 180  # seconds a server may take to start when 100 start at once
    extra_services: list = field(default_factory=list)  # further hub-managed services (their dicts)
    class_service: bool = True  # the `class` service: the checker's verdicts, live for the lecturer
    class_service_port: int = 8002  # the class service, on 127.0.0.1
    class_db: str = ""  # the class results: an SQLite file or an SQLAlchemy URL; "" means private/class-results.sqlite

    @property
    def private(self) -> Path:
        return Path(self.state) / "private"

    @property
    def grading(self) -> Path:
        """nbgrader's course, exchange and the servers' configuration (classroom/grading/hubsetup.py)."""
        return Path(self.state) / "grading"

    @property
    def bare_repo(self) -> Path:
        return Path(self.state) / "series.git"

    @property
    def git_config(self) -> Path:
        return Path(self.state) / "gitconfig"

    @property
    def roster_path(self) -> Path:
        return Path(self.students_file) if self.students_file else Path(self.state) / "students.txt"

    @property
    def series_repo(self) -> str:
        return self.repo or str(self.bare_repo)

    def save(self) -> Path:
        path = self.private / "settings.json"
        path.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
        path.chmod(0o600)
        return path

    @classmethod
    def load(cls, path: str | None = None) -> HubSettings:
        path = path or os.environ[SETTINGS_VARIABLE]
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))
