"""The numbers a notebook's prose may quote, each computed here with where it comes from.

tests/notebooks/test_prose_numbers.py reads every markdown cell and fails on a decimal number (0.446, −1.27,
1e-5, 4.28, …) that is not one of these facts at the number of places it is written with. So a
sentence can only quote what helpers computes (helpers itself is checked against torch and plain
numpy in the other tests), and a typo or a stale number in the prose fails the tests.

How a quoted number matches a fact:
  * a decimal written with d places (0.446 has 3) matches a fact whose value formats to exactly
    that text at d places, if d is one of the fact's allowed places;
  * a number in e-notation (1e-5, 1e-12) is a constant: it matches a fact exactly equal to it.
Exact results are allowed at 2 to 5 places (EXACT_PLACES); a hand-rounded record only at the
places it was rounded to (or at 2, as the lesson reports its 3-place outputs: 1.172 → 1.17),
since that is what a person computing on paper writes.

Adding facts: one line per fact, ``facts.add(value_or_array, "what it is (notebook NN)")``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import prose_facts_09
import prose_facts_11
import prose_facts_12

import helpers
from helpers.core.layernorm import STAGES
from helpers.core.published_table import check_published_output
from helpers.display import format_number

EXACT_PLACES = (2, 3, 4, 5)
HAND_DECIMALS = (1, 2, 3)

# Default eps of common frameworks and models (notebook 04). Sources: torch.nn.LayerNorm's
# signature; GPT-2's config (layer_norm_epsilon); flax.linen.LayerNorm's signature; the original LLaMA's
# RMSNorm (norm_eps in its params); BERT's config (layer_norm_eps); keras.layers.LayerNormalization's
# signature.
FRAMEWORK_EPS = {
    "PyTorch": 1e-5,
    "GPT-2": 1e-5,
    "Flax": 1e-6,
    "LLaMA 1 (RMSNorm; Llama 2 and 3 use 1e-5)": 1e-6,
    "BERT": 1e-12,
    "Keras": 1e-3,
}


_NOTEBOOK_NAMED = re.compile(r"notebook (\d\d)")


@dataclass(frozen=True)
class Fact:
    value: float
    source: str
    places: tuple[int, ...]


class Facts:
    """A collection of facts that can say whether (and why) a quoted number is one of them."""

    def __init__(self):
        self.facts: list[Fact] = []

    def add(self, values, source: str, places=EXACT_PLACES) -> None:
        """Add one number, or every number of an array, with where it comes from."""
        places = (places,) if isinstance(places, int) else tuple(places)
        for value in np.atleast_1d(np.asarray(values, dtype=np.float64)).ravel():
            self.facts.append(Fact(float(value), source, places))

    def add_record(self, record, source: str) -> None:
        """Every stage of a ``LayerNormSteps`` record: exact at 2–5 places, hand-rounded at its own."""
        places = EXACT_PLACES if record.decimals is None else tuple(range(min(2, record.decimals), record.decimals + 1))
        for stage in STAGES:
            self.add(record.stage(stage), f"{source}: {stage}", places)

    def explain(self, text: str, notebook: str | None = None) -> str | None:
        """The source of the first fact the quoted number ``text`` matches, or None.

        With ``notebook`` (its two-digit number, "07"), a fact whose source names a notebook ("…
        (notebook 07)", "notebook 06's γ") counts only for that notebook; the lesson's data and
        records count everywhere."""
        value, places, scientific = _read_quoted(text)
        for fact in self.facts:
            named = _NOTEBOOK_NAMED.findall(fact.source)
            if notebook is not None and named and notebook not in named:
                continue
            if scientific:
                if math.isclose(fact.value, value, rel_tol=1e-12, abs_tol=0.0):
                    return fact.source
            elif places in fact.places and format_number(fact.value, places) == _plain(text):
                return fact.source
        return None


def _plain(text: str) -> str:
    """A quoted decimal as format_number writes it: ASCII minus, no plus, a 0 before the point."""
    text = text.replace("−", "-").lstrip("+")
    sign = "-" if text.startswith("-") else ""
    digits = text.lstrip("-")
    if digits.startswith("."):
        digits = "0" + digits
    return sign + digits


def _read_quoted(text: str) -> tuple[float, int, bool]:
    """(value, places, scientific) of a quoted number; for 1.5e-3 the places are the mantissa's (1)."""
    plain = _plain(text)
    mantissa, _, exponent = plain.lower().partition("e")
    places = len(mantissa.partition(".")[2])
    return float(plain), places, bool(exponent)


def build_facts() -> Facts:
    facts = Facts()
    x = helpers.load_residual()
    published = helpers.load_published_output()
    n = x.shape[1]

    # --- The lesson's data -------------------------------------------------------------------
    facts.add(x, "the residual matrix (data/residual_matrix.csv)", places=(2, 3))
    facts.add(published, "the lesson's published table (data/lesson_published_output.csv)", places=2)
    facts.add(published.sum(axis=1), "published table: row sums")
    facts.add((published**2).sum(axis=1), "published table: row sums of squares")

    # --- Every row, every stage: exact, and rounded by hand to 1, 2 and 3 places -------------
    for i, row in enumerate(x, start=1):
        facts.add_record(helpers.layer_norm_steps(row), f"row {i}, exact")
        for decimals in HAND_DECIMALS:
            try:
                facts.add_record(helpers.layer_norm_steps(row, decimals=decimals), f"row {i}, by hand to {decimals}")
            except ValueError:  # row 5's std rounds to 0 at 1 place: no record to quote
                pass

    # --- Default eps of frameworks, and what each does to every row (notebook 04) ------------
    for name, eps in FRAMEWORK_EPS.items():
        facts.add(eps, f"{name}'s default eps")
        for i, row in enumerate(x, start=1):
            facts.add_record(helpers.layer_norm_steps(row, eps=eps), f"row {i} with {name}'s eps {eps:g}")

    # --- Well-known constants ----------------------------------------------------------------
    facts.add(math.sqrt(n), "√3: the radius of the circle every normalised 3-feature row lies on")
    facts.add(
        n * x.var(axis=1) / (x.var(axis=1) + helpers.DEFAULT_EPS), "n·var/(var+eps): sum of squares of each output row"
    )
    facts.add(65504, "float16's largest finite number (numpy.finfo(numpy.float16).max)")

    # --- 01–04 (notebooks 01_residual_matrix … 04_epsilon_and_std) ---------------------------
    hand = helpers.layer_norm_steps(x[0], decimals=3)
    facts.add(x.sum(axis=1), "each row's sum (notebook 02)")
    facts.add(hand.squared_differences.sum(), "row 1: the hand-rounded squares added up (notebook 03)", places=3)
    facts.add(x.var(axis=1, ddof=1), "each row's unbiased variance, ÷(n−1) (notebook 03)")
    facts.add(n / (n - 1), "n/(n−1) for 3 features: unbiased over biased variance (notebook 03)", places=1)
    facts.add(hand.variance + helpers.DEFAULT_EPS, "row 1: hand variance 0.343 plus eps (notebook 04)", places=5)
    facts.add(0.5, "the value of the constant row [0.5, 0.5, 0.5] (notebook 04)", places=1)
    for eps in (1e-12, 1e-8, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1):
        facts.add(eps, "an eps in the sweep of notebook 04")
        facts.add(math.sqrt(eps), f"√{eps:g}: the std of a constant row (notebook 04)")
        facts.add_record(helpers.layer_norm_steps(x[4], eps=eps), f"row 5 with eps {eps:g} (notebook 04)")

    # --- 05–08 (notebooks 05_normalise … 08_pytorch): add their facts below, one line each ---
    variance = x.var(axis=1)
    facts.add(variance / (variance + helpers.DEFAULT_EPS), "each normalised row's variance, σ²/(σ²+ε) (notebook 05)")
    facts.add(
        helpers.DEFAULT_EPS / (variance + helpers.DEFAULT_EPS), "each normalised row's gap to 1, ε/(σ²+ε) (notebook 05)"
    )
    gamma_06, beta_06 = np.array([2.0, 1.0, 3.0]), np.array([0.0, 0.5, -1.0])
    facts.add([gamma_06, beta_06], "notebook 06's γ and β", places=(1, 2, 3))
    facts.add_record(helpers.layer_norm_steps(x[0], gamma=gamma_06, beta=beta_06), "row 1 with notebook 06's γ, β")
    facts.add_record(
        helpers.layer_norm_steps(x[0], gamma=gamma_06, beta=beta_06, decimals=3),
        "row 1 with notebook 06's γ, β by hand",
    )
    truth = helpers.layer_norm(x)
    facts.add(published - truth, "published minus true output (notebook 07)")
    facts.add(
        np.abs(published - truth).max(axis=1), "each published row's largest difference from the truth (notebook 07)"
    )
    facts.add(np.abs(published), "published values without their sign, as in 1.40 − 1.52 (notebook 07)", places=2)
    facts.add(published**2, "squares of the published values (notebook 07)")
    facts.add(
        [0.005, 3 * 0.005], "half a unit at 2 places, and 3 of them: what rounding allows (notebook 07)", places=3
    )
    published_check = check_published_output(published, x)
    facts.add(
        [row.smallest_sum_of_squares for row in published_check.rows],
        "least sum of squares after rounding (notebook 07)",
    )
    facts.add(
        (helpers.round_half_up(truth, 2) ** 2).sum(axis=1),
        "squares of the true output printed to 2 places, summed (notebook 07)",
    )
    facts.add(
        max(d.largest_difference for d in helpers.layer_norm_steps(x[4], decimals=3).rounding_drift()),
        "row 5: largest hand-rounding drift (notebook 07)",
    )
    facts.add([0.663, 0.664, 0.665], "a flatter row 5 to type into the matrix editor (notebook 07)", places=3)
    unbiased_std = np.sqrt(x.var(axis=1, ddof=1) + helpers.DEFAULT_EPS)[:, None]
    facts.add(
        (x - x.mean(axis=1, keepdims=True)) / unbiased_std, "LayerNorm with the unbiased variance, ÷(n−1) (notebook 08)"
    )
    facts.add(math.sqrt(2 / 3), "√(2/3): how much ÷(n−1) shrinks outputs of 3 features (notebook 08)")

    # --- 09 onwards (notebooks beyond the lesson): add their facts below, one line each ----------
    facts.add(
        x.mean(axis=1), "each row's mean to one place, as in 'row 5's values are all about 0.7' (notebook 10)", places=1
    )
    facts.add((x[0] + 300).astype(np.float16), "row 1 + 300 as float16 stores it (notebook 09)", places=(1, 2))
    facts.add(np.spacing(np.float16(300)), "the step between float16 numbers near 300 (notebook 09)", places=2)
    facts.add([1e-12, 1e-2], "the ends of the row editor's ε slider to try (notebook 05)")
    facts.add([2, 0.5, -1, 0.5, -0.25, 1], "the target γ* and β* learning starts from (notebook 10)", places=(1, 2))
    facts.add(1e-8, "a smaller ε, for the scale direction's singular value (notebook 11)")
    # --- The lecture's speaker notes (lecture/layernorm_lecture.ipynb) ----------------------------
    slide_gamma, slide_beta = np.array([2.0, 1.0, 0.0]), np.array([0.0, 0.0, 0.5])
    facts.add(helpers.layer_norm(x[0], slide_gamma, slide_beta).sum(), "the γ/β slide's row 1 output, summed (lecture)")
    shrink = np.sqrt((variance + helpers.DEFAULT_EPS) / (variance + 1e-3))
    facts.add(100 * (1 - shrink[:4]).max(), "rows 1–4: the most ε = 1e-3 shrinks one, in % (lecture)")
    width = 768  # GPT-2 small's model width
    facts.add(math.sqrt((width - 1) / width), "√((n−1)/n) for n = 768: the unbiased variance's factor (lecture)")
    facts.add(100 * (1 - math.sqrt((width - 1) / width)), "that factor's shortfall for n = 768, in % (lecture)")

    for module in (prose_facts_09, prose_facts_11, prose_facts_12):  # one file per notebook, so edits never collide
        module.add(facts, x)

    return facts
