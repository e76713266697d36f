"""Automatic differentiation: the graph, the engine, Function, grad modes, gradcheck.

Reading path from ``loss.backward()`` to one gradient formula:
  ``Tensor.backward`` -> ``autograd.backward`` (here) -> ``engine.run_backward``
  -> ``node.apply`` -> the op's ``backward`` in ``pedatorch/ops/*.py``.
"""
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
                        is_inference_mode_enabled, set_multithreading_enabled)
from .anomaly_mode import detect_anomaly, set_detect_anomaly, is_anomaly_enabled
from .function import Function, ArrayFunction, FunctionCtx, once_differentiable
from .graph import Node, AccumulateGrad
from . import graph, function  # noqa: F401
from .engine import run_backward, zeros_like
from .._tensor import Tensor
from ..backend import namespace
from .gradcheck import gradcheck, gradgradcheck
import numpy as _np
from collections.abc import Mapping


__all__ = ["backward", "grad", "Function", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "detect_anomaly", "set_detect_anomaly", "gradcheck", "gradgradcheck",
           "Variable", "functional"]

class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 wrapper: ``Variable(t, requires_grad=True)`` is now just a tensor that requires grad."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if data is None:
            # deliberate upward import (autograd -> ops): ``tensor()`` is the factory, with its checks
            from ..ops.creation import tensor
            return tensor([])
        t = data.detach()
        if requires_grad:
            t.requires_grad_()
        return t


def variable(*args, **kwargs):
    raise RuntimeError("torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


def kineto_available():
    """Whether the profiler runs on Kineto, PyTorch's profiling library: pedatorch's profiler is its own
    (``pedatorch.profiler.kineto_available`` says the same)."""
    return False


def __getattr__(name):
    # torch.autograd.profiler, without importing it first (as in PyTorch); imported late, because the
    # profiler is built on autograd
    if name in ("profiler", "forward_ad"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _seed(out):
    """The implicit gradient of a scalar output: a one of its dtype, on its device."""
    data = out._data
    xp = namespace(data)
    return Tensor._make(xp.ones(data.shape, data.dtype))


def _make_grads(outputs, grads, is_grads_batched=False):
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if out._data.dtype.kind not in "fcV":
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but "
                                       f"got {out.dtype}")
                g = _seed(out)
            result.append(g)
            continue
        if not isinstance(g, Tensor):
            # deliberate upward import (autograd -> ops): a gradient given as numbers goes through the
            # ``tensor()`` factory, with its checks (PyTorch's autograd calls torch.tensor too)
            from ..ops.creation import tensor
            g = tensor(g, dtype=out.dtype)
        if is_grads_batched:
            # the first dimension is the batch; each row g[b] must have the output's shape.  (The message
            # names row 0's shape less its first dimension: PyTorch strips the batch dimension twice.)
            if g[0].shape != out.shape:
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
                    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
                    f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                    f"{g[0].shape[1:]} and output[{i}] has a shape of {out.shape}. If you only want some tensors "
                    "in `grad_output` to be considered batched, consider using vmap.")
        elif g.shape != out.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        if g.is_floating_point() != out.is_floating_point() or g.is_complex() != out.is_complex():
            raise TypeError(f"For complex Tensors, both grad_output and output are required to have the "
                            f"same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} "
                            f"and output[{i}] has a dtype of {out.dtype}.")
        result.append(g)
    return result


def _roots(outputs, grads):
    from .function import _edge_to
    roots, seeds = [], []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not out._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        if g is None:
            continue
        roots.append(_edge_to(out))
        seeds.append(g)
    return roots, seeds


def _check_inputs(inputs, no_grad_message):
    """The engine's checks of ``inputs``: made after those of the outputs (``_make_grads``, ``_roots``), the
    order in which PyTorch reports them."""
    for t in inputs:
        if isinstance(t, graph.GradientEdge):   # (where a gradient is computed, given directly)
            continue
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(no_grad_message)


def _inputs_tuple(inputs, who):
    """``inputs`` as a tuple: one tensor, a sequence, or a dict (its values; Python's own dict only)."""
    if isinstance(inputs, (Tensor, graph.GradientEdge)):
        return (inputs,)
    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{who}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    return tuple(inputs)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate into ``.grad`` of the leaves the gradient of ``tensors`` (sum of them)."""
    tensors = _as_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = grad_variables
    grads = _as_tuple(grad_tensors) if not isinstance(grad_tensors, (int, float)) else (grad_tensors,)
    if grads is None:
        grads = (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} gradients for {len(tensors)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    if inputs is not None:
        inputs = _inputs_tuple(inputs, "backward")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _make_grads(tensors, grads)
    roots, seeds = _roots(tensors, grads)
    if inputs is not None:
        # (PyTorch's engine retains the grad of each input, and a tensor outside autograd has none)
        _check_inputs(inputs, "can't retain_grad on Tensor that has requires_grad=False")
    captured = run_backward(roots, seeds, retain_graph, create_graph, inputs=inputs, accumulate=True)
    if inputs is not None:  # non-leaf inputs get their .grad too
        for t, g in zip(inputs, captured):
            if t.grad_fn is not None and g is not None:
                t._grad = (g if create_graph else g._detached_copy()) if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` w.r.t. ``inputs``, returned (not accumulated into ``.grad``)."""
    outputs = _as_tuple(outputs)
    # a dict of inputs (named_parameters(), say) gives a dict of gradients, by the same keys
    keys = list(inputs) if type(inputs) is dict else None
    inputs_t = _inputs_tuple(inputs, "grad")
    if not inputs_t:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grads)} grad_outputs "
                           f"for {len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grads, is_grads_batched)
    roots, seeds = _roots(outputs, grads)
    _check_inputs(inputs_t, "One of the differentiated Tensors does not require grad")
    if is_grads_batched:
        result = functional.batched_vjps(roots, seeds, retain_graph, create_graph, inputs_t)
    else:
        result = run_backward(roots, seeds, retain_graph, create_graph, inputs=inputs_t, accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs_t, result)):
        if g is None:
            if materialize_grads:   # (of the input's shape, not batched, as in PyTorch)
                g = zeros_like(t, requires_grad=create_graph)
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
        out.append(g)
    return dict(zip(keys, out)) if keys is not None else tuple(out)


from . import functional  # noqa: F401
