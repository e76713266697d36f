"""``pedatorch.jit``: programs as graphs (``torch.jit``).

``trace(model, example_inputs)`` runs the model once and records every op it calls into a graph
(``_trace.py``; the graph and its replay are in ``_ir.py``).  The result is a module (or function)
whose ``forward`` runs that graph: the same ops, called again, so gradients flow through it; its
``graph`` prints in TorchScript's IR layout and its ``code`` as Python.  ``save``/``load`` write and
read it in a format of pedatorch's own: a zip with the graph as JSON and the tensors as raw bytes --
no pickled code, so loading a file never runs code from it (``_serialization.py``).

``script(fn)`` checks that a function's (or module's) source stays in the subset TorchScript
compiles -- ``if``/``for``/``while`` on tensor values included -- and runs it as Python; its graph
shows the control flow as ``prim::If``/``prim::Loop`` (``_script.py``).

The decorators and helpers real programs call (``ignore``, ``unused``, ``export``, ``is_scripting``,
``is_tracing``, ``Final``, ``annotate``, ``freeze``, ``optimize_for_inference``) are here too.
"""
import warnings

from .._warnings import user_stacklevel
from ..nn.modules.module import Module
from ..utils._pytree import tree_flatten, tree_map
from .._tensor import Tensor
from . import frontend
from ._trace import TracerWarning, TracingCheckError, is_tracing, trace_graph, untouched
from ._module import (ScriptModule, RecursiveScriptModule, TracedModule, TopLevelTracedModule, ScriptFunction)
from ._script import script, is_scripting, ScriptWarning, _IGNORE_ATTR
from ._serialization import save, load

__all__ = ["trace", "trace_module", "script", "save", "load", "TracerWarning", "TracingCheckError", "ScriptModule",
           "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule", "ScriptFunction", "ScriptWarning",
           "ignore", "unused", "export", "is_scripting", "is_tracing", "Final", "annotate", "freeze",
           "optimize_for_inference", "Attribute", "Error", "frontend", "interface", "script_if_tracing",
           "isinstance", "fork", "wait", "set_fusion_strategy", "enable_onednn_fusion", "onednn_fusion_enabled"]

_builtin_isinstance = isinstance

_DEPRECATED = "`torch.jit.{}` is deprecated. Please switch to `torch.compile` or `torch.export`."


class Error(RuntimeError):
    """An error raised while running a TorchScript program (``torch.jit.Error``)."""


# ---------------------------------------------------------------- tracing

def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """Run ``func`` (a module or a function) on ``example_inputs`` and return it as a graph.

    The graph repeats the ops the run called.  Python control flow is decided by the example (with
    a ``TracerWarning`` where a tensor turned into a Python value); the graph runs on other batch
    sizes where a second trace showed how its sizes follow the batch (see ``_trace.py``)."""
    warnings.warn(_DEPRECATED.format("trace"), DeprecationWarning, stacklevel=user_stacklevel())
    if _builtin_isinstance(func, (ScriptModule, ScriptFunction)):
        warnings.warn("The input to trace is already a ScriptModule, tracing it is a no-op. Returning the object "
                      "as is.", stacklevel=user_stacklevel())
        return func
    if example_inputs is None and example_kwarg_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs must be provided")
    if _builtin_isinstance(func, Module):
        is_kwarg = example_inputs is None
        return trace_module(func, {"forward": example_kwarg_inputs if is_kwarg else example_inputs}, None,
                            check_trace, _wrap_check_inputs(check_inputs), check_tolerance, strict,
                            example_inputs_is_kwarg=is_kwarg, _warn=False)
    owner = getattr(func, "__self__", None)
    if _builtin_isinstance(owner, Module) and func.__name__ == "forward":
        return trace_module(owner, {"forward": example_inputs}, None, check_trace,
                            _wrap_check_inputs(check_inputs), check_tolerance, strict, _warn=False)
    if example_kwarg_inputs is not None and not _builtin_isinstance(example_kwarg_inputs, dict):
        raise RuntimeError("example_kwarg_inputs should be a dict")
    args, kwargs = _as_args(example_inputs, example_kwarg_inputs)
    saved = _clone(args, kwargs) if check_trace else None
    graph, result = trace_graph(func, args, kwargs, None, warn=True, strict=strict)
    name = getattr(func, "__name__", type(func).__name__).replace("<lambda>", "_lambda")
    traced = ScriptFunction(graph, name)
    if check_trace:
        _check(traced, func, saved, result, check_inputs, check_tolerance, None)
    return traced


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
                 strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
                 example_inputs_is_kwarg=False, _store_inputs=True, _warn=True):
    """Trace the methods of ``mod`` named in ``inputs`` ({method name: example inputs})."""
    if _warn:
        warnings.warn(_DEPRECATED.format("trace_method"), DeprecationWarning, stacklevel=user_stacklevel())
    if not _builtin_isinstance(mod, Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not _builtin_isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    traced = TopLevelTracedModule(mod)
    for i, (name, example) in enumerate(inputs.items()):
        fn = mod if name == "forward" else getattr(mod, name)
        if example_inputs_is_kwarg:
            args, kwargs = (), dict(example)
        else:
            args, kwargs = _as_args(example, None)
        saved = _clone(args, kwargs) if check_trace else None
        graph, result = trace_graph(fn, args, kwargs, mod, warn=True, strict=strict)
        traced._set_graph(name, graph)
        if check_trace:
            run = traced if name == "forward" else getattr(traced, name)
            checks = None if check_inputs is None else [c[name] if _builtin_isinstance(c, dict) else c
                                                         for c in check_inputs]
            _check(run, fn, saved, result, checks, check_tolerance, mod)
    return traced


def _wrap_check_inputs(check_inputs):
    return None if check_inputs is None else [{"forward": c} for c in check_inputs]


def _as_args(example_inputs, example_kwarg_inputs):
    if example_kwarg_inputs is not None:
        return (), dict(example_kwarg_inputs)
    if _builtin_isinstance(example_inputs, tuple):
        return example_inputs, {}
    return (example_inputs,), {}


def _clone(args, kwargs):
    """Copies of the inputs as they are now (the traced code may write into them)."""
    def copy(t):
        if not _builtin_isinstance(t, Tensor):
            return t
        c = t.detach().clone()
        return c.requires_grad_() if t.requires_grad else c
    return tree_map(copy, (tuple(args), dict(kwargs)))


def _check(traced, fn, saved, result, check_inputs, tolerance, module):
    """``check_trace``: the graph must give what the Python code gave (PyTorch warns where it does not)."""
    from ..testing import assert_close
    cases = [(saved, result)]
    if check_inputs is not None:
        cases = [(_as_args(c, None), None) for c in check_inputs]
    for (args, kwargs), expected in cases:
        with untouched(module), warnings.catch_warnings():
            warnings.simplefilter("ignore", TracerWarning)
            got = traced(*args, **kwargs)
            if expected is None:
                expected = fn(*_clone(args, kwargs)[0], **kwargs)
        got_flat, expected_flat = tree_flatten(got)[0], tree_flatten(expected)[0]
        for i, (g, e) in enumerate(zip(got_flat, expected_flat)):
            try:
                assert_close(g.detach(), e.detach(), rtol=tolerance, atol=tolerance,
                             equal_nan=True)
            except AssertionError as err:
                warnings.warn(f"Output nr {i + 1}. of the traced function does not match the corresponding output of "
                              f"the Python function. Detailed error:\n{err}", TracerWarning, stacklevel=user_stacklevel())


# ---------------------------------------------------------------- decorators and helpers programs call

class _Unused:
    pass


def ignore(drop=False, **kwargs):
    """Leave a function to Python: ``script`` does not compile it, and calls it as it is."""
    if callable(drop):
        setattr(drop, _IGNORE_ATTR, "ignore")
        return drop
    if not _builtin_isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    kind = "unused" if drop or kwargs.get("drop_on_export") else "ignore"

    def decorator(fn):
        setattr(fn, _IGNORE_ATTR, kind)
        return fn
    return decorator


def unused(fn):
    """A method ``script`` leaves out (for a method only used in training, say); Python still runs it."""
    if _builtin_isinstance(fn, property):
        setattr(fn.fget, _IGNORE_ATTR, "unused")
        return fn
    setattr(fn, _IGNORE_ATTR, "unused")
    return fn


def export(fn):
    """Mark a method that ``script`` compiles besides ``forward``."""
    fn._torchscript_modifier = "export"
    return fn


def script_if_tracing(fn):
    """Compile ``fn`` only when a trace calls it (here: ``fn`` runs as Python)."""
    return fn


def annotate(the_type, the_value):
    """Tell TorchScript the type of ``the_value``; in Python it returns the value unchanged."""
    return the_value


def isinstance(obj, target_type):
    """TorchScript's container-aware isinstance; in Python, ``isinstance`` for plain types."""
    origin = getattr(target_type, "__origin__", None)
    return _builtin_isinstance(obj, origin if origin is not None else target_type)


class _FinalMeta(type):
    def __getitem__(cls, item):
        return item


class Final(metaclass=_FinalMeta):
    """``x: Final[int] = 3`` marks a constant module attribute for TorchScript (an annotation only)."""


class Attribute:
    """``torch.jit.Attribute(value, type)``: the value, with the type TorchScript should give it."""

    def __new__(cls, value, type=None):
        return value


def interface(obj):
    """Mark a class as a TorchScript interface type (here: returned unchanged)."""
    return obj


class _Future:
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value

    def value(self):
        return self._value

    def done(self):
        return True


def fork(func, *args, **kwargs):
    """Start ``func`` asynchronously (here: it runs at once) and return a future of its result."""
    return _Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """PyTorch inlines parameters as constants; here the module (which must be a ScriptModule in eval
    mode, as PyTorch requires) is returned as it is: a graph already reads its parameters."""
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() "
                           "on your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    """PyTorch freezes and fuses; here: ``freeze`` (a module in eval mode, returned as it is)."""
    if not _builtin_isinstance(mod, ScriptModule):
        raise RuntimeError("optimize_for_inference expects a ScriptModule as input. Please use torch.jit.script or "
                           "torch.jit.trace to script your 'nn.Module'.")
    if mod.training:
        mod.eval()
    return freeze(mod)


def set_fusion_strategy(strategy):
    """Fusion settings of PyTorch's JIT: accepted, nothing to fuse here; returns the previous strategy."""
    return [("STATIC", 2), ("DYNAMIC", 10)]


_onednn = [False]


def enable_onednn_fusion(enabled):
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn[0]

