"""What ipywidgets' controls lack for a screen reader and a keyboard, supplied from the widgets' own HTML.

- A live region that stays: ipywidgets' HTML widget replaces its contents on every change, and a
  ``role="status"`` element that arrives already filled is often read by no screen reader.  The
  region is the HTML widget's own content element, which ipywidgets keeps for the widget's life;
  only its text changes.
- Names: a slider's handle gets the slider's description as its name, the Play widget's buttons
  the word their icon stands for; ipywidgets 8.1 gives neither a name, and has no option for one.
- The focus handed on when a button disables itself (``on_press``), rather than dropped on the page.
- The course's focus ring on every control of its widgets, and a border on every button in forced colours
  (a drawing's "In words" disclosure brings its ring with it: ``viz.page``).

No front-end extension does this: JupyterLab and the browser app (JupyterLite) draw the same
ipywidgets, whose HTML widget puts its value into the page as it is (not sanitised), so a hidden
image's error handler runs the few lines of script below in both.  Where no script runs (a viewer
that strips it), the widgets still work, without these additions.
"""

import html

from .. import palette
from ._base import widgets

__all__ = ["LiveRegion", "WIDGET_CLASSES", "on_press", "page_support"]

# The course's widgets, by the class each puts on its box.
WIDGET_CLASSES = (
    "micrograd-backprop-stepper", "micrograd-training-stepper", "micrograd-expression-explorer", "micrograd-generation-stepper",
)

# Text for a screen reader alone: out of sight, still in the accessibility tree (display:none would drop it).
SCREEN_READER_ONLY = (
    "position:absolute !important;width:1px !important;height:1px !important;margin:-1px !important;"
    "overflow:hidden !important;clip:rect(0 0 0 0) !important;white-space:nowrap !important"
)

# JupyterLab draws a widget button's focus as a 1 px border a shade lighter than the button's: hard to see.
# Inside the control (a negative offset): the widget's row clips what is drawn outside it.
_RING = f"{{outline: 2px solid {palette.FOCUS_RING} !important; outline-offset: -2px}}"
FOCUS_CSS = ", ".join(
    f".{name} :is(button, input, select, summary, .noUi-handle, [tabindex]):focus-visible" for name in WIDGET_CLASSES
) + f" {_RING}"
# Forced colours (Windows' high contrast themes) drop backgrounds and box shadows: ipywidgets' buttons, which
# have no border, would be bare words.  Each gets a border of the system's button text colour (grey when
# disabled) and, with the focus, a ring in the system's highlight colour.
_CONTROLS = ", ".join(f".{name} button" for name in WIDGET_CLASSES)
_FOCUSED = ", ".join(f".{name} :is(button, input, select, summary, .noUi-handle, [tabindex]):focus-visible" for name in WIDGET_CLASSES)
FORCED_COLOURS_CSS = (
    f"@media (forced-colors: active) {{:is({_CONTROLS}) {{border: 1px solid ButtonText !important}} "
    f":is({_CONTROLS}):disabled {{border-color: GrayText !important}} "
    f":is({_FOCUSED}) {{outline: 2px solid Highlight !important; outline-offset: -2px}}}}"
)
LIVE_CSS = f".micrograd-live {{{SCREEN_READER_ONLY}}}"

# The names of the Play widget's buttons, by their Font Awesome icon (its play button shows pause while playing).
PLAY_NAMES = {"fa-play": "Play", "fa-pause": "Pause", "fa-stop": "Stop", "fa-retweet": "Repeat"}

# Run once per widget box, from the hidden image of page_support(); kept idempotent, since a
# MutationObserver runs it again whenever a control is drawn or redrawn (a slider whose range
# changes is rebuilt; the play button's icon changes class).
SUPPORT_SCRIPT = """
var img = this, tries = 0;
(function find() {
  var box = img.closest('%(boxes)s');
  if (!box) { if (++tries < 600) setTimeout(find, 100); return; }
  if (box.micrograd_support) return;
  box.micrograd_support = true;
  var play = %(play)s;
  var name = function (el, text) { if (text && el.getAttribute('aria-label') !== text) el.setAttribute('aria-label', text); };
  var apply = function () {
    box.querySelectorAll('.micrograd-live > .widget-html-content').forEach(function (live) {
      if (live.getAttribute('role') !== 'status') {
        live.setAttribute('role', 'status'); live.setAttribute('aria-live', 'polite'); live.setAttribute('aria-atomic', 'true');
      }
    });
    box.querySelectorAll('.widget-slider').forEach(function (slider) {
      var label = slider.querySelector('.widget-label');
      var text = label ? label.textContent.trim() : '';
      slider.querySelectorAll('.noUi-handle').forEach(function (handle) { name(handle, text); });
    });
    box.querySelectorAll('.widget-play button').forEach(function (button) {
      var icon = button.querySelector('i');
      Object.keys(play).forEach(function (cls) { if (icon && icon.classList.contains(cls)) name(button, play[cls]); });
    });
  };
  apply();
  new MutationObserver(apply).observe(box, {childList: true, subtree: true, attributes: true, attributeFilter: ['class']});
})();
"""


def page_support():
    """A hidden widget, put in each controller's box, holding the course's CSS and the script that
    names ipywidgets' unnamed controls and makes the box's live region a status region."""
    script = SUPPORT_SCRIPT % {"boxes": ", ".join(f".{name}" for name in WIDGET_CLASSES),
                               "play": repr(PLAY_NAMES).replace("'", '"')}
    style = widgets.HTML(
        f"<style>{FOCUS_CSS} {FORCED_COLOURS_CSS} {LIVE_CSS}</style>"
        f'<img alt="" src="" onerror="{html.escape(" ".join(script.split()), quote=True)}">',
        layout={"display": "none"},
    )
    style.add_class("micrograd-page-support")
    return style


class LiveRegion:
    """A polite status region that stays in the page while its text changes: what a screen reader says
    after a button press, in one sentence.  Out of sight: the panels show the same to the eye.

    Empty until the first ``say()``, so a widget drawn says nothing until it is used.
    """

    def __init__(self):
        self.widget = widgets.HTML("")
        self.widget.add_class("micrograd-live")

    @property
    def text(self):
        """What the region says now."""
        return html.unescape(self.widget.value)

    def say(self, sentence):
        self.widget.value = html.escape(sentence)


def on_press(button, action, *successors):
    """Run ``action`` when ``button`` is pressed; when that disables the button, the keyboard's focus
    goes to the first of ``successors`` still enabled, where the browser would drop it on the page.

    Only a press hands the focus on: the same action called from a cell leaves the focus where it is.
    """
    def pressed(_):
        action()
        if button.disabled:
            for successor in successors:
                if not successor.disabled:
                    successor.focus()
                    break

    button.on_click(pressed)
