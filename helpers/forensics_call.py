"""Calling a LayerNorm someone else wrote, safely: numpy or torch, with a time limit, never crashing.

Used by :func:`helpers.forensics.fingerprint`. ``fn`` may be a numpy function, a torch function or
a ``torch.nn.Module``; torch is touched only when ``fn`` needs it (a module, or a function that
refuses numpy arrays), so ``import helpers`` never imports torch. Every way a call can go wrong
(an exception, a wrong shape, a wrong type, running too long) becomes :class:`CallProblem` with
one plain sentence. Introduced in notebook 13.
"""

from __future__ import annotations

import copy
import signal
import sys
import threading
import time
import warnings

import numpy as np

from helpers.timeouts import stop_thread

GAMMA_NAMES = ("weight", "gamma", "scale", "a_2")  # what implementations call γ
BETA_NAMES = ("bias", "beta", "shift", "b_2")  # and β


class CallProblem(Exception):
    """Calling ``fn`` went wrong; ``str(problem)`` is one plain sentence for the learner."""


class _TimeUp(BaseException):  # BaseException: a bare `except Exception` in fn cannot swallow it
    pass


def _is_torch_module(fn) -> bool:
    return any(cls.__module__.startswith("torch.nn") and cls.__name__ == "Module" for cls in type(fn).__mro__)


def _first_line(problem: BaseException) -> str:
    text = str(problem).strip().splitlines()
    text = text[0] if text else ""
    return text if len(text) <= 160 else text[:157] + "..."


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


class Caller:
    """Calls ``fn`` on float32 or float64 matrices and returns float64 arrays, within a shared time budget."""

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

    def __call__(self, x: np.ndarray) -> np.ndarray:
        described = f"a {x.shape[0]} × {x.shape[1]} {x.dtype.name} matrix"
        try:
            out = self._limited(lambda: self._call(x))
        except _TimeUp:
            raise CallProblem(
                f"It did not finish within {self.time_limit:g} s on {described}; it may loop forever."
            ) from None
        except CallProblem:
            raise
        except Exception as problem:  # noqa: BLE001 (anything fn raises becomes one sentence)
            raise CallProblem(
                f"Calling it on {described} raised {type(problem).__name__}: {_first_line(problem)}"
            ) from None
        return self._as_array(out, x, described)

    def _call(self, x):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if self.torch:
                return self._torch_call(x)
            try:
                return self.fn(x.copy())
            except Exception as numpy_problem:
                if "torch" not in sys.modules:  # a function that needs tensors has imported torch
                    raise
                try:
                    result = self._torch_call(x)  # it refused a numpy array: try a tensor
                except Exception:  # noqa: BLE001 (not torch code either: report what numpy said)
                    raise numpy_problem from None
            self.torch = True
            return result

    def _torch_call(self, x):
        import torch  # only here: fn is torch code

        fn = self.fn
        if isinstance(fn, torch.nn.Module):  # a copy in the input's precision (modules start in float32)
            if x.dtype not in self._modules:
                try:
                    self._modules[x.dtype] = copy.deepcopy(fn).to(
                        torch.float64 if x.dtype == np.float64 else torch.float32
                    )
                except Exception:  # noqa: BLE001 (a module that cannot be copied is called as it is)
                    self._modules[x.dtype] = fn
            fn = self._modules[x.dtype]
        with torch.no_grad():
            return fn(torch.from_numpy(x.copy()))

    def _as_array(self, out, x, described) -> np.ndarray:
        if hasattr(out, "detach"):
            out = out.detach().cpu()
            self.output_dtypes.add(str(out.dtype).replace("torch.", ""))
            out = out.double().numpy()
        elif isinstance(out, np.ndarray):
            self.output_dtypes.add(out.dtype.name)
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

    def _limited(self, call):
        if self.deadline is None:
            return call()
        seconds = self.deadline - time.monotonic()
        if seconds <= 0:
            raise _TimeUp
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):

            def alarm(_signum, _frame):
                raise _TimeUp

            previous = signal.signal(signal.SIGALRM, alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                return call()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
        result = {}

        def run():  # elsewhere (not the main thread, or Windows): a helper thread we stop waiting for
            try:
                result["value"] = call()
            except BaseException as problem:  # noqa: BLE001 (handed back to the caller below)
                result["problem"] = problem

        worker = threading.Thread(target=run, daemon=True, name="helpers.forensics call")
        worker.start()
        worker.join(seconds)
        if worker.is_alive():
            stop_thread(worker)  # an endless Python loop stops here; one long C call runs on by itself
            raise _TimeUp
        if "problem" in result:
            raise result["problem"]
        return result["value"]
