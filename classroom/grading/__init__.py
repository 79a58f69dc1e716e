"""Graded course use: the "Your turn" exercises of notebooks 02–08 as nbgrader assignments.

Layers, each importing only those above it in this list:
``plan`` (which tests each step has, from the one mistake catalogue), ``runner`` (the script run in a
fresh ``python -I`` process: the answer cell alone, then ``helpers.checking.exercises.check``),
``judge`` (starts that process with its limits and reads its verdict), ``notebook`` (the answer
cell by its nbgrader ``grade_id``, the released test cells compared), ``grade`` (points and
feedback sentences for one submission); then nbgrader's side: ``assignment`` (the source notebooks,
from the series), ``course`` and ``cycle`` (the course folder and the cycle's commands),
``nbgrader_hooks`` (GradeCells in place of nbgrader's Execute), ``hubconfig`` and ``hubsetup`` (who
reaches what on the hub), and ``cli`` (``run.py hub-grade``, the lecturer's commands, as root).
"""
