"""Notebook 12: timing and the roofline (timing), and the checks a measured run must pass (checks)."""
