"""The row editor's folding: which stages its table shows (``upto``, ``stages``), what the fold toggle says,
and which lines of controls it shows (``controls``). A mixin: the editor has ``upto``, ``shown_stages``,
``controls``, ``focus`` and ``later_toggle``."""

from __future__ import annotations

from helpers.core.layernorm import STAGES
from helpers.core.validation import InputError
from helpers.display import STAGE_LABELS


class StageFolding:
    def _learned(self, stage: str) -> bool:
        """True when ``stage`` is learned so far (always, without ``upto``)."""
        return self.upto is None or STAGES.index(stage) <= STAGES.index(self.upto)

    def _shows(self, control: str) -> bool:
        """Whether the line of ``control`` ("eps", "gamma", "beta") is shown: learned, and asked for."""
        return self._learned(control) and control in self.controls

    def _taught(self) -> str | None:
        """The stage the notebook has reached, for the words under the table: None once every step is shown."""
        return None if self.shown_stages else self.upto

    def _later_stages(self) -> tuple[str, ...]:
        """The stages folded away: those not in ``stages``, or after ``upto`` (none without either)."""
        if self.shown_stages:
            return tuple(s for s in STAGES if s not in self.shown_stages and s not in ("gamma", "beta"))
        if self.upto is None:
            return ()
        return tuple(s for s in STAGES[STAGES.index(self.upto) + 1 :] if s not in ("gamma", "beta"))

    def _stages(self):
        """The stages shown: ``stages`` if given, else those learned up to ``upto``; all (None) without
        either or once every step is unfolded."""
        if self.later_toggle.value or (self.upto is None and not self.shown_stages):
            return None
        if self.shown_stages:
            return self.shown_stages
        return tuple(
            s
            for s in STAGES[: STAGES.index(self.upto) + 1]
            if s not in ("gamma", "beta") or s == self.upto or s in self.focus
        )

    def _toggle_label(self, open_: bool) -> str:
        """What pressing the toggle will do: unfold the later steps, or fold them again once open."""
        if self.shown_stages:
            return "show fewer steps" if open_ else "show every step"
        return "hide the later steps" if open_ else "show the later steps"

    def _folded_note(self) -> str:
        later = self._later_stages()
        if not later or self.later_toggle.value:
            return ""
        if self.shown_stages:  # a slide: one short line
            return f"{len(later)} more steps folded: press “{self.later_toggle.description}”"
        names = ", ".join(STAGE_LABELS[s][0] for s in later)
        return f"later steps folded ({names}): press “{self.later_toggle.description}”"


# The row editor's lines of controls, top to bottom: the paste field, one box per value, ε, γ, β, by hand.
CONTROLS = ("row", "values", "eps", "gamma", "beta", "by_hand")


def check_controls(controls) -> tuple[str, ...]:
    if controls is None:
        return CONTROLS
    names = (controls,) if isinstance(controls, str) else tuple(controls)
    unknown = [repr(name) for name in names if name not in CONTROLS]
    if unknown:
        raise InputError(
            "controls", f"controls names lines that do not exist: {', '.join(unknown)}; they are {', '.join(CONTROLS)}."
        )
    return names


def check_upto(upto) -> str | None:
    if upto is not None and upto not in STAGES:
        raise InputError(
            "upto", f"upto names a stage that does not exist: {upto!r}; the stages are {', '.join(STAGES)}."
        )
    return upto
