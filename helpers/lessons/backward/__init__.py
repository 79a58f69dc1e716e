"""Notebook 11: the gradient and its checks (gradients), and the backward pass in float32 and bfloat16 (precision)."""
