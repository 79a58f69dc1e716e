"""JupyterHub's configuration for a class: read by the hub that ``python3 run.py hub`` starts.

Everything that varies (ports, folders, the class list, time-outs) comes from the settings file
``run.py hub`` writes (classroom/hub/settings.py); this file turns it into JupyterHub's terms.
Each choice says why; classroom/README.md says how a lecturer changes them.
"""

import os
import pwd
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: `import classroom`

from classroom.grading import hubconfig  # noqa: E402
from classroom.hub import accounts, roster  # noqa: E402
from classroom.hub.link import pull_query  # noqa: E402
from classroom.hub.ports import PortBook  # noqa: E402
from classroom.hub.settings import THREAD_VARIABLES, TOKEN_VARIABLE, HubSettings  # noqa: E402

c = get_config()  # noqa: F821 (JupyterHub's config loader defines it)
settings = HubSettings.load()
private = settings.private
venv_bin = Path(sys.executable).parent

# --- where the hub listens and keeps its state ------------------------------
c.JupyterHub.bind_url = f"http://{settings.ip}:{settings.port}/"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = settings.hub_port
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{settings.proxy_api_port}"
c.ConfigurableHTTPProxy.command = [
    str(Path(settings.home) / "proxy" / "node_modules" / ".bin" / "configurable-http-proxy")
]
c.JupyterHub.db_url = f"sqlite:///{private / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(private / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(private / "jupyterhub.pid")

# --- who may log in -----------------------------------------------------------
# Only the names in the class list. Each chooses a password the first time they log in; the hash
# (bcrypt) stays in private/. A university's OAuth replaces this: see classroom/README.md.
class_list = roster.read(settings.roster_path)
c.JupyterHub.authenticator_class = "firstuseauthenticator"
c.FirstUseAuthenticator.dbm_path = str(private / "passwords.dbm")
c.FirstUseAuthenticator.create_users = False  # a name not on the list never gets an account
c.FirstUseAuthenticator.min_password_length = 8
c.Authenticator.allowed_users = set(class_list.everyone)
# Instructors are a hub group with the admin role: they see every student's server.
c.JupyterHub.load_groups = {"instructors": {"users": list(class_list.instructors)}}
roles = [{"name": "admin", "groups": ["instructors"], "services": []}]

# --- services ---------------------------------------------------------------------
services = []
if os.environ.get(TOKEN_VARIABLE):
    # For scripts and tests: an admin token from the environment, registered as a service token.
    # JupyterHub keeps only its hash; the token itself is never written to a file or a log.
    services.append({"name": "layernorm-admin", "api_token": os.environ[TOKEN_VARIABLE]})
    roles[0]["services"].append("layernorm-admin")
# The idle culler stops servers nobody has used for idle_timeout seconds, so a class that forgot
# to log out does not hold the machine's memory overnight.
services.append(
    {
        "name": "idle-culler",
        "command": [
            sys.executable,
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={settings.idle_timeout}",
            f"--cull-every={settings.cull_every}",
        ],
    }
)
roles.append(
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
)
services += settings.extra_services
c.JupyterHub.services = services
c.JupyterHub.load_roles = roles

# --- each student's server ------------------------------------------------------
# LocalProcessSpawner runs `jupyterhub-singleuser` as the student's own Unix user.
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(venv_bin / "jupyterhub-singleuser")]
c.Spawner.notebook_dir = "~"
c.Spawner.disable_user_config = True  # a student's ~/.jupyter cannot change what the server allows
# Landing on the server pulls the series (or its newest fixes) and opens the contents.
c.Spawner.default_url = f"/git-pull?{pull_query(settings.series_repo)}"
c.Spawner.environment = {
    **{name: "1" for name in THREAD_VARIABLES},
    "GIT_CONFIG_SYSTEM": str(settings.git_config),  # lets the student's git read series.git
    "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    # Where the server keeps its kernels' connection files and (below) their sockets: short, because
    # a Unix socket's path may hold 107 bytes and a student's name 31.
    "JUPYTER_RUNTIME_DIR": lambda spawner: str(Path(pwd.getpwnam(spawner.user.name).pw_dir) / ".jupyter-run"),
}
c.Spawner.args = [
    # Kernels hold most of a student's memory (torch's ≈ 0.5 GB): an idle one is shut down.
    f"--MappingKernelManager.cull_idle_timeout={settings.kernel_idle_timeout}",
    f"--MappingKernelManager.cull_interval={settings.kernel_cull_every}",
    "--MappingKernelManager.cull_connected=False",
    # A kernel and its server speak over Unix sockets in the student's own runtime folder, not over
    # ports on 127.0.0.1. On TCP any user of the machine can reach a kernel's ports (only its key
    # guards them), and twenty servers picking free ports at once can pick the same one: the kernel
    # that finds its port taken dies as it starts, and after five restarts on the same ports is dead.
    "--KernelManager.transport=ipc",
]
# nbgrader (classroom/grading/hubconfig.py): students get the assignment list (fetch, submit, fetch
# feedback) and validate; the instructors also the formgrader, the course list and "create
# assignment". Their Jupyter configuration folder comes first on the path; disable_user_config keeps
# a student's own ~/.jupyter out of it. The course folder's permissions do the protecting
# (hubsetup.py): a formgrader a student turned on would find nothing it could read.
instructors = frozenset(class_list.instructors)
jupyter_config = settings.grading / "jupyter"
c.Spawner.environment["JUPYTER_CONFIG_PATH"] = lambda spawner: hubconfig.config_path(
    jupyter_config, spawner.user.name in instructors
)

# At the start of class many servers start at once; on a small machine each takes seconds of CPU.
c.Spawner.http_timeout = settings.spawn_timeout
c.Spawner.start_timeout = settings.spawn_timeout
c.JupyterHub.concurrent_spawn_limit = settings.concurrent_spawn_limit


def refuse_foreign_accounts(spawner):
    """Never start a server as an account the hub did not create (root, a system or staff user)."""
    name = spawner.user.name
    if not accounts.is_student_account(name):
        raise RuntimeError(f"{name!r} has no student account on this machine; ask the lecturer to add them")


# Each server's port from the hub's own book, not the system's "any free port": two servers started at
# once were handed the same one, and one student's requests went to the other's server (classroom/hub/ports.py).
server_ports = PortBook()


def server_owner(spawner) -> str:
    return f"{spawner.user.name}/{spawner.name}"


def before_spawn(spawner):
    refuse_foreign_accounts(spawner)
    spawner.port = server_ports.take(server_owner(spawner))


c.Spawner.pre_spawn_hook = before_spawn


def end_leftover_processes(spawner):
    """Free a stopped student's memory: kill kernels that outlived their server (accounts.end_leftovers);
    and give its port back."""
    server_ports.give_back(server_owner(spawner))
    ended = accounts.end_leftovers(spawner.user.name)
    if ended:
        spawner.log.warning("ended %d process(es) %s left running after their server stopped", ended, spawner.user.name)


c.Spawner.post_stop_hook = end_leftover_processes


# --- the class service: the checker's verdicts, live for the lecturer ---
# classroom/service/: each kernel posts helpers.exercises.check's verdict with the student's own
# token; the lecturer watches /services/class/ (hub admins and the instructors group only).
if settings.class_service:
    class_url = f"http://127.0.0.1:{settings.class_service_port}"
    services.append(
        {
            "name": "class",
            "url": class_url,
            "command": [sys.executable, "-m", "classroom.service"],
            # In the environment, not the command line: `ps` shows any user the command line, and a
            # PostgreSQL URL may hold a password.
            "environment": {"LAYERNORM_CLASS_DB": settings.class_db or str(private / "class-results.sqlite")},
            "cwd": str(Path(__file__).resolve().parent.parent),  # the repository: `-m classroom.service`
            "oauth_no_confirm": True,  # the lecturer's page opens without a "grant access?" page
        }
    )
    c.JupyterHub.services = services
    # Every user may reach the service (students post, lecturers read); what each may do there
    # is the service's decision (classroom/service/app.py). JupyterHub 6 adds this to the user role.
    c.JupyterHub.extra_user_scopes = {"access:services!service=class"}
    # The kernels post with the server's own JUPYTERHUB_API_TOKEN: the default server scopes, and this one.
    c.Spawner.server_token_scopes = ["users:activity!user", "access:servers!server", "access:services!service=class"]
    # Straight to the service on loopback (no proxy hop); helpers/checking/class_record.py sends only when set.
    c.Spawner.environment = {**c.Spawner.environment, "LAYERNORM_CLASS_URL": f"{class_url}/services/class/"}
