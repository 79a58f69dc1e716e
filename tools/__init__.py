"""The maintainers' tools, one folder per job: ``run`` (run.py's commands), ``build`` (generated notebook chrome,
stored outputs, slides, the lecturer's answers), ``mutation`` (planted bugs and the runs that judge the tests),
``pytest_plugins``. Imported as ``tools.<job>.<module>`` with the repository root on ``sys.path``."""
