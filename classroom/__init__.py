"""The class hub: the series served to a course on one JupyterHub (see classroom/README.md)."""
