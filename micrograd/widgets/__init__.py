"""Interactive widgets for JupyterLab: step through backprop, training and a GPT's sampling.

    from micrograd.widgets import BackpropStepper, TrainingStepper, ExpressionExplorer, GenerationStepper

Each is a controller: it owns the state, shows it in ``.widget`` (displayed
when the controller ends a cell) and exposes its buttons and sliders as
attributes.  Every button calls a plain method (``step()``, ``back()``,
``reset()``, ...), so the same actions work from code and in tests.  The
training stepper is a view of a ``micrograd.training.TrainingSession``,
which runs without widgets.  Displayed, each controller also carries a
static picture of its state (HTML with an SVG), which GitHub, nbviewer or a
static site show where no kernel runs.
Needs ipywidgets and graphviz (``pip install 'micrograd-lessons[widgets]'``);
the training stepper's figure also needs numpy, matplotlib and pillow, which
it imports when it is made, so that the other widgets work where those are
missing (the course in the browser), and the stepper steps there too, one
line saying what its figure needs in the figure's place.
"""

from .backprop import BackpropStepper
from .explorer import ExpressionExplorer
from .generation import GenerationStepper
from .training import LOSSES, TrainingStepper

__all__ = ["BackpropStepper", "TrainingStepper", "ExpressionExplorer", "GenerationStepper", "LOSSES"]
