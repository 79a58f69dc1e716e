"""The buffers a speed run reads and writes, allocated (and written once) before anything is timed.

- "in cache": one input set and one output per size; every call reads and writes the same ones.
- "from memory": pools of input AND output sets; a case rotates over them, so each array alone
  covers 4 × the last-level cache between two uses of the same buffer, and every call reads its
  inputs from memory and writes its outputs over lines that must go back to memory.

Calls that allocate their output (``F.layer_norm``, the backward kernel, ``F.rms_norm``, numpy with
new arrays) cannot be given a buffer. There the sampler (``sampling.sample``) keeps the last K
outputs alive and frees the oldest just before each call, so glibc malloc hands the call a block
last written K calls ago; the run records how many distinct output addresses the timed calls got.
"""

from __future__ import annotations

import numpy as np

from helpers.lessons.speed import timing as speed

EPS = 1e-5


def tiled_pool(rng, rows: int, features: int, block_rows: int = 256) -> np.ndarray:
    """rows × features float32 of a random block repeated: fast to make, every page its own memory."""
    block = rng.standard_normal((block_rows, features), dtype=np.float32)
    return np.tile(block, (-(-rows // block_rows), 1))[:rows].copy()


def make_data(torch, regime_rows: dict, features: int, llc: int, seed: int = 0) -> dict:
    """Per (regime, rows): the list of sets a case rotates over, each with its inputs and outputs.

    ``llc``: the cache the rotation must defeat (4 × it per array); the last-level cache's size, except
    in a --quick smoke test."""
    rng = np.random.default_rng(seed)
    gamma = np.linspace(0.5, 1.5, features, dtype=np.float32)
    beta = np.linspace(-0.1, 0.1, features, dtype=np.float32)
    counts = {
        rows: speed.buffers_to_rotate(speed.BYTES_PER_VALUE * rows * features, llc)
        for rows in regime_rows["from memory"]
    }
    pool_rows = max((count * rows for rows, count in counts.items()), default=0)

    def with_stats(x, dy, y):
        tx = torch.from_numpy(x)
        mean = tx.mean(dim=-1, keepdim=True)
        rstd = torch.rsqrt(tx.var(dim=-1, unbiased=False, keepdim=True) + EPS)
        return {"x": x, "dy": dy, "y": y, "tx": tx, "tdy": torch.from_numpy(dy), "ty": torch.from_numpy(y),
                "mean": mean, "rstd": rstd}  # fmt: skip

    def output(rows):  # written now, so no timed call pays its first touch
        return np.full((rows, features), 1.0, dtype=np.float32)

    data = {"gamma": gamma, "beta": beta, "tgamma": torch.from_numpy(gamma), "tbeta": torch.from_numpy(beta)}
    data["sets"], data["small"] = {}, {}
    for rows in regime_rows["in cache"]:
        x, dy = (rng.standard_normal((rows, features), dtype=np.float32) for _ in range(2))
        data["sets"]["in cache", rows] = [with_stats(x, dy, output(rows))]
    if pool_rows:
        pool = with_stats(tiled_pool(rng, pool_rows, features), tiled_pool(rng, pool_rows, features), output(pool_rows))
        for rows, count in counts.items():
            data["sets"]["from memory", rows] = [
                {key: value[i * rows : (i + 1) * rows] for key, value in pool.items()} for i in range(count)
            ]
    for regime, rows in data["sets"]:  # one number per row: negligible bytes, one buffer each
        data["small"][regime, rows] = {
            "mean": torch.empty(rows, 1),
            "rstd": torch.empty(rows, 1),
            "row": torch.empty(rows),
        }
    return data
