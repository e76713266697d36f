"""``torch.autograd.forward_ad``: forward-mode AD with dual tensors.

    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)            # x, carrying the tangent t (a direction)
        y = d.sin() * d
        p, jt = fwAD.unpack_dual(y)         # jt = J(x) @ t, the derivative of y along t

A dual tensor is an ordinary tensor that carries a tangent.  Each built-in op called on one gets the
tangent of its result(s) along with its values.  PyTorch computes that tangent with a forward formula
per op; pedatorch has only backward formulas, and gets forward mode from them by the double-vjp trick,
op by op: backward maps an output gradient ``u`` to ``J^T u``, which is linear in ``u``; differentiating
``u -> J^T u`` (a backward of the backward) and seeding it with the input tangents gives ``J t``.  So
every op whose backward is itself differentiable (all built-ins; see ``ArrayFunction``) has forward mode,
at the price of a forward and two backward passes of that op.

How it sees the ops: ``dual_level`` enters an ``OpMode`` (``autograd/function.py``), which is handed every
built-in op call.  A learner's ``Function`` instead supplies ``jvp(ctx, *input_tangents)``, called after
its forward; ``ctx.save_for_forward`` keeps what ``jvp`` reads through ``ctx.saved_tensors``.

One level at a time (as in PyTorch, which refuses nesting); leaving it forgets every tangent.
"""
import contextlib
from typing import NamedTuple

from .. import _tensor_str
from .._tensor import Tensor
from . import function as _function
from .function import OpMode
from .graph import saved_const
from .grad_mode import enable_grad, no_grad, _DecoratorContextManager

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level"]


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the values (``primal``) and the tangent (None if there is none)."""
    primal: Tensor
    tangent: Tensor


_LEVEL = [None]   # the level entered (an _OpTangents mode), or None


def _tangent(t):
    """``t``'s tangent at the current level, or None (tangents of a level left since are stale)."""
    if not isinstance(t, Tensor):
        return None
    pair = t.__dict__.get("_fw_tangent")
    return pair[1] if pair is not None and pair[0] is _LEVEL[0] else None


_tensor_str.tangent_of = _tangent   # (a dual tensor's repr shows its tangent)


def _set_tangent(t, tangent):
    t.__dict__["_fw_tangent"] = (_LEVEL[0], tangent)


def _floating(t):
    return isinstance(t, Tensor) and t._data.dtype.kind in "fc"


class _OpTangents(OpMode):
    """The mode of a dual level: runs each op, and gives its results the tangent ``J t`` (double vjp)."""

    def __init__(self):
        self.paused = 0   # >0 while a learner's Function runs its forward or jvp: its ops carry no tangents

    def op(self, cls, args):
        tangents = [None if self.paused else _tangent(a) for a in args]
        if all(t is None for t in tangents):
            return cls.apply(*args)
        from .. import random
        rng = random.get_rng_state()   # the op runs twice: both runs draw the same random numbers (dropout)
        out_tangents = _op_jvp(cls, args, tangents)
        random.set_rng_state(rng)
        result = cls.apply(*args)   # the call itself: its in-place write, its view, its backward graph
        for r, jt in zip(result if type(result) is tuple else (result,), out_tangents):
            if jt is not None and _floating(r):
                _set_tangent(r, jt)
        return result

    def custom_function_jvp(self, cls, ctx, args, result):
        """After a learner's Function ran (``Function.apply`` calls this): its ``jvp`` gives the tangents
        of its outputs."""
        tangents = [_tangent(a) for a in args]
        if all(t is None for t in tangents):
            return
        # (inputs without a tangent get zeros, as PyTorch gives them)
        tangents = [t if t is not None or not isinstance(a, Tensor) else a.detach().new_zeros(a.shape)
                    for a, t in zip(args, tangents)]
        backward_saved = ctx._saved   # in jvp, ctx.saved_tensors are what forward gave save_for_forward
        ctx._saved = tuple(saved_const(t) for t in ctx.__dict__.pop("_to_save_forward", ()))
        self.paused += 1
        try:
            with no_grad():
                out = cls.jvp(ctx, *tangents)
        finally:
            self.paused -= 1
            ctx._saved = backward_saved
        outs = out if isinstance(out, tuple) else (out,)
        for r, jt in zip(result if isinstance(result, tuple) else (result,), outs):
            if isinstance(jt, Tensor) and _floating(r):
                _set_tangent(r, jt)


def _op_jvp(cls, args, tangents):
    """The tangents of the outputs of ``cls.apply(*args)`` (None where an output has none), by running it
    on fresh leaves and differentiating its backward (see the module docstring)."""
    from . import grad
    with enable_grad():
        leaves, ins = [], []
        for i, (a, t) in enumerate(zip(args, tangents)):
            if isinstance(a, Tensor):
                a = a.detach()
                if t is not None:
                    a = a.requires_grad_()
                    leaves.append((a, t))
                if i == cls._inplace_of:   # the op writes its target: a copy of it (not a leaf, if tracked)
                    a = a.clone()
            ins.append(a)
        out = cls.apply(*ins)
        outs = out if type(out) is tuple else (out,)
        tracked = [o for o in outs if isinstance(o, Tensor) and o.requires_grad]
        if not tracked:
            return [None] * len(outs)
        # u -> J^T u is linear in u; its derivative seeded with the tangents is J t
        us = [o.detach().new_zeros(o.shape).requires_grad_() for o in tracked]
        back = grad(tracked, [a for a, _ in leaves], us, create_graph=True, allow_unused=True)
        pairs = [(b, t) for b, (_, t) in zip(back, leaves) if b is not None and b.requires_grad]
        if pairs:
            jts = grad([b for b, _ in pairs], us, [t for _, t in pairs], allow_unused=True)
        else:
            jts = [None] * len(us)
    by_output = {id(o): (jt if jt is not None else o.detach().new_zeros(o.shape)) for o, jt in zip(tracked, jts)}
    return [by_output.get(id(o)) for o in outs]


@contextlib.contextmanager
def _paused():
    """The ops run inside carry no tangents."""
    mode = _LEVEL[0]
    if mode is None:
        yield
        return
    mode.paused += 1
    try:
        yield
    finally:
        mode.paused -= 1


def enter_dual_level():
    """Start forward-mode AD (one level at a time); returns the level's number."""
    if _LEVEL[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    mode = _OpTangents()
    mode.__enter__()
    _LEVEL[0] = mode
    _function._DUAL[0] = mode
    return 0


def exit_dual_level(*, level=None):
    """End forward-mode AD: the tangents of this level are forgotten."""
    mode = _LEVEL[0]
    if mode is None:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    mode.__exit__(None, None, None)
    _LEVEL[0] = None
    _function._DUAL[0] = None


class dual_level(_DecoratorContextManager):
    """``with dual_level():`` (or ``@dual_level()``): forward-mode AD inside."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` (same shape) as its direction of differentiation."""
    if _LEVEL[0] is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the "
                           f"original Tensor, this is not supported. Tensor is of size "
                           f"[{', '.join(map(str, tensor.shape))}] while the given forward gradient is of "
                           f"size [{', '.join(map(str, tangent.shape))}].")
    with _paused():
        dual = tensor.view_as(tensor)
    _set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor``'s values without the tangent, and the tangent (or None)."""
    tangent = _tangent(tensor)
    with _paused():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, tangent)
