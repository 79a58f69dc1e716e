"""The hub's settings file (classroom/hub/settings.py): ``run.py hub`` saves them in the state folder's
private/settings.json, readable by root only, and the hub's config loads them back, from the path given
or from the LAYERNORM_HUB_SETTINGS variable. No token is ever among them.
"""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from classroom.hub.settings import SETTINGS_VARIABLE, HubSettings  # noqa: E402


def _settings(tmp_path) -> HubSettings:
    (tmp_path / "private").mkdir()
    return HubSettings(
        state=str(tmp_path), ip="127.0.0.1", port=8123, students_file="/elsewhere/class.txt",
        extra_services=[{"name": "grader", "url": "http://127.0.0.1:9000"}], class_service=False,
    )  # fmt: skip


def test_settings_are_saved_in_private_for_root_only_and_load_back_the_same(tmp_path):
    settings = _settings(tmp_path)
    path = settings.save()
    assert path == tmp_path / "private" / "settings.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert HubSettings.load(str(path)) == settings


def test_the_settings_file_is_plain_indented_json_ending_in_a_newline(tmp_path):
    path = _settings(tmp_path).save()
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and '\n  "port": 8123,\n' in text
    data = json.loads(text)
    assert data["students_file"] == "/elsewhere/class.txt" and data["class_service"] is False
    assert not any("token" in key for key in data)


def test_without_a_path_the_settings_come_from_the_variable(tmp_path, monkeypatch):
    settings = _settings(tmp_path)
    monkeypatch.setenv(SETTINGS_VARIABLE, str(settings.save()))
    assert HubSettings.load() == settings
    assert HubSettings.load(None).port == 8123
