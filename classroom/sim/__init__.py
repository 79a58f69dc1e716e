"""Simulated students for the class hub's tests and benchmark: real logins, servers and kernels."""
