"""The parts of benchmarks/bench_speed.py, one job each: the machine (machine), the buffers (data),
what is timed (cases), how it is timed (sampling) and what is written (report)."""
