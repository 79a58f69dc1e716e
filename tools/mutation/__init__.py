"""Planted bugs and the runs that judge the tests: curated and fresh one-line mutants, solution mutants, the runner."""
