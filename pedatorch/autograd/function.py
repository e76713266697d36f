"""``Function``: one op = a forward and a backward, recorded as a graph node.

Every op in pedatorch is a ``Function``; so are the ops a learner writes::

    class Cube(pedatorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x ** 2

    y = Cube.apply(x)          # y.grad_fn is a CubeBackward node

Built-in ops subclass ``ArrayFunction``: the same protocol, but ``forward``
receives the raw numpy/cupy arrays of its tensor arguments and returns arrays
(a kernel: a few vectorised array calls), while ``backward`` receives and
returns Tensors.  Because backward is written with Tensor ops, running it with
grad mode on (``create_graph=True``) records a graph of the backward itself:
higher-order gradients come for free.
"""
import os
import traceback

import numpy as _np

from .._warnings import user_stacklevel
from ..backend.sparse import SparseUnsupported, no_sparse_kernel
from ..backend import CPU_ARRAY, CPU_BACKEND, is_array, namespace, overlaps_itself, writeable_alias, allocation_error

from .grad_mode import _state, no_grad
from .graph import (Node, AccumulateGrad, _seq, saved_input, saved_output, saved_const, pack_saved, SAVED_INPUT,
                    SAVED_OUTPUT, SAVED_TENSORS_HOOKS, saved_property)
from .saved_names import SAVED_NAMES
from .op_names import op_name
from .. import _tensor
from .._dtype import can_cast_np, _type_word
from .._layout import (iterator_result, in_format, relayout, format_strides, broadcast_shapes_or_raise, shape_str,
                       check_no_input_overlap)
from .._tensor import Tensor

_tensor._grad_state = _state  # views record the grad mode they were made in (Tensor._become_view_of)

__all__ = ["Function", "ArrayFunction", "FunctionCtx", "OpMode", "once_differentiable", "before_checks",
           "InplaceFunction", "NestedIOFunction", "BackwardCFunction"]

FunctionCtx = Node
_new = object.__new__
_make = Tensor._make


class _FunctionMeta(type):
    """Gives each Function subclass its node class (``MulBackward0``, ``MyFnBackward``)."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        node_name = attrs.get("node_name") or name + "Backward"
        cls._plain = cls._view_of is None and cls._inplace_of is None
        # a new result that may need PyTorch's layout (see _elementwise_layout)
        cls._relayout = cls._plain and bool(getattr(cls, "_elementwise", 0) or getattr(cls, "_result_format", None))
        attrs = {"_function": cls, "__module__": cls.__module__, "__slots__": (),
                 "_wraps_numbers": getattr(cls, "_wraps_numbers", False)}
        for i, saved in enumerate(SAVED_NAMES.get(node_name, ())):   # node._saved_self, ... (PyTorch's names)
            if saved is not None:
                attrs["_saved_" + saved] = saved_property(i)
        base = BackwardNode
        if not cls._array_forward:  # a learner's Function: PyTorch shows its node's module in the repr
            attrs["_repr_prefix"] = "torch.autograd.function."
            attrs["_forward_cls"] = cls   # (PyTorch's name for the Function a custom node belongs to)
            base = BackwardCFunction
        cls._backward_cls = type(node_name, (base,), attrs)
        if cls._view_of is not None and cls._inplace_of is None and "_keeps_zero" not in cls.__dict__:
            cls._keeps_zero = "view"   # every view op keeps an efficient zero (see keeps_zero below)


class BackwardNode(Node):
    """Base of the per-Function node classes."""

    __slots__ = ()

    def __init__(self):
        self._seq_nr = next(_seq)
        self._saved = ()


class BackwardCFunction(BackwardNode):
    """Base of the node classes of learners' Functions (PyTorch's name for it: ``CubeBackward``'s base)."""

    __slots__ = ()


class _NoGraphCtx:
    """The ctx handed to forward when nothing needs a gradient: saving is a no-op."""

    needs_input_grad = ()

    def save_for_backward(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def set_materialize_grads(self, value):
        pass

    def save_for_forward(self, *tensors):
        pass


_NO_CTX = _NoGraphCtx()


def _edge_to(t):
    """The node a gradient for tensor ``t`` flows to: its grad_fn, or its leaf's AccumulateGrad."""
    if t._base is not None:
        fn = t.grad_fn  # refreshed if its base was written in place since
        if fn is None and not t._requires_grad:
            return None, 0  # a view made under no_grad of a base that requires grad: PyTorch drops its gradient
    else:
        fn = t._grad_fn
    if fn is not None:
        return fn, t._output_nr
    ref = t._grad_acc
    acc = ref() if ref is not None else None
    if acc is None:
        import weakref
        acc = AccumulateGrad(t)
        t._grad_acc = weakref.ref(acc)
    return acc, 0


class Function(metaclass=_FunctionMeta):
    """Base class of differentiable ops.  Subclass it and call ``apply``."""

    node_name = None
    _array_forward = False   # forward gets Tensors (False) or arrays (ArrayFunction)
    _view_of = None          # index of the argument whose memory the output views
    _inplace_of = None       # index of the argument modified in place (built-ins)
    # when an in-place op refuses to write where one memory location holds several elements (an expanded
    # tensor): "before" its kernel's checks (TensorIterator's order), "after" them (an op whose own argument
    # check comes first in ATen, as neg_'s of a bool tensor), None: never (fill_ and zero_ write anyway)
    _overlap_check = "before"

    def __init__(self, *args, **kwargs):
        # a Function's methods are static: an instance is useless, and only calling it is refused (__call__)
        import warnings
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
                      "static, so you should invoke them on the class itself. Instantiating an autograd "
                      "function will raise an error in a future version of PyTorch.", DeprecationWarning,
                      stacklevel=user_stacklevel())

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    # torch.func.vmap support: pedatorch's vmap runs the function once per slice, so every Function works
    # under it as it is; these are here for code that sets or overrides them
    generate_vmap_rule = False

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap "
                                  "staticmethod or set generate_vmap_rule=True.")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        return NotImplemented

    @classmethod
    def apply(cls, *args, **kwargs):
        # 1. Does anything need a gradient?  (the fast path for no_grad and constants)
        record = False
        if _state.enabled:
            for a in args:
                if type(a) is Tensor or isinstance(a, Tensor):
                    if a._requires_grad or a._base is not None and a.requires_grad:
                        record = True
                        break
        if cls._array_forward:
            arrays = [a._data if isinstance(a, Tensor) else a for a in args]
            if not record:
                out = cls.forward(_NO_CTX, *arrays, **kwargs)
                return _wrap_plain(cls, args, out)
            ctx = cls._backward_cls()
            ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
            out = cls.forward(ctx, *arrays, **kwargs)
            return _wrap_recorded(cls, ctx, args, out)
        # a learner's Function: forward works on Tensors, with the graph off
        split = cls.setup_context is not Function.setup_context
        if split:   # forward(*args) and setup_context(ctx, inputs, output): inputs hold the defaults too
            import inspect
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        ctx = cls._backward_cls()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        dual = _DUAL[0]
        if dual is not None:   # forward-mode AD: the ops of forward carry no tangents (jvp gives them below)
            dual.paused += 1
        try:
            with no_grad():
                if split:
                    out = cls.forward(*args, **kwargs)
                    cls.setup_context(ctx, args, out)
                else:
                    out = cls.forward(ctx, *args, **kwargs)
        finally:
            if dual is not None:
                dual.paused -= 1
        result = _wrap_tensors(cls, ctx, args, out, record)
        if dual is not None:
            dual.custom_function_jvp(cls, ctx, args, result)
        return result


class InplaceFunction(Function):
    """Kept for old code, as PyTorch keeps it: a Function with an ``inplace`` flag.  Use ``Function``."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Kept for old code, as PyTorch keeps it: the legacy (non-static) Function API, whose instances can
    no longer be called.  Use ``Function``."""

    def forward_extended(self, *input):
        raise NotImplementedError

    def backward_extended(self, *grad_output):
        raise NotImplementedError


class ArrayFunction(Function):
    """A built-in op: ``forward(ctx, *arrays) -> array(s)``, ``backward(ctx, *Tensors) -> Tensor(s)``."""

    _array_forward = True
    _elementwise = 0   # an elementwise op: how many leading arguments are its operands (see _layout)
    _uncast = 0        # how many leading operands keep their dtype (where's condition), the rest are promoted
    _swapped = False   # ATen computes the op with its two operands swapped (rsub: sub(other, self))
    # "contiguous_format" or "preserve_format" (of the first argument): how ATen allocates the result of an
    # op that is no TensorIterator op (None: numpy's layout, or TensorIterator's for an elementwise op)
    _result_format = None
    _keeps_zero = None   # whether the result of an efficient zero stays one: see keeps_zero below

    @classmethod
    def apply(cls, *args):
        if _VISIBLE[0]:   # an OpMode (autocast, jit.trace) is active: it sees the call first
            return _through_mode(cls, args)
        # (only in a backward pass that made an efficient zero: does this op keep it?)
        zero = _ZEROS[0] and cls._keeps_zero is not None and keeps_zero(cls._keeps_zero, args)
        # the hot path of every op: does anything need a gradient? unwrap the arrays
        record = False
        if _state.enabled:
            for a in args:
                # (a view also requires grad through its base: one made under no_grad, or one whose
                # base only gained a history by an in-place write since)
                if isinstance(a, Tensor) and (a._requires_grad or a._base is not None and a.requires_grad):
                    record = True
                    break
        arrays = [a._data if isinstance(a, Tensor) else a for a in args]
        try:
            if record:
                ctx = _new_node(cls, args)
                out = cls.forward(ctx, *arrays)
                if cls._relayout and (type(out) is CPU_ARRAY or type(out) is not tuple and is_array(out)) and \
                        (out.ndim > 1 or out.shape == (1,) and cls._result_format == "preserve_format"):
                    out = _elementwise_layout(cls, arrays, out, ctx)
                out = _wrap_recorded(cls, ctx, args, out)
                return as_efficient_zero(out, cls._keeps_zero == "view") if zero else out
            if cls._inplace_of is not None and cls._overlap_check == "before":
                _check_inplace_overlap(cls, arrays)
            out = cls.forward(_NO_CTX, *arrays)
            if cls._relayout and (type(out) is CPU_ARRAY or type(out) is not tuple and is_array(out)) and \
                    (out.ndim > 1 or out.shape == (1,) and cls._result_format == "preserve_format"):
                # (a 1-D result is contiguous, but for one element empty_like keeps the input's stride)
                out = _elementwise_layout(cls, arrays, out, None)
        except ValueError as e:  # numpy's words -> PyTorch's RuntimeError
            # raised afresh: the learner's traceback ends here, not in the frames that worded it
            raise _numpy_error(e, arrays).with_traceback(None) from None
        except MemoryError as e:   # a result too large: PyTorch's allocator error
            raise allocation_error(e).with_traceback(None) from None
        except SparseUnsupported:   # a sparse tensor, which the dense kernel refused: the op's sparse kernel
            kernel = SPARSE_KERNELS.get(cls)
            if kernel is None:
                raise no_sparse_kernel(op_name(cls)).with_traceback(None) from None
            return kernel(*args)
        except TypeError:        # cupy refuses host arrays: tensors on two devices (checked only now, for speed)
            moved = _same_device_args(args)
            if moved is None:
                raise
            return cls.apply(*moved)
        if cls._plain and (type(out) is CPU_ARRAY or type(out) is not tuple and is_array(out)):
            t = _make(out)
            if _state.inference:
                t._is_inference = True
            return as_efficient_zero(t, cls._keeps_zero == "view") if zero else t
        out = _mark_inference(_wrap_plain(cls, args, out))
        return as_efficient_zero(out, cls._keeps_zero == "view") if zero else out


# ---------------------------------------------------------------- op modes: code that sees every op call
#
# ``autocast`` changes the dtype of an op's inputs, ``jit.trace`` writes each op down: both need to see
# every built-in op as it is called.  They are OpModes (PyTorch's dispatch modes, simplified): while one is
# entered, ``ArrayFunction.apply`` hands each call to it.  Its ``op(cls, args)`` runs the op by calling
# ``cls.apply`` itself, perhaps with other arguments; that call, and every op the mode runs on the way (a
# cast), goes to the modes entered before it, and then to the op itself.

_DUAL = [None]   # the mode of forward-mode AD while a forward_ad.dual_level is entered (see forward_ad.py)
_MODES = []      # the entered modes, innermost last
_VISIBLE = [0]   # how many of them the next op call goes through (fewer while one of them is at work)


class OpMode:
    """Sees every built-in op call while entered (``with mode: ...``).  Subclasses override ``op``."""

    def op(self, cls, args):
        """Run the op ``cls`` on ``args`` (override to change the arguments or to look at the result)."""
        return cls.apply(*args)

    def prepare(self, op, args):
        """The arguments of a call of ``op`` as its front end should see them (see ``before_checks``)."""
        return args

    def __enter__(self):
        _MODES.append(self)
        _VISIBLE[0] = len(_MODES)
        return self

    def __exit__(self, *exc):
        _MODES.remove(self)
        _VISIBLE[0] = len(_MODES)
        return False


def active_modes():
    """The entered OpModes, innermost last (a copy)."""
    return list(_MODES)


def before_checks(op, *args):
    """For an op's front end that checks its tensors before ``op.apply`` (dtypes that must agree), or for an
    op composed of other ops (``op`` is then PyTorch's name for it, ``"cross_entropy"``): the entered modes
    see the arguments first and may change them (autocast casts here, as PyTorch's autocast runs at the
    entry of an op, before its own checks).  Without modes: the arguments unchanged."""
    n = _VISIBLE[0]
    try:
        while _VISIBLE[0]:   # innermost mode first; what a mode runs meanwhile goes to the modes below it
            _VISIBLE[0] -= 1
            args = _MODES[_VISIBLE[0]].prepare(op, args)
    finally:
        _VISIBLE[0] = n
    return args


def _through_mode(cls, args):
    n = _VISIBLE[0]
    _VISIBLE[0] = n - 1   # the mode's own op calls go to the modes below it
    try:
        return _MODES[n - 1].op(cls, args)
    finally:
        _VISIBLE[0] = n


# ---------------------------------------------------------------- PyTorch's efficient zero tensor
#
# The gradient ``sgn`` sends back (for real inputs; so abs's and norm's double backward) is PyTorch's
# ``_efficientzerotensor``: zeros that hold no memory and that a few ops keep as such, so that a saved NaN or
# inf below does not turn them into NaN (0 * nan is nan, ZeroTensor * nan is a ZeroTensor).  Here it is a
# tensor of real zeros marked ``_zerotensor``; ops whose class sets ``_keeps_zero`` mark their result
# (zeros) when the rule holds, as torch 2.13's ZeroTensor kernels and fallthroughs do.  Every other op reads
# the marked tensor as the plain zeros it holds: its result is a plain tensor (PyTorch materializes the
# ZeroTensor for it: neg, sum, mm, where, clone, cat, a cast, a reshape that copies...).  The engine adds
# nothing for one (zero + g = g).  Marks exist only in a backward pass that made one (``_ZEROS``): until
# then, no op looks for them.

_ZEROS = [False]   # has this backward pass made an efficient zero yet?


def mark_efficient_zero(t):
    """Mark ``t`` (zeros) as PyTorch's efficient zero tensor."""
    t._zerotensor = True
    _ZEROS[0] = True
    return t


def is_efficient_zero(t):
    return isinstance(t, Tensor) and "_zerotensor" in t.__dict__


def keeps_zero(rule, args):
    """Whether an op with ``_keeps_zero = rule`` makes an efficient zero of ``args``:

    - "view": a view of one (every view op, split, unbind): it reads the same zeros
    - "mul": ``a * b`` with one on either side (a number counts as no efficient zero)
    - "div": ``a / b`` with one as numerator and a tensor b (a backward formula's ``grad / n`` is ATen's
      div.Scalar, which materializes: mean's backward).  PyTorch's x / zero is +inf everywhere: not copied
    - "add": ``a + b`` / ``a - b`` of two (zero + x is a plain copy of x; zero + 2 plain twos)
    """
    if rule == "view":
        return is_efficient_zero(args[0])
    if rule == "div":
        return is_efficient_zero(args[0]) and isinstance(args[1], Tensor)
    if rule == "mul":
        return is_efficient_zero(args[0]) or is_efficient_zero(args[1])
    return is_efficient_zero(args[0]) and is_efficient_zero(args[1])   # "add"


def as_efficient_zero(result, view=False):
    """Mark an op's result (or each of several) as an efficient zero: a view already reads zeros, a new
    result becomes zeros (``z * nan`` computed nan)."""
    for t in (result if type(result) is tuple else (result,)):
        if not view:
            t._data = namespace(t._data).zeros_like(t._data)
        mark_efficient_zero(t)
    return result


def _elementwise_layout(cls, arrays, out, ctx):
    """An elementwise result gets PyTorch's layout, not numpy's (they differ when the inputs' layouts
    do), or the fixed format of ops that allocate their result so; when that takes a new array, what forward
    saved as its output is the new array too."""
    if cls._result_format == "contiguous_format":
        new = in_format(out, "contiguous_format")
    elif cls._result_format == "preserve_format":   # ATen: empty_like(self), then the kernel writes into it
        x = arrays[0]
        new = relayout(out, format_strides(x.shape, [st // x.itemsize for st in x.strides], "preserve_format"))
    else:
        if cls._swapped:   # (TensorIterator's first operand decides ties in the layout)
            arrays = [arrays[1], arrays[0], *arrays[2:]]
        new = iterator_result(out, arrays, cls._elementwise, cls._uncast)
    if new is not out and ctx is not None and "_to_save" in ctx.__dict__:
        ctx._to_save = tuple(new if s is out else s for s in ctx._to_save)
    return new


def _mark_inference(result):
    """Tensors made inside ``inference_mode`` are inference tensors (as in PyTorch)."""
    if _state.inference:
        for t in (result if type(result) is tuple else (result,)):
            if isinstance(t, Tensor):
                t._is_inference = True
    return result


def _new_node(cls, args):
    """The graph node of one recorded call of ``cls``."""
    ctx = cls._backward_cls()
    if cls._inplace_of is not None:
        _check_inplace(args[cls._inplace_of], ctx)  # before anything is read (PyTorch's check_inplace)
        if cls._overlap_check == "before":           # then TensorIterator's, before the kernel's dtype checks
            _check_inplace_overlap(cls, [a._data if isinstance(a, Tensor) else a for a in args])
    _link_inputs(ctx, args)
    return ctx


# op class -> its kernel for sparse COO tensors (filled by pedatorch.sparse): what ``apply`` runs when the
# dense forward refuses a sparse array, as PyTorch's dispatcher picks the SparseCPU kernel
SPARSE_KERNELS = {}


def _same_device_args(args):
    """After an op failed on arrays of two devices: PyTorch's RuntimeError, naming them; or, when the only
    CPU tensors are 0-dim (PyTorch lets those join a CUDA op, as numbers), the args with those moved over.
    None when all tensors were on one device (the TypeError was something else)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    devices = [t.device for t in tensors]
    if len(set(devices)) < 2:
        return None
    gpu = next(d for d in devices if d.type != "cpu")
    if all(t.dim() == 0 for t, d in zip(tensors, devices) if d.type == "cpu") and len(
            set(d for d in devices if d.type != "cpu")) == 1:
        return [a.to(gpu) if isinstance(a, Tensor) and a.device != gpu else a for a in args]
    first = devices[0]
    other = next(d for d in devices if d != first)
    if first.type == "meta" or other.type == "meta":   # (PyTorch's meta kernels word it their way)
        raise RuntimeError(f"Tensor on device {other} is not on the expected device {first}!")
    raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                       f"{first} and {other}!")


def _numpy_error(e, arrays):
    msg = str(e)
    if "could not be broadcast" in msg:
        shapes = [a.shape for a in arrays if hasattr(a, "shape")]
        try:
            out = ()
            for sh in shapes:
                out = broadcast_shapes_or_raise(out, sh) if out else sh
        except RuntimeError as err:
            return err
    return RuntimeError(msg)


def once_differentiable(fn):
    """Mark a backward that is not itself differentiable: it runs with the graph off.  When its inputs
    required grad (a backward under create_graph=True), its outputs still require grad, but through an
    ``Error`` node: differentiating them again raises instead of silently giving a wrong zero."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args, **kwargs):
        with no_grad():
            outputs = fn(ctx, *args, **kwargs)
        if not _state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        # as PyTorch: detached aliases that require grad, passed through one node whose backward raises
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        fakes = []
        for o in outs:
            if o is None:   # (a placeholder: the node keeps an empty edge for it, (None, 0), as PyTorch's)
                fakes.append(_NO_OUTPUT)
            else:
                o = o.detach()
                o.requires_grad = True
                fakes.append(o)
        return _DelayedError.apply(*fakes)
    return wrapper


class _DelayedError(Function):
    """Identity forward (outputs alias the inputs); its backward raises (see once_differentiable)."""
    node_name = "Error"

    @staticmethod
    def forward(ctx, *tensors):
        outs = tuple(None if t is _NO_OUTPUT else t for t in tensors)
        return outs if len(outs) > 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable")


# PyTorch's C++ node: printed as <Error object at ...>, named torch::autograd::Error
_DelayedError._backward_cls._repr_prefix = ""
_DelayedError._backward_cls.name = lambda self: "torch::autograd::Error"
_NO_OUTPUT = Tensor._make(CPU_BACKEND.xp.zeros(0, _np.float32))


# ---------------------------------------------------------------- wrapping outputs

def _wrap_plain(cls, args, out):
    """Outputs of an op that recorded nothing."""
    if type(out) is tuple:
        return tuple(_plain_one(cls, args, o) for o in out)
    return _plain_one(cls, args, out)


def _as_array(arr):
    """numpy turns 0-dim results into scalars; tensors always hold arrays. (A scalar comes only from a
    numpy op: cupy's reductions give 0-dim arrays, so the host array made here is right.)"""
    if isinstance(arr, (_np.generic, int, float, complex, bool)):
        return CPU_BACKEND.xp.asarray(arr)   # numpy: a numpy scalar or number is a CPU value
    return arr


def _plain_one(cls, args, arr):
    if type(arr) is not CPU_ARRAY:
        arr = _as_array(arr)
    if cls._inplace_of is not None:
        t = args[cls._inplace_of]
        _write_inplace(t, arr, cls._overlap_check is not None)
        t._bump_version()
        return t
    t = Tensor._make(arr)
    if cls._view_of is not None:
        t._become_view_of(args[cls._view_of])
    return t


INTERNAL_OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                    "memory location. Please clone() the tensor before performing the operation.")


def check_no_internal_overlap(dst):
    """PyTorch's refusal to write where one memory location holds several elements (an expanded tensor)."""
    if overlaps_itself(dst):
        raise RuntimeError(INTERNAL_OVERLAP)


def _check_inplace_overlap(cls, arrays):
    """TensorIterator's memory checks before an in-place op writes its target: the target may not hold
    one location twice, and (an elementwise op) no input may share only part of its memory, as in
    ``x *= x.T``, where PyTorch's loop would read elements it has already overwritten."""
    dst = arrays[cls._inplace_of]
    check_no_internal_overlap(dst)
    check_no_input_overlap(dst, arrays[:cls._elementwise])


def _write_inplace(t, arr, refuse_overlap=True):
    """Write an in-place op's result into ``t``'s memory (checked first: a refused write changes nothing)."""
    dst = t._data
    if t._is_inference and not _state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.You can make "
                           "a clone to get a normal tensor before doing inplace update.See "
                           "https://github.com/pytorch/rfcs/pull/17 for more details.")
    if arr is dst:
        return
    if refuse_overlap:
        check_no_internal_overlap(dst)
    dst = writeable_alias(dst)
    if arr.dtype != dst.dtype and not can_cast_np(arr.dtype, dst.dtype):
        raise RuntimeError(f"result type {_type_word(arr.dtype)} can't be cast to the desired output type "
                           f"{_type_word(dst.dtype)}")
    if arr.shape != dst.shape:
        try:
            shape = _np.broadcast_shapes(arr.shape, dst.shape)
        except ValueError:
            shape = None
        if shape != dst.shape:
            raise RuntimeError(f"output with shape {shape_str(dst.shape)} doesn't match the broadcast shape "
                               f"{shape_str(shape if shape is not None else arr.shape)}")
    dst[...] = arr


def _wrap_recorded(cls, ctx, args, out):
    """Outputs of a built-in op that records a node: link the node into the graph."""
    # the common case: one array, not a view
    if cls._plain and (type(out) is CPU_ARRAY or type(out) is not tuple and is_array(out)):
        t = _make(out, ctx if out.dtype.kind in "fcV" else None)
        if "_to_save" in ctx.__dict__:
            _save(ctx, args, (out,), (t,))
        return t
    multi = type(out) is tuple
    raw = out if multi else (out,)  # as forward returned them: a 0-dim result may be a numpy scalar
    outs = tuple(o if type(o) is CPU_ARRAY else _as_array(o) for o in raw)
    if cls._inplace_of is not None:
        return _wrap_inplace(cls, ctx, args, outs, multi, raw)
    results = []
    for nr, arr in enumerate(outs):
        differentiable = arr.dtype.kind in "fcV"
        t = Tensor._make(arr, ctx if differentiable else None, nr)
        if cls._view_of is not None:
            t._become_view_of(args[cls._view_of])
        results.append(t)
    if multi:
        ctx._out_meta = tuple((a.shape, a.dtype, a.dtype.kind in "fcV") for a in outs)
    _save(ctx, args, raw, results)
    return tuple(results) if multi else results[0]


def _wrap_inplace(cls, ctx, args, outs, multi, raw):
    """An in-place op (``add_``): the target keeps its memory and gets this node as its new grad_fn."""
    t = args[cls._inplace_of]
    to_save = ctx.__dict__.get("_to_save")
    if to_save and any(s is t._data for s in to_save):
        # backward needs self's values from before the write: keep a snapshot with the old history
        # (PyTorch's "original self"); further references to self are saved as self, so reading
        # them in backward fails the version check, as in PyTorch (``y.mul_(y)``)
        old = Tensor._make(t._data.copy(), t._grad_fn, t._output_nr)
        old._requires_grad = t._requires_grad
        i = next(k for k, s in enumerate(to_save) if s is t._data)
        ctx._to_save = to_save[:i] + (old,) + to_save[i + 1:]
    _write_inplace(t, outs[0], cls._overlap_check is not None)
    before = t._version
    t._bump_version()
    t._set_history(ctx, 0)
    results = [t] + [Tensor._make(a) for a in outs[1:]]
    _save(ctx, args, raw, results)
    if ctx._saved:  # self (or a view sharing its memory) saved as an input was saved before this very write
        ctx._saved = tuple((SAVED_INPUT, item[1], before) if item is not None and item[0] == SAVED_INPUT and
                           (item[1] is t or item[1]._version_counter is t._version_counter) else item
                           for item in ctx._saved)
    if t._base is not None:
        from .views import rebase_view_history   # (lazy: views.py builds its nodes on this module)
        rebase_view_history(t)
        if ctx._saved:   # its saved result now continues from the view's new history (see graph.SAVED_OUTPUT)
            import weakref
            ref = weakref.ref(t._grad_fn)
            ctx._saved = tuple(item + (ref, t._output_nr) if item is not None and item[0] == SAVED_OUTPUT and
                               item[4] == 0 else item for item in ctx._saved)
    return tuple(results) if multi else t


def _link_inputs(ctx, args):
    """Edges from a node to the nodes of its inputs that need a gradient (and ``needs_input_grad``)."""
    needs = []
    nxt = []
    edges = []
    wraps = type(ctx)._wraps_numbers
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            if a._requires_grad or a._base is not None and a.requires_grad:
                node, nr = _edge_to(a)
                nxt.append((node, nr))
                if node is not None:
                    edges.append((i, node, nr, a._data.shape, a._data.dtype))
                needs.append(True)
                continue
            nxt.append((None, 0))
        elif wraps and i < 2:   # a number operand of + - * /: PyTorch wraps it in a tensor, an input too
            nxt.append((None, 0))
        needs.append(False)
    ctx.needs_input_grad = tuple(needs)
    ctx._next = tuple(nxt)
    ctx._edges = tuple(edges)
    if _state.anomaly:
        ctx._anomaly_trace = _forward_trace()


# the op machinery: in PyTorch this is C++, so its forward traces end at the last Python frame before it
_MACHINERY = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), part)
                   for part in ("autograd" + os.sep, "ops" + os.sep, "_tensor.py", "backend" + os.sep,
                                "overrides.py"))


def _forward_trace():
    """Where the op being recorded was called from (anomaly mode prints it when its backward fails)."""
    stack = traceback.extract_stack()
    while stack and stack[-1].filename.startswith(_MACHINERY):
        stack.pop()
    return "".join(traceback.format_list(stack))


def _save(ctx, args, outs, results):
    """Turn what forward passed to ``save_for_backward`` into saved-tensor records.

    A saved array is recognised as an input or an output by identity (``s is a._data``); that is
    why every Tensor holds an array object of its own (``detach()`` wraps a new view object), and
    why ``outs`` are the values forward returned: a 0-dim result may be a numpy scalar, which must
    still be saved as this node's output, not as a constant (or double backward loses its path).
    """
    to_save = ctx.__dict__.pop("_to_save", None)
    if not to_save:
        return
    saved = []
    for s in to_save:
        if s is None:
            saved.append(None)
            continue
        item = None
        if hasattr(s, "dtype"):
            for a in args:  # an input?
                if isinstance(a, Tensor) and (s is a._data or s is a):
                    if a._is_inference:
                        raise RuntimeError("Inference tensors cannot be saved for backward. Please do not use "
                                           "Tensors created in inference mode in computation tracked by "
                                           "autograd. To work around this, you can make a clone to get a "
                                           "normal tensor and use it in autograd, or use `torch.no_grad()` "
                                           "instead of `torch.inference_mode()`.")
                    item = saved_input(a)
                    break
            else:
                for k, o in enumerate(outs):  # an output?
                    if s is o or s is results[k]:
                        r = results[k]
                        if isinstance(r, Tensor):
                            item = saved_output(r, k) if r._grad_fn is ctx else saved_input(r)
                        break
            if item is None:  # an intermediate array (a mask, a probability table): a constant
                item = saved_const(s if isinstance(s, Tensor) else Tensor._make(_as_array(s)))
            if SAVED_TENSORS_HOOKS:   # saved_tensors_hooks: keep only what the pack hook returns
                item = _packed(item, ctx)
        else:
            item = saved_const(s)  # a Python number
        saved.append(item)
    ctx._saved = tuple(saved)


def _packed(item, ctx):
    """A saved-tensor record handed to the active pack hook (see graph.saved_tensors_hooks).  Only what the
    hook returns is kept, so an input's place in the graph is kept beside it: backward re-attaches the
    unpacked tensor there (a second backward then reaches the input's history, as without hooks)."""
    if item[0] == SAVED_OUTPUT:
        t = ctx._unpack(item)
        return pack_saved(t, item[4], None)
    t = item[1]
    return pack_saved(t, None, _edge_to(t) if t.requires_grad else None)


def save_tensor(t, ctx):
    """The record of ``t`` saved as an input of ``ctx`` (outside ``save_for_backward``: checkpoint saves its
    arguments so); ``ctx._unpack(record)`` gives it back, version-checked."""
    item = saved_input(t)
    return _packed(item, ctx) if SAVED_TENSORS_HOOKS else item


def _check_inplace(t, ctx, dirty=False):
    """PyTorch's refusal to write in place into a leaf that requires grad, or into a view of a leaf.
    ``dirty``: the check of a Function's ``mark_dirty``, made after the write: PyTorch words it in the past
    tense, and tests for a leaf first (a view that is itself a leaf counts as a leaf there)."""
    leaf = t._grad_fn is None and t._requires_grad
    if dirty and leaf:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    if t._base is not None and t._data.dtype.kind in "fcV":
        from .views import check_view_rebase   # (lazy: views.py builds its nodes on this module)
        check_view_rebase(t, False)  # a view made by split(), or under no_grad, may not be written
    # PyTorch's test for a view: it requires grad and its base is a leaf (whether or not the base itself
    # requires grad: ``t[::2].requires_grad_()`` is such a view)
    if t._base is not None and t.requires_grad and t._base._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    if leaf:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def check_inplace(t):
    """PyTorch's check_inplace for an op that validates its arguments before its node is made (indexing's
    bounds checks): PyTorch refuses the in-place write of a leaf before its kernel checks anything."""
    if _state.enabled and t._requires_grad:
        _check_inplace(t, None)


def _wrap_tensors(cls, ctx, args, out, record):
    """Outputs of a learner's Function (forward returned Tensors)."""
    multi = isinstance(out, tuple)
    outs = out if multi else (out,)
    dirty = ctx.__dict__.pop("_dirty", ())
    nondiff = ctx.__dict__.pop("_non_differentiable", ())
    if record:
        _link_inputs(ctx, args)
    results = []
    for nr, o in enumerate(outs):
        if not isinstance(o, Tensor):
            results.append(o)
            continue
        if any(o is d for d in dirty):
            t = o
            if record:
                _check_inplace(t, ctx, dirty=True)
            t._bump_version()
        elif any(o is a for a in args):
            t = o._alias()  # returning an input unchanged: a new tensor sharing its memory
        elif o._requires_grad or o.grad_fn is not None:
            t = o._alias()
        else:
            t = o
        if record and o._data.dtype.kind in "fcV" and not any(o is n for n in nondiff):
            t._set_history(ctx, nr)
        results.append(t)
    if record:
        ctx._out_meta = tuple(
            (o._data.shape, o._data.dtype, not any(o is n for n in nondiff)) if isinstance(o, Tensor)
            else None for o in outs)
        _save(ctx, args, outs, results)
        ctx._custom = True
    return tuple(results) if multi else results[0]
