"""Judging a learner: one mistake catalogue (``mistakes``), the "Your turn" code checker (``exercises``, with
its cases in ``cases`` and the PyTorch module's checks in ``module_check``), the typed-answer checker
(``answers``), one sandbox that runs a learner's code with a time limit (``sandbox``), and the verdict a
kernel posts to the class service (``class_record``)."""
