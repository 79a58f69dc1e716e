"""torch's CPU build is installed first on Linux, for run.py's .venv and for the class hub alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from classroom.hub import cpu_torch

ROOT = Path(__file__).resolve().parents[2]
FILES = (ROOT / "requirements.txt", ROOT / "classroom" / "requirements-hub.txt")


def test_both_environments_pin_the_same_torch():
    versions = {cpu_torch.pinned_torch(path) for path in FILES}
    assert len(versions) == 1 and None not in versions, versions


def test_on_linux_the_cpu_build_is_tried_as_configured_then_from_pytorchs_cpu_index(tmp_path):
    pins = tmp_path / "requirements.txt"
    pins.write_text("numpy>=1.26\ntorchvision==0.1  # not torch\ntorch==2.13.0   # the one\n", encoding="utf-8")
    first, second = cpu_torch.attempts(pins, platform="linux")
    assert first == ["torch==2.13.0+cpu"]
    assert second[-1] == "torch==2.13.0+cpu"
    assert second[second.index("--index-url") + 1] == "https://download.pytorch.org/whl/cpu"
    assert "https://pypi.org/simple" in second  # the CPU index holds torch; its dependencies come from PyPI


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_elsewhere_pypis_torch_is_already_the_cpu_build(tmp_path, platform):
    pins = tmp_path / "requirements.txt"
    pins.write_text("torch==2.13.0\n", encoding="utf-8")
    assert cpu_torch.attempts(pins, platform=platform) == []


@pytest.mark.parametrize("line", ["torch>=2.0", "torch", "# torch==2.13.0", "pytorch==2.13.0", "torch==2.13.0+cpu"])
def test_only_an_exact_pin_without_a_local_label_is_a_pin(tmp_path, line):
    pins = tmp_path / "requirements.txt"
    pins.write_text(line + "\n", encoding="utf-8")
    assert cpu_torch.pinned_torch(pins) is None
    assert cpu_torch.attempts(pins, platform="linux") == []


def test_run_py_installs_the_cpu_build_before_the_requirements_and_says_when_it_could_not(
    tmp_path, monkeypatch, capsys
):
    from tools.run import env

    pins = tmp_path / "requirements.txt"
    pins.write_text("torch==2.13.0\n", encoding="utf-8")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("", encoding="utf-8")
    monkeypatch.setattr(env, "venv_python", lambda where=venv: where / "bin" / "python")
    monkeypatch.setattr(cpu_torch.sys, "platform", "linux")
    for works in (True, False):
        calls = []

        def pip_install(args, what, where=venv, required=True, works=works, calls=calls):
            calls.append(args)
            return works or required

        monkeypatch.setattr(env, "pip_install", pip_install)
        (venv / env.STAMP.name).unlink(missing_ok=True)
        env.ensure_env(venv, pins)
        said = capsys.readouterr().out
        if works:  # found as configured: nothing more tried, then the requirements
            assert calls[0] == ["torch==2.13.0+cpu"] and calls[1] == ["-r", str(pins)], calls
            assert cpu_torch.FELL_BACK not in said
        else:  # both ways tried, then the requirements, and the learner is told
            assert calls[:2] == cpu_torch.attempts(pins, "linux") and calls[2] == ["-r", str(pins)], calls
            assert cpu_torch.FELL_BACK in said


def test_the_first_way_that_works_ends_the_tries_and_none_working_is_said(tmp_path, monkeypatch):
    pins = tmp_path / "requirements.txt"
    pins.write_text("torch==2.13.0\n", encoding="utf-8")
    monkeypatch.setattr(cpu_torch.sys, "platform", "linux")
    for works, expected_tries, expected_said in ((0, 1, []), (1, 2, []), (None, 2, [cpu_torch.FELL_BACK])):
        tried, said = [], []

        def install(args, tried=tried, works=works):
            tried.append(args)
            return len(tried) - 1 == works

        cpu_torch.install_first(pins, install, said.append)
        assert tried == cpu_torch.attempts(pins)[:expected_tries] and said == expected_said, (works, tried, said)
