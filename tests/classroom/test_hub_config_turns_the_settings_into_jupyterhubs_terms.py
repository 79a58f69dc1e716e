"""classroom/jupyterhub_config.py, loaded here as JupyterHub loads it (its ``get_config`` a traitlets Config),
from a settings file and a class list of this test's: who may log in and who is an admin, the admin token's
service only when its variable is set, the idle culler's command and its role, each server's environment (one
thread, its runtime folder in its home, the students' or the instructors' Jupyter configuration first), the
kernels' culling and their Unix sockets, the spawn limits, the class service and what the servers need to
reach it; and its hooks: a server never starts as an account the hub did not make, each server takes its
own port from the hub's book and gives it back when it stops.
"""

from __future__ import annotations

import runpy
import sys
import types
from pathlib import Path

import pytest
from traitlets.config import Config

from classroom.hub import accounts
from classroom.hub.settings import SETTINGS_VARIABLE, TOKEN_VARIABLE, HubSettings

CONFIG = Path(__file__).resolve().parents[2] / "classroom" / "jupyterhub_config.py"
THREADS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")


@pytest.fixture
def load(tmp_path, monkeypatch):
    """Load the configuration with these settings; (the Config, the file's globals)."""
    monkeypatch.setattr(sys, "path", list(sys.path))  # the file puts the repository first
    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)
    (tmp_path / "private").mkdir(exist_ok=True)
    (tmp_path / "students.txt").write_text("ana\nbo\nteach instructor\n", encoding="utf-8")

    def loaded(**settings):
        path = HubSettings(state=str(tmp_path), ip="127.0.0.1", port=8123, **settings).save()
        monkeypatch.setenv(SETTINGS_VARIABLE, str(path))
        config = Config()
        space = runpy.run_path(str(CONFIG), init_globals={"get_config": lambda: config})
        return config, space

    return loaded


def spawner(name: str, server: str = ""):
    log = types.SimpleNamespace(warnings=[])
    log.warning = lambda *args: log.warnings.append(args)
    return types.SimpleNamespace(user=types.SimpleNamespace(name=name), name=server, port=None, log=log)


def test_only_the_class_list_logs_in_and_its_instructors_are_admins(load):
    c, _ = load()
    assert c.Authenticator.allowed_users == {"ana", "bo", "teach"}
    assert c.FirstUseAuthenticator.create_users is False
    assert c.FirstUseAuthenticator.min_password_length == 8
    assert c.JupyterHub.load_groups == {"instructors": {"users": ["teach"]}}
    admin = c.JupyterHub.load_roles[0]
    assert admin == {"name": "admin", "groups": ["instructors"], "services": []}


def test_where_the_hub_listens_and_keeps_its_state(load, tmp_path):
    c, _ = load()
    assert c.JupyterHub.bind_url == "http://127.0.0.1:8123/"
    assert (c.JupyterHub.hub_ip, c.JupyterHub.hub_port) == ("127.0.0.1", 8081)
    assert c.ConfigurableHTTPProxy.api_url == "http://127.0.0.1:8001"
    assert c.JupyterHub.db_url == f"sqlite:///{tmp_path / 'private' / 'jupyterhub.sqlite'}"
    assert c.JupyterHub.cookie_secret_file == str(tmp_path / "private" / "jupyterhub_cookie_secret")


def test_the_admin_token_is_a_service_only_when_its_variable_is_set(load, monkeypatch):
    c, _ = load(class_service=False)
    assert [s["name"] for s in c.JupyterHub.services] == ["idle-culler"]
    monkeypatch.setenv(TOKEN_VARIABLE, "t0ken")
    c, _ = load(class_service=False)
    assert c.JupyterHub.services[0] == {"name": "layernorm-admin", "api_token": "t0ken"}
    assert c.JupyterHub.load_roles[0]["services"] == ["layernorm-admin"]


def test_the_idle_culler_runs_with_the_settings_times_and_only_its_scopes(load):
    c, _ = load(idle_timeout=900, cull_every=120, class_service=False)
    culler = c.JupyterHub.services[0]
    assert culler == {
        "name": "idle-culler",
        "command": [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=900", "--cull-every=120"],
    }
    assert c.JupyterHub.load_roles[1] == {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }


def test_further_services_follow_the_culler_and_the_class_service_comes_last(load):
    extra = {"name": "grader", "url": "http://127.0.0.1:9000"}
    c, _ = load(extra_services=[extra])
    assert [s["name"] for s in c.JupyterHub.services] == ["idle-culler", "grader", "class"]


def test_each_server_has_one_thread_and_the_hubs_tools_first_on_its_path(load):
    c, _ = load()
    env = c.Spawner.environment
    assert all(env[name] == "1" for name in THREADS)
    assert env["PATH"] == f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"
    assert c.Spawner.cmd == [str(Path(sys.executable).parent / "jupyterhub-singleuser")]
    assert c.Spawner.disable_user_config is True


def test_a_servers_runtime_folder_is_in_its_own_home(load, monkeypatch):
    c, _ = load()
    import pwd

    entry = pwd.struct_passwd(("ana", "x", 5000, 5000, "", "/home/ana", "/bin/sh"))
    monkeypatch.setattr(pwd, "getpwnam", lambda name: entry)
    assert c.Spawner.environment["JUPYTER_RUNTIME_DIR"](spawner("ana")) == "/home/ana/.jupyter-run"


def test_instructors_read_their_jupyter_configuration_first_and_students_only_theirs(load, tmp_path):
    c, _ = load()
    path = c.Spawner.environment["JUPYTER_CONFIG_PATH"]
    jupyter = tmp_path / "grading" / "jupyter"
    assert path(spawner("teach")) == f"{jupyter / 'instructors'}:{jupyter / 'students'}"
    assert path(spawner("ana")) == str(jupyter / "students")


def test_kernels_are_culled_by_the_settings_and_speak_over_unix_sockets(load):
    c, _ = load(kernel_idle_timeout=600, kernel_cull_every=30)
    assert c.Spawner.args == [
        "--MappingKernelManager.cull_idle_timeout=600",
        "--MappingKernelManager.cull_interval=30",
        "--MappingKernelManager.cull_connected=False",
        "--KernelManager.transport=ipc",
    ]


def test_the_spawn_limits_come_from_the_settings(load):
    c, _ = load(spawn_timeout=240, concurrent_spawn_limit=50)
    assert c.Spawner.http_timeout == c.Spawner.start_timeout == 240
    assert c.JupyterHub.concurrent_spawn_limit == 50


def test_the_class_service_runs_on_its_port_with_its_database_in_the_environment(load, tmp_path):
    c, _ = load(class_service_port=8765)
    service = c.JupyterHub.services[-1]
    assert service["name"] == "class" and service["url"] == "http://127.0.0.1:8765"
    assert service["command"] == [sys.executable, "-m", "classroom.service"]
    assert service["environment"] == {"LAYERNORM_CLASS_DB": str(tmp_path / "private" / "class-results.sqlite")}
    assert service["cwd"] == str(CONFIG.parent.parent) and service["oauth_no_confirm"] is True
    assert c.Spawner.environment["LAYERNORM_CLASS_URL"] == "http://127.0.0.1:8765/services/class/"
    assert c.JupyterHub.extra_user_scopes == {"access:services!service=class"}
    assert c.Spawner.server_token_scopes == [
        "users:activity!user",
        "access:servers!server",
        "access:services!service=class",
    ]
    assert all(c.Spawner.environment[name] == "1" for name in THREADS)  # the environment kept, not replaced
    assert callable(c.Spawner.environment["JUPYTER_CONFIG_PATH"])


def test_a_class_database_given_is_the_services(load):
    c, _ = load(class_db="postgresql://u:p@db/class")
    assert c.JupyterHub.services[-1]["environment"] == {"LAYERNORM_CLASS_DB": "postgresql://u:p@db/class"}


def test_without_the_class_service_the_servers_are_not_told_of_one(load):
    c, _ = load(class_service=False)
    assert "class" not in [s["name"] for s in c.JupyterHub.services]
    assert "LAYERNORM_CLASS_URL" not in c.Spawner.environment


def test_a_server_never_starts_as_an_account_the_hub_did_not_make(load, monkeypatch):
    c, space = load()
    monkeypatch.setattr(accounts, "is_student_account", lambda name: name == "ana")
    with pytest.raises(RuntimeError) as refused:
        c.Spawner.pre_spawn_hook(spawner("root"))
    assert str(refused.value) == "'root' has no student account on this machine; ask the lecturer to add them"
    assert space["server_ports"].held == {}  # refused before any port was taken


def test_each_server_takes_its_own_port_and_gives_it_back_when_it_stops(load, monkeypatch):
    c, space = load()
    monkeypatch.setattr(accounts, "is_student_account", lambda name: True)
    ended = []
    monkeypatch.setattr(accounts, "end_leftovers", lambda name: ended.append(name) or 0)
    book = space["server_ports"]
    ana, bo = spawner("ana"), spawner("bo", "second")
    c.Spawner.pre_spawn_hook(ana)
    c.Spawner.pre_spawn_hook(bo)
    assert book.held == {"ana/": ana.port, "bo/second": bo.port} and ana.port != bo.port
    c.Spawner.post_stop_hook(ana)
    assert book.held == {"bo/second": bo.port} and ended == ["ana"]
    assert ana.log.warnings == []  # nothing was left running


@pytest.mark.parametrize("count", [1, 3])
def test_processes_left_running_after_a_server_are_ended_and_logged(load, monkeypatch, count):
    c, _ = load()
    monkeypatch.setattr(accounts, "end_leftovers", lambda name: count)
    ana = spawner("ana")
    c.Spawner.post_stop_hook(ana)
    assert ana.log.warnings == [("ended %d process(es) %s left running after their server stopped", count, "ana")]


def test_landing_on_a_server_pulls_the_series_from_the_hubs_copy_or_the_repository_given(load, tmp_path):
    from urllib.parse import parse_qs, urlsplit

    c, _ = load()
    url = urlsplit(c.Spawner.default_url)
    assert url.path == "/git-pull"
    assert parse_qs(url.query)["repo"] == [str(tmp_path / "series.git")]
    assert parse_qs(url.query)["urlpath"][0].endswith("/notebooks/00_contents.ipynb")
    c, _ = load(repo="https://example.org/series.git")
    assert parse_qs(urlsplit(c.Spawner.default_url).query)["repo"] == ["https://example.org/series.git"]
    assert c.Spawner.environment["GIT_CONFIG_SYSTEM"] == str(tmp_path / "gitconfig")


def test_passwords_servers_and_the_proxy_are_the_hubs_own(load, tmp_path):
    c, _ = load()
    assert c.JupyterHub.authenticator_class == "firstuseauthenticator"
    assert c.FirstUseAuthenticator.dbm_path == str(tmp_path / "private" / "passwords.dbm")
    assert c.JupyterHub.spawner_class == "localprocess" and c.Spawner.notebook_dir == "~"
    assert c.JupyterHub.pid_file == str(tmp_path / "private" / "jupyterhub.pid")
    assert c.ConfigurableHTTPProxy.command == ["/opt/layernorm-hub/proxy/node_modules/.bin/configurable-http-proxy"]
