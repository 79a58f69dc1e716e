"""The class service: the checker's verdicts, live for the lecturer (JupyterHub service ``class``).

Each student's kernel posts the verdict of ``helpers.exercises.check`` (helpers/checking/class_record.py)
to /services/class/api/results with the student's own hub token; the lecturer's projector page
(/services/class/) shows, per exercise, which named mistakes the class is making and how many
have passed. Modules: ``catalogue`` (what may be recorded), ``results`` (checking a posted body),
``store`` (SQLite), ``page`` (the live page), ``app`` (tornado handlers and hub auth).
"""
