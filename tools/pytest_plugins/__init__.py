"""pytest plugins passed with ``-p tools.pytest_plugins.<name>``."""
