"""The terminal walkthrough: ``python -m helpers`` prints LayerNorm of the lesson's matrix, step by step.

    python -m helpers                              # the lesson's 5×3 matrix, every row
    python -m helpers --decimals 3                 # rounded by hand, as on paper
    python -m helpers --row 1.133 -0.299 0.503     # one row of your own
    python -m helpers --csv my_matrix.csv --eps 1e-6 --gamma 1 2 3 --beta 0 0 1

Bad arguments end with one line saying what is wrong (exit status 2), never a traceback.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from helpers.core.data import RESIDUAL_CSV, load_matrix, load_residual, parse_number, parse_row
from helpers.core.layernorm import DEFAULT_EPS, layer_norm, layer_norm_steps
from helpers.display import format_eps, show_matrix


class _OneLineErrorParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default prints the whole usage block first
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _numbers(texts: list[str] | None, what: str) -> np.ndarray | None:
    if texts is None:
        return None
    try:
        return parse_row(" ".join(texts))
    except ValueError as problem:
        raise ValueError(f"{what}: {problem}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = _OneLineErrorParser(
        prog="python -m helpers",
        description="Walk through Layer Normalization of the lesson's matrix (or your own), every step shown.",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--row", nargs="+", metavar="X", help="one row of your own, e.g. --row 1.133 -0.299 0.503")
    source.add_argument("--csv", metavar="PATH", help="a CSV file of your own (one row per line)")
    parser.add_argument("--eps", default=str(DEFAULT_EPS), metavar="EPS", help="added to the variance (default 1e-05)")
    parser.add_argument("--gamma", nargs="+", metavar="G", help="scale, one value per feature (default all 1)")
    parser.add_argument("--beta", nargs="+", metavar="B", help="shift, one value per feature (default all 0)")
    parser.add_argument(
        "--decimals", type=int, metavar="D", help="round every step to D places, as by hand (default: exact)"
    )
    return parser


def walkthrough(
    matrix: np.ndarray, eps: float, gamma=None, beta=None, decimals: int | None = None, source: str = ""
) -> str:
    """The whole walkthrough as text: the matrix, every row's steps, the output matrix."""
    rows, features = matrix.shape
    parts = [show_matrix(matrix, f"Input{source}: {rows} row(s) × {features} feature(s)")]
    for index in range(rows):
        record = layer_norm_steps(matrix[index], eps=eps, gamma=gamma, beta=beta, decimals=decimals)
        parts.append(f"Row {index + 1}\n{record}")
    parts.append(
        show_matrix(
            layer_norm(matrix, gamma=gamma, beta=beta, eps=eps), f"LayerNorm output (exact, eps = {format_eps(eps)})"
        )
    )
    return "\n\n".join(str(part) for part in parts)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        try:
            eps = parse_number(args.eps)
        except ValueError as problem:
            raise ValueError(f"--eps {problem}") from None
        if args.row is not None:
            matrix, source = _numbers(args.row, "--row")[np.newaxis, :], " (your row)"
        elif args.csv is not None:
            matrix, source = load_matrix(args.csv), f" ({args.csv})"
        else:
            matrix, source = load_residual(), f" (the lesson's residual matrix, {RESIDUAL_CSV.name})"
        text = walkthrough(
            matrix, eps, _numbers(args.gamma, "--gamma"), _numbers(args.beta, "--beta"), args.decimals, source
        )
    except ValueError as problem:
        parser.exit(2, f"{parser.prog}: error: {str(problem).rstrip('.')}.\n")
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `python -m helpers | head`: the reader left, which is fine
        sys.stdout = None
    return 0
