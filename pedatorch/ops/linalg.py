"""Matrix products: ``matmul`` (``@``), ``mm``, ``bmm``, ``mv``, ``dot``, the ``add*`` family, ``einsum``.

The four kernels that really multiply are ``Mm``, ``Bmm``, ``Mv`` and ``Dot``
(one ``xp.matmul``/``xp.dot`` call each; numpy loops over batches in C).  Their
backward is two more products of the same kind::

    C = A @ B      dA = dC @ B^H      dB = A^H @ dC

``matmul`` is not a kernel of its own: as in PyTorch (``_matmul_impl`` in
ATen's LinearAlgebra.cpp) it dispatches on the dims to ``dot``/``mv``/``mm``,
folds a batch into the rows of one big ``mm`` when it can, and otherwise
broadcasts the batch dims with ``expand`` + ``reshape`` and calls ``bmm``.
So ``(a @ b).grad_fn`` is the same node PyTorch records (``MmBackward0``,
``UnsafeViewBackward0``, ...), and double backward works because every piece
has a Tensor-op backward.

``einsum`` is one kernel (``xp.einsum``).  Its backward is einsum again: the
gradient of operand k contracts the output gradient with all the other
operands (identity matrices stand in for a repeated index, and indices only
operand k had are broadcast back).

Matrix products do not promote dtypes (``mm(float, double)`` is an error, as
in PyTorch); integer products stay integer.
"""
import math
import numbers
import warnings

import numpy as np

from .._warnings import user_stacklevel
from .._dtype import opmath_np
from .._tensor import Tensor
from ..backend import namespace, is_array
from ..autograd.function import ArrayFunction, before_checks
from ._util import (write_out, register, _type_word, shape_str, result_np_dtype, cast, broadcast_shapes_or_raise,
                    needed)
from .shape import UnsafeView, reshape

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "addmm", "addmv", "addbmm",
           "baddbmm", "addr", "einsum", "tensordot", "chain_matmul", "svd_lowrank", "pca_lowrank"]


# ====================================================================== dtype words and checks

_C_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}


def _cname(np_dtype):
    """The C++ name PyTorch prints for a dtype in some messages (``float``, ``long int``)."""
    return _C_NAMES.get(np.dtype(np_dtype).name, str(np_dtype))


def _no_bool(kernel_name, x, out_size=1, k=1):
    """PyTorch's product kernels have no bool version, but they return before choosing one when there is
    nothing to multiply: an empty result, or an empty inner dimension ``k`` (zeros, or ``beta * input``)."""
    if x.dtype == np.bool_ and out_size and k:
        raise NotImplementedError(f"\"{kernel_name}\" not implemented for 'Bool'")


def _bool_beta(x, beta, out_size, k):
    """bool operands with an empty inner dimension: PyTorch's result is then ``input.mul_(beta)`` (zeros
    for beta=0), and a bool tensor times an int beta is a Long it cannot write back."""
    if x.dtype == np.bool_ and out_size and not k and beta != 0 and not isinstance(beta, (bool, np.bool_)):
        raise RuntimeError("result type Long can't be cast to the desired output type Bool")


def _expand_check(shape, target, what="tensor"):
    """PyTorch's error when ``shape`` does not expand to ``target`` (add* ops broadcast their input)."""
    lead = len(target) - len(shape)
    ok = lead >= 0 and all(s == 1 or s == target[lead + i] for i, s in enumerate(shape))
    if ok:
        return
    if lead < 0:
        raise RuntimeError(f"expand(torch.FloatTensor{{{shape_str(shape)}}}, size={shape_str(target)}): the number "
                           f"of sizes provided ({len(target)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shape)})")
    for i in reversed(range(len(shape))):
        s = shape[i]
        if s != 1 and s != target[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + i]}) must match the existing size "
                               f"({s}) at non-singleton dimension {lead + i}.  Target sizes: {shape_str(target)}.  "
                               f"Tensor sizes: {shape_str(shape)}")


def _scalar(x, like):
    """beta/alpha in the kernel's dtype (PyTorch casts the Python scalar to the tensor's type)."""
    if like.kind in "iu":
        return int(x)
    if like.kind == "b":
        return bool(x)
    return x


def _check_integral_scalar(name, value, *tensors):
    if isinstance(value, float) and all(t._data.dtype.kind in "biu" for t in tensors if isinstance(t, Tensor)):
        raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")


def _write_out(name, out, result):
    """``out=``: as ``_util.write_out``, with PyTorch's wording naming the op."""
    from ..autograd.grad_mode import _state
    if _state.enabled and isinstance(out, Tensor) and (out._requires_grad or result._requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           f"but one of the arguments requires grad.")
    return write_out(out, result)


def _conj(t):
    return t.conj() if t._data.dtype.kind == "c" else t


def _mH(t):
    return t.mH if t._data.dtype.kind == "c" else t.mT


# ====================================================================== the product kernels

def _product(fn, *arrays, round_result=True, **kw):
    """Run a numpy product kernel (xp.matmul, xp.dot, xp.einsum, ...) with PyTorch's precision:
    float16/bfloat16 products are summed in float32 and rounded once (numpy has no bfloat16 GEMM of
    its own, and a float16 one would round every partial sum).  round_result=False leaves that float32
    sum unrounded, for the add* kernels to add their input first (see _add_scaled)."""
    dt = arrays[0].dtype
    acc = opmath_np(dt)
    if acc != dt and all(a.dtype == dt for a in arrays if hasattr(a, "dtype")):  # (einsum's subscripts: lists)
        xp = namespace(*arrays)
        out = xp.asarray(fn(*(a.astype(acc) if hasattr(a, "dtype") else a for a in arrays), **kw))
        return out.astype(dt) if round_result else out
    return fn(*arrays, **kw)


class Mm(ArrayFunction):
    """C = A @ B (matrices);   dA = dC @ B^H,   dB = A^H @ dC"""
    node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(needed(ctx, 1, a), needed(ctx, 0, b))  # (each is read for the other's gradient)
        return _product(namespace(a, b).matmul, a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (mm(grad, _mH(b)) if ctx.needs_input_grad[0] else None,
                mm(_mH(a), grad) if ctx.needs_input_grad[1] else None)


class Bmm(Mm):
    """C[i] = A[i] @ B[i] (batches of matrices);   dA = dC @ B^H,   dB = A^H @ dC  (per batch)"""
    node_name = "BmmBackward0"

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (bmm(grad, _mH(b)) if ctx.needs_input_grad[0] else None,
                bmm(_mH(a), grad) if ctx.needs_input_grad[1] else None)


class Mv(ArrayFunction):
    """y = A @ x (matrix times vector);   dA = outer(dy, conj(x)),   dx = A^H @ dy"""
    node_name = "MvBackward0"

    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(needed(ctx, 1, a), needed(ctx, 0, x))
        return _product(namespace(a, x).matmul, a, x)

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        return (grad.unsqueeze(-1) * _conj(x) if ctx.needs_input_grad[0] else None,
                mv(_mH(a), grad) if ctx.needs_input_grad[1] else None)


class Dot(ArrayFunction):
    """s = sum(a * b) (vectors, no conjugation);   da = ds * conj(b),   db = ds * conj(a)"""
    node_name = "DotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(needed(ctx, 1, a), needed(ctx, 0, b))
        xp = namespace(a, b)
        # (+ 0: BLAS's dot adds the products to a sum that starts at +0.0, so one product -0.0 gives +0.0;
        # numpy returns a single product as it is)
        return xp.asarray(_product(xp.dot, a, b) + 0)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (grad * _conj(b) if ctx.needs_input_grad[0] else None,
                grad * _conj(a) if ctx.needs_input_grad[1] else None)


class Vdot(ArrayFunction):
    """s = sum(conj(a) * b);   da = conj(ds) * b,   db = ds * a"""
    node_name = "VdotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(needed(ctx, 1, a), needed(ctx, 0, b))  # (each is read for the other's gradient)
        xp = namespace(a, b)
        return xp.asarray(xp.vdot(a, b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return (_conj(grad) * b if ctx.needs_input_grad[0] else None,
                grad * a if ctx.needs_input_grad[1] else None)


class _SqueezeRow(ArrayFunction):
    """(1, n) product -> (n,) (PyTorch's in-place ``squeeze_(0)`` on a fresh result);  dx = grad.unsqueeze(0)"""
    node_name = "SqueezeBackward4"

    @staticmethod
    def forward(ctx, x):
        return x.reshape(x.shape[1:])

    @staticmethod
    def backward(ctx, grad):
        return grad.unsqueeze(0)


# ====================================================================== add* (fused multiply-add) kernels

def _beta_input(x, beta, shape, dtype):
    """beta * input broadcast to the result (beta == 0 ignores input entirely, nan and inf included)."""
    xp = namespace(x)
    if beta == 0:
        return xp.zeros(shape, dtype=dtype)
    x = xp.broadcast_to(x, shape)
    return x if beta == 1 else x * _scalar(beta, dtype)


def _add_scaled(x, prod, beta, alpha, dt):
    """beta * input + alpha * prod, in dtype dt.  prod comes from _product(..., round_result=False): for
    float16/bfloat16 it is still float32, and the input joins it there, rounded once at the end (PyTorch's
    GEMM adds beta * C in float32; rounding the product first would round twice)."""
    x = x.astype(prod.dtype, copy=False)
    out = _beta_input(x, beta, prod.shape, prod.dtype) + (prod if alpha == 1 else prod * _scalar(alpha, prod.dtype))
    return out.astype(dt, copy=False)


def _times(t, s):
    return t if s == 1 else t * s


class Addmm(ArrayFunction):
    """out = beta * input + alpha * (m1 @ m2);   dinput = beta * g,  dm1 = alpha * g @ m2^H,  dm2 = alpha * m1^H @ g"""
    node_name = "AddmmBackward0"

    @staticmethod
    def forward(ctx, x, m1, m2, beta, alpha):
        # each matrix is read for the other's gradient only (as PyTorch saves them); of m2 the gradient
        # needs only its layout, kept as a flag
        ctx.save_for_backward(needed(ctx, 2, m1), needed(ctx, 1, m2))
        ctx.beta, ctx.alpha = beta, alpha
        if ctx.needs_input_grad:
            ctx.m2_transposed = _column_major(m2)
        prod = _product(namespace(m1, m2).matmul, m1, m2, round_result=False)
        if beta == 1 and alpha == 1 and is_array(prod) and x.dtype == prod.dtype:
            prod += x  # the common case (nn.Linear): add the bias into the fresh product, no second array
            return prod
        return _add_scaled(x, prod, beta, alpha, m1.dtype)

    @staticmethod
    def backward(ctx, grad):
        m1, m2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (_times(grad, ctx.beta) if n[0] else None,
                _times(mm(grad, _mH(m2)), ctx.alpha) if n[1] else None,
                _times(_mm_like(_mH(m1), grad, ctx.m2_transposed), ctx.alpha) if n[2] else None, None, None)


def _column_major(arr):
    """Is matrix ``arr`` laid out column by column (nn.Linear's ``weight.t()``)?"""
    return arr.ndim == 2 and not arr.flags.c_contiguous and arr.flags.f_contiguous


def _mm_like(a, b, column_major):
    """a @ b laid out in memory as the matrix whose gradient it is (as PyTorch's mm_mat2_backward): for
    nn.Linear's ``weight.t()`` the product is computed as (b^T a^T)^T, so the weight's gradient is contiguous."""
    if column_major:
        return mm(b.mT, a.mT).mT
    return mm(a, b)


class Addmv(ArrayFunction):
    """out = beta * input + alpha * (A @ x);   dinput = beta * g,  dA = alpha * outer(g, conj(x)),  dx = alpha A^H g"""
    node_name = "AddmvBackward0"

    @staticmethod
    def forward(ctx, x, a, v, beta, alpha):
        ctx.save_for_backward(needed(ctx, 2, a), needed(ctx, 1, v))  # (each is read for the other's gradient)
        ctx.beta, ctx.alpha = beta, alpha
        prod = _product(namespace(a, v).matmul, a, v, round_result=False)
        return _add_scaled(x, prod, beta, alpha, a.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, v = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (_times(grad, ctx.beta) if n[0] else None,
                _times(grad.unsqueeze(-1) * _conj(v), ctx.alpha) if n[1] else None,
                _times(mv(_mH(a), grad), ctx.alpha) if n[2] else None, None, None)


class Baddbmm(ArrayFunction):
    """out = beta * input + alpha * bmm(b1, b2);   db1 = alpha * g @ b2^H,  db2 = alpha * b1^H @ g (per batch)"""
    node_name = "BaddbmmBackward0"

    @staticmethod
    def forward(ctx, x, b1, b2, beta, alpha):
        ctx.save_for_backward(needed(ctx, 2, b1), needed(ctx, 1, b2))  # (each is read for the other's gradient)
        ctx.beta, ctx.alpha = beta, alpha
        prod = _product(namespace(b1, b2).matmul, b1, b2, round_result=False)
        return _add_scaled(x, prod, beta, alpha, b1.dtype)

    @staticmethod
    def backward(ctx, grad):
        b1, b2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (_times(grad, ctx.beta) if n[0] else None,
                _times(bmm(grad, _mH(b2)), ctx.alpha) if n[1] else None,
                _times(bmm(_mH(b1), grad), ctx.alpha) if n[2] else None, None, None)


class Addbmm(ArrayFunction):
    """out = beta * input + alpha * sum_i b1[i] @ b2[i];   db1[i] = alpha g @ b2[i]^H,  db2[i] = alpha b1[i]^H @ g"""
    node_name = "AddbmmBackward0"

    @staticmethod
    def forward(ctx, x, b1, b2, beta, alpha):
        ctx.save_for_backward(needed(ctx, 2, b1), needed(ctx, 1, b2))  # (each is read for the other's gradient)
        ctx.batch = b1.shape[0]   # (both gradients expand grad to it)
        ctx.beta, ctx.alpha = beta, alpha
        xp = namespace(b1, b2)
        if opmath_np(b1.dtype) != b1.dtype and b1.shape[0]:
            # float16/bfloat16: PyTorch adds one batch's product at a time (addmm_), rounding after each
            shape = (b1.shape[1], b2.shape[2])
            out = _add_scaled(x, xp.zeros(shape, dtype=opmath_np(b1.dtype)), beta, 1, b1.dtype)  # beta * input
            for i in range(b1.shape[0]):
                out = _add_scaled(out, _product(xp.matmul, b1[i], b2[i], round_result=False), 1, alpha, b1.dtype)
            return out
        # one contraction over the batch and the inner dim: a single BLAS call, no Python loop
        prod = _product(xp.tensordot, b1, b2, axes=([0, 2], [0, 1])) if b1.shape[0] else xp.zeros(
            (b1.shape[1], b2.shape[2]), dtype=b1.dtype)
        prod = prod.astype(b1.dtype, copy=False)
        out = _beta_input(x, beta, prod.shape, prod.dtype) + (prod if alpha == 1 else prod * _scalar(alpha, prod.dtype))
        return out.astype(prod.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        b1, b2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        g = grad.unsqueeze(0).expand(ctx.batch, *grad.shape)
        return (_times(grad, ctx.beta) if n[0] else None,
                _times(bmm(g, _mH(b2)), ctx.alpha) if n[1] else None,
                _times(bmm(_mH(b1), g), ctx.alpha) if n[2] else None, None, None)


class Addr(ArrayFunction):
    """out = beta * input + alpha * outer(v1, v2);   dv1 = alpha * g @ conj(v2),  dv2 = alpha * g^T @ conj(v1)"""
    node_name = "AddrBackward0"

    @staticmethod
    def forward(ctx, x, v1, v2, beta, alpha):
        ctx.save_for_backward(needed(ctx, 2, v1), needed(ctx, 1, v2))  # (each is read for the other's gradient)
        ctx.beta, ctx.alpha = beta, alpha
        dt = result_np_dtype(x, v1, v2)
        v1, v2 = cast(v1, dt), cast(v2, dt)
        shape = (v1.shape[0], v2.shape[0])
        xp = namespace(v1, v2)
        if dt == np.bool_:  # logical: (beta and input) or (alpha and v1 v2^T)
            out = xp.outer(v1, v2) & bool(alpha)
            return out | (xp.broadcast_to(cast(x, dt), shape) & bool(beta))
        prod = xp.outer(v1, v2)
        out = _beta_input(cast(x, dt), beta, shape, dt) + (prod if alpha == 1 else prod * _scalar(alpha, dt))
        return out.astype(dt, copy=False)

    @staticmethod
    def backward(ctx, grad):
        v1, v2 = ctx.saved_tensors
        n = ctx.needs_input_grad
        return (_times(grad, ctx.beta) if n[0] else None,
                _times(mv(grad, _conj(v2.to(grad.dtype))), ctx.alpha) if n[1] else None,
                _times(mv(grad.mT, _conj(v1.to(grad.dtype))), ctx.alpha) if n[2] else None, None, None)


# ====================================================================== public products

def mm(input, mat2, *, out=None):
    input, mat2 = before_checks(Mm, input, mat2)   # (autocast casts first)
    a, b = input._data, mat2._data
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_cname(a.dtype)} != "
                           f"{_cname(b.dtype)}")
    _no_bool("addmm_impl_cpu_", a, a.shape[0] * b.shape[1], a.shape[1])
    r = Mm.apply(input, mat2)
    return r if out is None else _write_out("mm", out, r)


def _check_bmm(b1, b2, name1="batch1", name2="batch2"):
    if b1.ndim != 3:
        raise RuntimeError(f"{name1} must be a 3D tensor")
    if b2.ndim != 3:
        raise RuntimeError(f"{name2} must be a 3D tensor")
    if b2.shape[0] != b1.shape[0] or b2.shape[1] != b1.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{b1.shape[0]}, {b1.shape[2]}] but got: [{b2.shape[0]}, {b2.shape[1]}].")


def bmm(input, mat2, *, out=None):
    input, mat2 = before_checks(Bmm, input, mat2)
    a, b = input._data, mat2._data
    _check_bmm(a, b)
    if a.size == 0 or b.size == 0:
        # nothing to multiply: PyTorch returns zeros in mat2's dtype before it looks at the dtypes
        input = input.to(mat2.dtype)
    else:
        _no_bool("bmm", a)
        if a.dtype != b.dtype:
            raise RuntimeError(f"expected scalar type {_type_word(a.dtype)} but found {_type_word(b.dtype)}")
    r = Bmm.apply(input, mat2)
    return r if out is None else _write_out("bmm", out, r)


def mv(input, vec, *, out=None):
    input, vec = before_checks(Mv, input, vec)
    a, v = input._data, vec._data
    if a.ndim == 0:  # (PyTorch reads the matrix's size(0) first)
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), "
                           f"vec ({v.shape[0]})")
    if a.dtype != v.dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_type_word(v.dtype)}, "
                           f"{_type_word(a.dtype)}, and {_type_word(v.dtype)}")
    _no_bool("addmv_impl_cpu", a, a.shape[0], a.shape[1])
    r = Mv.apply(input, vec)
    return r if out is None else _write_out("mv", out, r)


def _check_dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_type_word(a.dtype)} and "
                           f"{_type_word(b.dtype)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           f"the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")
    _no_bool("dot", a)


def dot(input, tensor, *, out=None):
    input, tensor = before_checks(Dot, input, tensor)
    _check_dot(input._data, tensor._data)
    r = Dot.apply(input, tensor)
    return r if out is None else _write_out("dot", out, r)


def vdot(input, other, *, out=None):
    input, other = before_checks(Vdot, input, other)
    _check_dot(input._data, other._data)
    r = Vdot.apply(input, other)
    return r if out is None else _write_out("vdot", out, r)


def outer(input, vec2, *, out=None):
    for name, t in (("self", input), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    r = input.reshape(-1, 1) * vec2   # as PyTorch: a broadcast multiply (MulBackward0), types promote
    return r if out is None else _write_out("outer", out, r)


ger = outer


# ---------------------------------------------------------------------- matmul

def _should_fold(tensor1, tensor2, has_out):
    """Can the batch of the bigger operand be folded into mm rows without a copy (ATen's ``should_fold``)?"""
    big_first = tensor1._data.ndim >= tensor2._data.ndim
    big, small = (tensor1, tensor2) if big_first else (tensor2, tensor1)
    if not (big._data.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad and not has_out:
        return True   # folding keeps the backward of the small operand an mm (no big broadcast gradient)
    if tensor1._data.ndim == 2:
        return False
    arr = big._data if big_first else big._data.swapaxes(-1, -2)
    if arr.size == 0:
        return True
    strides = [s // arr.itemsize for s in arr.strides]
    return all(strides[i] == strides[i + 1] * arr.shape[i + 1] for i in range(arr.ndim - 2))


def matmul(input, other, *, out=None):
    """The product of two tensors, by their dims (see the module docstring)."""
    for pos, (name, t) in enumerate((("input", input), ("other", other))):
        if not isinstance(t, Tensor):
            raise TypeError(f"matmul(): argument '{name}' (position {pos + 1}) must be Tensor, not "
                            f"{type(t).__name__}")
    input, other = before_checks("matmul", input, other)   # (autocast casts first, also for mv and dot)
    r = _matmul(input, other, out is not None)
    return r if out is None else _write_out("matmul", out, r)


def _matmul(t1, t2, has_out=False):
    d1, d2 = t1._data.ndim, t2._data.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return dot(t1, t2)
    if d1 == 2 and d2 == 1:
        return mv(t1, t2)
    if d1 == 1 and d2 == 2:
        return _SqueezeRow.apply(mm(t1.unsqueeze(0), t2))
    if d1 == 2 and d2 == 2:
        return mm(t1, t2)
    if _should_fold(t1, t2, has_out):
        # fold the batch of the bigger operand into the rows of one mm (or mv)
        transpose = d2 > d1
        a = t2.mT if transpose else t1
        b = t2 if not transpose else (t1.t() if d1 == 2 else t1)
        out_shape = list(a.shape[:-1])
        rows = math.prod(out_shape)
        if b.ndim == 2:
            out_shape.append(b.shape[1])
        folded = reshape(a, rows, a.shape[-1])
        if b.ndim == 2:
            output = UnsafeView.apply(mm(folded, b), tuple(out_shape))
            return output.mT.contiguous() if transpose else output
        return UnsafeView.apply(mv(folded, b), tuple(out_shape))
    # batched: broadcast the batch dims, flatten them, and call bmm
    n = t1.shape[-2] if d1 > 1 else 1
    m1 = t1.shape[-1]
    batch1 = tuple(t1.shape[:-2])
    m2 = t2.shape[-2] if d2 > 1 else t2.shape[-1]
    p = t2.shape[-1] if d2 > 1 else 1
    batch2 = tuple(t2.shape[:-2])
    if d1 == 3 and d2 == 3 and batch1[0] != batch2[0]:
        # a batch of one that needs a gradient: treat it as a matrix (the fold path above)
        if batch1[0] == 1 and t1._requires_grad:
            return _matmul(t1.squeeze(0), t2, has_out)
        if batch2[0] == 1 and t2._requires_grad:
            return _matmul(t1, t2.squeeze(0), has_out)
    batch = broadcast_shapes_or_raise(batch1, batch2)
    nb = math.prod(batch)
    a = reshape(t1.expand(*batch, n, m1), nb, n, m1)
    vector_rhs = d2 == 1
    if vector_rhs:
        b = reshape(t2.expand(*batch, m2), nb, m2).unsqueeze(2)
    else:
        b = reshape(t2.expand(*batch, m2, p), nb, m2, p)
    out_shape = list(batch) + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    prod = bmm(a, b)
    if vector_rhs:
        prod = prod.squeeze(-1)
    return UnsafeView.apply(prod, tuple(out_shape))


def _matmul_op(self, other):
    return matmul(self, other) if isinstance(other, Tensor) else NotImplemented


def _rmatmul(self, other):
    return matmul(other, self) if isinstance(other, Tensor) else NotImplemented


# ---------------------------------------------------------------------- add*

def _check_same(name1, a, name2, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name1} and {name2} must have the same dtype, but got {_type_word(a.dtype)} and "
                           f"{_type_word(b.dtype)}")


def _check_addmm(x, a, b):
    for name, t in (("mat1", a), ("mat2", b)):
        if t.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.ndim}-D tensor")
    _check_same("self", x, "mat2", b)
    _check_same("mat1", a, "mat2", b)
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    _expand_check(x.shape, (a.shape[0], b.shape[1]))
    _no_bool("addmm_impl_cpu_", a, a.shape[0] * b.shape[1], a.shape[1])


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    input, mat1, mat2 = before_checks(Addmm, input, mat1, mat2)
    a, b = mat1._data, mat2._data
    _check_addmm(input._data, a, b)
    _bool_beta(a, beta, a.shape[0] * b.shape[1], a.shape[1])
    r = Addmm.apply(input, mat1, mat2, beta, alpha)
    return r if out is None else _write_out("addmm", out, r)


def _check_addmv(x, a, v):
    if a.ndim != 2 or v.ndim != 1 or x.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {x.ndim}, {a.ndim}, {v.ndim}")
    if a.shape[1] != v.shape[0] or (x.ndim == 1 and x.shape[0] not in (1, a.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({x.shape[0] if x.ndim else 1}), mat "
                           f"({a.shape[0]}x{a.shape[1]}), vec ({v.shape[0]})")
    if not (x.dtype == a.dtype == v.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_type_word(x.dtype)}, "
                           f"{_type_word(a.dtype)}, and {_type_word(v.dtype)}")
    _no_bool("addmv_impl_cpu", a, a.shape[0], a.shape[1])


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    input, mat, vec = before_checks(Addmv, input, mat, vec)
    _check_addmv(input._data, mat._data, vec._data)
    r = Addmv.apply(input, mat, vec, beta, alpha)
    return r if out is None else _write_out("addmv", out, r)


def _check_baddbmm(x, b1, b2):
    _check_bmm(b1, b2)
    if x.dtype != b1.dtype or (b1.dtype == b2.dtype and x.dtype != b2.dtype):
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cname(x.dtype)}, batch1: "
                           f"{_cname(b1.dtype)}, batch2: {_cname(b2.dtype)}")
    if b1.dtype != b2.dtype:
        raise RuntimeError(f"expected scalar type {_type_word(b1.dtype)} but found {_type_word(b2.dtype)}")
    _expand_check(x.shape, (b1.shape[0], b1.shape[1], b2.shape[2]))
    _no_bool("baddbmm", b1, b1.shape[0] * b1.shape[1] * b2.shape[2], b1.shape[2])


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    input, batch1, batch2 = before_checks(Baddbmm, input, batch1, batch2)
    b1, b2 = batch1._data, batch2._data
    _check_baddbmm(input._data, b1, b2)
    _bool_beta(b1, beta, b1.shape[0] * b1.shape[1] * b2.shape[2], b1.shape[2])
    r = Baddbmm.apply(input, batch1, batch2, beta, alpha)
    return r if out is None else _write_out("baddbmm", out, r)


def _check_addbmm(x, b1, b2):
    for name, t in (("batch1", b1), ("batch2", b2)):
        if t.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if b1.shape[0] != b2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b1.shape[0]} and "
                           f"{b2.shape[0]}")
    if b1.shape[2] != b2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({b1.shape[1]}x{b1.shape[2]} and "
                           f"{b2.shape[1]}x{b2.shape[2]})")
    _check_same("self", x, "mat2", b2)
    _check_same("mat1", b1, "mat2", b2)
    _expand_check(x.shape, (b1.shape[1], b2.shape[2]))
    _no_bool("addbmm", b1, b1.shape[1] * b2.shape[2], b1.shape[0] * b1.shape[2])


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    input, batch1, batch2 = before_checks(Addbmm, input, batch1, batch2)
    b1, b2 = batch1._data, batch2._data
    _check_addbmm(input._data, b1, b2)
    _bool_beta(b1, beta, b1.shape[1] * b2.shape[2], b1.shape[0] * b1.shape[2])
    r = Addbmm.apply(input, batch1, batch2, beta, alpha)
    return r if out is None else _write_out("addbmm", out, r)


def _check_addr(input, vec1, vec2, beta, alpha):
    for name, t in (("vec1", vec1), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    _check_integral_scalar("beta", beta, input, vec1, vec2)
    _check_integral_scalar("alpha", alpha, input, vec1, vec2)
    _expand_check(input._data.shape, (vec1._data.shape[0], vec2._data.shape[0]))


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    input, vec1, vec2 = before_checks(Addr, input, vec1, vec2)
    _check_addr(input, vec1, vec2, beta, alpha)
    r = Addr.apply(input, vec1, vec2, beta, alpha)
    return r if out is None else _write_out("addr", out, r)


def _result_shape(cls, a, b):
    if cls is Addmv:
        return (a.shape[0],)
    if cls is Baddbmm:
        return (a.shape[0], a.shape[1], b.shape[2])
    if cls is Addbmm:
        return (a.shape[1], b.shape[2])
    if cls is Addr:
        return (a.shape[0], b.shape[0])
    return (a.shape[0], b.shape[1])


def _inplace_of(cls, check, name, on_arrays=True):
    """``addmm_`` and friends: the same checks, then the kernel's result written into ``self``."""
    from .elementwise import _ip

    def method(self, a, b, *, beta=1, alpha=1):
        if on_arrays:
            check(self._data, a._data, b._data)   # raises before anything is written
        else:
            check(self, a, b, beta, alpha)
        shape = _result_shape(cls, a._data, b._data)
        if tuple(self._data.shape) != shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {shape_str(self._data.shape)} and output tensor "
                               f"size {shape_str(shape)} should match")
        return _ip(cls).apply(self, a, b, beta, alpha)
    method.__name__ = name
    return method


# ====================================================================== einsum

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _label(ch):
    return _LETTERS.index(ch)


def _parse_operand_subscripts(term, k, eq_offset, ndim):
    """One operand's subscripts: a list of labels, with None where '...' stands."""
    labels, i, ell = [], 0, False
    while i < len(term):
        ch = term[i]
        if ch == ".":
            if ell:
                raise RuntimeError(f"einsum(): found '.' for operand {k} for which an ellipsis was already found")
            if term[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {k} that is not part of any ellipsis")
            labels.append(None)
            ell = True
            i += 3
            continue
        if ch == " ":
            i += 1
            continue
        if ch not in _LETTERS:
            raise RuntimeError(f"einsum(): invalid subscript given at index {eq_offset + i} in the equation string, "
                               f"subscripts must be in [a-zA-Z]")
        labels.append(_label(ch))
        i += 1
    return labels


def _parse_equation(equation, n_ops):
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    rhs = None if arrow < 0 else equation[arrow + 2:]
    terms, offsets, start = lhs.split(","), [], 0
    for t in terms:
        offsets.append(start)
        start += len(t) + 1
    if len(terms) < n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > n_ops:
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    subs = [_parse_operand_subscripts(t, k, offsets[k], None) for k, t in enumerate(terms)]
    out = None
    if rhs is not None:
        out, i, ell = [], 0, False
        base = arrow + 2
        while i < len(rhs):
            ch = rhs[i]
            if ch == ".":
                if ell:
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis ('...') was already found")
                if rhs[i:i + 3] != "...":
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis ('...')")
                out.append(None)
                ell = True
                i += 3
                continue
            if ch == " ":
                i += 1
                continue
            if ch not in _LETTERS:
                raise RuntimeError(f"einsum(): invalid subscript given at index {base + i} in the equation string, "
                                   f"subscripts must be in [a-zA-Z]")
            out.append(_label(ch))
            i += 1
    return subs, out


def _sublist_labels(sublist, what):
    labels = []
    for s in sublist:
        if s is Ellipsis:
            labels.append(None)
        elif isinstance(s, numbers.Integral):
            if not 0 <= s < 52:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
            labels.append(int(s))
        else:
            raise TypeError(f"einsum(): expected subscripts to be integers or Ellipsis, got {type(s).__name__}")
    return labels


def einsum(*args):
    """Sum of products over the indices an equation names, e.g. ``einsum('bij,bjk->bik', a, b)``."""
    if len(args) < 2 and not (len(args) == 1 and not isinstance(args[0], str)):
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], str):
        equation = args[0]
        ops = args[1:]
        if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
            ops = tuple(ops[0])
        for t in ops:
            if not isinstance(t, Tensor):
                raise TypeError(f"einsum(): expected Tensor operands, got {type(t).__name__}")
        subs, out = _parse_equation(equation, len(ops))
    else:   # sublist format: einsum(op0, [0, 1], op1, [1, 2], [0, 2])
        ops, subs = list(args[0::2]), []
        out = None
        if len(args) % 2 == 1:
            out = _sublist_labels(args[-1], "output")
            ops = list(args[0:-1:2])
        subs = [_sublist_labels(s, "operand") for s in args[1::2][:len(ops)]]
        ops = tuple(ops)
    return _einsum(ops, subs, out)


def _einsum(ops, subs, out):
    """PyTorch's einsum, step by step with Tensor ops, so that the result (a view where PyTorch's is one),
    its strides and its grad_fn are PyTorch's, and backward comes from the ops used:

    1. number the dims: the output's labels first (in output order), then the labels summed out;
    2. line each operand up on those dims: a diagonal for a repeated label, ``unsqueeze`` for a missing
       one, then ``permute``;
    3. contract the operands pairwise, left to right (``_sumproduct_pair``: a ``bmm``), summing a dim
       out as soon as no later operand has it;
    4. drop the summed dims (one operand: ``sum``; more: a ``view``, they are size 1 by then).
    """
    ell_num_dim = 0
    count = [0] * 52   # how often each label occurs in the inputs
    for k, (t, s) in enumerate(zip(ops, subs)):
        nd = t._data.ndim
        n_labels = sum(1 for x in s if x is not None)
        if None in s:
            if n_labels > nd:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_labels}) is more than "
                                   f"the number of dimensions ({nd}) for operand {k}")
            ell_num_dim = max(ell_num_dim, nd - n_labels)
        elif n_labels != nd:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_labels}) does not match the "
                               f"number of dimensions ({nd}) for operand {k} and no ellipsis was given")
        for x in s:
            if x is not None:
                count[x] += 1
    # 1. the position of each label's dim (and of the ellipsis dims)
    where = [-1] * 52
    if out is None:   # implicit output: '...' first, then the labels seen exactly once, in label order
        n_dims, ell_index, ell_out = ell_num_dim, 0, True
        for lab in range(52):
            if count[lab] == 1:
                where[lab], n_dims = n_dims, n_dims + 1
    else:
        n_dims, ell_index, ell_out = 0, 0, False
        for x in out:
            if x is None:
                ell_index, n_dims, ell_out = n_dims, n_dims + ell_num_dim, True
                continue
            if where[x] != -1:
                raise RuntimeError(f"einsum(): output subscript {_LETTERS[x]} appears more than once in the output")
            if count[x] == 0:
                raise RuntimeError(f"einsum(): output subscript {_LETTERS[x]} does not appear in the equation for any "
                                   f"input operand")
            where[x], n_dims = n_dims, n_dims + 1
    out_size = n_dims
    if not ell_out:   # ellipsis dims not in the output are summed out, before the labels
        ell_index, n_dims = n_dims, n_dims + ell_num_dim
    for lab in range(52):
        if count[lab] and where[lab] == -1:
            where[lab], n_dims = n_dims, n_dims + 1
    # 2. each operand lined up on those dims; count the operands each dim is more than 1 wide in
    label_size, ell_size, dim_count = [1] * 52, [1] * ell_num_dim, [0] * n_dims
    lined_up = []
    for k, (op, s) in enumerate(zip(ops, subs)):
        perm, dim = [-1] * n_dims, 0
        for lab in s:
            if lab is None:
                for j in range(ell_num_dim - (ops[k]._data.ndim - (len(s) - 1)), ell_num_dim):
                    n = op.shape[dim]
                    if n != 1:
                        if ell_size[j] not in (1, n):
                            raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {k}has size "
                                               f"{n} which does not broadcast with previously seen ellipsis with size "
                                               f"{ell_size[j]} for the respective dimension")
                        ell_size[j] = n
                        dim_count[ell_index + j] += 1
                    perm[ell_index + j], dim = dim, dim + 1
            elif perm[where[lab]] == -1:
                n = op.shape[dim]
                if n != 1:
                    if label_size[lab] not in (1, n):
                        raise RuntimeError(f"einsum(): subscript {_LETTERS[lab]} has size {n} for operand {k} which "
                                           f"does not broadcast with previously seen size {label_size[lab]}")
                    label_size[lab] = n
                    dim_count[where[lab]] += 1
                perm[where[lab]], dim = dim, dim + 1
            else:   # a repeated label: its diagonal, in the place of the first one
                prev = perm[where[lab]]
                if op.shape[dim] != op.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {_LETTERS[lab]} is repeated for operand {k} but the sizes "
                                       f"don't match, {op.shape[dim]} != {op.shape[prev]}")
                op = op.diagonal(0, prev, dim).movedim(-1, prev)
        for i in range(n_dims):
            if perm[i] == -1:
                op = op.unsqueeze(dim)
                perm[i], dim = dim, dim + 1
        lined_up.append(op.permute(perm))
    # 3. contract pairwise, left to right
    while len(lined_up) > 1:
        a, b = lined_up.pop(0), lined_up.pop(0)
        sum_dims, a_only, b_only = [], [], []
        for d in range(out_size, n_dims):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_count[d] -= 1
                if dim_count[d] == 1:   # no later operand has it: sum it in this product
                    sum_dims.append(d)
                    dim_count[d] = 0
            elif dim_count[d] == 1:     # only one of the two has it: sum it out first
                if a.shape[d] != 1:
                    a_only.append(d)
                    dim_count[d] = 0
                elif b.shape[d] != 1:
                    b_only.append(d)
                    dim_count[d] = 0
        if a_only:
            a = a.sum(a_only, True)
        if b_only:
            b = b.sum(b_only, True)
        lined_up.insert(0, _sumproduct_pair(a, b, sum_dims))
    # 4. drop the summed dims
    result = lined_up[0]
    if n_dims > out_size:
        if len(ops) > 1:
            return result.view(result.shape[:out_size])
        return result.sum(list(range(out_size, n_dims)))
    return result


def _sumproduct_pair(left, right, sum_dims):
    """sum over ``sum_dims`` of left * right (same number of dims, broadcasting), keeping the summed dims
    as size 1: the dims are sorted into both (lro), left only (lo), right only (ro) and summed, each
    side permuted and reshaped into one batched matrix product, and the product viewed back."""
    if not sum_dims:
        return left * right
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    if lo and ro and ro[-1] < lo[0]:   # the right operand's dims all come first: swapped, bmm writes them so
        left, right, lo, ro, lo_size, ro_size = right, left, ro, lo, ro_size, lo_size
    out_shape = ([left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims) +
                 [right.shape[d] for d in ro])
    order = lro + lo + list(sum_dims) + ro
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    left = left.permute(order).reshape(lro_size, lo_size, sum_size)
    right = right.permute(lro + list(sum_dims) + ro + lo).reshape(lro_size, sum_size, ro_size)
    return bmm(left, right).view(out_shape).permute(back)


# ====================================================================== tensordot, inner, chains

def tensordot(a, b, dims=2, out=None):
    if isinstance(dims, Tensor):
        if dims.numel() > 1:
            dims = (dims._data[0].tolist(), dims._data[1].tolist())
        else:
            dims = int(dims.item())
    if isinstance(dims, bool) or not isinstance(dims, (tuple, list, numbers.Integral)):
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims}")
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, numbers.Integral) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, numbers.Integral) else list(dims_b)
    r = _tensordot(a, b, dims_a, dims_b)
    return r if out is None else _write_out("tensordot", out, r)


def _tensordot(a, b, dims1, dims2):
    """Permute the contracted dims together, reshape to matrices, one mm (as ATen's tensordot)."""
    from ._util import wrap_dim
    if len(dims1) != len(dims2):
        raise RuntimeError("both dimension lists should have same length")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = a, b
    for d1, d2 in zip(dims1, dims2):
        s1, s2 = a.shape[d1], b.shape[d2]
        if s2 == 1:      # a broadcast dim: sum it right away (in the operand's own dtype)
            t1 = t1.sum(d1, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(d2, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim {d1} and "
                                   f"second has size {s2} in dim {d2}")
            csize *= s1
    c1 = [wrap_dim(d, a.ndim) for d in dims1]
    c2 = [wrap_dim(d, b.ndim) for d in dims2]
    p1 = [i for i in range(a.ndim) if i not in c1] + c1
    p2 = c2 + [i for i in range(b.ndim) if i not in c2]
    rsizes = [t1.shape[i] for i in range(a.ndim) if i not in c1] + [t2.shape[i] for i in range(b.ndim) if i not in c2]
    size1 = math.prod(t1.shape[i] for i in range(a.ndim) if i not in c1)
    size2 = math.prod(t2.shape[i] for i in range(b.ndim) if i not in c2)
    t1 = t1.permute(tuple(p1))
    t2 = t2.permute(tuple(p2))
    if a.ndim == len(c1) and b.ndim == len(c2):     # everything contracted: a dot product
        return reshape(dot(reshape(t1, csize), reshape(t2, csize)), *rsizes)
    return reshape(mm(reshape(t1, size1, csize), reshape(t2, csize, size2)), *rsizes)


def inner(input, other, *, out=None):
    if input.ndim == 0 or other.ndim == 0:
        r = input * other
    else:
        if input.shape[-1] != other.shape[-1]:
            raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                               f"{shape_str(input.shape)} and {shape_str(other.shape)}")
        r = _tensordot(input, other, [-1], [-1])
    return r if out is None else _write_out("inner", out, r)


def _matrix_chain_order(shapes):
    """Dynamic programming over split points: the cheapest parenthesisation of a chain of matrices."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain(tensors, split, i, j):
    if i == j:
        return tensors[i]
    k = split[i][j]
    return mm(_chain(tensors, split, i, k), _chain(tensors, split, k + 1, j))


def multi_dot(tensors, *, out=None):
    """A chain of matrix products in the cheapest order (the first/last may be vectors)."""
    given = list(tensors)
    n = len(given)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    out_shape = []
    ts = list(given)
    if given[0].ndim == 1:
        ts[0] = given[0].unsqueeze(0)
    elif given[0].ndim == 2:
        out_shape.append(given[0].shape[0])
    else:
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {given[0].ndim}D")
    if given[-1].ndim == 1:
        ts[-1] = given[-1].unsqueeze(-1)
    elif given[-1].ndim == 2:
        out_shape.append(given[-1].shape[1])
    else:
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {given[-1].ndim}D")
    for i in range(1, n - 1):
        if given[i].ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {given[i].ndim}D")
    dt = ts[0]._data.dtype
    for i in range(1, n):
        if ts[i]._data.dtype != dt:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is {_cname(dt)} and "
                               f"tensor {i} {_cname(ts[i]._data.dtype)}")
        if ts[i - 1].shape[-1] != ts[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {shape_str(given[i - 1].shape)} and "
                               f"{shape_str(given[i].shape)} cannot be multiplied")
    if n == 2:
        result = mm(ts[0], ts[1])
    elif n == 3:
        a, b = ts[0].shape[0], ts[1].shape[0]
        c, d = ts[2].shape[0], ts[2].shape[1]
        if (a * c) * (b + d) > (b * d) * (a + c):
            result = mm(ts[0], mm(ts[1], ts[2]))
        else:
            result = mm(mm(ts[0], ts[1]), ts[2])
    else:
        result = _chain(ts, _matrix_chain_order([t.shape for t in ts]), 0, n - 1)
    result = result.view(out_shape)
    return result if out is None else _write_out("multi_dot", out, result)


def chain_matmul(*matrices, out=None):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=user_stacklevel())
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if len(matrices) == 0:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        r = matrices[0].clone()
    else:
        r = multi_dot(matrices)
    return r if out is None else _write_out("chain_matmul", out, r)


# ====================================================================== randomized low-rank SVD and PCA

def _approximate_basis(A, q, niter, M=None):
    """Q with q orthonormal columns such that Q Q^H (A - M) ~ A - M: Halko, Martinsson & Tropp (2009),
    Algorithm 4.4.  A Gaussian test matrix R samples the range of A; each subspace iteration multiplies by
    A^H then A again, which sharpens the basis towards the leading singular vectors.  R is drawn with
    torch.randn, so a seeded run draws the same R as PyTorch."""
    from .. import linalg
    from .._dtype import float16, float32, float64
    from .random import randn
    # as PyTorch's _utils.get_floating_dtype: other dtypes (bfloat16, integers) draw R in float32
    dtype = A.dtype if A.dtype in (float16, float32, float64) or A.is_complex() else float32
    R = randn(A.shape[-1], q, dtype=dtype)
    X = matmul(A, R) if M is None else matmul(A, R) - matmul(M, R)
    Q = linalg.qr(X).Q
    for _ in range(niter):
        X = matmul(A.mH, Q) if M is None else matmul(A.mH, Q) - matmul(M.mH, Q)
        Q = linalg.qr(X).Q
        X = matmul(A, Q) if M is None else matmul(A, Q) - matmul(M, Q)
        Q = linalg.qr(X).Q
    return Q


def _svd_lowrank(A, q, niter, M):
    from .. import linalg
    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.shape)
    if m < n:  # work on the tall matrix: the basis then has the smaller side's length
        A = A.mH
        M = None if M is None else M.mH
    Q = _approximate_basis(A, q, niter, M)
    B = matmul(Q.mH, A) if M is None else matmul(Q.mH, A) - matmul(Q.mH, M)  # q x n: small enough for an exact SVD
    U, S, Vh = linalg.svd(B, full_matrices=False)
    U, V = matmul(Q, U), Vh.mH
    return (V, S, U) if m < n else (U, S, V)


def svd_lowrank(A, q=6, niter=2, M=None):
    """Approximate (U, S, V), A - M ~ U diag(S) V^H, from a random q-dimensional basis of A's range (V, not
    V^H, as torch.svd).  A plain tuple, as PyTorch returns."""
    return _svd_lowrank(A, q, niter, M)


def pca_lowrank(A, q=None, center=True, niter=2):
    """PCA of a data matrix A (m samples x n features) by svd_lowrank of the centred A: the columns of V
    are the principal directions, S**2 / (m - 1) the variances along them.  q defaults to min(6, m, n)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        A = A - A.mean(dim=(-2,), keepdim=True)
    return _svd_lowrank(A, q, niter, None)


register({
    "matmul": matmul, "mm": mm, "bmm": bmm, "mv": mv, "dot": dot, "vdot": vdot, "inner": inner, "outer": outer,
    "ger": ger, "addmm": addmm, "addmv": addmv, "addbmm": addbmm, "baddbmm": baddbmm, "addr": addr,
    "tensordot": tensordot,
    "addmm_": _inplace_of(Addmm, _check_addmm, "addmm_"), "addmv_": _inplace_of(Addmv, _check_addmv, "addmv_"),
    "addbmm_": _inplace_of(Addbmm, _check_addbmm, "addbmm_"),
    "baddbmm_": _inplace_of(Baddbmm, _check_baddbmm, "baddbmm_"),
    "addr_": _inplace_of(Addr, _check_addr, "addr_", on_arrays=False),
    "__matmul__": _matmul_op, "__rmatmul__": _rmatmul,
    # PyTorch has no in-place matmul: ``a @= b`` rebinds a to a new tensor
    "__imatmul__": _matmul_op,
})
