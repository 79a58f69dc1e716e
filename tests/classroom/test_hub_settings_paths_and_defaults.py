"""Where the class hub keeps its files (classroom/hub/settings.py, its docstring's map of the state folder) and
the defaults ``run.py hub`` starts from: students.txt, series.git, gitconfig, grading/ and private/ in the
state folder (default /srv/layernorm-hub); a class list or a series given elsewhere is used instead of the
state folder's own; the ports, the culler's times and the start-of-class limits as documented.
"""

from __future__ import annotations

from pathlib import Path

from classroom.hub.settings import DEFAULT_STATE, HubSettings


def test_the_state_folder_holds_each_file_under_its_documented_name():
    settings = HubSettings(state="/srv/class-a")
    assert settings.roster_path == Path("/srv/class-a/students.txt")
    assert settings.bare_repo == Path("/srv/class-a/series.git")
    assert settings.git_config == Path("/srv/class-a/gitconfig")
    assert settings.grading == Path("/srv/class-a/grading")
    assert settings.private == Path("/srv/class-a/private")


def test_by_default_the_hub_serves_its_own_copy_of_the_series():
    settings = HubSettings(state="/srv/class-a")
    assert settings.series_repo == "/srv/class-a/series.git"


def test_a_series_on_a_git_host_is_served_instead_of_the_copy():
    url = "https://git.example.edu/course/layernorm.git"
    settings = HubSettings(state="/srv/class-a", repo=url)
    assert settings.series_repo == url
    assert settings.bare_repo == Path("/srv/class-a/series.git")  # the copy's place is unchanged


def test_a_class_list_given_elsewhere_is_read_from_there():
    settings = HubSettings(state="/srv/class-a", students_file="/home/lecturer/class.txt")
    assert settings.roster_path == Path("/home/lecturer/class.txt")
    assert settings.private == Path("/srv/class-a/private")


def test_the_defaults_are_the_documented_ones():
    settings = HubSettings()
    assert DEFAULT_STATE == Path("/srv/layernorm-hub") and settings.state == "/srv/layernorm-hub"
    assert settings.roster_path == Path("/srv/layernorm-hub/students.txt")
    assert settings.home == "/opt/layernorm-hub"
    assert (settings.ip, settings.port, settings.hub_port, settings.proxy_api_port) == ("", 8000, 8081, 8001)
    assert (settings.class_service, settings.class_service_port, settings.class_db) == (True, 8002, "")
    assert (settings.idle_timeout, settings.cull_every) == (3600, 300)
    assert (settings.kernel_idle_timeout, settings.kernel_cull_every) == (1200, 60)
    assert (settings.concurrent_spawn_limit, settings.spawn_timeout) == (200, 180)
    assert settings.repo == "" and settings.students_file == "" and settings.extra_services == []


def test_each_hubs_extra_services_are_its_own():
    first, second = HubSettings(), HubSettings()
    first.extra_services.append({"name": "grader"})
    assert second.extra_services == []
