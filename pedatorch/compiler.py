"""``torch.compiler``: pedatorch has no compiler, so every program runs eagerly, op by op.

PyTorch's ``torch.compile`` traces a model into graphs and generates fused kernels; pedatorch's
``compile`` returns the model unchanged (the values are the same, only the speed differs).  The helpers
here are the ones code written for the compiler calls, with what they mean when nothing compiles:
``is_compiling()`` is always False, ``disable`` and ``allow_in_graph`` leave a function as it is.
"""
import contextlib

__all__ = ["compile", "reset", "allow_in_graph", "assume_constant_result", "disable", "set_stance",
           "list_backends", "is_compiling", "is_dynamo_compiling", "is_exporting", "cudagraph_mark_step_begin"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, shapes_spec=None):
    """``torch.compile``: no compiler here, so the model (or function) comes back unchanged; without a
    model, a decorator that does the same (``@torch.compile(mode="max-autotune")``)."""
    if model is None:
        return lambda m: m
    return model


def reset():
    """Clear the compiler's caches: there are none."""


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def disable(fn=None, recursive=True, *, reason=None):
    """Keep ``fn`` out of compilation: it already runs eagerly.  Usable as ``@disable`` and ``@disable()``."""
    if fn is None:
        return lambda f: f
    return fn


class set_stance(contextlib.ContextDecorator):
    """How compiled code behaves (``"default"``, ``"force_eager"``, ...): every stance is eager here.
    Works as a call, a ``with`` block and a decorator, as in PyTorch."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        self.stance = stance

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def list_backends(exclude_tags=("debug", "experimental")):
    """The compiler backends: none (pedatorch has no compiler)."""
    return []


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def cudagraph_mark_step_begin():
    """CUDA graphs are not captured here: nothing to mark."""
