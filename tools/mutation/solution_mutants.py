"""Every one-token mutant of the lecturer's solutions, and an independent judge of which ones are wrong.

``tests/checking/test_solution_mutants.py`` uses this to prove ``helpers.checking.exercises.check`` right: a mutant that
differs from LayerNorm by more than the tolerance somewhere in the exercise's domain must be rejected,
and a mutant that never does must pass. Nothing here imports the checker's cases or tolerances: the
domain and the tolerance are written out below from the issue (19), and the truth is
:func:`helpers.core.formula.layer_norm_forward` in float64.

    .venv/bin/python tools/mutation/solution_mutants.py               # judge every mutant, run the checker, report
    .venv/bin/python tools/mutation/solution_mutants.py --list        # only list the mutants and their sources
    .venv/bin/python tools/mutation/solution_mutants.py --step std -v # one step, every mutant's verdict

Mutants (made with ``ast`` from ``lecturer/solutions.py``; identical sources are kept once): binary
operators swapped, operands swapped, unary minus added or removed, numeric constants changed, n ± 1
and a hard-coded n = 3 for ``len(...)``, reductions and ``np.sqrt`` swapped for their siblings,
keyword arguments (axis, keepdims, ddof) changed, float32 casts of the inputs and of the result,
ε moved (outside the root, removed, doubled, √ε, added twice, a fixed 1e-5), two parameters swapped,
an input changed in place, and one statement deleted.

The judge: a mutant *differs* when, on some input of the domain, it raises, returns the wrong type or
shape, changes its input array, or returns a value outside the tolerance (NaN and inf included). The
inputs tried are the checker's own cases, a fixed set of corners of the domain, a seeded random
sample of it, and then a Hypothesis search (derandomized, so every run tries the same inputs).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.mutation.mutant_judge import (  # noqa: E402, F401 (the names its users read from here)
    HYPOTHESIS_EXAMPLES,
    TOLERANCE,
    TOLERANCES,
    Judgement,
    compare,
    judge,
    judge_mutant,
    reference_failures,
)
from tools.mutation.mutant_maker import STEPS, Generated, Mutant, generate_all, mutants, reference  # noqa: E402, F401

# ---------------------------------------------------------------------------------------------
# The report


@dataclass(frozen=True)
class Verdict:
    mutant: Mutant
    judgement: Judgement
    passed: bool
    diagnosis: str

    @property
    def agrees(self) -> bool:
        return self.passed != self.judgement.differs


def verdicts(step: str | None = None, max_examples: int = HYPOTHESIS_EXAMPLES) -> list[Verdict]:
    from helpers.checking.exercises import check

    found = []
    for mutant in mutants(step):
        result = check(mutant.step, mutant.compile())
        found.append(Verdict(mutant, judge_mutant(mutant.id, max_examples), result.passed, result.diagnosis))
    return found


def disagreement_text(verdict: Verdict) -> str:
    m, j = verdict.mutant, verdict.judgement
    source = "\n".join("        " + line for line in m.source.splitlines())
    if verdict.passed:
        head = f"WRONGLY ACCEPTED {m.id} ({m.description}): {j.summary()}"
        if compare(m.step, reference(m.step), j.args).differs:
            head += " [the lecturer's solution also differs on this input: a domain/tolerance finding]"
    else:
        head = f"WRONGLY REJECTED {m.id} ({m.description}): never differs, but check says: {verdict.diagnosis}"
    return f"{head}\n{source}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--step", choices=STEPS)
    parser.add_argument("--list", action="store_true", help="list the mutants only")
    parser.add_argument("--max-examples", type=int, default=HYPOTHESIS_EXAMPLES)
    parser.add_argument("--references", action="store_true", help="also search for inputs where a solution fails")
    parser.add_argument("--tolerance", choices=TOLERANCES, default="with-mean-error", help="see tolerance()")
    parser.add_argument("-v", "--verbose", action="store_true", help="every mutant's verdict")
    options = parser.parse_args(argv)
    steps = STEPS if options.step is None else (options.step,)
    global TOLERANCE
    TOLERANCE = options.tolerance
    generated = generate_all()
    if options.list:
        for step in steps:
            print(f"## {step}: {generated[step].raw} made, {len(generated[step].mutants)} unique")
            for m in generated[step].mutants:
                print(f"{m.id}  {m.description}\n" + "\n".join("    " + line for line in m.source.splitlines()))
        return 0
    start = time.perf_counter()
    print(f"{'step':<12}{'made':>6}{'unique':>8}{'differ':>8}{'equiv':>7}{'rejected':>10}{'accepted':>10}{'wrong':>7}")
    wrong = []
    equivalent = []
    for step in steps:
        found = verdicts(step, options.max_examples)
        differ = sum(v.judgement.differs for v in found)
        rejected = sum(not v.passed for v in found)
        bad = [v for v in found if not v.agrees]
        wrong += bad
        equivalent += [v for v in found if not v.judgement.differs]
        print(
            f"{step:<12}{generated[step].raw:>6}{len(found):>8}{differ:>8}{len(found) - differ:>7}"
            f"{rejected:>10}{len(found) - rejected:>10}{len(bad):>7}"
        )
        if options.verbose:
            for v in found:
                mark = "ok " if v.agrees else "BAD"
                print(f"  {mark} {v.mutant.id} {v.mutant.description}\n      judge: {v.judgement.summary()}")
                print(f"      check: {'passed' if v.passed else 'rejected'}: {v.diagnosis}")
    print("\nJudged equivalent (never differ by more than the tolerance):")
    for v in equivalent:
        print(f"  {v.mutant.id} {v.mutant.description}" + ("" if v.passed else "   [check rejects it]"))
    if options.references:
        print("\nThe lecturer's solutions against the tolerance:")
        for step in steps:
            print(f"  {step}: {reference_failures(step).summary()}")
    print(f"\n{len(wrong)} disagreement(s) with helpers.checking.exercises.check:")
    for v in wrong:
        print(disagreement_text(v))
    print(f"\n({time.perf_counter() - start:.1f} s)")
    return min(len(wrong), 100)


if __name__ == "__main__":
    sys.exit(main())
