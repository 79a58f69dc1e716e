"""Widget state cannot diverge from what is shown (issue 33): Hypothesis drives every control of the row
editor, the matrix editor, the answer checker, the number question and a live table in any order, with good and bad
input, and after every event checks that the fields, the warnings and the table (or verdict) agree. (The
step explorer has no field to type in; its buttons and picker are walked in tests/widgets/test_widgets.py.)

The rule, from the spec: every field shows the value in use, or keeps its warning until it is corrected.
So after any sequence of events either

- every field holds good text, there is no warning, and the record and the table are LayerNorm of what
  the fields say (computed here with plain numpy), or
- some field holds bad text, a warning stands beside that field, and the numbers shown are the last good
  ones, said so in the status line.

The model below knows which text is bad because it wrote it (from a list of bad entries), not by asking the
widget's parser.
"""

from __future__ import annotations

import re

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from helpers import widgets
from helpers.core.layernorm import layer_norm_steps
from helpers.core.validation import MAX_DECIMALS

from conftest import examples

BAD_NUMBERS = ["abc", "1e400", "0,5", "", "1 2"]  # a word, an overflow, a decimal comma, nothing, two numbers
BAD_LISTS = ["abc", "1e400, 2", "0,5"]
GOOD_NUMBERS = st.sampled_from(["-2", "-0.5", "0", "0.25", "1", "1.5", "3", "7"])
EPS_GOOD = st.sampled_from(["1e-05", "0.001", "0.1", "2e-08"])


def parse_list(text: str) -> list[float]:
    return [float(v) for v in re.split(r"[,\s]+", text.strip()) if v]


def numpy_output(row, eps, gamma, beta, places):
    """LayerNorm in plain numpy; rounded at every step when ``places`` is not None."""
    x = np.asarray(row, dtype=np.float64)
    r = (lambda v: np.round(v, places)) if places is not None else (lambda v: v)
    mean = r(x.mean())
    diff = r(x - mean)
    variance = r(r(diff**2).mean())
    std = r(np.sqrt(r(variance + eps)))
    out = r(r(diff / std) * gamma + beta) if places is not None else diff / std * gamma + beta
    return mean, std, out


class ExpectedFromFields:
    """What an editor's fields say LayerNorm gives (both editors' state machines read their fields alike)."""

    def _numbers(self):
        row = [float(v) for v in self.row]
        gamma = np.asarray(parse_list(self.gamma)) if self.gamma.strip() else 1.0
        beta = np.asarray(parse_list(self.beta)) if self.beta.strip() else 0.0
        return row, gamma, beta

    def _expected(self):
        """LayerNorm of what the fields say, or None when that cannot be computed (by hand at 0 places a
        standard deviation may round to 0): then a warning must say so, as for a bad field."""
        row, gamma, beta = self._numbers()
        places = self.editor.places.value if self.editor.by_hand.value else None
        try:
            return layer_norm_steps(
                row,
                eps=self.eps,
                gamma=None if np.ndim(gamma) == 0 else gamma,
                beta=None if np.ndim(beta) == 0 else beta,
                decimals=places,
            )
        except ValueError:
            self._bad_now = {"general": "cannot be computed"}
            return None


class RowEditorEvents(ExpectedFromFields, RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.editor = widgets.row_editor([1.0, 2.0, 4.0])
        # What each field shows, and whether that text is good, as the model knows it.
        self.row = ["1", "2", "4"]  # the row in use, as typed
        self.bad = {}  # field -> the bad text it shows ("row", "box", "eps", "gamma", "beta")
        self.eps, self.gamma, self.beta = 1e-5, "", ""
        self.last_good = self.editor.record

    # --- every control, good and bad input

    @rule(values=st.lists(GOOD_NUMBERS, min_size=3, max_size=4).filter(lambda v: len(set(v)) > 1))
    def paste_a_good_row(self, values):
        if self.editor.row_text.value == ", ".join(values):  # the same text: no change, no event
            return
        self.editor.row_text.value = ", ".join(values)
        self.row = list(values)
        self.bad.pop("row", None)
        self.bad.pop("box", None)  # a paste rebuilds the boxes

    @rule(text=st.sampled_from(BAD_LISTS))
    def paste_a_bad_row(self, text):
        if self.editor.row_text.value == text:
            return
        self.editor.row_text.value = text
        self.bad["row"] = text

    @rule(data=st.data())
    def type_a_good_value_into_a_box(self, data):
        boxes = self.editor.value_boxes
        k = data.draw(st.integers(0, len(boxes) - 1))
        value = data.draw(GOOD_NUMBERS)
        if boxes[k].value == value:  # no change, no event
            return
        shown = [box.value for box in boxes]
        shown[k] = value
        boxes[k].value = value
        if all(text not in BAD_NUMBERS for text in shown):  # every box good: the row follows the boxes
            self.row = shown
            self.bad.pop("box", None)
            self.bad.pop("row", None)  # the paste field is rewritten from the boxes

    @rule(data=st.data())
    def type_a_bad_value_into_a_box(self, data):
        boxes = self.editor.value_boxes
        k = data.draw(st.integers(0, len(boxes) - 1))
        text = data.draw(st.sampled_from(BAD_NUMBERS))
        if boxes[k].value == text:
            return
        boxes[k].value = text
        self.bad["box"] = text

    @rule(eps=EPS_GOOD)
    def type_eps(self, eps):
        self.editor.eps_text.value = eps
        self.eps = float(eps)
        self.bad.pop("eps", None)

    @rule(text=st.sampled_from(["abc", "1e400", "0,001", "-1"]))
    def type_a_bad_eps(self, text):
        if self.editor.eps_text.value == text:
            return
        self.editor.eps_text.value = text
        self.bad["eps"] = text

    @rule(exponent=st.sampled_from([-12.0, -8.0, -5.0, -3.0, -1.0]))
    def move_the_eps_slider(self, exponent):
        before = self.editor.eps_slider.value
        self.editor.eps_slider.value = 10.0**exponent
        if self.editor.eps_slider.value != before:  # the slider writes its value into the exact field
            self.eps = float(self.editor.eps_text.value)
            self.bad.pop("eps", None)

    @rule(which=st.sampled_from(["gamma", "beta"]), data=st.data())
    def type_gamma_or_beta(self, which, data):
        n = len(self.row)
        text = data.draw(
            st.one_of(
                st.just(""),
                st.lists(GOOD_NUMBERS, min_size=n, max_size=n).map(", ".join),
                st.lists(GOOD_NUMBERS, min_size=1, max_size=5).map(", ".join),  # maybe the wrong length
                st.sampled_from(BAD_LISTS),
            )
        )
        getattr(self.editor, f"{which}_text").value = text
        setattr(self, which, text)

    @rule(on=st.booleans())
    def tick_by_hand(self, on):
        self.editor.by_hand.value = on

    @rule(places=st.integers(-3, 20))
    def type_places(self, places):
        self.editor.places.value = places

    @rule()
    def toggle_the_later_steps(self):
        self.editor.later_toggle.value = not self.editor.later_toggle.value

    # --- what must hold after every event

    def _per_feature_bad(self, text: str) -> bool:
        if not text.strip():
            return False
        if text in BAD_LISTS:
            return True
        return len(parse_list(text)) != len(self.row)

    def _all_good(self) -> bool:
        bad = dict(self.bad)
        for which in ("gamma", "beta"):
            if self._per_feature_bad(getattr(self, which)):
                bad[which] = getattr(self, which)
        self._bad_now = bad
        return not bad

    @invariant()
    def fields_warning_and_table_agree(self):
        editor = self.editor
        assert 0 <= editor.places.value <= MAX_DECIMALS, "the places field shows a value not in use"
        status = re.sub(r"<[^>]+>", "", editor.announcement.value)
        expected = self._expected() if self._all_good() else None
        if expected is not None:
            assert editor.message == "", f"a warning stands with every field good: {editor.message!r}"
            record = editor.record
            np.testing.assert_allclose(record.input, expected.input)
            assert record.eps == expected.eps and record.decimals == expected.decimals
            np.testing.assert_array_equal(record.output, expected.output)
            if record.decimals is None:  # and the exact numbers are LayerNorm's, in plain numpy
                row, gamma, beta = self._numbers()
                _, _, out = numpy_output(row, self.eps, gamma, beta, None)
                np.testing.assert_allclose(record.output, out, atol=1e-9)
            # Every field shows the value in use.
            assert parse_list(editor.row_text.value) == list(record.input)
            assert [float(box.value) for box in editor.value_boxes] == list(record.input)
            assert float(editor.eps_text.value) == record.eps
            assert "last good" not in status and "mean now" in status
            self.last_good = record
        else:
            assert editor.message, f"fields {self._bad_now} are bad and no warning says so"
            assert editor.record is self.last_good, "the numbers changed although a field is bad"
            assert "last good" in status, status
            for field in self._bad_now:
                if field == "general":
                    continue
                where = "row" if field in ("row", "box") else field
                assert editor.messages[where].value, f"no warning beside the {field} field ({self._bad_now})"


RowEditorEvents.TestCase.settings = settings(
    max_examples=examples(30, fast=10),
    stateful_step_count=10,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_row_editor_events = RowEditorEvents.TestCase


class MatrixEditorEvents(ExpectedFromFields, RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.start = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
        self.editor = widgets.matrix_editor(self.start)
        self.cells = [[str(v) for v in line] for line in self.start]
        self.eps_text = "1e-05"
        self.last_good = self.editor.output

    @rule(i=st.integers(0, 1), j=st.integers(0, 2), text=st.one_of(GOOD_NUMBERS, st.sampled_from(BAD_NUMBERS)))
    def type_into_a_cell(self, i, j, text):
        self.editor.cells[i][j].value = text
        self.cells[i][j] = self.editor.cells[i][j].value

    @rule(text=st.one_of(EPS_GOOD, st.sampled_from(["abc", "-1", "0,1"])))
    def type_eps(self, text):
        self.editor.eps_text.value = text
        self.eps_text = text

    @precondition(lambda self: True)
    @rule(row=st.integers(0, 1))
    def pick_a_row(self, row):
        self.editor.row_picker.value = row

    @invariant()
    def fields_warning_and_table_agree(self):
        editor = self.editor
        good = all(text not in BAD_NUMBERS for line in self.cells for text in line) and self.eps_text not in (
            "abc",
            "-1",
            "0,1",
        )
        matrix = None
        if good:
            matrix = np.array([[float(t) for t in line] for line in self.cells])
            good = all(len(set(line)) > 1 for line in matrix) or float(self.eps_text) > 0
        if good:
            assert editor.message == "", editor.message
            eps = float(self.eps_text)
            centred = matrix - matrix.mean(axis=1, keepdims=True)
            expected = centred / np.sqrt((centred**2).mean(axis=1, keepdims=True) + eps)
            np.testing.assert_allclose(editor.output, expected, atol=1e-12)
            np.testing.assert_allclose(editor.record.input, matrix[editor.row_picker.value])
            self.last_good = editor.output
        else:
            assert editor.message, "a cell or ε is bad and no warning says so"
            assert editor.output is self.last_good or np.array_equal(editor.output, self.last_good)
            assert "showing the last good result" in repr(editor)


MatrixEditorEvents.TestCase.settings = settings(max_examples=examples(25, fast=8), stateful_step_count=8, deadline=None)
test_matrix_editor_events = MatrixEditorEvents.TestCase


ANSWERS = st.sampled_from(["0.446", "0.4457", "0.5", "-1", "abc", "0,446", "", "1e400", " 0.446 "])


class AnswerCheckerEvents(RuleBasedStateMachine):
    """The answer box and Check: the verdict shown is always about the text in the box, or a warning says
    why there is none (never a stale "✓ Right" under a new entry)."""

    def __init__(self):
        super().__init__()
        self.checker = widgets.answer_checker([1.133, -0.299, 0.503], "mean", places=3)

    @rule(text=ANSWERS)
    def type_an_answer(self, text):
        self.checker.answer_box.value = text

    @rule()
    def press_check(self):
        self.checker.check_button.click()

    @invariant()
    def the_verdict_is_about_the_text_shown(self):
        checker, typed = self.checker, self.checker.answer_box.value
        number = None
        try:
            number = float(typed) if typed.strip() and "," not in typed else None
        except ValueError:
            number = None
        if number is not None and abs(number) == float("inf"):
            number = None
        if not typed and checker.verdict is None and not checker.message:
            return  # nothing typed yet, nothing said
        if number is None:
            assert checker.message and checker.verdict is None and checker.verdict_html.value == ""
        else:
            assert not checker.message and checker.verdict is not None
            assert checker._answer_text == typed.strip()
            assert checker.verdict.is_right == (typed.strip() in ("0.446", "0.4457"))


AnswerCheckerEvents.TestCase.settings = settings(
    max_examples=examples(25, fast=8), stateful_step_count=8, deadline=None
)
test_answer_checker_events = AnswerCheckerEvents.TestCase


class NumberQuestionEvents(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.question = widgets.number_question("2 · 1.5 + 1?", 4.0, 0.01, hint="Multiply, then add.")

    @rule(text=st.sampled_from(["4", "3", "abc", "4,0", "", "4.001", "1e400"]))
    def type_an_answer(self, text):
        self.question.answer_box.value = text

    @invariant()
    def the_verdict_is_about_the_text_shown(self):
        q, typed = self.question, self.question.answer_box.value
        shown = q.verdict_html.value
        if typed in ("4", "4.001"):
            assert "✓" in shown and not q.message
        elif typed == "3":
            assert "✗" in shown and not q.message
        elif typed:
            assert q.message and "✓" not in shown and "✗" not in shown, (typed, shown, q.message)


NumberQuestionEvents.TestCase.settings = settings(
    max_examples=examples(25, fast=8), stateful_step_count=8, deadline=None
)
test_number_question_events = NumberQuestionEvents.TestCase


class LiveTableEvents(RuleBasedStateMachine):
    """A live table (notebooks 09–13 build theirs on it): a value that make_table refuses keeps its warning
    while the other control moves, and the table is always make_table of the controls when none is refused."""

    def __init__(self):
        super().__init__()
        import ipywidgets

        self.made = []

        def make_table(scale, row):
            value = float(scale)  # ValueError for a word, as a notebook's make_table would raise
            if value <= 0:
                raise ValueError("scale must be positive.")
            self.made.append((scale, row))
            return helpers_show_matrix([[value * (row + 1)]], title=f"scale {scale}, row {row}")

        self.table = widgets.live_table(
            make_table,
            scale=ipywidgets.Text(value="1", description="scale"),
            row=ipywidgets.Dropdown(options=[0, 1, 2], value=0, description="row"),
        )
        self.last_good = ("1", 0)

    @rule(text=st.sampled_from(["1", "2.5", "abc", "-1", "0"]))
    def type_a_scale(self, text):
        self.table.controls["scale"].value = text

    @rule(row=st.sampled_from([0, 1, 2]))
    def pick_a_row(self, row):
        self.table.controls["row"].value = row

    @invariant()
    def the_table_is_made_from_the_controls_or_a_warning_stands(self):
        scale, row = self.table.controls["scale"].value, self.table.controls["row"].value
        good = scale in ("1", "2.5")
        if good:
            assert not self.table.message
            self.last_good = (scale, row)
        else:
            assert self.table.message, f"scale {scale!r} is refused and no warning says so"
        assert f"scale {self.last_good[0]}, row {self.last_good[1]}" in self.table.table_html.value


def helpers_show_matrix(values, title):
    from helpers import show_matrix

    return show_matrix(values, title=title)


LiveTableEvents.TestCase.settings = settings(max_examples=examples(25, fast=8), stateful_step_count=8, deadline=None)
test_live_table_events = LiveTableEvents.TestCase
