"""run.py's commands: the environment (env), the tests (tests), lab/lecture/slides/bench (present), the class hub (hub)."""
