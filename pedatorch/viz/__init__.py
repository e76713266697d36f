"""pedatorch.viz: pictures of what the lessons talk about.

=====================  ==========================================================
``graph``              the autograd graph of outputs (or of ``model(example)``)
``backward_steps``     the backward pass step by step, in the engine's real order
``explain``            what one grad_fn node computes and how it differentiates
``broadcast``          how two shapes broadcast, and how gradients sum back
``broadcast_widget``   the same, with the shapes edited live (ipywidgets)
``memory``             tensors over their storage: offsets, strides, views
``TrainingCurves``     live loss/accuracy/lr curves for a training loop
``progress``           a progress bar with ETA for long loops
``summary``            a table of a model's layers, shapes and parameter counts
``set_renderer``       choose the Graphviz renderer (see ``viz._render``)
=====================  ==========================================================

Importing pedatorch.viz needs numpy only; each picture imports what it draws
with (a Graphviz renderer, matplotlib, ipywidgets) when it is used, and says
which extra to install when that is missing.
"""
import importlib

# The submodules are named apart from the functions they export (graph -> graphs.py, broadcast ->
# broadcasting.py, memory -> layout.py, summary -> tables.py): importing a submodule sets it as an
# attribute of this package, which would otherwise hide the function of the same name.

from ._render import RendererNotFound, renderer, renderer_name, set_renderer
from ._picture import Picture

_LAZY = {
    "graph": "graphs", "Graph": "graphs",
    "backward_steps": "steps", "BackwardSteps": "steps", "Step": "steps",
    "explain": "steps", "Explanation": "steps",
    "broadcast": "broadcasting", "broadcast_widget": "broadcasting", "BroadcastDiagram": "broadcasting",
    "memory": "layout", "MemoryDiagram": "layout",
    "TrainingCurves": "training", "progress": "training",
    "summary": "tables", "ModelSummary": "tables",
}

__all__ = ["Picture", "RendererNotFound", "renderer", "renderer_name", "set_renderer", *_LAZY]


def __getattr__(name):
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'pedatorch.viz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def _need(module, extra="viz"):
    """Import an optional module, or raise ModuleNotFoundError naming the extra."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"pedatorch.viz needs {module.split('.')[0]} for this: pip install 'pedatorch[{extra}]'",
            name=e.name) from None
