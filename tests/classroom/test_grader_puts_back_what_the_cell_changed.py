"""What the grading process undoes (classroom/grading/runner.py): every watched module's namespace and
sys.modules entry put back as snapshotted, a name added since deleted, a submodule imported since kept (how
imports work, not a change), the change named ``module.name``; torch's watched classes likewise; and the
sentence words: per kind (checker, numpy, builtins, torch, in that order), the first three names sorted.
Also the memory ceiling: what the grader has mapped plus the room, or the room alone where /proc is silent.
"""

from __future__ import annotations

import sys
import types

import pytest

from classroom.grading import runner

NAME = "helpers._p7_watched"


@pytest.fixture
def watched(monkeypatch):
    module = types.ModuleType(NAME)
    module.kept = 1
    module.replaced = len
    monkeypatch.setitem(sys.modules, NAME, module)
    return module


def snapshot_of(module) -> tuple:
    return {NAME: module}, {NAME: dict(vars(module))}, {}


def test_only_numpy_helpers_builtins_and_torch_are_watched(watched, monkeypatch):
    monkeypatch.setitem(sys.modules, "helpersish", types.ModuleType("helpersish"))
    monkeypatch.setitem(sys.modules, "helpers._p7_none", None)
    found = runner._watched_modules()
    assert found[NAME] is watched and found["builtins"] is sys.modules["builtins"]
    assert "helpersish" not in found and "helpers._p7_none" not in found
    assert {name.split(".")[0] for name in found} <= {"numpy", "helpers", "builtins", "torch"}


def test_a_replaced_name_is_put_back_and_named(watched):
    snap = snapshot_of(watched)
    original = watched.replaced
    watched.replaced = lambda x: 0
    assert runner._restore(snap) == [f"{NAME}.replaced"]
    assert watched.replaced is original


def test_an_added_name_is_deleted_and_a_deleted_one_put_back(watched):
    snap = snapshot_of(watched)
    watched.extra = "mine"
    del watched.kept
    assert sorted(runner._restore(snap)) == [f"{NAME}.extra", f"{NAME}.kept"]
    assert not hasattr(watched, "extra") and watched.kept == 1


def test_an_equal_but_new_value_is_a_change(watched):
    watched.big = 10**20
    snap = snapshot_of(watched)
    watched.big = int("1" + "0" * 20)  # equal, not the same object
    assert runner._restore(snap) == [f"{NAME}.big"]


def test_nothing_changed_names_nothing(watched):
    assert runner._restore(snapshot_of(watched)) == []


def test_a_module_swapped_in_sys_modules_is_put_back_and_named(watched, monkeypatch):
    snap = snapshot_of(watched)
    monkeypatch.setitem(sys.modules, NAME, types.ModuleType("impostor"))
    assert runner._restore(snap) == [NAME]
    assert sys.modules[NAME] is watched


def test_a_submodule_imported_since_is_not_a_change(watched, monkeypatch):
    snap = snapshot_of(watched)
    sub = types.ModuleType(f"{NAME}.sub")
    monkeypatch.setitem(sys.modules, f"{NAME}.sub", sub)
    watched.sub = sub
    assert runner._restore(snap) == []
    assert watched.sub is sub


def test_a_module_attribute_that_is_not_the_imported_submodule_is_a_change(watched):
    snap = snapshot_of(watched)
    watched.sub = types.ModuleType(f"{NAME}.sub")  # not in sys.modules: planted, not imported
    assert runner._restore(snap) == [f"{NAME}.sub"]
    assert not hasattr(watched, "sub")


def test_the_warning_registry_is_not_a_change(watched):
    snap = snapshot_of(watched)
    watched.__warningregistry__ = {"version": 1}
    assert runner._restore(snap) == []


def test_a_watched_class_is_put_back_method_by_method():
    class Tensor:
        def mean(self):
            return "right"

    original = Tensor.__dict__["mean"]
    classes = {"torch.Tensor": (Tensor, dict(vars(Tensor)))}
    Tensor.mean = lambda self: "wrong"
    Tensor.sum = lambda self: "added"
    assert sorted(runner._restore_classes(classes)) == ["torch.Tensor.mean", "torch.Tensor.sum"]
    assert Tensor.__dict__["mean"] is original and not hasattr(Tensor, "sum")
    assert runner._restore_classes(classes) == []


def test_a_deleted_method_of_a_watched_class_is_put_back():
    class Module:
        def forward(self):
            return 1

    classes = {"torch.nn.Module": (Module, dict(vars(Module)))}
    del Module.forward
    assert runner._restore_classes(classes) == ["torch.nn.Module.forward"]
    assert Module().forward() == 1


def test_without_torch_no_class_is_watched(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    assert runner._watched_classes() == {}


def test_the_watched_classes_are_torchs_tensor_module_and_parameter(monkeypatch):
    torch = types.ModuleType("torch")  # a stand-in: importing torch here would take seconds
    torch.nn = types.SimpleNamespace(Module=type("Module", (), {}), Parameter=type("Parameter", (), {}))
    torch.Tensor = type("Tensor", (), {})
    monkeypatch.setitem(sys.modules, "torch", torch)
    assert runner._watched_classes() == {
        "torch.Tensor": torch.Tensor,
        "torch.nn.Module": torch.nn.Module,
        "torch.nn.Parameter": torch.nn.Parameter,
    }


def test_the_words_name_each_kind_in_order_with_its_first_three_names_sorted():
    changed = [
        "torch.Tensor.mean",
        "builtins.len",
        "numpy.var",
        "numpy.mean",
        "numpy.std",
        "numpy.add",
        "helpers.exercises",
    ]
    assert runner._patched_words(changed) == [
        "replaced part of the checker (helpers.exercises)",
        "patched numpy (numpy.add, numpy.mean, numpy.std)",
        "patched Python's builtins (builtins.len)",
        "patched torch (torch.Tensor.mean)",
    ]


def test_a_kind_that_was_not_changed_is_not_mentioned():
    assert runner._patched_words([]) == []
    assert runner._patched_words(["builtins.print", "builtins.abs"]) == [
        "patched Python's builtins (builtins.abs, builtins.print)"
    ]


def test_the_memory_ceiling_is_what_is_mapped_plus_the_room(monkeypatch):
    set_to = []
    monkeypatch.setattr(runner.resource, "setrlimit", lambda which, limits: set_to.append((which, limits)))
    monkeypatch.setattr(runner, "_mapped_bytes", lambda: 700 << 20)
    runner._lower_memory_ceiling(2 << 30)
    ceiling = (700 << 20) + (2 << 30)
    assert set_to == [(runner.resource.RLIMIT_AS, (ceiling, ceiling))]  # soft and hard: the cell cannot raise it


def test_where_proc_says_nothing_the_ceiling_is_the_room_alone(monkeypatch):
    set_to = []
    monkeypatch.setattr(runner.resource, "setrlimit", lambda which, limits: set_to.append((which, limits)))
    monkeypatch.setattr(runner, "_mapped_bytes", lambda: None)
    runner._lower_memory_ceiling(123 << 20)
    assert set_to == [(runner.resource.RLIMIT_AS, (123 << 20, 123 << 20))]


def test_the_mapped_size_is_this_processs_vmsize_in_bytes():
    with open("/proc/self/status", encoding="ascii") as status:
        kib = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    mapped = runner._mapped_bytes()
    assert mapped % 1024 == 0
    assert abs(mapped - kib * 1024) < 64 << 20  # the same measure, give or take what this test maps meanwhile


def test_without_proc_the_mapped_size_is_unknown(monkeypatch):
    def no_proc(*args, **kwargs):
        raise FileNotFoundError("/proc/self/status")

    monkeypatch.setattr("builtins.open", no_proc)
    assert runner._mapped_bytes() is None


def test_each_kind_names_at_most_three_whatever_the_kind():
    many = [f"{kind}.n{i}" for kind in ("helpers.checking", "builtins", "torch.Tensor") for i in (4, 3, 2, 1)]
    assert runner._patched_words(many) == [
        "replaced part of the checker (helpers.checking.n1, helpers.checking.n2, helpers.checking.n3)",
        "patched Python's builtins (builtins.n1, builtins.n2, builtins.n3)",
        "patched torch (torch.Tensor.n1, torch.Tensor.n2, torch.Tensor.n3)",
    ]
