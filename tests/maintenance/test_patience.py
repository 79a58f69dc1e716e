"""The tests' one rule for how long a wait may take (tests/patience.py): a quiet machine's time, scaled."""

from __future__ import annotations

import patience
import pytest
from patience import Deadline, scaled_ms, scaled_s, time_limit_s


def test_the_factor_can_be_chosen_and_a_bad_one_is_one_sentence(monkeypatch):
    monkeypatch.setenv(patience.PATIENCE_VARIABLE, "2.5")
    assert patience.patience() == 2.5
    assert scaled_s(10) == 25 and scaled_ms(30_000) == 75_000
    for bad in ("0", "-1", "slow"):
        monkeypatch.setenv(patience.PATIENCE_VARIABLE, bad)
        with pytest.raises(ValueError, match="must be a positive number"):
            patience.patience()


def test_a_time_limit_is_the_quiet_machines_scaled_to_two_places_and_never_shorter(monkeypatch):
    for factor, limit in (("1", 0.2), ("1.37", 0.27), ("2.5", 0.5), ("1.001", 0.2)):
        monkeypatch.setenv(patience.PATIENCE_VARIABLE, factor)
        assert time_limit_s(0.2) == limit  # printed with :g by the product, so two places at most
    monkeypatch.setenv(patience.PATIENCE_VARIABLE, "1.04")
    assert time_limit_s(0.123) == 0.13


def test_the_measured_factor_follows_the_load_per_core_within_its_bounds(monkeypatch):
    monkeypatch.delenv(patience.PATIENCE_VARIABLE, raising=False)
    monkeypatch.setattr(patience.os, "cpu_count", lambda: 2)
    for load, factor in (((0.3, 0.1, 0.0), 1.0), ((4.0, 3.0, 1.0), 2.0), ((2.0, 7.0, 1.0), 3.5), ((90, 90, 90), 8.0)):
        monkeypatch.setattr(patience.os, "getloadavg", lambda load=load: load)
        assert patience.patience() == factor


def test_a_deadline_grows_when_the_machine_gets_busier_and_never_shrinks(monkeypatch):
    monkeypatch.setenv(patience.PATIENCE_VARIABLE, "1")
    deadline = Deadline(0.05)
    assert not deadline.expired() and deadline.limit == pytest.approx(0.05)
    monkeypatch.setenv(patience.PATIENCE_VARIABLE, "1000")
    assert not deadline.expired() and deadline.limit == pytest.approx(50)
    monkeypatch.setenv(patience.PATIENCE_VARIABLE, "1")
    assert not deadline.expired() and deadline.limit == pytest.approx(50)
    assert "0.05 s on a quiet machine" in str(deadline)
