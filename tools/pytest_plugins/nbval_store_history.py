"""pytest plugin: make nbval run cells the way Jupyter does, so `fig;` stays quiet.

nbval (0.10 and later) sends each cell to the kernel with store_history=False.
IPython only honours a trailing semicolon ("show nothing") when the cell is
stored in its history, so under nbval `plots.number_line(x);` shows the figure
twice and the test fails, while JupyterLab, Colab and `run.py execute` show it
once. Known upstream: computationalmodelling/nbval#194 (and ipython#14162).

`python3 run.py test` loads this with `-p tools.pytest_plugins.nbval_store_history`. It does
nothing if nbval is missing or its internals have changed.
"""

from __future__ import annotations


def _patch() -> None:
    try:
        from nbval.kernel import RunningKernel
    except ImportError:
        return
    original = getattr(RunningKernel, "execute_cell_input", None)
    if original is None or getattr(original, "_stores_history", False):
        return

    def execute_cell_input(self, cell_input, allow_stdin=None):
        if not hasattr(self, "kc"):
            return original(self, cell_input, allow_stdin=allow_stdin)
        # As nbval does, except store_history (left at its default, True).
        return self.kc.execute(cell_input, allow_stdin=allow_stdin, stop_on_error=False)

    execute_cell_input._stores_history = True
    execute_cell_input.__doc__ = original.__doc__
    RunningKernel.execute_cell_input = execute_cell_input


_patch()
