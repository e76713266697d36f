"""Elementwise ops: arithmetic, math functions, comparisons, logic, ``where``, ``clamp``.

Each op is an ``ArrayFunction``: ``forward`` is the numpy kernel, ``backward``
the derivative written with Tensor ops (its formula is in the docstring).
Broadcasting needs no code here: the engine sums every gradient back to its
input's shape (``engine._validate``), so ``backward`` may return gradients of
the broadcast shape.
"""
import math
import numbers

import numpy as np

from .. import _dtype as D
from ..backend import no_meta_kernel, namespace, CPU_ARRAY, is_array, select, writeable, maximum as tie_first_maximum, minimum as tie_first_minimum
from .._layout import iterator_result, _empty_preserving_layout, check_no_input_overlap, partially_overlaps
from .._tensor import Tensor
from ..autograd.function import ArrayFunction, as_efficient_zero, is_efficient_zero, mark_efficient_zero
from ..autograd.grad_mode import _state
from .creation import zero_grad
from ._util import (promote, to_float, write_out, register, is_number, _type_word, checked_int, result_np_dtype,
                    promote_to_float, require_tensor, check_kernel_dtype, check_binary_kernel, cast, wrap_int,
                    needed, broadcast_shapes_or_raise, shape_str, check_broadcast)
from .._dtype import is_float_np, is_inexact_np, is_reduced_np, to_opmath

__all__ = []  # filled by _export


class _ByName:
    """``_XP.exp``: a kernel that calls ``exp`` of its arguments' namespace (numpy for host arrays, cupy for
    device ones), for the op tables below, which name their kernels at import time, before any array is
    seen. On host arrays it calls the numpy function itself, unchanged."""

    def __getattr__(self, name):
        np_fn = getattr(np, name)

        def kernel(*args, **kwargs):
            if type(args[0]) is CPU_ARRAY:   # (the host's quick path)
                return np_fn(*args, **kwargs)
            xp = namespace(*args)
            return np_fn(*args, **kwargs) if xp is np else getattr(xp, name)(*args, **kwargs)
        kernel.__name__ = kernel.__qualname__ = name
        setattr(self, name, kernel)
        return kernel


_XP = _ByName()


def _export(names):
    """Public names (aliases such as ``subtract`` included: an alias's __name__ is its original's)."""
    __all__.extend(names.split())


# ====================================================================== arithmetic

class Add(ArrayFunction):
    """out = a + alpha * b;   da = grad,  db = alpha * grad"""
    _wraps_numbers = True   # x * 2: the 2 is an input (a wrapped tensor), as in PyTorch's next_functions
    node_name = "AddBackward0"
    _elementwise = 2
    _keeps_zero = "add"   # PyTorch's efficient zero: see autograd/function.py keeps_zero

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        a, b = promote(a, b)
        if alpha != 1:
            ctx.alpha = alpha
            dt = result_np_dtype(a, b)
            if dt == np.bool_:  # bool: a or (alpha and b)
                return a | (b & bool(alpha))
            b = _alpha_operand(b, dt, a)  # (a bool b is still bool: alpha * b must not make it int64)
            if _is_half(a, b):
                return _half_alpha(a, b, alpha, dt, 1)
            return a + alpha * b
        return a + b

    @staticmethod
    def backward(ctx, grad):
        alpha = getattr(ctx, "alpha", 1)
        return grad, (grad if alpha == 1 else grad * alpha)


class Sub(ArrayFunction):
    """out = a - alpha * b;   da = grad,  db = -alpha * grad"""
    _wraps_numbers = True   # x * 2: the 2 is an input (a wrapped tensor), as in PyTorch's next_functions
    node_name = "SubBackward0"
    _elementwise = 2
    _keeps_zero = "add"

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _no_bool_sub(a, b)
        a, b = promote(a, b)
        if alpha != 1:
            ctx.alpha = alpha
            dt = result_np_dtype(a, b)
            b = _alpha_operand(b, dt, a)
            if _is_half(a, b):
                return _half_alpha(a, b, alpha, dt, -1)
            return a - alpha * b
        return a - b

    @staticmethod
    def backward(ctx, grad):
        alpha = getattr(ctx, "alpha", 1)
        # (-grad) * alpha, as PyTorch's: the negation makes an efficient zero plain zeros (autograd/function.py)
        return grad, (-grad if alpha == 1 else -grad * alpha)


class Rsub(ArrayFunction):
    """out = b - alpha * a   (``2 - x``);   da = -alpha * grad"""
    node_name = "RsubBackward1"
    _elementwise = 2
    _swapped = True   # ATen's rsub is sub(other, self): the layout follows other first

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _no_bool_sub(a, b)
        a, b = promote(a, b)
        ctx.alpha = alpha
        if alpha == 1:
            return b - a
        dt = result_np_dtype(a, b)
        a = _alpha_operand(a, dt, b)
        return _half_alpha(b, a, alpha, dt, -1) if _is_half(a, b) else b - alpha * a

    @staticmethod
    def backward(ctx, grad):
        ga = -grad if ctx.alpha == 1 else -grad * ctx.alpha   # (as Sub's)
        return ga, (grad if len(ctx.needs_input_grad) > 1 and ctx.needs_input_grad[1] else None)


class RsubTensor(Rsub):
    """``rsub(tensor, tensor)``: out = b - alpha * a;  da = -alpha * grad,  db = grad"""
    node_name = "RsubBackward0"


def _half_alpha(a, b, alpha, dt, sign):
    """a + sign * alpha * b for float16/bfloat16: PyTorch's kernel rounds alpha to the tensor's dtype,
    then computes in float32 and rounds once."""
    xp = namespace(a, b)
    alpha32 = np.float32(dt.type(alpha)) * sign   # (a host number: alpha rounded to the dtype)
    return (to_opmath(xp.asarray(a)) + alpha32 * to_opmath(xp.asarray(b))).astype(dt)


def _alpha_operand(x, dt, other):
    """The operand alpha multiplies, in the result dtype; an array for integer dtypes, so that alpha times
    a number wraps there as in PyTorch (uint8: ``add(x, -1, alpha=2)`` adds 254) instead of numpy's
    OverflowError for a Python int out of range."""
    xp = namespace(x, other)   # (a number becomes a 0-dim array on the other operand's device)
    x = cast(x, dt)
    return xp.asarray(x, dtype=dt) if dt.kind in "iu" else x


def _no_bool_sub(a, b):
    """PyTorch refuses bool in a subtraction (a Python bool counts as a bool tensor)."""
    a_bool, b_bool = (getattr(v, "dtype", None) == np.bool_ or isinstance(v, bool) for v in (a, b))
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                           "`^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
                           "to invert a mask, use the `~` or `logical_not()` operator instead.")


class Mul(ArrayFunction):
    """out = a * b;   da = grad * b,  db = grad * a"""
    _wraps_numbers = True   # x * 2: the 2 is an input (a wrapped tensor), as in PyTorch's next_functions
    node_name = "MulBackward0"
    _elementwise = 2
    _keeps_zero = "mul"

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        needs = ctx.needs_input_grad
        if needs:  # da needs b, db needs a (PyTorch saves no more than that)
            ctx.save_for_backward(a if needs[1] else None, b if needs[0] else None)
        pa, pb = promote(a, b)
        if _is_half(pa, pb):
            return _in_opmath(xp.multiply, a, b, pa, pb)
        return pa * pb

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # b's gradient first, as PyTorch's generated MulBackward0 computes them: with create_graph the order
        # numbers the new nodes, which orders the double backward's (rounded) sums
        gb = grad * _conj(a) if ctx.needs_input_grad[1] else None
        return grad * _conj(b) if ctx.needs_input_grad[0] else None, gb


def _is_half(*promoted):
    """Whether promoted operands compute in float16/bfloat16."""
    for x in promoted:
        if type(x) is CPU_ARRAY or is_array(x):
            return x.dtype.itemsize == 2 and is_float_np(x.dtype)
    return False


def _in_opmath(op, a, b, pa, pb):
    """``op(a, b)`` with a float16/bfloat16 result, as PyTorch's CPU kernels compute it: in float32 from the
    operands cast to the result dtype (an int64 tensor's 2049 is 2048 in float16), the result rounded once;
    but a one-element second operand (a Python number, a 0-dim tensor) is taken unrounded: ATen's kernel
    reads a scalar ``b`` from its original value (numpy would round it to the half type first: ``x * pi``
    with pi as bfloat16, a different result).  ``pa``/``pb`` are the promoted operands (in the result dtype)."""
    xp = namespace(a, b)
    dt = next(x.dtype for x in (pa, pb) if is_array(x))
    if is_array(b) and b.size != 1:
        b = pb
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return op(xp.asarray(pa).astype(np.float32), xp.asarray(b).astype(np.float32)).astype(dt)


def _conj(x):
    """Complex gradients use the conjugate (as PyTorch); real ones pass through."""
    if isinstance(x, Tensor):
        return x.conj() if x._data.dtype.kind == "c" else x
    return x.conjugate() if isinstance(x, complex) else x


class Div(ArrayFunction):
    """out = a / b;   da = grad / b,  db = -grad * a / b**2"""
    _wraps_numbers = True   # x * 2: the 2 is an input (a wrapped tensor), as in PyTorch's next_functions
    node_name = "DivBackward0"
    _elementwise = 2
    _keeps_zero = "div"

    @staticmethod
    def forward(ctx, a, b, rounding_mode=None):
        xp = namespace(a, b)
        needs = ctx.needs_input_grad
        if needs:  # da needs b; db needs a and b
            ctx.save_for_backward(a if needs[1] else None, b)
        ctx.rounding_mode = rounding_mode
        if rounding_mode is None:
            pa, pb = promote_to_float(a, b)  # true division: integers go straight to float
            if _is_half(pa, pb):
                return _in_opmath(xp.true_divide, a, b, pa, pb)
            with np.errstate(divide="ignore", invalid="ignore"):
                return xp.true_divide(pa, pb)
        pa, pb = promote(a, b)
        if rounding_mode == "trunc" and is_reduced_np(pa.dtype) and (not is_array(b) or b.size == 1):
            # ATen's kernel for a scalar divisor (a number, a one-element tensor) divides float16/bfloat16 in
            # float32 by the divisor's own value and truncates that; otherwise the half type's division rounds
            # the quotient first (-26.99 becomes -27)
            with np.errstate(divide="ignore", invalid="ignore"):
                return xp.trunc(to_opmath(pa) / xp.asarray(b, np.float32)).astype(pa.dtype)
        return _rounded_div(pa, pb, rounding_mode)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if ctx.rounding_mode is not None:
            return (zero_grad(grad) if ctx.needs_input_grad[0] else None,
                    zero_grad(grad) if ctx.needs_input_grad[1] else None)
        # PyTorch's order, (a / b) / b: not a / b², whose double backward makes NaN where b is 0; and b's
        # gradient first, as PyTorch's DivBackward0 (see Mul)
        # (conjugated for complex operands, as PyTorch's div_tensor_self/other_backward)
        gb = -grad * _conj((a / b) / b) if ctx.needs_input_grad[1] else None
        ga = grad / _conj(b) if ctx.needs_input_grad[0] else None
        if ga is not None and not isinstance(b, Tensor) and is_efficient_zero(grad):
            # PyTorch's b is a number wrapped as a tensor: its division keeps an efficient zero, where a formula's
            # grad / number (ATen's div.Scalar) does not (see keeps_zero in autograd/function.py)
            ga = as_efficient_zero(ga)
        return ga, gb


class DivRounded(Div):
    """``div(a, b, rounding_mode='trunc' | 'floor')``: gradient 0"""
    node_name = "DivBackward2"
    _keeps_zero = None   # (PyTorch's rounding division materializes the zeros)


def _rounded_div(a, b, mode):
    xp = namespace(a, b)
    kind = np.result_type(a, b).kind
    if mode == "trunc":
        if kind in "iu":
            _check_int_zero(b, a)
            q = xp.floor_divide(a, b)
            r = xp.remainder(a, b)
            return q + ((r != 0) & (q < 0)).astype(q.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.trunc(xp.true_divide(a, b))
    if mode == "floor":
        if kind in "iu":
            _check_int_zero(b, a)
            return xp.floor_divide(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.floor_divide(a, b)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")


def _check_int_zero(b, a):
    """Integer division by zero is PyTorch's error, raised only when some element is actually divided
    (an empty result, ``empty_int_tensor // 0``, divides nothing)."""
    zero = bool((b == 0).any()) if is_array(b) else b == 0   # (a device sync: only integer division checks)
    if zero and math.prod(np.broadcast_shapes(getattr(a, "shape", ()), getattr(b, "shape", ()))):
        raise RuntimeError("ZeroDivisionError")


class Pow(ArrayFunction):
    """out = a ** p (p a number);   da = grad * p * a**(p-1)"""
    node_name = "PowBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, a, p):
        xp = namespace(a)
        ctx.save_for_backward(a)
        ctx.p = p
        # PyTorch checks the exponent as given (before uint8 would wrap -3 into 253), then converts it to
        # the result dtype with its overflow check (integers and float16/bfloat16: uint8 ** 300 is refused)
        if a.dtype.kind in "iub" and isinstance(p, numbers.Integral) and p < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        dt = result_np_dtype(a, p)
        if dt.kind in "iu" or is_reduced_np(dt):
            checked_int(p, dt)
        if dt == np.bool_:  # bool ** bool: no bool pow kernel; PyTorch copies (** True) or fills ones (** False)
            return a.copy() if p else xp.ones_like(a)
        a2, p2 = promote(a, p)
        if a2.dtype.kind == "f" or is_reduced_np(a2.dtype):
            return _float_pow_scalar(a2, p)
        if p == 2:
            return a2 * a2
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.power(a2, p2)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        p = ctx.p
        # PyTorch's test is Scalar.equal(0.0), which is false for a bool: x ** False takes the general
        # formula below (0 * x ** -1: NaN at x = 0)
        if p == 0 and not isinstance(p, bool):
            return zero_grad(grad), None
        if p == 2:
            return grad * _conj(a * 2), None
        return grad * _conj(a ** (p - 1) * p), None   # (complex: the conjugate, as PyTorch's pow_backward)


def _float_pow_scalar(a, p):
    """a ** p for a float array, as ATen's pow_tensor_scalar_kernel computes it: sqrt, 1 / sqrt and
    reciprocal for p = 0.5, -0.5, -1 (so (-inf) ** 0.5 is nan, not pow's inf), products for 2, 3, -2
    (bfloat16: each step rounded to bfloat16, as numpy's bfloat16 arithmetic does too), else pow in double
    for float32. float16 has none of these: pow in float32 whatever p is (p itself rounded to float16)."""
    xp = namespace(a)
    dt = a.dtype
    one = dt.type(1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if dt == np.float16:   # (the exponent is converted to float16 first, as PyTorch converts the Scalar)
            out = xp.power(a.astype(np.float32), np.float32(np.float16(np.float32(p))))
            if p == 0.5:   # C's pow (numpy's power takes sqrt here): pow(-inf, 0.5) = inf, pow(-0, 0.5) = +0
                out = xp.where(a == -np.inf, np.float32(np.inf), xp.where(a == 0, np.float32(0), out))
            return out.astype(dt)
        if p == 0.5:
            return xp.sqrt(a)
        if p == -0.5:
            return one / xp.sqrt(a)
        if p == -1:
            return one / a
        if p == 2:
            return a * a
        if p == 3:
            return a * a * a
        if p == -2:
            return one / (a * a)
        if dt == np.float32:
            return xp.power(a.astype(np.float64), float(p)).astype(dt)
        return xp.power(a, dt.type(p))


def _int_power(a, b):
    """Integer a ** b with a tensor exponent, as PyTorch computes it: a negative exponent gives 1 where
    a == 1, +-1 where a == -1 (by b's parity) and 0 elsewhere (numpy refuses negative integer powers)."""
    xp = namespace(a, b)
    neg = xp.asarray(b < 0)
    if not neg.any():
        return xp.power(a, b)
    out = xp.power(a, xp.where(neg, 0, b))
    at_neg = xp.where(a == 1, 1, xp.where(a == -1, xp.where(b % 2 == 0, 1, -1), 0))
    return xp.where(neg, at_neg, out).astype(out.dtype)


class PowTensor(ArrayFunction):
    """out = a ** b (both tensors);   da = grad * b * a**(b-1),  db = grad * out * log(a)"""
    node_name = "PowBackward1"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        broadcast_shapes_or_raise(a.shape, b.shape)  # (PyTorch reports a broadcast error before a missing kernel)
        check_kernel_dtype("pow", result_np_dtype(a, b), "ifc")  # (bool ** bool has no kernel)
        a2, b2 = promote(a, b)
        if a2.dtype.kind in "iu":
            out = _int_power(a2, b2)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                out = xp.power(a2, b2)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's pow_backward_self / pow_backward_exponent, selects and order included
        a, b, out = ctx.saved_tensors
        ga = gb = None
        if ctx.needs_input_grad[1]:   # (the exponent's first, as PyTorch: see Mul.backward)
            # 0 at a == 0, b >= 0 (by continuity); at a == 0, b < 0 it is out * log 0 = -inf.
            # log of a in the result dtype (an int base is not logged in float32)
            a_f = a.to(out.dtype) if a.dtype != out.dtype else a
            gb = grad * where((a == 0) & (b >= 0), 0.0, _conj(out * a_f.log()))
        if ctx.needs_input_grad[0]:  # 0 where b == 0 (even where a ** -1 is inf)
            ga = where(b == 0, 0.0, grad * _conj(b * a ** (b - 1)))
        return ga, gb


class RPow(ArrayFunction):
    """out = s ** b (s a number);   db = grad * out * log(s)"""
    node_name = "PowBackward2"
    _result_format = "contiguous_format"   # pow(Scalar, Tensor) is no TensorIterator op in ATen: its meta function allocates contiguous

    @staticmethod
    def forward(ctx, b, s):
        xp = namespace(b, s)
        check_kernel_dtype("pow", result_np_dtype(s, b), "ifc")
        s2, b2 = promote(s, b)
        out = _int_power(s2, b2) if b2.dtype.kind in "iu" else xp.power(s2, b2)
        ctx.save_for_backward(b, out)  # (PyTorch saves the exponent too)
        ctx.s = s
        return out

    @staticmethod
    def backward(ctx, grad):
        b, out = ctx.saved_tensors
        s = ctx.s
        log_s = math.log(s) if s > 0 else -math.inf if s == 0 else math.nan
        if s == 0:  # 0 where b >= 0 (by continuity); out * log 0 = -inf where b < 0
            return grad * where(b >= 0, 0.0, _conj(out * log_s)), None
        return grad * _conj(out * log_s), None


def _remainder(a, b):
    """a % b as PyTorch computes it: C's fmod (sign of a), plus b where a nonzero result's sign differs
    from b's. numpy's remainder gives an exact 0 b's sign (0. % -1. is -0.); PyTorch keeps fmod's (+0.)."""
    xp = namespace(a, b)
    if np.result_type(a, b).kind in "iu":
        return xp.remainder(a, b)   # (integers: no signed zero, numpy's rule is PyTorch's)
    mod = xp.fmod(a, b)
    return xp.where((mod != 0) & ((mod < 0) != (b < 0)), mod + b, mod)


class Remainder(ArrayFunction):
    """out = a - floor(a / b) * b  (sign of b, like Python's %);  da = grad, db = -grad * floor(a / b)"""
    node_name = "RemainderBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(needed(ctx, 1, a), needed(ctx, 1, b))  # (only b's gradient reads them)
        a, b = promote(a, b)
        if np.result_type(a, b).kind in "iu":
            _check_int_zero(b, a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return _remainder(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        gb = None
        if ctx.needs_input_grad[1]:
            # div(..., rounding_mode) as PyTorch: its gradient is 0, where (a / b).floor() would
            # pass a NaN (a / b's own gradient at b == 0) into double backward
            gb = -grad * div(a, b, rounding_mode="floor")
        return grad, gb


class RemainderTensor(Remainder):
    node_name = "RemainderBackward1"


class RemainderScalarFirst(ArrayFunction):
    """out = s % b (s a number): PyTorch records no derivative (grad_fn=<NotImplemented>)"""
    node_name = "NotImplemented"
    _elementwise = 2

    @staticmethod
    def forward(ctx, b, s):
        s2, b2 = promote(s, b)
        if b2.dtype.kind in "iu":
            _check_int_zero(b2, s2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return _remainder(s2, b2)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::remainder is not implemented")



class Fmod(ArrayFunction):
    """out = a - trunc(a / b) * b  (sign of a, like C's fmod);  da = grad, db = -grad * trunc(a / b)"""
    node_name = "FmodBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(needed(ctx, 1, a), needed(ctx, 1, b))  # (only b's gradient reads them)
        a, b = promote(a, b)
        if np.result_type(a, b).kind in "iu":
            _check_int_zero(b, a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.fmod(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        gb = -grad * div(a, b, rounding_mode="trunc") if ctx.needs_input_grad[1] else None  # (see Remainder)
        return grad, gb


class FmodTensor(Fmod):
    node_name = "FmodBackward1"


class FloorDivide(ArrayFunction):
    """out = floor(a / b); PyTorch records no derivative for it (grad_fn=<NotImplemented>)"""
    node_name = "NotImplemented"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        a, b = promote(a, b)
        return _rounded_div(a, b, "floor")

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class Atan2(ArrayFunction):
    """out = atan2(a, b);  da = grad * b / (a² + b²),  db = -grad * a / (a² + b²)"""
    node_name = "Atan2Backward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(a, b)
        a, b = promote_to_float(a, b)
        return xp.arctan2(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        r = a * a + b * b
        recip = where(r == 0, 0.0, r.reciprocal())  # at (0, 0) PyTorch's gradient is 0, not NaN
        return grad * b * recip, grad * -a * recip


class Maximum(ArrayFunction):
    """out = max(a, b);  da = grad where a > b (half on ties),  db = grad where b > a"""
    node_name = "MaximumBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(a, b)
        a, b = promote(a, b)
        return tie_first_maximum(a, b)   # (a on a tie, as PyTorch: max(-0., 0.) is -0.)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        g = where(a == b, grad / 2, grad)
        return masked_grad(g, (a < b).logical_not()), masked_grad(g, (a > b).logical_not())


class Minimum(ArrayFunction):
    """out = min(a, b);  da = grad where a < b (half on ties),  db = grad where b < a"""
    node_name = "MinimumBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(a, b)
        a, b = promote(a, b)
        return tie_first_minimum(a, b)   # (a on a tie, as PyTorch)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        g = where(a == b, grad / 2, grad)
        return masked_grad(g, (a > b).logical_not()), masked_grad(g, (a < b).logical_not())


class Fmax(ArrayFunction):
    """out = fmax(a, b) (NaN ignored);  gradient to the chosen side"""
    node_name = "FmaxBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(a, b)
        a, b = promote(a, b)
        return xp.where(a == b, a, xp.fmax(a, b))   # (-0.0 vs 0.0: ATen gives a; numpy's SIMD varies)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        to_a = (a >= b) | b.isnan()
        return masked_grad(grad, to_a), masked_grad(grad, to_a.logical_not())


class Fmin(ArrayFunction):
    """out = fmin(a, b) (NaN ignored);  gradient to the chosen side"""
    node_name = "FminBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(a, b)
        a, b = promote(a, b)
        return xp.where(a == b, a, xp.fmin(a, b))   # (-0.0 vs 0.0: ATen gives a; numpy's SIMD varies)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        to_a = (a <= b) | b.isnan()
        return masked_grad(grad, to_a), masked_grad(grad, to_a.logical_not())


class Hypot(ArrayFunction):
    """out = sqrt(a² + b²);  da = grad * a / out,  db = grad * b / out"""
    node_name = "HypotBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        out = xp.hypot(*promote(a, b))
        ctx.save_for_backward(needed(ctx, 0, a), needed(ctx, 1, b), out)  # (each side's formula reads its own)
        return out

    @staticmethod
    def backward(ctx, grad):
        a, b, out = ctx.saved_tensors
        gb = None if b is None else grad * b / out   # (b's first, as PyTorch: see Mul.backward)
        return (None if a is None else grad * a / out), gb


class LogAddExp(ArrayFunction):
    """out = log(e^a + e^b);  da = grad / (1 + e^(b - a)),  db = grad / (1 + e^(a - b))"""
    node_name = "LogaddexpBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b):
        xp = namespace(a, b)
        ctx.save_for_backward(a, b)
        a, b = promote_to_float(a, b)
        return xp.logaddexp(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        # PyTorch's formula (not sigmoid(a - b): the same number, another double backward at ±inf); b's
        # gradient first, as PyTorch (see Mul.backward)
        gb = grad / ((a - b).exp() + 1)
        return grad / ((b - a).exp() + 1), gb


class XLogY(ArrayFunction):
    """out = x * log(y) (0 where x == 0);  dx = grad * log(y) (0 where x == 0 and y <= 0),  dy = grad * x / y"""
    node_name = "XlogyBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, x, y):
        xp = namespace(x, y)
        xs, ys = promote_to_float(x, y)
        dt = (xs if hasattr(xs, "dtype") else ys).dtype
        xs, ys = xp.asarray(xs, dtype=dt), xp.asarray(ys, dtype=dt)
        # the inputs themselves are saved (double backward differentiates through them); a number as an array
        ctx.save_for_backward(x if hasattr(x, "dtype") else xs, y if hasattr(y, "dtype") else ys)
        with np.errstate(divide="ignore", invalid="ignore"):
            # PyTorch's kernel is x * std::log(y) per element, and C's logf is almost always correctly
            # rounded where numpy's vectorised float32 log is an ulp off for ~7% of inputs (log(7)): take
            # float32's log in float64 and round it (lgamma or cos of the result can magnify that ulp)
            logy = xp.log(ys.astype(np.float64)).astype(dt) if dt == np.float32 else xp.log(ys)
            out = xp.where(xs == 0, xp.zeros((), dt), xs * logy)
        return xp.where(xp.isnan(ys), ys, out).astype(dt)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        # PyTorch's xlogy(grad, y), not grad * log(y): a zero grad gives 0 even where log(y) is NaN or -inf
        gy = grad * x / y if len(need) > 1 and need[1] else None   # (y's first, as PyTorch: see Mul.backward)
        gx = XLogY.apply(grad, y).masked_fill((x == 0) & (y <= 0), 0) if need[0] else None
        return gx, gy


class XLogYScalarSelf(XLogY):
    """``xlogy(number, tensor)``"""
    node_name = "XlogyBackward1"


class XLogYScalarOther(XLogY):
    """``xlogy(tensor, number)``"""
    node_name = "XlogyBackward2"


def _not_implemented_name(self):
    return "torch::autograd::NotImplemented"


FloorDivide._backward_cls.name = _not_implemented_name  # ops PyTorch records without a derivative
RemainderScalarFirst._backward_cls.name = _not_implemented_name


# ====================================================================== unary math

# what each op's derivative reads, as PyTorch saves it ("out": the result, "x": the input): saving
# only that matters, because an in-place change of anything saved makes backward refuse
_SAVES = {"Exp": "out", "Exp2": "out", "Expm1": "out", "Sqrt": "out", "Rsqrt": "out", "Tan": "out",
          "Tanh": "out", "Sigmoid": "out", "Reciprocal": "out",
          "Deg2rad": "", "Rad2deg": "", "Floor": "", "Ceil": "", "Trunc": "", "Frac": "", "Sign": ""}


def _unary(name, node_name, kernel, derivative, doc, keep_int=False, dtypes=None, analytic=True):
    """Make a one-input op: ``kernel(x_array)``; ``derivative(x, out, grad)`` with Tensors.
    ``dtypes``: (PyTorch's kernel name, the dtype categories it supports), when not all.
    ``analytic``: for a complex x, ``derivative`` is given the conjugates of x and out (see backward);
    False where the formula already is the complex one (abs)."""
    saves = _SAVES.get(name, "x")

    def forward(ctx, x):
        if dtypes is not None and hasattr(x, "dtype"):
            check_kernel_dtype(dtypes[0], x.dtype, dtypes[1])
        xx = x if keep_int else to_float(x)
        wide = to_opmath(xx)  # float16/bfloat16 compute in float32 and round once, as PyTorch's kernels
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = kernel(wide)
        if wide is not xx:
            out = namespace(out).asarray(out).astype(xx.dtype)
        ctx.save_for_backward(x if saves in ("x", "both") else None, out if saves in ("out", "both") else None)
        return out

    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        # complex x: grad times the conjugate of f'(x) (PyTorch's convention), which for these functions
        # (f(conj z) = conj f(z)) is f' at the conjugates
        return derivative(_conj(x), _conj(out), grad) if analytic else derivative(x, out, grad)

    cls = type(name, (ArrayFunction,), {
        "__doc__": doc, "node_name": node_name, "__module__": __name__, "_elementwise": 1,
        "forward": staticmethod(forward), "backward": staticmethod(backward)})
    if name in ("Deg2rad", "Rad2deg"):   # no TensorIterator result in ATen: mul_ writes into empty_like(self)
        cls._result_format = "preserve_format"
    return cls


def _sigmoid_kernel(x):
    # PyTorch's formula, 1 / (1 + exp(-x)): exp(-x) overflowing to inf gives 0, as it should (the form
    # e / (1 + e) for x < 0 is as accurate but rounds differently, an ulp that batch norm of a constant
    # channel magnifies)
    xp = namespace(x)
    with np.errstate(over="ignore"):
        return (1 / (1 + xp.exp(-x))).astype(x.dtype, copy=False)


def _erf_kernel(x):
    return _erf(x)


def _erf(x):
    """erf to double precision: a rational Chebyshev fit (W. J. Cody, 1969), vectorised."""
    xp = namespace(x)
    x = xp.asarray(x)
    ax = xp.abs(x.astype(np.float64))
    out = xp.empty_like(ax)
    # |x| <= 0.5
    a = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
         3.20937758913846947e03, 1.85777706184603153e-1)
    b = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
    c = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
         8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
         2.15311535474403846e-8)
    d = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
         3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
    p = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
         6.58749161529837803e-4, 1.63153871373020978e-2)
    q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
         2.33520497626869185e-3)
    small = ax <= 0.5
    mid = (ax > 0.5) & (ax <= 4.0)
    big = ax > 4.0
    if small.any():
        y = ax[small]
        z = y * y
        xnum = a[4] * z
        xden = z
        for i in range(3):
            xnum = (xnum + a[i]) * z
            xden = (xden + b[i]) * z
        out[small] = y * (xnum + a[3]) / (xden + b[3])
    if mid.any():
        y = ax[mid]
        xnum = c[8] * y
        xden = y
        for i in range(7):
            xnum = (xnum + c[i]) * y
            xden = (xden + d[i]) * y
        r = (xnum + c[7]) / (xden + d[7])
        ysq = xp.trunc(y * 16) / 16
        dl = (y - ysq) * (y + ysq)
        out[mid] = 1 - xp.exp(-ysq * ysq) * xp.exp(-dl) * r
    if big.any():
        y = ax[big]
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            z = 1 / (y * y)
            xnum = p[5] * z
            xden = z
            for i in range(4):
                xnum = (xnum + p[i]) * z
                xden = (xden + q[i]) * z
            r = z * (xnum + p[4]) / (xden + q[4])
            r = (1 / math.sqrt(math.pi) - r) / y
            ysq = xp.trunc(y * 16) / 16
            dl = (y - ysq) * (y + ysq)
            val = 1 - xp.exp(-ysq * ysq) * xp.exp(-dl) * r
        out[big] = xp.where(y > 6.0, 1.0, xp.nan_to_num(val, nan=1.0))
    nan = xp.isnan(ax)
    if nan.any():
        out[nan] = np.nan
    return xp.copysign(out, x).astype(x.dtype, copy=False)   # (odd: erf(-0) = -0)


def _weideman_coefficients(n=40):
    """The coefficients a_1..a_n of Weideman's series for erfcx (SIAM J. Numer. Anal. 31, 1994).

    With L = (n / sqrt 2)^(1/2) the substitution t = L tan(theta / 2) maps the real line onto a
    circle, where exp(-t²)(L² + t²) is smooth and periodic: its Fourier coefficients (one FFT here,
    once at import) decay fast, and 40 of them give erfcx to about 1e-16. A host table, computed once
    with numpy; ``_erfcx`` moves it to a device explicitly.
    """
    m = 2 * n
    L = math.sqrt(n / math.sqrt(2))
    t = L * np.tan([k * math.pi / m / 2 for k in range(-m + 1, m)])
    f = np.concatenate([[0.0], np.exp(-t * t) * (L * L + t * t)])
    a = np.real(np.fft.fft(np.fft.fftshift(f))) / (2 * m)
    return a[n:0:-1].copy(), L     # highest power first, for polyval


_WEIDEMAN, _WEIDEMAN_L = _weideman_coefficients()


def _erfcx(x):
    """erfcx(x) = exp(x²) erfc(x).

    x >= 0: erfcx(x) = 1 / (sqrt(pi) (L + x)) + 2 / (L + x)² sum_n a_n Z^(n-1),  Z = (L - x) / (L + x)
    x < 0:  erfcx(x) = 2 exp(x²) - erfcx(-x)   (overflows to inf below about -26.6, as it should)
    """
    xp = namespace(x)
    ax = xp.abs(x)
    with np.errstate(over="ignore", invalid="ignore"):
        z = (_WEIDEMAN_L - ax) / (_WEIDEMAN_L + ax)
        coeffs = _WEIDEMAN if xp is np else xp.asarray(_WEIDEMAN)   # (the host table, moved over: 320 bytes)
        pos = 2 * xp.polyval(coeffs, z) / (_WEIDEMAN_L + ax) ** 2 + 1 / (_SQRT_PI * (_WEIDEMAN_L + ax))
        pos = xp.where(ax == np.inf, 0.0, pos)                       # (inf / inf above)
        return xp.where(x < 0, 2 * xp.exp(x * x) - pos, pos)


def _exp_minus_square(x):
    """exp(-x²) to full precision (Cody's trick): with s = x rounded down to 1/16, s² is exact and
    exp(-x²) = exp(-s²) exp(-(x - s)(x + s)); exp(-(x * x)) would carry x*x's rounding error, which
    grows with x² (relative 1e-13 at x = 20)."""
    xp = namespace(x)
    s = xp.trunc(x * 16) / 16
    with np.errstate(invalid="ignore"):
        return xp.where(xp.isinf(x), 0.0, xp.exp(-s * s) * xp.exp(-(x - s) * (x + s)))


def _erfc(x):
    """erfc(x) = exp(-x²) erfcx(x), accurate in the right tail (erfc(10) = 2e-45: 1 - erf(10) is 0)."""
    xp = namespace(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return xp.where(x < 0, 2 - _exp_minus_square(x) * _erfcx(-x), _exp_minus_square(x) * _erfcx(x))


def _erfinv(y):
    """Inverse erf, as ATen computes it: float64 by a rational approximation (the central range |y| <= 0.7 in
    y², the tails in sqrt(-log((1 - |y|) / 2)), which stays accurate up to |y| = 1 - 1e-16), other dtypes by
    Giles' (2010) single-precision formula; both refined by two Newton steps."""
    xp = namespace(y)
    y = xp.asarray(y)
    yd = y.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        if y.dtype == np.float64:
            x = _erfinv_rational(yd)
        else:
            w = -xp.log((1 - yd) * (1 + yd))
            x = xp.where(w < 5, _giles_small(w - 2.5), _giles_big(xp.sqrt(w) - 3)) * yd
        for _ in range(3 if y.dtype == np.float64 else 2):   # (float64: a third step for the far tails)
            err = _erf(x) - yd
            if y.dtype == np.float64:   # in the tails erf(x) rounds to +-1: the residual from erfc there, exactly
                tail = xp.abs(yd) > 0.7
                err = xp.where(tail, xp.sign(yd) * ((1 - xp.abs(yd)) - _erfc(xp.abs(x))), err)
            x = x - err / (2 / math.sqrt(math.pi) * xp.exp(-x * x))
        x = xp.where(yd == 1, np.inf, xp.where(yd == -1, -np.inf, x))
        x = xp.where(xp.abs(yd) > 1, np.nan, x)
    return x.astype(y.dtype, copy=False)


def _erfinv_rational(y):
    """The starting point of float64 erfinv: two rational functions (central range and tails)."""
    xp = namespace(y)
    a = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
    b = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
    c = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
    d = (3.543889200, 1.637067800)
    z = y * y
    central = y * (((a[3] * z + a[2]) * z + a[1]) * z + a[0]) / ((((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1)
    t = xp.sqrt(-xp.log((1 - xp.abs(y)) / 2))
    tail = xp.copysign((((c[3] * t + c[2]) * t + c[1]) * t + c[0]) / ((d[1] * t + d[0]) * t + 1), y)
    return xp.where(xp.abs(y) <= 0.7, central, tail)


def _giles_small(w):
    p = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p = c + p * w
    return p


def _giles_big(w):
    p = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        p = c + p * w
    return p


_SQRT_PI = math.sqrt(math.pi)

def _in_double(kernel):
    """``kernel`` for float32 host arrays computed in float64 and rounded once. PyTorch's float kernels
    (MKL's vector math, Sleef) nearly always return the correctly rounded value; numpy's float32 loops
    trade an ulp for speed on 10-50% of inputs (exp 39%, tanh 32%, log10 53% of random inputs differed from
    PyTorch 2.13; rounded from float64: 1%, 0.1%, 0.1%). Device arrays keep their float32 kernels (GPUs are
    slow in float64, and CUDA's are PyTorch's there too)."""
    def wide(x):
        if type(x) is CPU_ARRAY and x.dtype == np.float32:
            return kernel(x.astype(np.float64)).astype(np.float32)
        return kernel(x)
    wide.__name__ = wide.__qualname__ = kernel.__name__
    return wide


Exp = _unary("Exp", "ExpBackward0", _in_double(_XP.exp), lambda x, o, g: g * o, "exp(x)' = exp(x)")
Exp2 = _unary("Exp2", "Exp2Backward0", _in_double(_XP.exp2), lambda x, o, g: g * o * math.log(2), "(2^x)' = 2^x ln 2")
Expm1 = _unary("Expm1", "Expm1Backward0", _in_double(_XP.expm1), lambda x, o, g: g * (o + 1), "(e^x - 1)' = e^x")
Log = _unary("Log", "LogBackward0", _in_double(_XP.log), lambda x, o, g: g / x, "log(x)' = 1 / x")
Log2 = _unary("Log2", "Log2Backward0", _in_double(_XP.log2), lambda x, o, g: g / (x * math.log(2)), "log2(x)' = 1 / (x ln 2)")
Log10 = _unary("Log10", "Log10Backward0", _in_double(_XP.log10), lambda x, o, g: g / (x * math.log(10)),
               "log10(x)' = 1 / (x ln 10)")
Log1p = _unary("Log1p", "Log1PBackward0", _in_double(_XP.log1p), lambda x, o, g: g / (x + 1), "log(1 + x)' = 1 / (1 + x)")
Sqrt = _unary("Sqrt", "SqrtBackward0", _XP.sqrt, lambda x, o, g: g / (o * 2), "sqrt(x)' = 1 / (2 sqrt(x))")
Rsqrt = _unary("Rsqrt", "RsqrtBackward0", lambda x: 1 / _XP.sqrt(x), lambda x, o, g: g * -0.5 * o ** 3,
               "(x^-1/2)' = -1/2 x^-3/2")
Sin = _unary("Sin", "SinBackward0", _in_double(_XP.sin), lambda x, o, g: g * x.cos(), "sin(x)' = cos(x)")
Cos = _unary("Cos", "CosBackward0", _in_double(_XP.cos), lambda x, o, g: g * -x.sin(), "cos(x)' = -sin(x)")
Tan = _unary("Tan", "TanBackward0", _in_double(_XP.tan), lambda x, o, g: g * (o * o + 1), "tan(x)' = 1 + tan²(x)")
Asin = _unary("Asin", "AsinBackward0", _in_double(_XP.arcsin), lambda x, o, g: g * (-x * x + 1).rsqrt(),
              "asin(x)' = 1 / sqrt(1 - x²)")
Acos = _unary("Acos", "AcosBackward0", _in_double(_XP.arccos), lambda x, o, g: g * -((-x * x + 1).rsqrt()),
              "acos(x)' = -1 / sqrt(1 - x²)")
Atan = _unary("Atan", "AtanBackward0", _in_double(_XP.arctan), lambda x, o, g: g / (x * x + 1), "atan(x)' = 1 / (1 + x²)")
Sinh = _unary("Sinh", "SinhBackward0", _in_double(_XP.sinh), lambda x, o, g: g * x.cosh(), "sinh(x)' = cosh(x)")
Cosh = _unary("Cosh", "CoshBackward0", _in_double(_XP.cosh), lambda x, o, g: g * x.sinh(), "cosh(x)' = sinh(x)")
class TanhBackward(ArrayFunction):
    """PyTorch's tanh_backward(grad, out) = grad (1 - out²), one op (half precision in float32, rounded once);
    d/dgrad = tanh_backward(gg, out), d/dout = -2 out grad gg"""
    node_name = "TanhBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, g, o):
        ctx.save_for_backward(g, o)
        g, o = promote(g, o)
        if o.dtype == np.float32:   # (measured: its float kernel takes 1 - out² as one fused multiply-add)
            from .creation import _fused
            return namespace(g).asarray(g * _fused(-o, o, np.float32(1), np.float32))
        gw, ow = to_opmath(g), to_opmath(o)
        return namespace(gw).asarray(gw * (1 - ow * ow)).astype(g.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        g, o = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (TanhBackward.apply(gg, _conj(o)) if need[0] else None,   # (complex: conjugates, as ever)
                gg * _conj(-2 * o * g) if need[1] else None)   # (derivatives.yaml's order of the products)


Tanh = _unary("Tanh", "TanhBackward0", _in_double(_XP.tanh), lambda x, o, g: TanhBackward.apply(g, o),
              "tanh(x)' = 1 - tanh²(x)")
Asinh = _unary("Asinh", "AsinhBackward0", _XP.arcsinh, lambda x, o, g: g * (x ** 2 + 1).rsqrt(),
               "asinh(x)' = 1 / sqrt(x² + 1)")
Acosh = _unary("Acosh", "AcoshBackward0", _XP.arccosh,   # (complex: sqrt(x² - 1) is on another branch)
               lambda x, o, g: g * ((x + 1).rsqrt() * (x - 1).rsqrt()) if x.is_complex() else g * (x * x - 1).rsqrt(),
               "acosh(x)' = 1 / sqrt(x² - 1)")
Atanh = _unary("Atanh", "AtanhBackward0", _in_double(_XP.arctanh), lambda x, o, g: g / (1 - x * x),
               "atanh(x)' = 1 / (1 - x²)")
class SigmoidBackward(ArrayFunction):
    """PyTorch's sigmoid_backward(grad, out) = grad (1 - out) out, one op (half precision in float32);
    d/dgrad = sigmoid_backward(gg, out), d/dout = gg grad (1 - 2 out): one term, where the product rule
    on grad * out * (1 - out) would add inf - inf = NaN when gg * grad is infinite"""
    node_name = "SigmoidBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, g, o):
        ctx.save_for_backward(g, o)
        g, o = promote(g, o)
        if g.dtype == np.float16:   # (measured: PyTorch's CPU kernel works in float16 here, rounding each step)
            return namespace(g).asarray((g * (g.dtype.type(1) - o)) * o)
        gw, ow = to_opmath(g), to_opmath(o)
        return namespace(gw).asarray(gw * (1 - ow) * ow).astype(g.dtype, copy=False)

    @staticmethod
    def backward(ctx, gg):
        g, o = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (SigmoidBackward.apply(gg, _conj(o)) if need[0] else None,   # (complex: conjugates, as ever)
                gg * _conj(g) * _conj(-2 * o + 1) if need[1] else None)   # (derivatives.yaml's order)


Sigmoid = _unary("Sigmoid", "SigmoidBackward0", _sigmoid_kernel, lambda x, o, g: SigmoidBackward.apply(g, o),
                 "sigmoid(x)' = sigmoid(x) (1 - sigmoid(x))")
Erf = _unary("Erf", "ErfBackward0", _erf_kernel, lambda x, o, g: (-(x ** 2)).exp() * (2 / _SQRT_PI) * g,
             "erf(x)' = 2/sqrt(pi) exp(-x²)", dtypes=("erf_vml_cpu", "bif"))


def _erfc_kernel(x):
    xp = namespace(x)
    x = xp.asarray(x)
    return _erfc(x.astype(np.float64)).astype(x.dtype)


Erfc = _unary("Erfc", "ErfcBackward0", _erfc_kernel, lambda x, o, g: (-(x ** 2)).exp() * (-2 / _SQRT_PI) * g,
              "erfc(x)' = -2/sqrt(pi) exp(-x²)", dtypes=("erfc_vml_cpu", "bif"))
Erfinv = _unary("Erfinv", "ErfinvBackward0", _erfinv, lambda x, o, g: (x.erfinv() ** 2).exp() * (0.5 * _SQRT_PI) * g,
                "erfinv(x)' = sqrt(pi)/2 exp(erfinv(x)²)", dtypes=("erfinv_vml_cpu", "bif"))
Reciprocal = _unary("Reciprocal", "ReciprocalBackward0", lambda x: 1 / x, lambda x, o, g: g * -(o * o),
                    "(1/x)' = -1/x²")
def _sinc_grad(x, o, g):
    """PyTorch's sinc_backward: (pi x cos(pi x) - sin(pi x)) / (pi x²), 0 where pi x² is 0"""
    x_pi = x * math.pi
    x_squared_pi = x * x * math.pi
    # sin before cos, as PyTorch's compiler evaluates ``a * a.cos() - a.sin()`` (right to left): the order
    # numbers the nodes, which orders a double backward's sums (float16/bfloat16 round each of them)
    sin = x_pi.sin()
    out = g * ((x_pi * x_pi.cos() - sin) / x_squared_pi)
    return where(x_squared_pi == 0, 0.0, out)


Sinc = _unary("Sinc", "SincBackward0", _XP.sinc, _sinc_grad, "sinc(x)' = (cos(pi x) - sinc(x)) / x")
# ATen multiplies by the constant rounded to the dtype (numpy's kernels round differently)
Deg2rad = _unary("Deg2rad", "Deg2RadBackward0", lambda x: x * x.dtype.type(math.pi / 180),
                 lambda x, o, g: g * (math.pi / 180), "deg2rad")
Rad2deg = _unary("Rad2deg", "Rad2DegBackward0", lambda x: x * x.dtype.type(180 / math.pi),
                 lambda x, o, g: g * (180 / math.pi), "rad2deg")


class Logit(ArrayFunction):
    """out = log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given (one op, as PyTorch's);
    dx = grad / (x (1 - x)) for x in [eps, 1 - eps], else 0; without eps, for x in [0, 1], else NaN"""
    node_name = "LogitBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, eps=None):
        xp = namespace(x, eps)
        ctx.save_for_backward(x)
        ctx.eps = eps
        xf = to_float(x)
        # computed in x's own dtype, rounded after each step also for float16/bfloat16 (PyTorch's kernel
        # has no float32 "opmath" here: x / (1 - x) and the log are each rounded, eps too)
        w = xf
        if eps is not None:   # ATen's x < lo ? lo : (x > hi ? hi : x): eps > 0.5 (lo > hi) gives lo below lo
            lo = w.dtype.type(eps)
            hi = 1 - lo
            w = xp.where(w < lo, lo, xp.where(w > hi, hi, w))  # (NaN stays NaN)
        with np.errstate(divide="ignore", invalid="ignore"):
            return xp.log(w / (1 - w)).astype(xf.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        eps = ctx.eps
        lo, hi = (0.0, 1.0) if eps is None else (eps, 1 - eps)
        inside = (x >= lo) & (x <= hi)
        if eps is not None and not _state.enabled:
            # PyTorch's logit_backward kernel (no graph to record): the same, except that a NaN x is
            # tested "outside" with x < lo || x > hi, so it gives NaN where the formula below gives 0
            inside = inside | x.isnan()
        elif not _state.enabled:
            # that kernel without eps gives grad * inf at x == 0, where the formula divides by x * (1 - x):
            # at x = -0.0 that is -0.0 and flips the sign; adding 0.0 turns -0.0 into +0.0
            x = x + 0.0
        return where(inside, grad / (x * (1 - x)), math.nan if eps is None else 0.0), None


def _zero_grad(x, o, g):
    return zero_grad(g)


Floor = _unary("Floor", "FloorBackward0", _XP.floor, _zero_grad, "floor: gradient 0", keep_int=True,
               dtypes=("floor_vml_cpu", "if"))
Ceil = _unary("Ceil", "CeilBackward0", _XP.ceil, _zero_grad, "ceil: gradient 0", keep_int=True,
              dtypes=("ceil_vml_cpu", "if"))
Trunc = _unary("Trunc", "TruncBackward0", _XP.trunc, _zero_grad, "trunc: gradient 0", keep_int=True,
               dtypes=("trunc_vml_cpu", "if"))
Frac = _unary("Frac", "FracBackward0", lambda x: x - _XP.trunc(x), lambda x, o, g: g, "frac(x)' = 1",
              dtypes=("frac_cpu", "f"))
def _sign_kernel(x):
    """-1, 0 or 1; NaN gives 0 and bool stays itself, as in PyTorch (numpy gives NaN and refuses bool)."""
    xp = namespace(x)
    if x.dtype == np.bool_:
        return x.copy()
    if x.dtype.kind == "c":   # (numpy's sign of a complex number is x/|x|: PyTorch calls that sgn)
        raise NotImplementedError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                                  "torch.sgn instead.")
    s = xp.sign(x)
    return xp.where(xp.isnan(s), xp.zeros((), s.dtype), s) if is_float_np(s.dtype) else s


Sign = _unary("Sign", "SignBackward0", _sign_kernel, _zero_grad, "sign: gradient 0", keep_int=True)
def _abs_kernel(x):
    xp = namespace(x)
    if getattr(x, "dtype", None) == np.bool_:  # (x may also be a Python number)
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return xp.abs(x)


Abs = _unary("Abs", "AbsBackward0", _abs_kernel, lambda x, o, g: g * x.sgn(), "|x|' = sign(x)", keep_int=True,
             analytic=False)
Square = None  # square(x) is x ** 2 (PowBackward0), as in PyTorch


class Neg(ArrayFunction):
    """out = -x;   dx = -grad"""
    node_name = "NegBackward0"
    _elementwise = 1
    _overlap_check = "after"   # (neg_: ATen refuses a bool tensor before it looks at the memory)

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        if x.dtype == np.bool_:
            raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                               "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
        return xp.negative(x)

    @staticmethod
    def backward(ctx, grad):
        return -grad


class Relu(ArrayFunction):
    """out = max(x, 0);   dx = grad where out > 0"""
    node_name = "ReluBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        if x.dtype == np.bool_:  # checked here, so torch.relu, relu_, F.relu and nn.ReLU all refuse it
            raise RuntimeError("Boolean inputs not supported for relu")
        out = tie_first_maximum(x, x.dtype.type(0))   # (x on a tie, as PyTorch: relu(-0.) is -0.)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        out, = ctx.saved_tensors
        return ReluGrad.apply(grad, out)


class ReluGrad(ArrayFunction):
    """relu's backward: grad where out > 0, else 0 (one pass; differentiable in grad for double backward)"""
    node_name = "ThresholdBackwardBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, grad, out):
        namespace(grad, out)   # (one device)
        ctx.save_for_backward(out)
        # out >= 0, so "out > 0" is "out != 0": the float array is the condition directly
        return select(out, grad)

    @staticmethod
    def backward(ctx, g):
        out, = ctx.saved_tensors
        # PyTorch's zeros_like(grad) for out, not None: a zero gradient that still flows on (0 * NaN upstream is NaN)
        return ReluGrad.apply(g, out), (zero_grad(g) if ctx.needs_input_grad[1] else None)


class Round(ArrayFunction):
    """round half to even (``decimals`` digits); gradient 0"""
    node_name = "RoundBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, decimals=0):
        xp = namespace(x, decimals)
        if decimals and is_reduced_np(x.dtype):
            # PyTorch scales by 10**decimals in float32 (opmath): 1.1484375 * 10 must not round to 11.5
            return xp.round(to_opmath(x), decimals).astype(x.dtype)
        return xp.round(x, decimals)

    @staticmethod
    def backward(ctx, grad):
        return zero_grad(grad), None


class RoundDecimals(Round):
    """``round(x, decimals=n)``"""
    node_name = "RoundBackward1"


def _no_complex_clamp(x):
    if x.dtype.kind == "c":   # (complex numbers have no order; PyTorch refuses before picking a kernel)
        raise NotImplementedError("clamp is not supported for complex types")


class Clamp(ArrayFunction):
    """out = min(max(x, lo), hi);   dx = grad where lo <= x <= hi  (``clamp`` with number bounds)"""
    node_name = "ClampBackward1"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x, lo, hi):
        _no_complex_clamp(x)
        xp = namespace(x, lo, hi)
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        dt = np.result_type(x, *(v for v in (lo, hi) if v is not None)) if x.dtype.kind in "iub" else x.dtype
        if x.dtype.kind in "iub" and any(isinstance(v, float) for v in (lo, hi)):
            dt = D.get_default_dtype().np
        kernel = "clamp_scalar_cpu" if lo is not None and hi is not None else \
            "clamp_min_scalar_cpu" if lo is not None else "clamp_max_scalar_cpu"
        check_kernel_dtype(kernel, dt, "if")   # (no bool loop)
        out = x.astype(dt, copy=False)
        lo, hi = (None if v is None else cast(v, dt) for v in (lo, hi))  # (an int bound wraps, as PyTorch's)
        if lo is not None:   # (x is kept on a tie, as PyTorch keeps it: clamp(-0., 0.) is -0.)
            out = tie_first_maximum(out, lo)
        if hi is not None:
            out = tie_first_minimum(out, hi)
        return out.astype(dt, copy=False) if out is not x else out.copy()

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        mask = None
        if ctx.lo is not None:
            mask = x >= ctx.lo
        if ctx.hi is not None:
            m2 = x <= ctx.hi
            mask = m2 if mask is None else mask & m2
        return masked_grad(grad, mask), None, None


class ClampMin(Clamp):
    """``clamp_min(x, number)``"""
    node_name = "ClampMinBackward0"


class ClampMax(Clamp):
    """``clamp_max(x, number)``"""
    node_name = "ClampMaxBackward0"


class ClampTensor(ArrayFunction):
    """clamp with tensor bounds;  dx = grad where lo <= x <= hi, dlo/dhi where the bound was chosen"""
    node_name = "ClampBackward0"
    _elementwise = 3

    @staticmethod
    def forward(ctx, x, lo, hi):
        _no_complex_clamp(x)
        xp = namespace(x, lo, hi)
        ctx.save_for_backward(x, lo, hi)
        # one result dtype for all three (promoting pairwise would let a 0-dim intermediate lose its rank)
        dt = result_np_dtype(*(v for v in (x, lo, hi) if v is not None))
        out = cast(x, dt)
        if lo is not None:   # (x is kept on a tie, see Clamp)
            out = tie_first_maximum(out, cast(lo, dt))
        if hi is not None:
            out = tie_first_minimum(out, cast(hi, dt))
        return out if out is not x else x.copy()

    @staticmethod
    def backward(ctx, grad):
        # when lo > hi the output is hi everywhere, so hi gets the gradient (PyTorch's rule)
        x, lo, hi = ctx.saved_tensors
        if hi is None:
            return masked_grad(grad, x >= lo), masked_grad(grad, x < lo), None
        if lo is None:
            return masked_grad(grad, x <= hi), None, masked_grad(grad, x > hi)
        return (masked_grad(grad, (x >= lo) & (x <= hi)), masked_grad(grad, (x < lo) & (lo < hi)),
                masked_grad(grad, (x > hi) | (hi < lo)))


class ClampMinTensor(ClampTensor):
    node_name = "ClampMinBackward1"


class ClampMaxTensor(ClampTensor):
    node_name = "ClampMaxBackward1"


class Where(ArrayFunction):
    """out = cond ? a : b;   da = grad where cond,  db = grad where not cond"""
    node_name = "WhereBackward0"
    _elementwise = 3
    _uncast = 1   # the condition stays bool

    @staticmethod
    def forward(ctx, cond, a, b):
        xp = namespace(cond, a, b)
        ctx.save_for_backward(cond)
        a, b = promote(a, b)
        return xp.where(cond, a, b)

    @staticmethod
    def backward(ctx, grad):
        cond, = ctx.saved_tensors
        return None, masked_grad(grad, cond), masked_grad(grad, cond.logical_not())


def masked_grad(grad, keep):
    """``grad`` where ``keep``, else 0: the backward of every op that routes or blocks a gradient
    (clamp, maximum, where, hardtanh, ...).  A select, not ``grad * keep``: where the gradient is inf
    or NaN, 0 * inf would be NaN, and PyTorch's gradient there is 0 (``sqrt(clamp(d, min=0))``)."""
    return Where.apply(keep, grad, 0.0)


def _lerp(a, b, w):
    """a + w (b - a) as PyTorch's CPU kernel computes it: one fused multiply-add, fma(w, b - a, a) where
    |w| < 0.5 and fma(w - 1, b - a, b) elsewhere (exact at w = 0 and at w = 1); float16/bfloat16 in float32,
    rounded once at the end.  ``a`` and ``b`` have one dtype; ``w`` is a number or an array of it."""
    from .creation import _fused
    xp = namespace(a, b, w)
    dt = a.dtype
    acc = D.opmath_np(dt)
    a, b = to_opmath(a), to_opmath(b)
    diff = b - a
    if hasattr(w, "dtype"):
        w = to_opmath(w)
        small = xp.abs(w) < 0.5
        coeff, base = xp.where(small, w, w - 1), xp.where(small, a, b)
    else:
        w = acc.type(w)    # the weight in the compute dtype (float32 for float32 and the halfs)
        coeff, base = (w, a) if abs(w) < 0.5 else (w - acc.type(1), b)
    return xp.asarray(_fused(coeff, diff, base, acc)).astype(dt, copy=False)


class Lerp(ArrayFunction):
    """out = a + w (b - a);  da = grad (1 - w),  db = grad w,  dw = grad (b - a)"""
    node_name = "LerpBackward0"
    _elementwise = 2

    @staticmethod
    def forward(ctx, a, b, w):
        weight_is_tensor = hasattr(w, "dtype")
        if weight_is_tensor:  # only the weight's gradient reads a and b; two formulas read w: always saved
            ctx.save_for_backward(needed(ctx, 2, a), needed(ctx, 2, b), w)
        ctx.w = None if weight_is_tensor else w
        a, b = promote(a, b)
        if weight_is_tensor and w.dtype != a.dtype:  # a 0-dim weight of another dtype: the usual promotion
            dt = result_np_dtype(a, w)               # (a float one with int input computes in its dtype)
            a, b, w = a.astype(dt), b.astype(dt), w.astype(dt)
        return _lerp(a, b, w)

    @staticmethod
    def backward(ctx, grad):
        if ctx.w is not None:
            return grad * (1 - ctx.w), grad * ctx.w, None
        a, b, w = ctx.saved_tensors
        return grad * (1 - w), grad * w, (None if a is None else grad * (b - a))


class LerpTensor(Lerp):
    node_name = "LerpBackward1"


def _addcmul(x, t1, t2, value, dt):
    """x + value * t1 * t2 as PyTorch's CPU kernel computes it (operands already in dtype ``dt``): for
    floats one fused multiply-add, fma(value * t1, t2, x); float16/bfloat16 in float32, rounded once."""
    from .creation import _fused
    if not is_float_np(dt):   # integers (an int value truncated), complex: each operation in turn
        value = cast(value, dt)
        return (x + (t1 * value * t2 if value != 1 else t1 * t2)).astype(dt, copy=False)
    acc = D.opmath_np(dt)
    x, t1, t2 = namespace(x, t1, t2).broadcast_arrays(to_opmath(x), to_opmath(t1), to_opmath(t2))
    if x.size == 0:
        return x.astype(dt)
    scaled = t1 * cast(value, acc) if value != 1 else t1
    return _fused(scaled, t2, x, acc).astype(dt, copy=False)


class AddCMul(ArrayFunction):
    """out = x + value * t1 * t2;  dx = grad,  dt1 = grad * value * t2,  dt2 = grad * value * t1"""
    node_name = "AddcmulBackward0"
    _elementwise = 3

    @staticmethod
    def forward(ctx, x, t1, t2, value):
        xp = namespace(x, t1, t2, value)
        ctx.save_for_backward(needed(ctx, 2, t1), needed(ctx, 1, t2))  # (each is read for the other's gradient)
        ctx.value = value
        dt = result_np_dtype(x, t1, t2)  # all three in the result dtype first (bool * 0.5 is not float64)
        return xp.asarray(_addcmul(cast(x, dt), cast(t1, dt), cast(t2, dt), value, dt))

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        v = ctx.value
        # PyTorch's order, grad * (t2 * value): t2 * value is computed in t2's dtype first (an integer
        # t2 wraps around: uint8 7 * -2 is 242) and rounded there (float16/bfloat16)
        # (complex: the conjugates, as Mul's)
        return (grad, (None if t2 is None else grad * _conj(t2 * v)), (None if t1 is None else grad * _conj(t1 * v)),
                None)


class AddCDiv(ArrayFunction):
    """out = x + value * t1 / t2;  dx = grad,  dt1 = grad * value / t2,  dt2 = -grad * value * t1 / t2²"""
    node_name = "AddcdivBackward0"
    _elementwise = 3

    @staticmethod
    def forward(ctx, x, t1, t2, value):
        ctx.save_for_backward(t1, t2)
        ctx.value = value
        dt = result_np_dtype(x, t1, t2)  # all three in the result dtype first (bool * 0.5 is not float64)
        # (float16/bfloat16 then compute in float32, value too, and round once: ATen's kernel)
        x, t1, t2 = (to_opmath(cast(a, dt)) for a in (x, t1, t2))
        with np.errstate(divide="ignore", invalid="ignore"):  # (x / 0 is inf or NaN, silently, as in PyTorch)
            q = t1 * value / t2 if value != 1 else t1 / t2  # PyTorch's order: (value * t1) / t2
        return (x + q).astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        # PyTorch's order: t2 is unpacked (and its version checked) first; t1 only for t2's gradient
        saved = ctx._saved
        if saved is None:
            ctx.saved_tensors  # raises the "backward a second time" error
        t2 = ctx._unpack(saved[1])
        v = ctx.value
        need = ctx.needs_input_grad
        if need[1] and not is_inexact_np(t2._data.dtype):
            # PyTorch computes t1's gradient factor value / t2 into a tensor of t2's dtype, which a float
            # quotient cannot be cast to: its backward fails for an integer t2 (so does this one)
            raise RuntimeError(f"result type {_type_word(D.get_default_dtype().np)} can't be cast to the desired "
                               f"output type {_type_word(t2._data.dtype)}")
        # PyTorch's formulas and order: value * t1 is computed in t1's dtype first (an integer t1 wraps
        # around); value / t2 is ATen's C++ Scalar / Tensor, a tensor filled with value (rounded to t2's
        # dtype) divided by t2, not Python's reciprocal(t2) * value
        g1 = grad * _conj(div(Tensor._make(namespace(t2._data).full(t2.shape, v, t2._data.dtype)), t2)) \
            if need[1] else None
        g2 = -grad * _conj(v * ctx._unpack(saved[0]) / (t2 * t2)) if need[2] else None   # (complex: conjugates)
        return grad, g1, g2, None


class Sgn(ArrayFunction):
    """sgn(x): sign for real x, x / |x| for complex;  gradient 0 for real x"""
    node_name = "SgnBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        if x.dtype.kind == "c":
            a = xp.abs(x)
            with np.errstate(invalid="ignore", divide="ignore"):
                out = xp.where(a == 0, 0, x / a).astype(x.dtype)
        else:
            out = _sign_kernel(x)
        ctx.save_for_backward(x, out)   # as PyTorch's sgn_backward(self, grad, result): in-place writes are checked
        return out

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors   # (reading them checks their versions, as PyTorch's unpacking does)
        if x._data.dtype.kind == "c":   # PyTorch's sgn_backward: (grad - sgn² conj(grad)) / 2|x|, 0 where x is 0
            a = x.abs()
            return ((grad - (out * out) * grad.conj()) / (2. * a)).masked_fill(a == 0., 0.)
        # PyTorch's _efficientzerotensor (see keeps_zero in autograd/function.py)
        return mark_efficient_zero(zero_grad(grad))


class NanToNum(ArrayFunction):
    """replace NaN/±inf by numbers;  dx = grad where x was finite"""
    node_name = "NanToNumBackward0"
    _elementwise = 1
    _result_format = "preserve_format"   # ATen's nan_to_num writes into empty_like(self) (an int one: a clone)

    @staticmethod
    def forward(ctx, x, nan=0.0, posinf=None, neginf=None):
        xp = namespace(x, nan, posinf, neginf)
        ctx.save_for_backward(x)
        if x.dtype.name == "bfloat16":
            # numpy's nan_to_num passes dtypes it does not know as floats through unchanged: go via float32,
            # with bfloat16's own limits as the defaults for ±inf
            from ._util import _float_max
            big = _float_max(x.dtype)
            r = xp.nan_to_num(x.astype(np.float32), nan=nan, posinf=big if posinf is None else posinf,
                              neginf=-big if neginf is None else neginf)
            return r.astype(x.dtype)
        return xp.nan_to_num(x, copy=True, nan=nan, posinf=posinf, neginf=neginf)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.isfinite()


class Conj(ArrayFunction):
    """complex conjugate; dx = conj(grad)"""
    node_name = "ConjBackward0"
    _elementwise = 1

    @staticmethod
    def forward(ctx, x):
        xp = namespace(x)
        return xp.conj(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.conj()


class Real(ArrayFunction):
    node_name = "RealBackward0"
    _elementwise = 1
    _view_of = 0

    @staticmethod
    def forward(ctx, x):
        return x.real

    @staticmethod
    def backward(ctx, grad):
        return grad


class Imag(ArrayFunction):
    node_name = "ImagBackward0"
    _elementwise = 1
    _view_of = 0

    @staticmethod
    def forward(ctx, x):
        return x.imag

    @staticmethod
    def backward(ctx, grad):
        return grad * 1j


# ====================================================================== non-differentiable

class _NoGrad(ArrayFunction):
    """An op whose outputs are integers or bools: it never records a node."""
    _elementwise = 2


def _nondiff(name, kernel, elementwise=2):
    def forward(ctx, *args):
        return kernel(*args)
    return type(name, (_NoGrad,), {"forward": staticmethod(forward), "__module__": __name__,
                                   "_elementwise": elementwise})


def _cmp(ufunc):
    def kernel(a, b):
        a, b = promote(a, b)
        return ufunc(a, b)
    return kernel


Eq = _nondiff("Eq", _cmp(_XP.equal))
Ne = _nondiff("Ne", _cmp(_XP.not_equal))
Lt = _nondiff("Lt", _cmp(_XP.less))
Le = _nondiff("Le", _cmp(_XP.less_equal))
Gt = _nondiff("Gt", _cmp(_XP.greater))
Ge = _nondiff("Ge", _cmp(_XP.greater_equal))
LogicalAnd = _nondiff("LogicalAnd", _XP.logical_and)
LogicalOr = _nondiff("LogicalOr", _XP.logical_or)
LogicalXor = _nondiff("LogicalXor", _XP.logical_xor)
LogicalNot = _nondiff("LogicalNot", _XP.logical_not)


def _bitwise(ufunc, name, bools=True):
    """``bools``: whether PyTorch's kernel takes bool (the shifts do not: ``True >> False`` is refused)."""
    def kernel(a, b):
        a, b = promote(a, b)
        dt = np.result_type(a, b)
        if is_float_np(dt) or (not bools and dt == np.bool_):  # PyTorch's dispatch error: no kernel for this dtype
            if hasattr(a, "shape") and hasattr(b, "shape"):
                broadcast_shapes_or_raise(a.shape, b.shape)  # (a broadcast error is reported first)
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_type_word(dt)}\'')
        return ufunc(a, b)
    return kernel


BitwiseAnd = _nondiff("BitwiseAnd", _bitwise(_XP.bitwise_and, "bitwise_and"))
BitwiseOr = _nondiff("BitwiseOr", _bitwise(_XP.bitwise_or, "bitwise_or"))
BitwiseXor = _nondiff("BitwiseXor", _bitwise(_XP.bitwise_xor, "bitwise_xor"))
LeftShift = _nondiff("LeftShift", _bitwise(_XP.left_shift, "lshift", bools=False))
RightShift = _nondiff("RightShift", _bitwise(_XP.right_shift, "rshift", bools=False))


def _bitwise_not_kernel(x):
    xp = namespace(x)
    if is_float_np(x.dtype):
        raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{_type_word(x.dtype)}'")
    return xp.invert(x)


BitwiseNot = _nondiff("BitwiseNot", _bitwise_not_kernel)


def _on_floats(test, ints_answer):
    """isinf/isfinite: a test of float values; for integers and bools PyTorch answers with
    ``zeros_like``/``ones_like`` (preserve_format: the input's strides), not an elementwise kernel."""
    def kernel(x):
        if is_inexact_np(x.dtype):
            return test(x)
        return _empty_preserving_layout(x, np.bool_, ints_answer)
    return kernel


def _isinf_floats(x):
    """PyTorch's composite ``x.abs() == inf``: laid out as a unary op's result."""
    return iterator_result(_XP.isinf(x), (x,), 1)


def _isfinite_floats(x):
    """PyTorch's composite ``(x == x) * (x.abs() != inf)``: the product of two results in x's layout is
    laid out anew (a size-1 dim's stride can change)."""
    same, finite = iterator_result(x == x, (x,), 1), iterator_result(_XP.abs(x) != np.inf, (x,), 1)
    return iterator_result(same & finite, (same, finite), 2)


IsInf = _nondiff("IsInf", _on_floats(_isinf_floats, False), elementwise=0)
IsFinite = _nondiff("IsFinite", _on_floats(_isfinite_floats, True), elementwise=0)
IsPosInf = _nondiff("IsPosInf", _XP.isposinf)
IsNegInf = _nondiff("IsNegInf", _XP.isneginf)
SignBit = _nondiff("SignBit", _XP.signbit)


# ====================================================================== public functions

def _inplace(cls):
    """The in-place twin of an op (``add_`` for ``add``): same node name, writes into input 0."""
    return type(cls.__name__ + "_", (cls,), {"_inplace_of": 0, "node_name": cls.node_name,
                                              "__module__": __name__})


_INPLACE = {}


def _ip(cls):
    c = _INPLACE.get(cls)
    if c is None:
        c = _INPLACE[cls] = _inplace(cls)
    return c


def _alpha_given(alpha):
    """Was ``alpha=`` given (anything but the default int 1; ``True == 1`` but is checked as a bool)?"""
    return not (type(alpha) is int and alpha == 1)


def _check_alpha(alpha, a, b):
    """PyTorch's ``alpha_check`` for add/sub/rsub, on the *result* dtype (``float + uint8 * 0.5`` is fine),
    then alpha converted to that dtype with the overflow check.  Returns alpha as the kernel uses it: an
    int wrapped into the integer dtype (-1 is 255 for uint8, as PyTorch's conversion gives)."""
    if type(alpha) is float and -65504.0 <= alpha <= 65504.0 and isinstance(a, Tensor) and is_inexact_np(a._data.dtype):
        # the optimizers' case (p.add_(g, alpha=-lr)): a float tensor makes the result float, and a float
        # that float16 holds fits every float dtype: nothing to refuse or convert
        return alpha
    dt = result_np_dtype(a, b)
    if isinstance(alpha, (bool, np.bool_)) and dt != np.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not isinstance(alpha, numbers.Integral) and not is_inexact_np(dt):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, complex) and dt.kind != "c":
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    checked_int(alpha, dt)
    return wrap_int(int(alpha), dt) if dt.kind in "iu" else alpha


def _check_sub_alpha(alpha, a, b):
    """``_check_alpha`` for a subtraction: PyTorch refuses a bool operand first."""
    _no_bool_sub(*(x._data if isinstance(x, Tensor) else x for x in (a, b)))
    return _check_alpha(alpha, a, b)


def add(input, other, *, alpha=1, out=None):
    if not isinstance(input, Tensor):
        return add(other, input, alpha=1, out=out) if alpha == 1 else Rsub.apply(other * -alpha, input)
    if _alpha_given(alpha):
        r = Add.apply(input, other, _check_alpha(alpha, input, other))
    else:
        r = Add.apply(input, other)
    return r if out is None else write_out(out, r)


def sub(input, other, *, alpha=1, out=None):
    if _alpha_given(alpha):
        alpha = _check_sub_alpha(alpha, input, other)
    if not isinstance(input, Tensor):
        r = Rsub.apply(other, input, alpha)
    else:
        r = Sub.apply(input, other, alpha) if alpha != 1 else Sub.apply(input, other)
    return r if out is None else write_out(out, r)


subtract = sub


def rsub(input, other, *, alpha=1):
    if _alpha_given(alpha):
        alpha = _check_sub_alpha(alpha, input, other)
    return (RsubTensor if isinstance(other, Tensor) else Rsub).apply(input, other, alpha)


def mul(input, other, *, out=None):
    if not isinstance(input, Tensor):
        input, other = other, input
    r = Mul.apply(input, other)
    return r if out is None else write_out(out, r)


multiply = mul


def div(input, other, *, rounding_mode=None, out=None):
    if not isinstance(input, Tensor):
        if rounding_mode is None:  # (true division: the number's value matters, not its dtype)
            from .creation import tensor
            input = tensor(input, device=other.device)
        else:
            input = _wrapped_number(input, other)
    if rounding_mode is None:
        r = Div.apply(input, other)
    else:
        if rounding_mode not in ("trunc", "floor"):
            raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                               f"'{rounding_mode}'")
        check_binary_kernel(f"div_{rounding_mode}_cpu", input, other, "if")
        r = DivRounded.apply(input, other, rounding_mode)
    return r if out is None else write_out(out, r)


divide = true_divide = div


def floor_divide(input, other, *, out=None):
    if not isinstance(input, Tensor):
        input = _wrapped_number(input, other)
    check_binary_kernel("div_floor_cpu", input, other, "if")
    r = FloorDivide.apply(input, other)
    return r if out is None else write_out(out, r)


def _wrapped_number(value, other):
    """A Python number given as the first operand (``2 // x``, ``floor_divide(2, x)``) as PyTorch wraps it:
    a 0-dim tensor already in the result dtype, so it neither widens the result (a 0-dim int64 tensor
    would make ``2 // int8_tensor`` int64) nor loses the wrap into an unsigned dtype (-3 with uint8: 253)."""
    xp = namespace(other._data if isinstance(other, Tensor) else other)
    dt = result_np_dtype(value, other)
    return Tensor._make(xp.asarray(cast(value, dt), dtype=dt))


def pow(input, exponent, *, out=None):
    if isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            r = PowTensor.apply(input, exponent)
        else:
            r = Pow.apply(input, exponent)
    else:
        r = RPow.apply(exponent, input)
    return r if out is None else write_out(out, r)


def float_power(input, exponent, *, out=None):
    # the exponent converted first, as in PyTorch's build of pow(base.to(dtype), exp.to(dtype)) (its compiler
    # evaluates the arguments right to left): the order numbers the nodes, which orders a double backward's sums
    e = exponent.double() if isinstance(exponent, Tensor) else _double_scalar(exponent)
    x = input.double() if isinstance(input, Tensor) else input
    return pow(x, e, out=out)


def _double_scalar(e):
    """A number exponent of float_power as PyTorch passes it on: a double (or complex double), so
    x ** False is x ** 0.0, whose gradient is exactly 0 (pow's gradient formula only skips a float 0)."""
    return e if isinstance(e, complex) else float(e)


def _float_power_(self, exponent):
    """pow_ in double precision: self must already be double (or complex double), as in PyTorch, which
    records it as pow_ (PowBackward0/1 on self), not as a copy_ of a new result."""
    e_complex = exponent._data.dtype.kind == "c" if isinstance(exponent, Tensor) else isinstance(exponent, complex)
    want = np.dtype(np.complex128 if self._data.dtype.kind == "c" or e_complex else np.float64)
    if self._data.dtype != want:
        raise RuntimeError(f"the base given to float_power_ has dtype {_type_word(self._data.dtype)} but the "
                           f"operation's result requires dtype {_type_word(want)}")
    return pow_(self, exponent.to(self.dtype) if isinstance(exponent, Tensor) else _double_scalar(exponent))


def remainder(input, other, *, out=None):
    check_binary_kernel("remainder_cpu", input, other, "if")
    if not isinstance(input, Tensor):
        r = RemainderScalarFirst.apply(other, input)
    else:
        r = (RemainderTensor if isinstance(other, Tensor) else Remainder).apply(input, other)
    return r if out is None else write_out(out, r)


def fmod(input, other, *, out=None):
    check_binary_kernel("fmod_cpu", input, other, "if")
    r = (FmodTensor if isinstance(other, Tensor) else Fmod).apply(input, other)
    return r if out is None else write_out(out, r)


def atan2(input, other, *, out=None):
    require_tensor("atan2", other)
    r = Atan2.apply(input, other)
    return r if out is None else write_out(out, r)


arctan2 = atan2


def _binary_tensor(cls, name, dtypes="bifc"):
    """The public function of a binary op that takes only Tensors (no Python number for ``other``);
    ``dtypes``: the categories PyTorch's kernel supports (see check_kernel_dtype)."""
    def fn(input, other, *, out=None):
        require_tensor(name, other)
        check_binary_kernel(name + "_cpu", input, other, dtypes)
        r = cls.apply(input, other)
        return r if out is None else write_out(out, r)
    fn.__name__ = fn.__qualname__ = name
    return fn


maximum = _binary_tensor(Maximum, "maximum")
maximum.__name__ = "maximum"
minimum = _binary_tensor(Minimum, "minimum")
minimum.__name__ = "minimum"
fmax = _binary_tensor(Fmax, "fmax")
fmax.__name__ = "fmax"
fmin = _binary_tensor(Fmin, "fmin")
fmin.__name__ = "fmin"
hypot = _binary_tensor(Hypot, "hypot", "f")
hypot.__name__ = "hypot"
logaddexp = _binary_tensor(LogAddExp, "logaddexp", "fc")
logaddexp.__name__ = "logaddexp"


def xlogy(input, other, *, out=None):
    if not isinstance(input, Tensor):
        r = XLogYScalarSelf.apply(input, other)
    else:
        r = (XLogY if isinstance(other, Tensor) else XLogYScalarOther).apply(input, other)
    return r if out is None else write_out(out, r)


def neg(input, *, out=None):
    r = Neg.apply(input)
    return r if out is None else write_out(out, r)


negative = neg


def positive(input):
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def square(input, *, out=None):
    return pow(input, 2, out=out)


def relu(input, inplace=False):
    return Relu.apply(input) if not inplace else _ip(Relu).apply(input)


def _make_unary_fn(cls, name):
    def fn(input, *, out=None):
        r = cls.apply(input)
        return r if out is None else write_out(out, r)
    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"{name}(input) — {cls.__doc__}"
    return fn


_UNARY = {
    "exp": Exp, "exp2": Exp2, "expm1": Expm1, "log": Log, "log2": Log2, "log10": Log10, "log1p": Log1p,
    "sqrt": Sqrt, "rsqrt": Rsqrt, "sin": Sin, "cos": Cos, "tan": Tan, "asin": Asin, "acos": Acos,
    "atan": Atan, "sinh": Sinh, "cosh": Cosh, "tanh": Tanh, "asinh": Asinh, "acosh": Acosh,
    "atanh": Atanh, "sigmoid": Sigmoid, "erf": Erf, "erfc": Erfc, "erfinv": Erfinv,
    "reciprocal": Reciprocal, "sinc": Sinc, "deg2rad": Deg2rad, "rad2deg": Rad2deg, "floor": Floor,
    "ceil": Ceil, "trunc": Trunc, "frac": Frac, "sign": Sign, "abs": Abs, "conj_physical": Conj,
}
_ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
            "arctanh": "atanh", "absolute": "abs", "fix": "trunc"}

_g = globals()
for _name, _cls in _UNARY.items():
    _g[_name] = _make_unary_fn(_cls, _name)
for _alias, _name in _ALIASES.items():
    _g[_alias] = _g[_name]


def sgn(input, *, out=None):
    r = Sgn.apply(input)
    return r if out is None else write_out(out, r)


def conj(input):
    return input if not input.is_complex() else Conj.apply(input)


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input


def is_conj(input):
    return False


def real(input):
    if not input.is_complex():
        return input
    return Real.apply(input)


def imag(input):
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return Imag.apply(input)


register({"real": property(real), "imag": property(imag)})   # t.real, t.imag: properties, as in PyTorch


def round(input, *, decimals=None, out=None):
    # decimals= given at all (even 0) is PyTorch's other overload: RoundBackward1
    if decimals is None:
        check_kernel_dtype("round_vml_cpu", input._data.dtype, "if")
        r = Round.apply(input)
    else:
        check_kernel_dtype("round_cpu", input._data.dtype, "f")
        r = RoundDecimals.apply(input, decimals)
    return r if out is None else write_out(out, r)


def logit(input, eps=None, *, out=None):
    r = Logit.apply(input, eps)
    return r if out is None else write_out(out, r)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    r = NanToNum.apply(input, nan, posinf, neginf)
    return r if out is None else write_out(out, r)


def _check_bound_kinds(name, min, max):
    """Both bounds tensors or both numbers: PyTorch's argument parser has no signature that mixes them."""
    if min is not None and max is not None and isinstance(min, Tensor) != isinstance(max, Tensor):
        word = lambda v: "Tensor" if isinstance(v, Tensor) else type(v).__name__
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, max={word(max)}, "
                        f"min={word(min)}), but expected one of:\n"
                        " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")


def clamp(input, min=None, max=None, *, out=None):
    if not isinstance(input, Tensor):
        got = ", ".join([type(input).__name__] + [f"{k}={type(v).__name__}" for k, v in (("max", max), ("min", min))
                                                   if v is not None])
        raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                        " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_bound_kinds("clamp", min, max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if min is not None and max is not None:   # (with one bound ATen runs maximum/minimum: bool works)
            check_broadcast(input, min, max)
            check_kernel_dtype("clamp_cpu", result_np_dtype(input, min, max), "if")
        r = ClampTensor.apply(input, min, max)
    else:
        dt = result_np_dtype(input, *(b for b in (min, max) if b is not None))
        for bound in (min, max):
            checked_int(bound, dt)  # (float bounds make a float result: nothing to check)
        r = Clamp.apply(input, min, max)
    return r if out is None else write_out(out, r)


clip = clamp


def clamp_min(input, min, *, out=None):
    r = (ClampMinTensor if isinstance(min, Tensor) else ClampMin).apply(input, min, None)
    return r if out is None else write_out(out, r)


def clamp_max(input, max, *, out=None):
    r = (ClampMaxTensor if isinstance(max, Tensor) else ClampMax).apply(input, None, max)
    return r if out is None else write_out(out, r)


def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        from .indexing import nonzero
        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        from .creation import tensor
        condition = tensor(condition)
    if condition._data.dtype != np.bool_:
        if condition._data.dtype == np.uint8:
            condition = condition.bool()
        else:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{condition.dtype.name.capitalize()}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        from .creation import tensor
        input = tensor(input)
    if type(input) is int or type(other) is int:  # a Python int must fit the result's dtype
        for v in (input, other):
            checked_int(v, result_np_dtype(input, other))
    r = Where.apply(condition, input, other)
    return r if out is None else write_out(out, r)


def _check_lerp_args(input, end, weight, inplace=False):
    """PyTorch's lerp does not promote: ``end`` and a weight tensor with dims must have input's dtype (the
    message names C++ types); a number weight is converted with the overflow check (float32 for halfs).
    After that dtype check come the iterator's (shapes broadcast; in place, the result fits self), and only
    then the kernel's dtype (a 0-dim weight tensor takes part: int input with a float one computes in float)."""
    from .linalg import _cname
    dt = input._data.dtype
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._data.dtype != dt and (name == "end" or t.ndim > 0):
            raise RuntimeError(f"expected dtype {_cname(dt)} for `{name}` but got dtype {_cname(t._data.dtype)}")
    shape = broadcast_shapes_or_raise(input.shape, end.shape)
    if isinstance(weight, Tensor):
        shape = broadcast_shapes_or_raise(shape, weight.shape)
        dt = result_np_dtype(input, weight)
    if inplace and shape != input.shape:
        raise RuntimeError(f"output with shape {shape_str(input.shape)} doesn't match the broadcast shape "
                           f"{shape_str(shape)}")
    if inplace and not D.can_cast_np(dt, input._data.dtype):
        raise RuntimeError(f"result type {_type_word(dt)} can't be cast to the desired output type "
                           f"{_type_word(input._data.dtype)}")
    check_kernel_dtype("lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar", dt, "fc")
    if not isinstance(weight, Tensor):
        checked_int(weight, D.opmath_np(dt))


def lerp(input, end, weight, *, out=None):
    _check_lerp_args(input, end, weight)
    r = (LerpTensor if isinstance(weight, Tensor) else Lerp).apply(input, end, weight)
    return r if out is None else write_out(out, r)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    require_tensor("addcmul", tensor1, "tensor1")
    require_tensor("addcmul", tensor2, "tensor2", 3)
    dt = result_np_dtype(input, tensor1, tensor2)
    check_broadcast(input, tensor1, tensor2)
    check_kernel_dtype("addcmul_cpu_out", dt, "ifc")
    checked_int(value, dt)  # value is converted to the result dtype with the overflow check
    r = AddCMul.apply(input, tensor1, tensor2, value)
    return r if out is None else write_out(out, r)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    require_tensor("addcdiv", tensor1, "tensor1")
    require_tensor("addcdiv", tensor2, "tensor2", 3)
    if tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release "  # (sic: two spaces)
                           "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
                           "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to("
                           "input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float "
                           "inputs. The future addcdiv behavior is just the latter implementation: (input + value "
                           "* tensor1 / tensor2), for all dtypes.")
    checked_int(value, result_np_dtype(input, tensor1, tensor2))  # converted with the overflow check
    r = AddCDiv.apply(input, tensor1, tensor2, value)
    return r if out is None else write_out(out, r)


def _cmp_fn(cls, name):
    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            from .creation import tensor
            input = tensor(input)
        r = cls.apply(input, other)
        return r if out is None else write_out(out, r)
    fn.__name__ = name
    return fn


eq = _cmp_fn(Eq, "eq")
ne = not_equal = _cmp_fn(Ne, "ne")
lt = less = _cmp_fn(Lt, "lt")
le = less_equal = _cmp_fn(Le, "le")
gt = greater = _cmp_fn(Gt, "gt")
ge = greater_equal = _cmp_fn(Ge, "ge")
logical_and = _cmp_fn(LogicalAnd, "logical_and")
logical_or = _cmp_fn(LogicalOr, "logical_or")
logical_xor = _cmp_fn(LogicalXor, "logical_xor")
bitwise_and = _cmp_fn(BitwiseAnd, "bitwise_and")
bitwise_or = _cmp_fn(BitwiseOr, "bitwise_or")
bitwise_xor = _cmp_fn(BitwiseXor, "bitwise_xor")
bitwise_left_shift = _cmp_fn(LeftShift, "bitwise_left_shift")
bitwise_right_shift = _cmp_fn(RightShift, "bitwise_right_shift")


def logical_not(input, *, out=None):
    r = LogicalNot.apply(input)
    return r if out is None else write_out(out, r)


def bitwise_not(input, *, out=None):
    r = BitwiseNot.apply(input)
    return r if out is None else write_out(out, r)


def isnan(input):
    """``input != input``: PyTorch's own definition (the result is laid out as that comparison's is)."""
    return Ne.apply(input, input)


def isinf(input):
    return IsInf.apply(input)


def isfinite(input):
    return IsFinite.apply(input)


def isposinf(input):
    return IsPosInf.apply(input)


def isneginf(input):
    return IsNegInf.apply(input)


def isreal(input):
    if not input.is_complex():
        from .creation import ones_like
        return ones_like(input, dtype=D.bool)
    return input.imag == 0


def signbit(input):
    return SignBit.apply(input)


def equal(input, other):
    """True when both have the same shape and elements."""
    no_meta_kernel("equal", input._data, other._data)
    if input.shape != other.shape:
        return False
    return bool(namespace(input._data).array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    require_tensor("isclose", other)
    if isinstance(other, Tensor) and input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{_type_word(input._data.dtype)} did not match {_type_word(other._data.dtype)}")
    o = other._data if isinstance(other, Tensor) else other
    if isinstance(other, Tensor):
        broadcast_shapes_or_raise(input._data.shape, o.shape)  # (PyTorch's words, not numpy's ValueError)
    xp = namespace(input._data)
    # (asarray: numpy answers 0-dim inputs with a scalar, which a tensor must not hold)
    out = xp.asarray(xp.isclose(input._data, o, rtol=rtol, atol=atol, equal_nan=equal_nan))
    # laid out as PyTorch's elementwise ops lay out their result (numpy's isclose is several ufuncs)
    operands = (input._data, o) if isinstance(other, Tensor) else (input._data,)
    return Tensor._make(iterator_result(out, operands, len(operands)))


_export("""add sub subtract rsub mul multiply div divide true_divide floor_divide pow float_power remainder fmod
atan2 arctan2 maximum minimum fmax fmin hypot logaddexp xlogy neg negative positive square relu sgn conj
resolve_conj resolve_neg is_conj real imag round logit nan_to_num clamp clip clamp_min clamp_max where lerp
addcmul addcdiv eq ne not_equal lt less le less_equal gt greater ge greater_equal logical_and logical_or
logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift
isnan isinf isfinite isposinf isneginf isreal signbit equal allclose isclose""")
__all__ += list(_UNARY) + list(_ALIASES)


# ====================================================================== Tensor methods and operators

def _unrecorded_inplace(self, *others):
    """The arrays for an in-place update that records nothing (an optimizer step under no_grad), or None.

    Then the update is one numpy call writing straight into ``self``'s memory (``out=``): no temporary
    result, no copy.  Anything unusual (a graph to record, another dtype, a broadcast that does not
    fit) takes the general path, which records, checks and words the errors.
    """
    dst = self._data
    kind = type(dst)
    if self._is_inference or not (kind is CPU_ARRAY or is_array(dst)) or not writeable(dst):
        return None   # (a self-overlapping target: the general path refuses it as PyTorch does)
    if _state.enabled and (self.requires_grad or any(isinstance(o, Tensor) and o.requires_grad for o in others)):
        return None
    arrays = []
    for o in others:
        if isinstance(o, Tensor):
            if type(o._data) is not kind or o._data.dtype != dst.dtype or (
                    kind is not CPU_ARRAY and o.device != self.device):   # (device arrays: the same device)
                return None
            if partially_overlaps(dst, o._data):
                return None   # (x *= x.T: the general path refuses it as PyTorch does)
            arrays.append(o._data)
        elif type(o) is float and is_float_np(dst.dtype) or type(o) is int and dst.dtype.kind == "f":
            arrays.append(o)
        elif type(o) is int and dst.dtype.kind in "iu":
            arrays.append(wrap_int(o, dst.dtype))  # uint8 += -2 wraps as PyTorch does; numpy would raise
        else:
            return None
    return arrays


def _write_unrecorded(self, fn, *others):
    """Run ``fn(dst, *arrays)`` (which writes into dst) if the update can skip the graph; True if done."""
    if self._data.dtype.itemsize == 2 and is_float_np(self._data.dtype):
        return False  # float16/bfloat16 compute in float32 (see _in_opmath): the op's own forward does it
    arrays = _unrecorded_inplace(self, *others)
    if arrays is None:
        return False
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            fn(self._data, *arrays)
    except ValueError:  # a shape that does not broadcast into self: let the general path say so
        return False
    self._bump_version()
    return True


def _times_alpha(o, alpha, d):
    """``o * alpha`` for an unrecorded update of ``d``: a product of two Python ints wraps into d's
    integer dtype (modular arithmetic, as PyTorch's kernel), where numpy would raise OverflowError."""
    p = o * alpha
    return wrap_int(p, d.dtype) if type(p) is int and d.dtype.kind in "iu" else p


def add_(self, other, *, alpha=1):
    if _alpha_given(alpha):
        alpha = _check_alpha(alpha, self, other)
    if alpha != 1:
        if _write_unrecorded(self, lambda d, o: _XP.add(d, _times_alpha(o, alpha, d), out=d), other):
            return self
        return _ip(Add).apply(self, other, alpha)
    if _write_unrecorded(self, lambda d, o: _XP.add(d, o, out=d), other):
        return self
    return _ip(Add).apply(self, other)


def sub_(self, other, *, alpha=1):
    if _alpha_given(alpha):
        alpha = _check_sub_alpha(alpha, self, other)
    if alpha != 1:
        if _write_unrecorded(self, lambda d, o: _XP.subtract(d, _times_alpha(o, alpha, d), out=d), other):
            return self
        return _ip(Sub).apply(self, other, alpha)
    if self._data.dtype != np.bool_ and _write_unrecorded(self, lambda d, o: _XP.subtract(d, o, out=d), other):
        return self
    return _ip(Sub).apply(self, other)


def mul_(self, other):
    if _write_unrecorded(self, lambda d, o: _XP.multiply(d, o, out=d), other):
        return self
    return _ip(Mul).apply(self, other)


def div_(self, other, *, rounding_mode=None):
    if self._data.dtype.kind in "iub" and rounding_mode is None:
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{_type_word(self._data.dtype)}")
    if rounding_mode is None:
        if _write_unrecorded(self, lambda d, o: _XP.true_divide(d, o, out=d), other):
            return self
        return _ip(Div).apply(self, other)
    return _ip(Div).apply(self, other, rounding_mode)


def addcmul_(self, tensor1, tensor2, *, value=1):
    def kernel(d, t1, t2):
        d[...] = _addcmul(d, t1, t2, value, d.dtype)
    if _write_unrecorded(self, kernel, tensor1, tensor2):
        return self
    return _ip(AddCMul).apply(self, tensor1, tensor2, value)


def addcdiv_(self, tensor1, tensor2, *, value=1):
    def kernel(d, t1, t2):
        xp = namespace(d, t1, t2)
        q = t1 * value / t2 if value != 1 else t1 / t2  # PyTorch's order: (value * t1) / t2
        xp.add(d, q, out=d)
    if _write_unrecorded(self, kernel, tensor1, tensor2):
        return self
    return _ip(AddCDiv).apply(self, tensor1, tensor2, value)


def lerp_(self, end, weight):
    _check_lerp_args(self, end, weight, inplace=True)
    if not isinstance(weight, Tensor) and _write_unrecorded(self, lambda d, e: _XP.copyto(d, _lerp(d, e, weight)), end):
        return self    # (Adam's exp_avg.lerp_(grad, 1 - beta1): one update, no graph)
    return _ip(LerpTensor if isinstance(weight, Tensor) else Lerp).apply(self, end, weight)


def pow_(self, exponent):
    return _ip(PowTensor if isinstance(exponent, Tensor) else Pow).apply(self, exponent)


def clamp_(self, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_bound_kinds("clamp_", min, max)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _ip(ClampTensor).apply(self, min, max)
    return _ip(Clamp).apply(self, min, max)


def where_(self, condition, other):
    return _ip(Where).apply(condition, self, other)


def _simple_inplace(cls):
    def method(self, *args):
        return _ip(cls).apply(self, *args)
    return method


def _rev(fn):
    def method(self, other):
        return fn(other, self)
    return method


def _rtruediv(self, other):
    return reciprocal(self) * other  # noqa: F821  (PyTorch: 2 / x is MulBackward0 of ReciprocalBackward0)


def _rfloordiv(self, other):
    return floor_divide(other, self)


def _rmod(self, other):
    return remainder(other, self)  # (its dtype check: True % bool_tensor has no kernel)


def _rpow(self, other):
    return RPow.apply(self, other)


def _ne_op(self, other):
    if other is None:
        return True
    return ne(self, other)


def _eq_op(self, other):
    if other is None:
        return False
    return eq(self, other)


def _invert(self):
    if self._data.dtype == np.bool_:
        return logical_not(self)
    if self._data.dtype.kind not in "iu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


def _and(self, other):
    return bitwise_and(self, other) if not (self._data.dtype == np.bool_ and isinstance(other, bool)) \
        else logical_and(self, other)


_methods = {
    "add": add, "sub": sub, "subtract": sub, "mul": mul, "multiply": mul, "div": div, "divide": div,
    "true_divide": div, "floor_divide": floor_divide, "pow": pow, "float_power": float_power,
    "remainder": remainder, "fmod": fmod, "atan2": atan2, "arctan2": atan2, "maximum": maximum,
    "minimum": minimum, "fmax": fmax, "fmin": fmin, "hypot": hypot, "logaddexp": logaddexp, "xlogy": xlogy,
    "neg": neg, "negative": neg, "positive": positive, "square": square, "relu": relu, "sgn": sgn,
    "conj": conj, "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "is_conj": is_conj,
    "round": round, "logit": logit, "nan_to_num": nan_to_num, "clamp": clamp, "clip": clamp,
    "clamp_min": clamp_min, "clamp_max": clamp_max, "where": lambda self, condition, other: where(
        condition, self, other), "lerp": lerp, "addcmul": addcmul, "addcdiv": addcdiv,
    "eq": eq, "ne": ne, "not_equal": ne, "lt": lt, "less": lt, "le": le, "less_equal": le, "gt": gt,
    "greater": gt, "ge": ge, "greater_equal": ge, "logical_and": logical_and, "logical_or": logical_or,
    "logical_xor": logical_xor, "logical_not": logical_not, "bitwise_and": bitwise_and,
    "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "isposinf": isposinf, "isneginf": isneginf,
    "isreal": isreal, "signbit": signbit, "equal": equal, "allclose": allclose, "isclose": isclose,
    # in place
    "add_": add_, "sub_": sub_, "subtract_": sub_, "mul_": mul_, "multiply_": mul_, "div_": div_,
    "divide_": div_, "true_divide_": div_, "pow_": pow_, "clamp_": clamp_, "clip_": clamp_,
    "clamp_min_": lambda self, min: _ip(ClampMinTensor if isinstance(min, Tensor) else ClampMin).apply(self, min,
                                                                                                     None),
    "clamp_max_": lambda self, max: _ip(ClampMaxTensor if isinstance(max, Tensor) else ClampMax).apply(self, None,
                                                                                                     max),
    "relu_": lambda self: relu(self, inplace=True), "neg_": _simple_inplace(Neg), "negative_": _simple_inplace(Neg),
    "square_": lambda self: _ip(Pow).apply(self, 2), "remainder_": lambda self, o: _ip(RemainderTensor if isinstance(o, Tensor) else Remainder).apply(self, o),
    "fmod_": lambda self, o: _ip(FmodTensor if isinstance(o, Tensor) else Fmod).apply(self, o),
    "atan2_": _simple_inplace(Atan2),
    "lerp_": lerp_,
    "round_": lambda self, decimals=0: _ip(Round).apply(self, decimals) if decimals else _ip(Round).apply(self),
    "nan_to_num_": lambda self, nan=0.0, posinf=None, neginf=None: _ip(NanToNum).apply(self, nan, posinf, neginf),
    "addcmul_": addcmul_, "addcdiv_": addcdiv_,
    "logical_not_": lambda self: self.copy_(logical_not(self)),
    "eq_": lambda self, o: self.copy_(eq(self, o)), "ne_": lambda self, o: self.copy_(ne(self, o)),
    "lt_": lambda self, o: self.copy_(lt(self, o)), "le_": lambda self, o: self.copy_(le(self, o)),
    "gt_": lambda self, o: self.copy_(gt(self, o)), "ge_": lambda self, o: self.copy_(ge(self, o)),
    # operators
    "__add__": add, "__radd__": _rev(add), "__iadd__": add_,
    "__sub__": sub, "__rsub__": lambda self, other: Rsub.apply(self, other), "__isub__": sub_,
    "__mul__": mul, "__rmul__": _rev(mul), "__imul__": mul_,
    "__truediv__": div, "__rtruediv__": _rtruediv, "__itruediv__": div_,
    "__floordiv__": floor_divide, "__rfloordiv__": _rfloordiv,
    "__ifloordiv__": lambda self, o: _ip(FloorDivide).apply(self, o),
    "__mod__": remainder, "__rmod__": _rmod, "__imod__": _simple_inplace(Remainder),
    "__pow__": pow, "__rpow__": _rpow, "__ipow__": pow_,
    "__neg__": neg, "__pos__": positive, "__abs__": lambda self: abs(self),  # noqa: F821
    "__eq__": _eq_op, "__ne__": _ne_op, "__lt__": lt, "__le__": le, "__gt__": gt, "__ge__": ge,
    "__and__": bitwise_and, "__rand__": _rev(bitwise_and), "__or__": bitwise_or, "__ror__": _rev(bitwise_or),
    "__xor__": bitwise_xor, "__rxor__": _rev(bitwise_xor), "__invert__": _invert,
    "__iand__": lambda self, o: self.copy_(bitwise_and(self, o)),
    "__ior__": lambda self, o: self.copy_(bitwise_or(self, o)),
    "__ixor__": lambda self, o: self.copy_(bitwise_xor(self, o)),
    "__lshift__": bitwise_left_shift, "__rshift__": bitwise_right_shift,
    "__ilshift__": lambda self, o: self.copy_(bitwise_left_shift(self, o)),  # (x <<= n writes into x)
    "__irshift__": lambda self, o: self.copy_(bitwise_right_shift(self, o)),
}
for _name, _cls in _UNARY.items():
    _methods[_name] = _g[_name]
    _methods[_name + "_"] = _simple_inplace(_cls)
for _alias, _name in _ALIASES.items():
    _methods[_alias] = _g[_name]
    _methods[_alias + "_"] = _methods[_name + "_"]
_methods["sigmoid_"] = _simple_inplace(Sigmoid)


def _copy_inplace(fn):
    """In-place form of an op whose result has no gradient (comparisons, logic, bit ops)."""
    def method(self, *args, **kwargs):
        check_no_input_overlap(self._data, args)   # (before computing, as TensorIterator checks)
        return self.copy_(fn(self, *args, **kwargs))
    return method


_methods.update({
    "arctan2_": _simple_inplace(Atan2), "hypot_": _simple_inplace(Hypot), "xlogy_": _simple_inplace(XLogY),
    "logit_": lambda self, eps=None: _ip(Logit).apply(self, eps),
    "sgn_": lambda self: _ip(Sgn).apply(self), "float_power_": _float_power_,
    "floor_divide_": lambda self, o: _ip(FloorDivide).apply(self, o),
    "greater_": _copy_inplace(gt), "greater_equal_": _copy_inplace(ge), "less_": _copy_inplace(lt),
    "less_equal_": _copy_inplace(le), "not_equal_": _copy_inplace(ne),
    "logical_and_": _copy_inplace(logical_and), "logical_or_": _copy_inplace(logical_or),
    "logical_xor_": _copy_inplace(logical_xor), "bitwise_and_": _copy_inplace(bitwise_and),
    "bitwise_or_": _copy_inplace(bitwise_or), "bitwise_xor_": _copy_inplace(bitwise_xor),
    "bitwise_not_": _copy_inplace(bitwise_not), "bitwise_left_shift_": _copy_inplace(bitwise_left_shift),
    "bitwise_right_shift_": _copy_inplace(bitwise_right_shift),
    "logical_not_": _copy_inplace(logical_not), "eq_": _copy_inplace(eq), "ne_": _copy_inplace(ne),
    "lt_": _copy_inplace(lt), "le_": _copy_inplace(le), "gt_": _copy_inplace(gt), "ge_": _copy_inplace(ge),
    "__iand__": _copy_inplace(bitwise_and), "__ior__": _copy_inplace(bitwise_or),
    "__ixor__": _copy_inplace(bitwise_xor), "__ilshift__": _copy_inplace(bitwise_left_shift),
    "__irshift__": _copy_inplace(bitwise_right_shift),
})
register(_methods)
