"""Calling a LayerNorm someone else wrote, safely: numpy or torch, with a time limit, never crashing.

Used by :func:`helpers.forensics.fingerprints.fingerprint`. ``fn`` may be a numpy function, a torch function or
a ``torch.nn.Module``; torch is touched only when ``fn`` needs it (a module, or a function that
refuses numpy arrays: then a tensor of the same type, then a float32 tensor, for code that only runs
in float32), so ``import helpers`` never imports torch. Every way a call can go wrong
(an exception, a wrong shape, a wrong type, running too long) becomes :class:`CallProblem` with
one plain sentence. Introduced in notebook 13.
"""

from __future__ import annotations

import copy
import sys
import time
import warnings

import numpy as np

from helpers.checking import sandbox

GAMMA_NAMES = ("weight", "gamma", "scale", "a_2")  # what implementations call γ
BETA_NAMES = ("bias", "beta", "shift", "b_2")  # and β


class CallProblem(Exception):
    """Calling ``fn`` went wrong; ``str(problem)`` is one plain sentence for the learner."""


def _is_torch_module(fn) -> bool:
    return any(cls.__module__.startswith("torch.nn") and cls.__name__ == "Module" for cls in type(fn).__mro__)


def as_numbers(value) -> np.ndarray | None:
    """A parameter (numpy array, number or torch tensor) as a float64 array; None if it is not one."""
    if value is None:
        return None
    if hasattr(value, "detach"):
        value = value.detach().cpu().double().numpy()
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return array if np.all(np.isfinite(array)) else None


def parameter(fn, names) -> np.ndarray | None:
    """The first of ``names`` that ``fn`` has as numbers (γ or β), else None."""
    for name in names:
        value = as_numbers(getattr(fn, name, None))
        if value is not None:
            return value
    return None


def module_dtype(fn) -> str | None:
    """The type of a torch module's first floating-point parameter ("float32", "float16", ...), else None."""
    if not _is_torch_module(fn):
        return None
    for value in fn.parameters():
        if value.is_floating_point():
            return str(value.dtype).replace("torch.", "")
    return None


def feature_count(fn) -> int | None:
    """How many features ``fn`` is built for, when it says (normalized_shape, or a γ per feature)."""
    shape = getattr(fn, "normalized_shape", None)
    if isinstance(shape, (tuple, list)) and shape and isinstance(shape[-1], int):
        return int(shape[-1])
    if isinstance(shape, int):
        return shape
    gamma = parameter(fn, GAMMA_NAMES)
    if gamma is not None and gamma.ndim == 1 and gamma.size > 1:
        return int(gamma.size)
    return None


TORCH_ONLY = ("bfloat16",)  # probe types numpy has no array for: sent as a torch tensor of that type


class Caller:
    """Calls ``fn`` on float64, float32 or float16 matrices (or bfloat16 tensors) and returns float64 arrays.

    ``time_limit`` (seconds, shared by every call; None: no limit) is enforced in-process, by
    :func:`helpers.checking.sandbox.run`: it stops Python code only.
    :func:`helpers.forensics.fingerprints.fingerprint` runs the whole Caller in a child process instead, where it can.
    ``progress(text)``, if given, is told about each call before it starts. ``output_types`` maps each
    input type to the type ``fn`` returned for it.
    """

    def __init__(self, fn, time_limit: float | None):
        if not callable(fn):
            raise CallProblem(
                f"It is not a function: got {type(fn).__name__}; pass something to call, "
                "like a function or a torch module."
            )
        self.fn = fn
        self.torch = _is_torch_module(fn)
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.time_limit = time_limit
        self._modules = {}
        self.output_dtypes = set()
        self.output_types = {}
        self.tensor_float32 = False  # it refused numpy and float64 tensors, and took float32 tensors
        self.progress = None

    def __call__(self, x: np.ndarray, dtype: str | None = None) -> np.ndarray:
        """``fn(x)`` as float64; ``dtype`` (e.g. "bfloat16"): send ``x`` as a torch tensor of that type."""
        kind = dtype or x.dtype.name
        described = f"a {x.shape[0]} × {x.shape[1]} {kind} matrix"
        if self.progress is not None:
            self.progress(described)
        seconds = None if self.deadline is None else self.deadline - time.monotonic()
        done = None  # the time shared by every call is up: fn is not called again
        if seconds is None or seconds > 0:
            done = sandbox.run(self._call, x, dtype, time_limit=seconds, name="helpers.forensics.fingerprints call")
        if done is None or done.timed_out:
            raise CallProblem(f"It did not finish within {self.time_limit:g} s on {described}; it may loop forever.")
        error = done.error
        if isinstance(error, CallProblem) or error is not None and not isinstance(error, Exception):
            raise error  # Caller's own sentence, or a KeyboardInterrupt or SystemExit: passed on as they are
        if error is not None:  # anything else fn raises becomes one sentence
            raise CallProblem(f"Calling it on {described} raised {sandbox.describe(error, first_line=True)}")
        array = self._as_array(done.value, x, described)
        self.output_types[kind] = self._last_type
        return array

    def _call(self, x, dtype=None):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if self.torch or dtype in TORCH_ONLY:
                if "torch" not in sys.modules and not self.torch:
                    raise CallProblem(f"numpy has no {dtype} type, and it is not torch code.")
                return self._torch_call(x, dtype)
            try:
                return self.fn(x.copy())
            except Exception as numpy_problem:
                if "torch" not in sys.modules:  # a function that needs tensors has imported torch
                    raise
                try:
                    result = self._torch_call(x)  # it refused a numpy array: try a tensor
                except Exception:  # noqa: BLE001 (not torch code either: report what numpy said)
                    if x.dtype != np.float64:
                        raise numpy_problem from None
                    try:
                        self.tensor_float32 = True  # code that runs in float32 only (a float32 module inside)
                        result = self._torch_call(x)
                    except Exception:  # noqa: BLE001
                        self.tensor_float32 = False
                        raise numpy_problem from None
            self.torch = True
            return result

    def _torch_call(self, x, dtype=None):
        import torch  # only here: fn is torch code

        tensor = torch.from_numpy(x.copy())
        if dtype is not None:
            tensor = tensor.to(getattr(torch, dtype))
        elif self.tensor_float32 and tensor.dtype == torch.float64:
            tensor = tensor.float()
        fn = self.fn
        if isinstance(fn, torch.nn.Module):  # a copy in the input's precision (the learner's module is not changed)
            if tensor.dtype not in self._modules:
                try:
                    self._modules[tensor.dtype] = copy.deepcopy(fn).to(tensor.dtype)
                except Exception:  # noqa: BLE001 (a module that cannot be copied is called as it is)
                    self._modules[tensor.dtype] = fn
            fn = self._modules[tensor.dtype]
        with torch.no_grad():
            return fn(tensor)

    def _as_array(self, out, x, described) -> np.ndarray:
        self._last_type = None
        if hasattr(out, "detach"):
            out = out.detach().cpu()
            self._last_type = str(out.dtype).replace("torch.", "")
            out = out.double().numpy()
        elif isinstance(out, np.ndarray):
            self._last_type = out.dtype.name
        if self._last_type:
            self.output_dtypes.add(self._last_type)
        try:
            array = np.array(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise CallProblem(f"It returned {type(out).__name__}, not an array of numbers, for {described}.") from None
        if array.shape != x.shape:
            raise CallProblem(
                f"It returned an array of shape {tuple(array.shape)} for {described}; "
                "a LayerNorm returns the shape it was given."
            )
        return array
