"""Where pedatorch's warnings point: at the learner's line.

PyTorch's warnings from C++ name the Python line that called the op, however the op was reached. pedatorch's
ops are Python all the way down (and its public functions are wrapped for ``__torch_function__``), so a fixed
``stacklevel`` would name some line inside pedatorch: each ``warnings.warn`` passes ``user_stacklevel()``.
"""
import sys


def user_stacklevel():
    """The ``stacklevel`` for a ``warnings.warn`` in the calling function that names the first line outside
    pedatorch (the learner's line, as PyTorch's warnings from C++ do), however deep the op's Python calls."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith("pedatorch"):
        frame, level = frame.f_back, level + 1
    return level
