"""Accessible names, announcements and text alternatives for the widgets, on ipywidgets 7.7 (Colab) and 8.

What a screen reader gets from core ipywidgets:

- ipywidgets 8 links a control's ``description`` to its input (``<label for=…>``), so the description
  is the accessible name: it must say what the control changes ("exact ε:", not "Text"). ``tooltip``
  becomes the ``title`` attribute: on an <img> (``widgets.Image``) that is its accessible name, the
  image's alt text in effect. 8 has no aria-label trait.
- ipywidgets 7.7 (Colab) writes the description as a label that is not linked to its input, and has no
  ``tooltip`` on most widgets (only ``description_tooltip``, shown on hover over the label). The names
  below are still set where 7.7 has a place for them, and every picture also gets its text alternative
  as visible text beside it, which a screen reader reads in either version.
- Neither version lets Python set attributes on a widget's own element, so an announcement is an HTML
  widget holding a ``role="status"`` element (a polite live region). Screen readers announce a status
  region's new text; some announce it only when the region itself stays in the page, which an HTML
  widget's update does not guarantee: the same words are therefore also visible text.

Used by helpers.widgets; no maths here.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

IPYWIDGETS_8 = hasattr(widgets.Widget, "_repr_mimebundle_")
_STATUS_STYLE = "font-size:13px;color:#333;margin:2px 0"


def name(control, words: str):
    """Say what ``control`` changes, where the installed ipywidgets has a place for it; returns the control."""
    if IPYWIDGETS_8:
        control.tooltip = words
    elif "description_tooltip" in control.trait_names():  # 7.7: hover text on the label only
        control.description_tooltip = words
    return control


def accessible_name(control) -> str:
    """The name a screen reader gives ``control``: its description (a button's text, or a field's linked
    label in 8), else its tooltip."""
    for trait in ("description", "tooltip", "description_tooltip"):
        value = getattr(control, trait, None) if trait in control.trait_names() else None
        if value:
            return str(value).strip()
    return ""


def status_html(sentence: str, unseen: str = "") -> str:
    """``sentence`` in a polite live region: read out when it changes, and visible as well; ``unseen`` (HTML,
    e.g. :func:`visually_hidden_html`) goes first, read out but not drawn."""
    return (
        f'<div role="status" aria-live="polite" aria-atomic="true" style="{_STATUS_STYLE}">'
        f"{unseen}{html.escape(sentence)}</div>"
    )


# Read by a screen reader, not drawn: the usual "visually hidden" rules (not display:none, which hides from both).
_VISUALLY_HIDDEN = (
    "position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);"
    "white-space:nowrap;border:0"
)


def visually_hidden_html(text: str) -> str:
    """``text`` for a screen reader only ("" for none): a message already drawn once elsewhere."""
    return f'<span style="{_VISUALLY_HIDDEN}">{html.escape(text)} </span>' if text else ""


def describe_image(image, alt: str) -> None:
    """The image's text alternative: its title in 8 (an <img>'s accessible name); 7.7 has no place for it
    on the image, so show ``alt`` beside it too (see :func:`caption_html`)."""
    if IPYWIDGETS_8:
        # 8's view sets the title only when the model's ``description`` is empty, and reads its length:
        # Image has no description, so with a tooltip its view fails to draw ("Cannot read properties of
        # undefined"). An empty synced description lets the tooltip through as the <img>'s title.
        if "description" not in image.trait_names():
            import traitlets

            image.add_traits(description=traitlets.Unicode("").tag(sync=True))
        image.tooltip = alt


def caption_html(alt: str, details: str = "") -> str:
    """A picture's text alternative as visible text under it, with its numbers in a fold."""
    fold = (
        f"<details><summary>the picture's numbers as text</summary><pre>{html.escape(details)}</pre></details>"
        if details
        else ""
    )
    return f'<div style="font-size:12px;color:#444;max-width:600px">{html.escape(alt)}{fold}</div>'


def result_sentence(record, upto: str | None = None) -> str:
    """What changed after an edit, in words, saying only what the notebook has taught (``upto``, a stage
    name, as the row editor's; None for everything): "mean now 0.4457" up to the mean; then "standard
    deviation now 0.5860 (√(σ² + ε))"; at the normalised stage the normalised values and the variance of
    x̂, which a smaller ε brings closer to 1; at γ and β the normalised values still; with everything (or up
    to "output"), the output (up to 12 values). By hand, at its places."""
    import numpy as np

    from helpers.core.layernorm import STAGES
    from helpers.display import format_number, places_for

    places = 4 if record.decimals is None else record.decimals

    def number(value, at=places, among=None) -> str:
        """By the shared rule; a tiny value (or row, ``among``) gets the places that show its digits."""
        return format_number(value, places_for(value if among is None else among, at))

    def learned(stage: str) -> bool:
        return upto is None or STAGES.index(stage) <= STAGES.index(upto)

    sentence = f"mean now {number(record.mean)}"
    if learned("std"):
        sentence += f", standard deviation now {number(record.std)} (√(σ² + ε))"
    shows_output = learned("output")  # "output" is every step, as None is
    if learned("normalised") and not shows_output and len(record.normalised) <= 12:
        sentence += ", normalised x̂ now " + ", ".join(number(v, among=record.normalised) for v in record.normalised)
    if upto == "normalised":
        variance = float(np.var(np.asarray(record.normalised, dtype=np.float64)))
        sentence += f"; variance of x̂ now {number(variance, max(places, 6))} (1 when ε is nothing beside σ²)"
    if shows_output and len(record.output) <= 12:
        sentence += ", output now " + ", ".join(number(v, among=record.output) for v in record.output)
    if record.decimals is not None:
        sentence += f"; by hand, rounding every step to {record.decimals} places"
    return sentence + "."


# ---------------------------------------------------------------------------------------------
# Two gaps in the hosts that Python cannot reach, closed by a few lines of script (JupyterLab, Voilà)
#
# 1. ipywidgets 8 draws a slider with noUiSlider, whose handle (role="slider", the element that takes
#    the focus and the arrow keys) has no accessible name: its description is a separate <label> that
#    points nowhere, and ipywidgets offers no way to set the handle's attributes (axe-core reports
#    "aria-input-field-name"; noUiSlider's own advice is to label the handle from script). The script
#    names each handle by its slider's description (aria-labelledby), so "ε (log scale)" is read out.
# 2. JupyterLab's notebook binds ↑ and ↓ to "select the cell above/below", and Lumino applies that even
#    while a drop-down or a slider has the focus, so ↓ on the row picker left the widget. Lumino skips
#    its shortcuts inside an element marked data-lm-suppress-shortcuts: the script marks drop-downs, radio
#    buttons and slider handles, so the arrow keys change them as everywhere else (Tab and Shift+Tab still leave).
#
# The script is idempotent (one observer per page, however many widgets show it), touches only widget
# elements, and runs once per animation frame at most while the page changes. ipywidgets 7.7 (Colab)
# draws sliders with jQuery UI (no role="slider") and runs each output in its own frame: it is not sent
# there. A host that does not run scripts in outputs (an untrusted notebook) simply goes without.
HOST_FIXES_JS = """(() => {
  const fix = () => {
    for (const handle of document.querySelectorAll(".widget-slider .noUi-handle:not([data-layernorm-named])")) {
      const label = handle.closest(".widget-slider").querySelector(".widget-label");
      if (label && label.textContent.trim()) {
        label.id = label.id || "layernorm-label-" + Math.random().toString(36).slice(2);
        handle.setAttribute("aria-labelledby", label.id);
      }
      handle.setAttribute("data-lm-suppress-shortcuts", "true");
      handle.setAttribute("data-layernorm-named", "");
    }
    const keyed = ".widget-dropdown select, .widget-radio-box input";  // arrow keys choose here
    for (const select of document.querySelectorAll(keyed.split(", ").map(s => s + ":not([data-lm-suppress-shortcuts])").join(", "))) {
      select.setAttribute("data-lm-suppress-shortcuts", "true");
    }
  };
  if (window.layernormHostFixes) { window.layernormHostFixes(); return; }
  window.layernormHostFixes = fix;
  let queued = false;
  new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; fix(); }); }
  }).observe(document.body, { childList: true, subtree: true });
  fix();
})();"""

_FIXED_CONTROLS = (
    widgets.FloatLogSlider,
    widgets.FloatSlider,
    widgets.IntSlider,
    widgets.SelectionSlider,
    widgets.Dropdown,
    widgets.RadioButtons,
)


def needs_host_fixes(widget) -> bool:
    """Whether ``widget`` holds a slider or a drop-down (anywhere inside), the controls the script fixes."""
    if isinstance(widget, _FIXED_CONTROLS):
        return True
    return any(needs_host_fixes(child) for child in getattr(widget, "children", ()))


def host_fixes_bundle() -> dict:
    """The script as a display bundle; shown after a widget that needs it, on ipywidgets 8 only."""
    return {"application/javascript": HOST_FIXES_JS}
