"""``pedatorch.linalg``: PyTorch's ``torch.linalg`` on ``numpy.linalg`` kernels.

Each decomposition is one ``ArrayFunction`` whose kernel is a batched
``numpy.linalg`` call (numpy loops over the batch in C).  The backward formulas
are PyTorch's (``FunctionsManual.cpp``), written with Tensor ops, so that
``create_graph=True`` gives second derivatives for most of them::

    det      d|A|      = |A| tr(A^-1 dA)             gA = g |A| A^-H
    inv      d(A^-1)   = -A^-1 dA A^-1               gA = -A^-H g A^-H
    solve    X = A^-1 B                              gB = A^-H g,   gA = -gB X^H
    cholesky A = L L^H                               gA = L^-H Phi(L^H gL) L^-1  (symmetrised)
    eigh     A = V diag(w) V^H                       gA = V (diag(gw) + skew(V^H gV) / (w_j - w_i)) V^H
    svd      A = U diag(s) V^H                       (see LinalgSvd.backward)
    solve_triangular  X = A^-1 B                     gB = A^-H g,   gA = -gB X^H kept to A's triangle
    lu       A = P L U                               gA = P L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H
    matrix_exp  E = exp(A)                           gA = exp([[A^H, g], [0, A^H]]) top-right block
    eig      A = V diag(L) V^-1                      gA = V^-H [diag(gL) + (V^H gV ...) / conj(L_j - L_i)] V^H

The kernels numpy lacks are written out here: triangular solves by substitution, LU by Gaussian
elimination with partial pivoting (LAPACK getrf's pivots, so P, L and U are PyTorch's), the matrix
exponential by scaling and squaring a Pade approximant.  ``lu_solve``, ``cond``, ``vander``,
``tensorinv``, ``tensorsolve`` and ``householder_product`` are compositions of differentiable ops (their
``grad_fn`` is their last op's, not PyTorch's single node).

The formulas assume what PyTorch's do: distinct eigen/singular values, full
rank, well-conditioned input.  Norms compose ``vector_norm`` (one kernel) with
``amax``/``amin`` and ``svdvals`` exactly as PyTorch does.
"""
import math
import numbers

import numpy as np

from ._tensor import Tensor
from .backend import namespace, cholesky as _cholesky_kernel, linalg_errors, eig as _eig_kernel
from .autograd.function import ArrayFunction, before_checks
from .ops._util import write_out, wrap_dim, _type_word, shape_str, broadcast_shapes_or_raise
from .ops.linalg import matmul as _matmul, multi_dot as _multi_dot, _mH, _conj
from .ops import shape as _shape
from .ops.reduction import vector_norm, check_norm_dtype as _check_norm_dtype, _scalar_word
from ._dtype import is_inexact_np
from .ops.sorting import _return_type

__all__ = ["norm", "vector_norm", "matrix_norm", "det", "slogdet", "inv", "inv_ex", "solve", "solve_ex", "cholesky",
           "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "lstsq", "cross",
           "diagonal", "matmul", "multi_dot", "matrix_power", "vecdot", "LinAlgError",
           "ldl_factor", "ldl_factor_ex", "ldl_solve"]


class _LinAlgError(RuntimeError):
    """A linear algebra kernel failed on its input (singular, not positive-definite, ...).  PyTorch's class is
    ``torch._C._LinAlgError`` (the name its messages and ``type(e).__name__`` show); ``LinAlgError`` is an alias."""


LinAlgError = _LinAlgError


def _rt(name, fields):
    """A ``torch.return_types.<name>`` structseq (printed over several lines, as PyTorch prints it)."""
    return _return_type(name, tuple(fields))


linalg_slogdet = _rt("linalg_slogdet", ["sign", "logabsdet"])
linalg_inv_ex = _rt("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex = _rt("linalg_solve_ex", ["result", "info"])
linalg_cholesky_ex = _rt("linalg_cholesky_ex", ["L", "info"])
linalg_qr = _rt("linalg_qr", ["Q", "R"])
linalg_eigh = _rt("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = _rt("linalg_svd", ["U", "S", "Vh"])
linalg_lstsq = _rt("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


# ====================================================================== checks

def _check_float(A, fn):
    if not is_inexact_np(A._data.dtype):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{_type_word(A._data.dtype)}")


def _check_low_precision(A, fn, kernel=None):
    """numpy.linalg has no float16/bfloat16 kernels; neither has PyTorch on the CPU."""
    name = A._data.dtype.name
    if name in ("float16", "bfloat16"):
        if kernel is None:
            raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {_type_word(A._data.dtype)}")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_type_word(A._data.dtype)}'")


def _check_matrix(A, fn, arg="A"):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {arg} must have at least 2 dimensions.")


def _check_square(A, fn, arg="A"):
    _check_matrix(A, fn, arg)
    m, n = A._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"{fn}: {arg} must be batches of square matrices, but they are {m} by {n} matrices")


def _eye_like(n, t):
    return Tensor._make(namespace(t._data).eye(n, dtype=t._data.dtype))


def _tril_mask(like, n, dtype, k=0):
    """ones(n, n) below diagonal ``k`` (and on it), on ``like``'s device."""
    xp = namespace(like._data)
    return Tensor._make(xp.tril(xp.ones((n, n), dtype=dtype), k))


def _batch_prefix(batch_shape, flat_index):
    """PyTorch's "(Batch element k): " (only for batched inputs)."""
    return f"(Batch element {flat_index}): " if len(batch_shape) else ""


# ---------------------------------------------------------------------- failure diagnosis (error paths only)

def _lu_info(A):
    """LAPACK getrf's ``info`` per matrix: 1 + the index of the first zero pivot, or 0.

    Gaussian elimination with partial pivoting, vectorised over the batch (the
    loop is over the n columns).  Only run to word an error message.
    """
    xp = namespace(A)
    a = xp.array(A, dtype=np.result_type(A.dtype, np.float64), copy=True).reshape((-1,) + A.shape[-2:])
    b, n = a.shape[0], a.shape[-1]
    info = xp.zeros(b, dtype=np.int64)
    rows = xp.arange(b)
    for j in range(n):
        piv = j + xp.argmax(xp.abs(a[:, j:, j]), axis=1)
        a[rows, j], a[rows, piv] = a[rows, piv].copy(), a[rows, j].copy()
        p = a[:, j, j]
        zero = (p == 0) & (info == 0)
        info[zero] = j + 1
        safe = xp.where(p == 0, 1, p)
        f = a[:, j + 1:, j] / safe[:, None]
        a[:, j + 1:, :] -= f[:, :, None] * a[:, j:j + 1, :]
    return info.reshape(A.shape[:-2])


def _chol_info(A):
    """LAPACK potrf's ``info``: the order of the first leading minor that is not positive-definite, or 0."""
    xp = namespace(A)
    a = xp.array(A, dtype=np.result_type(A.dtype, np.float64), copy=True).reshape((-1,) + A.shape[-2:])
    b, n = a.shape[0], a.shape[-1]
    L = xp.zeros_like(a)
    info = xp.zeros(b, dtype=np.int64)
    for j in range(n):
        d = a[:, j, j].real - xp.sum(xp.abs(L[:, j, :j]) ** 2, axis=-1)
        bad = ~(d > 0) & (info == 0)
        info[bad] = j + 1
        ljj = xp.sqrt(xp.where(d > 0, d, 1))
        L[:, j, j] = ljj
        off = (L[:, j + 1:, :j] @ xp.conj(L[:, j, :j])[:, :, None])[..., 0]
        L[:, j + 1:, j] = (a[:, j + 1:, j] - off) / ljj[:, None]
    return info.reshape(A.shape[:-2])


def _first_failure(info):
    flat = info.reshape(-1)
    k = int((flat != 0).argmax())
    return k, int(flat[k])


# ====================================================================== det, slogdet

class LinalgDet(ArrayFunction):
    """d = det(A);   gA = g * conj(d) * A^-H   (an SVD-based adjugate when A is singular)"""
    node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx, A):
        xp = namespace(A)
        d = xp.linalg.det(A) if A.shape[-1] else xp.ones(A.shape[:-2], dtype=A.dtype)
        d = _singular_det(A, xp.asarray(d, dtype=A.dtype))
        ctx.save_for_backward(A, d)
        return d

    @staticmethod
    def backward(ctx, g):
        A, d = ctx.saved_tensors
        gd = (g * _conj(d)).unsqueeze(-1).unsqueeze(-1)
        if (d._data != 0).all():   # (a device read)
            return gd * _mH(inv(A))
        # singular: det is still smooth; its gradient is the conjugate adjugate (no double backward here)
        return Tensor._make(_adjugate(A._data).conj().swapaxes(-1, -2)) * g.unsqueeze(-1).unsqueeze(-1)


def _singular_det(A, d):
    """numpy gives +0 for every singular (real) matrix: its LU stops at the zero pivot.  PyTorch multiplies out
    the diagonal of LAPACK's LU and the row swaps' sign, and LAPACK, reading row-major memory as column-major,
    factors the transpose: det [[1, 2], [2, 4]] is -0 there.  Only the zero determinants are redone so."""
    xp = namespace(A)
    zero = d == 0
    if A.dtype.kind == "c" or not A.shape[-1] or not zero.any():
        return d
    n = A.shape[-1]
    LU, pivots, _ = _getrf(xp.swapaxes(A.reshape((-1, n, n))[zero.reshape(-1)], -1, -2))
    odd = (pivots != xp.arange(1, n + 1, dtype=pivots.dtype)).sum(-1) % 2 == 1
    redone = xp.prod(xp.diagonal(LU, axis1=-2, axis2=-1), axis=-1) * xp.where(odd, -1, 1).astype(A.dtype)
    d = d.copy()
    d[zero] = redone
    return d


def _adjugate(A):
    """adj(A) = det(U) det(V^H) V diag(prod_{j != i} s_j) U^H  (well defined for singular A)."""
    xp = namespace(A)
    U, s, Vh = xp.linalg.svd(A)
    n = s.shape[-1]
    ones = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    before = xp.cumprod(xp.concatenate([ones, s[..., :-1]], axis=-1), axis=-1)
    after = xp.cumprod(xp.concatenate([ones, s[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    p = (before * after)[..., :n]
    scale = (xp.linalg.det(U) * xp.linalg.det(Vh))[..., None, None]
    return scale * xp.matmul(xp.conj(xp.swapaxes(Vh, -1, -2)) * p[..., None, :], xp.conj(xp.swapaxes(U, -1, -2)))


def det(A, *, out=None):
    _check_square(A, "linalg.det")
    _check_float(A, "linalg.det")
    _check_low_precision(A, "linalg.det", "lu_cpu")
    r = LinalgDet.apply(A)
    return r if out is None else write_out(out, r)


class LinalgSlogdet(ArrayFunction):
    """(sign, log|det A|);   gA = conj(g') A^-H  with g' = g_logabsdet (- i Im(g_sign conj(sign)) for complex)"""
    node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.set_materialize_grads(False)
        xp = namespace(A)
        sign, logabs = xp.linalg.slogdet(A)
        sign = xp.asarray(sign, dtype=A.dtype)
        logabs = xp.asarray(logabs, dtype=A.real.dtype)
        if sign.dtype.kind != "c":   # singular: the sign of PyTorch's (signed) zero determinant, see _singular_det
            d = _singular_det(A, xp.where(sign == 0, 0, 1).astype(A.dtype))
            with np.errstate(divide="ignore"):
                sign, logabs = xp.where(d == 1, sign, xp.where(d == 0, d, xp.sign(d))), \
                    xp.where(d == 1, logabs, xp.log(xp.abs(d))).astype(logabs.dtype)
        ctx.save_for_backward(A, sign)
        return sign, logabs

    @staticmethod
    def backward(ctx, g_sign, g_logabs):
        A, sign = ctx.saved_tensors
        complex_ = A._data.dtype.kind == "c"
        if g_logabs is None and (not complex_ or g_sign is None):
            return None
        g = g_logabs
        if complex_ and g_sign is not None:
            term = (g_sign * _conj(sign)).imag * 1j
            g = -term if g is None else g - term
        return _conj(g).unsqueeze(-1).unsqueeze(-1) * _mH(inv(A))


def slogdet(A, *, out=None):
    _check_square(A, "linalg.slogdet")
    _check_float(A, "linalg.slogdet")
    _check_low_precision(A, "linalg.slogdet")
    r = linalg_slogdet(LinalgSlogdet.apply(A))
    return r if out is None else write_out(out, r)


# ====================================================================== inv, solve

class LinalgInvEx(ArrayFunction):
    """(A^-1, info);   gA = -A^-H g A^-H"""
    node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.set_materialize_grads(False)
        xp = namespace(A)
        info = xp.zeros(A.shape[:-2], dtype=np.int32)
        try:
            with linalg_errors(A):   # (cupy would return NaN silently)
                Ainv = xp.linalg.inv(A)
        except np.linalg.LinAlgError:
            info = _lu_info(A).astype(np.int32)
            ok = xp.where(info == 0, True, False)[..., None, None]
            safe = xp.where(ok, A, xp.eye(A.shape[-1], dtype=A.dtype))
            Ainv = xp.where(ok, xp.linalg.inv(safe), np.nan).astype(A.dtype)
        ctx.save_for_backward(Ainv)
        return Ainv, info

    @staticmethod
    def backward(ctx, g, g_info=None):
        if g is None:
            return None
        Ainv, = ctx.saved_tensors
        AinvH = _mH(Ainv)
        return -_matmul(_matmul(AinvH, g), AinvH)


def _check_inv(A, fn="linalg.inv"):
    _check_square(A, fn)
    _check_float(A, fn)
    _check_low_precision(A, fn)


def inv_ex(A, *, check_errors=False, out=None):
    _check_inv(A)   # (ATen checks inv_ex's input under linalg.inv's name; check_errors names inv_ex)
    Ainv, info = LinalgInvEx.apply(A)
    if check_errors:
        _raise_inv(info, "linalg.inv_ex")
    r = linalg_inv_ex((Ainv, info))
    return r if out is None else write_out(out, r)


def _raise_inv(info, fn="linalg.inv"):
    if info._data.any():   # (a device read)
        k, i = _first_failure(info._data)
        raise LinAlgError(f"{fn}: {_batch_prefix(info.shape, k)}The diagonal element {i} is zero, the "
                          f"inversion could not be completed because the input matrix is singular.")


def inv(A, *, out=None):
    _check_inv(A)
    Ainv, info = LinalgInvEx.apply(A)
    _raise_inv(info)
    return Ainv if out is None else write_out(out, Ainv)


def _solve_is_vector_rhs(A, B):
    """B is a (batch of) vector(s) when it is 1-D, or has exactly A's batch dims plus one."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


class LinalgSolveEx(ArrayFunction):
    """X = A^-1 B (left) or B A^-1 (right);   gB = A^-H g (resp. g A^-H),   gA = -gB X^H (resp. -X^H gB)"""
    node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx, A, B, left, vector):
        ctx.set_materialize_grads(False)
        ctx.left, ctx.vector = left, vector
        batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-1] if vector else B.shape[:-2])
        xp = namespace(A, B)
        info = xp.zeros(batch, dtype=np.int32)
        Bm = B[..., None] if vector else B
        # the batch dimensions broadcast here: numpy's solve would, cupy's wants them equal
        mbatch = np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
        Ab, Bm = xp.broadcast_to(A, mbatch + A.shape[-2:]), xp.broadcast_to(Bm, mbatch + Bm.shape[-2:])
        try:
            with linalg_errors(A):
                if left:
                    X = xp.linalg.solve(Ab, Bm)
                else:
                    X = xp.swapaxes(xp.linalg.solve(xp.swapaxes(Ab, -1, -2), xp.swapaxes(Bm, -1, -2)), -1, -2)
        except np.linalg.LinAlgError:
            info = xp.broadcast_to(_lu_info(A), batch).astype(np.int32)
            shape = np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2]) + (A.shape[-1], Bm.shape[-1])
            X = xp.full(shape if left else shape[:-2] + (Bm.shape[-2], A.shape[-1]), np.nan, dtype=A.dtype)
        X = X[..., 0] if vector else X
        X = xp.ascontiguousarray(X)
        ctx.save_for_backward(A, X)
        return X, info

    @staticmethod
    def backward(ctx, g, g_info=None):
        if g is None:
            return None, None, None, None
        A, X = ctx.saved_tensors
        left, vector = ctx.left, ctx.vector
        gB = solve(_mH(A), g, left=left)
        gA = None
        if ctx.needs_input_grad[0]:
            if vector:
                gA = -(gB.unsqueeze(-1) * _conj(X).unsqueeze(-2))
            elif left:
                gA = -_matmul(gB, _mH(X))
            else:
                gA = -_matmul(_mH(X), gB)
        return gA, (gB if ctx.needs_input_grad[1] else None), None, None


def _check_solve(A, B, left, fn="linalg.solve"):
    _check_square(A, fn)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"{fn}: Expected A and B to have the same dtype, but found A of type "
                           f"{_type_word(A._data.dtype)} and B of type {_type_word(B._data.dtype)} instead")
    _check_float(A, fn)
    _check_low_precision(A, fn, "lu_cpu")
    vector = left and _solve_is_vector_rhs(A._data, B._data)
    n = A._data.shape[-1]
    Bs = B._data.shape
    if vector:
        if Bs[-1] != n:
            raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation AX = B ({n}x{n} and {Bs[-1]}x1)")
    else:
        if len(Bs) < 2 and not left:
            raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
        k = Bs[-2] if left else Bs[-1]
        if k != n:
            eq = "AX = B" if left else "XA = B"
            raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                               f"{Bs[-2]}x{Bs[-1]})")
    try:
        np.broadcast_shapes(A._data.shape[:-2], Bs[:-1] if vector else Bs[:-2])
    except ValueError:
        raise RuntimeError(f"The size of tensor a must match the size of tensor b at a non-singleton dimension "
                           f"(batch dims {shape_str(A._data.shape[:-2])} and "
                           f"{shape_str(Bs[:-1] if vector else Bs[:-2])})") from None
    return vector


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    vector = _check_solve(A, B, left, "linalg.solve_ex")
    X, info = LinalgSolveEx.apply(A, B, left, vector)
    if check_errors:
        _raise_solve(info)
    r = linalg_solve_ex((X, info))
    return r if out is None else write_out(out, r)


def _raise_solve(info):
    if info._data.any():   # (a device read)
        k, _ = _first_failure(info._data)
        raise LinAlgError(f"torch.linalg.solve: {_batch_prefix(info.shape, k)}The solver failed because the input "
                          f"matrix is singular.")


def solve(A, B, *, left=True, out=None):
    vector = _check_solve(A, B, left)
    X, info = LinalgSolveEx.apply(A, B, left, vector)
    _raise_solve(info)
    return X if out is None else write_out(out, X)


# ====================================================================== cholesky

class LinalgCholeskyEx(ArrayFunction):
    """A = L L^H;   gA = L^-H Phi(L^H gL) L^-1, symmetrised (Phi: lower triangle, half diagonal)"""
    node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx, A, upper):
        ctx.set_materialize_grads(False)
        ctx.upper = upper
        xp = namespace(A)
        info = xp.zeros(A.shape[:-2], dtype=np.int32)
        try:
            with linalg_errors(A):
                L = _cholesky_kernel(A, upper)
        except np.linalg.LinAlgError:
            info = _chol_info(A).astype(np.int32)
            ok = (info == 0)[..., None, None]
            safe = xp.where(ok, A, xp.eye(A.shape[-1], dtype=A.dtype))
            tri = xp.tril(A) if not upper else xp.conj(xp.swapaxes(xp.tril(A), -1, -2))
            L = xp.where(ok, _cholesky_kernel(safe, upper), tri).astype(A.dtype)
        ctx.save_for_backward(L)
        return L, info

    @staticmethod
    def backward(ctx, gL, g_info=None):
        if gL is None:
            return None, None
        L, = ctx.saved_tensors
        if ctx.upper:
            L, gL = _mH(L), _mH(gL)
        n = L.shape[-1]
        dt = L._data.dtype
        gA = _matmul(_mH(L), gL) * _tril_mask(L, n, dt)            # tril(L^H gL)
        gA = (gA + _mH(gA * _tril_mask(L, n, dt, -1))) * 0.5      # 0.5 (gA + gA^H - diag(gA))
        # gA <- L^-H gA L^-1  (two triangular solves; general solves here)
        gA = solve(_mH(L), gA)
        gA = _mH(solve(_mH(L), _mH(gA)))
        return gA, None


def _check_cholesky(A, fn):
    _check_square(A, fn)
    _check_float(A, fn)
    _check_low_precision(A, fn, "cholesky_cpu")


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    _check_cholesky(A, "linalg.cholesky_ex")
    L, info = LinalgCholeskyEx.apply(A, upper)
    if check_errors:
        _raise_cholesky(info)
    r = linalg_cholesky_ex((L, info))
    return r if out is None else write_out(out, r)


def _raise_cholesky(info):
    if info._data.any():   # (a device read)
        k, i = _first_failure(info._data)
        raise LinAlgError(f"linalg.cholesky: {_batch_prefix(info.shape, k)}The factorization could not be completed "
                          f"because the input is not positive-definite (the leading minor of order {i} is not "
                          f"positive-definite).")


def cholesky(A, *, upper=False, out=None):
    _check_cholesky(A, "linalg.cholesky")
    L, info = LinalgCholeskyEx.apply(A, upper)
    _raise_cholesky(info)
    return L if out is None else write_out(out, L)


# ====================================================================== qr

class LinalgQr(ArrayFunction):
    """A = QR;   (m >= n)  gA = [gQ + Q copyltu(M)] R^-H,  M = R gR^H - gQ^H Q  (PyTorch's linalg_qr_backward)"""
    node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx, A, mode):
        ctx.set_materialize_grads(False)
        ctx.mode = mode
        xp = namespace(A)
        if mode == "r":
            R = xp.linalg.qr(A, mode="r")
            Q = xp.zeros((0,), dtype=A.dtype)
        else:
            Q, R = xp.linalg.qr(A, mode=mode)
        Q, R = xp.ascontiguousarray(Q, dtype=A.dtype), xp.ascontiguousarray(R, dtype=A.dtype)
        ctx.save_for_backward(Q, R)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                               "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if gQ is None and gR is None:
            return None, None
        if m >= n:
            return _qr_backward_tall(gQ, gR, Q, R), None
        # wide: A = Q [U | V] with X = A[:, :m] = Q U square; Y = A[:, m:] = Q V
        U = R.narrow(-1, 0, m)
        V = R.narrow(-1, m, n - m)
        gU = gR.narrow(-1, 0, m) if gR is not None else None
        gV = gR.narrow(-1, m, n - m) if gR is not None else None
        gQ2 = gQ
        if gV is not None:
            # Y depends on Q too: V = Q^H Y  ->  extra gQ = Y gV^H
            Y = _matmul(Q, V)
            gQ2 = _matmul(Y, _mH(gV)) if gQ is None else gQ + _matmul(Y, _mH(gV))
        gX = _qr_backward_tall(gQ2, gU, Q, U)
        gY = _matmul(Q, gV) if gV is not None else None
        from .ops.join import cat
        if gY is None:
            gY = gX.new_zeros(gX.shape[:-1] + (n - m,))
        return cat([gX, gY], -1), None


def _qr_backward_tall(gQ, gR, Q, R):
    n = R.shape[-1]
    dt = R._data.dtype
    xp = namespace(R._data)
    if gQ is not None and gR is not None:
        M = _matmul(gR, _mH(R)) - _matmul(_mH(Q), gQ)
    elif gQ is not None:
        M = -_matmul(_mH(Q), gQ)
    else:
        M = _matmul(gR, _mH(R))
    Mu = M * Tensor._make(xp.triu(xp.ones((n, n), dtype=dt)))
    half_diag = Tensor._make((1 - 0.5 * xp.eye(n)).astype(dt))
    gA = _matmul(Q, (Mu + _mH(Mu)) * half_diag)                 # Q syminvadj(triu(M))
    if gQ is not None:
        gA = gA + gQ
    # gA <- gA R^-H  (a triangular solve from the right; a general solve here)
    return _mH(solve(R, _mH(gA)))


def qr(A, mode="reduced", *, out=None):
    _check_matrix(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or "
                           f"'complete'")
    _check_float(A, "linalg.qr")
    _check_low_precision(A, "linalg.qr", "geqrf_cpu")
    r = linalg_qr(LinalgQr.apply(A, mode))
    return r if out is None else write_out(out, r)


# ====================================================================== eigh

class LinalgEigh(ArrayFunction):
    """A = V diag(w) V^H;   gA = V (diag(gw) + (skew(V^H gV)/2) / E) V^H,   E_ij = w_j - w_i"""
    node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, uplo):
        ctx.set_materialize_grads(False)
        xp = namespace(A)
        w, V = xp.linalg.eigh(A, UPLO=uplo)
        w, V = xp.ascontiguousarray(w), xp.ascontiguousarray(V)
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx, gw, gV):
        w, V = ctx.saved_tensors
        if gw is None and gV is None:
            return None, None
        n = w.shape[-1]
        dt = V._data.dtype
        xp = namespace(V._data)
        eye = Tensor._make(xp.eye(n, dtype=dt))
        if gV is not None and (gV._requires_grad or gV._data.any()):
            VhgV = _matmul(_mH(V), gV)
            VhgV = (VhgV - _mH(VhgV)) * 0.5                        # project onto skew-Hermitian matrices
            E = w.unsqueeze(-2) - w.unsqueeze(-1) + Tensor._make(xp.eye(n, dtype=w._data.dtype))
            M = (VhgV / E) * Tensor._make((1 - xp.eye(n)).astype(dt))
            if gw is not None:
                M = M + gw.unsqueeze(-1) * eye
        else:
            M = gw.unsqueeze(-1) * eye
        return _matmul(V, _matmul(M, _mH(V))), None


def _check_uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def eigh(A, UPLO="L", *, out=None):
    _check_square(A, "linalg.eigh")
    _check_uplo(UPLO)
    _check_float(A, "linalg.eigh")
    _check_low_precision(A, "linalg.eigh", "linalg_eigh_cpu")
    r = linalg_eigh(LinalgEigh.apply(A, UPLO))
    return r if out is None else write_out(out, r)


def eigvalsh(A, UPLO="L", *, out=None):
    _check_square(A, "linalg.eigvalsh")
    _check_uplo(UPLO)
    _check_float(A, "linalg.eigvalsh")
    _check_low_precision(A, "linalg.eigvalsh", "linalg_eigh_cpu")
    w = LinalgEigh.apply(A, UPLO)[0]
    return w if out is None else write_out(out, w)


# ====================================================================== svd

class LinalgSvd(ArrayFunction):
    """A = U diag(S) Vh;   gA = U [(skew(U^H gU) S + S skew(V^H gV)) / E + diag(gS)] Vh (+ terms for m != n),
    E_jk = S_k^2 - S_j^2   (PyTorch's svd_backward)"""
    node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A, full_matrices):
        ctx.set_materialize_grads(False)
        ctx.full = full_matrices
        xp = namespace(A)
        U, S, Vh = xp.linalg.svd(A, full_matrices=full_matrices)
        U, S, Vh = (xp.ascontiguousarray(U), xp.ascontiguousarray(S.astype(A.real.dtype, copy=False)),
                    xp.ascontiguousarray(Vh))
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        if ctx.full:   # only the first k singular vectors are determined by A
            U, Vh = U.narrow(-1, 0, k), Vh.narrow(-2, 0, k)
            gU = gU.narrow(-1, 0, k) if gU is not None else None
            gVh = gVh.narrow(-2, 0, k) if gVh is not None else None
        return _svd_backward(gU, gS, gVh, U, S, Vh), None


def _is_zero(g):
    return g is None or (not g._requires_grad and not g._data.any())   # (a device read)


def _svd_backward(gU, gS, gVh, U, S, Vh):
    m, n = U.shape[-2], Vh.shape[-1]
    if _is_zero(gU) and _is_zero(gVh):
        if gS is None:
            return None
        # svdvals: gA = U diag(gS) Vh
        return _matmul(U, gS.unsqueeze(-1) * Vh) if m >= n else _matmul(U * gS.unsqueeze(-2), Vh)
    gU = None if _is_zero(gU) else gU
    gVh = None if _is_zero(gVh) else gVh
    dt = U._data.dtype
    k = S.shape[-1]
    S_ = S.to(_from_np(dt)) if dt.kind == "c" else S
    xp = namespace(U._data)

    def skew(X):
        return X - _mH(X)
    UhgU = skew(_matmul(_mH(U), gU)) if gU is not None else None
    VhgV = skew(_matmul(Vh, _mH(gVh))) if gVh is not None else None
    S2 = S_ * S_
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + Tensor._make(xp.eye(k, dtype=S_._data.dtype))
    if gU is not None and gVh is not None:
        gA = (UhgU * S_.unsqueeze(-2) + S_.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        gA = (UhgU / E) * S_.unsqueeze(-2)
    else:
        gA = S_.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.to(_from_np(dt)).unsqueeze(-1) * Tensor._make(xp.eye(k, dtype=dt))
    if dt.kind == "c" and gU is not None:
        # the phase of each singular-vector pair: i Im(diag(skew(U^H gU))) / (2 S)
        d = _shape.diagonal(UhgU, 0, -2, -1).imag
        gA = gA + (d / (S * 2) * 1j).unsqueeze(-1) * Tensor._make(xp.eye(k, dtype=dt))
    if m > n and gU is not None:
        gA = _matmul(U, gA)
        gUSinv = gU / S_.unsqueeze(-2)
        gA = gA + gUSinv - _matmul(U, _matmul(_mH(U), gUSinv))
        return _matmul(gA, Vh)
    if m < n and gVh is not None:
        gA = _matmul(gA, Vh)
        SinvgVh = gVh / S_.unsqueeze(-1)
        gA = gA + SinvgVh - _matmul(_matmul(SinvgVh, _mH(Vh)), Vh)
        return _matmul(U, gA)
    return _matmul(U, _matmul(gA, Vh)) if m >= n else _matmul(_matmul(U, gA), Vh)


def _from_np(npdt):
    from ._dtype import from_numpy_dtype
    return from_numpy_dtype(npdt)


def svd(A, full_matrices=True, *, driver=None, out=None):
    _check_matrix(A, "linalg.svd")
    _check_float(A, "linalg.svd")
    _check_low_precision(A, "linalg.svd", "linalg_svd_cpu")
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    r = linalg_svd(LinalgSvd.apply(A, full_matrices))
    return r if out is None else write_out(out, r)


def svdvals(A, *, driver=None, out=None):
    _check_matrix(A, "linalg.svd")
    _check_float(A, "linalg.svd")
    _check_low_precision(A, "linalg.svd", "linalg_svd_cpu")
    S = LinalgSvd.apply(A, False)[1]
    return S if out is None else write_out(out, S)


# ====================================================================== pinv, matrix_rank, lstsq

def _tolerances(smax, m, n, real_dtype, atol, rtol):
    """PyTorch's cutoff: max(atol, rtol * largest singular value); rtol defaults to eps * max(m, n)
    (to 0 when a positive atol is given).  ``smax`` has shape batch + (1,)."""
    xp = namespace(smax)

    def arr(v):
        v = xp.asarray(v._data if isinstance(v, Tensor) else v, dtype=np.float64)
        return v[..., None] if v.ndim else v
    a = 0.0 if atol is None else arr(atol)
    if rtol is None:
        r = np.finfo(real_dtype).eps * max(m, n) if atol is None or (a <= 0).all() else 0.0
    else:
        r = arr(rtol)
    return xp.maximum(a, r * smax)


def _abs_max(x):
    """The largest |x| of each row (last dim), keepdim; 0 for an empty row (``max(..., initial=0)``,
    which cupy lacks)."""
    xp = namespace(x)
    if x.shape[-1]:
        return xp.max(xp.abs(x), axis=-1)[..., None]
    return xp.zeros(x.shape[:-1] + (1,), dtype=x.real.dtype)


class LinalgPinv(ArrayFunction):
    """A+ = V diag(1/s, cut) U^H;   gA: PyTorch's pinv_backward (valid where the rank does not change)"""
    node_name = "LinalgPinvBackward0"

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        m, n = A.shape[-2:]
        real = A.real.dtype
        xp = namespace(A)
        if hermitian:
            w, V = xp.linalg.eigh(A)
            smax = _abs_max(w)
            cut = _tolerances(smax, m, n, real, atol, rtol)
            winv = xp.where(xp.abs(w) > cut, 1 / xp.where(w == 0, 1, w), 0)
            P = xp.matmul(V * winv[..., None, :], xp.conj(xp.swapaxes(V, -1, -2)))
        else:
            U, S, Vh = xp.linalg.svd(A, full_matrices=False)
            smax = (S[..., :1] if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,), dtype=real))
            cut = _tolerances(smax, m, n, real, atol, rtol)
            sinv = xp.where(S > cut, 1 / xp.where(S == 0, 1, S), 0)
            P = xp.matmul(xp.conj(xp.swapaxes(Vh, -1, -2)) * sinv[..., None, :], xp.conj(xp.swapaxes(U, -1, -2)))
        P = xp.ascontiguousarray(P, dtype=A.dtype)
        ctx.save_for_backward(A, P)
        return P

    @staticmethod
    def backward(ctx, g):
        A, P = ctx.saved_tensors
        return _pinv_backward(g, P, A), None, None, None


def _pinv_backward(grad, pinvA, A):
    m, n = A.shape[-2], A.shape[-1]
    pinvAh = _mH(pinvA)
    gradh = _mH(grad)
    if m <= n:
        K = _matmul(gradh, pinvA)
        KpinvAh = _matmul(K, pinvAh)
        return (-_mH(_matmul(pinvA, K)) + KpinvAh - _matmul(_matmul(A, pinvA), KpinvAh)
                + _matmul(_matmul(pinvAh, pinvA), gradh - _matmul(K, A)))
    K = _matmul(pinvA, gradh)
    pinvAhK = _matmul(pinvAh, K)
    return (-_mH(_matmul(K, pinvA)) + _matmul(_matmul(gradh - _matmul(A, K), pinvA), pinvAh) + pinvAhK
            - _matmul(_matmul(pinvAhK, pinvA), A))


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    if A._data.ndim < 2 or A._data.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise RuntimeError(f"linalg.pinv({_type_word(A._data.dtype)}{{{shape_str(A._data.shape)}}}): expected a "
                           f"tensor with 2 or more dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        rtol = rcond
    r = LinalgPinv.apply(A, atol, rtol, hermitian)
    return r if out is None else write_out(out, r)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    if A._data.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise RuntimeError("This function doesn't handle types other than float and double")
    _check_matrix(A, "torch.linalg.matrix_rank")
    if tol is not None:
        atol, rtol = tol, 0.0
    a = A._data
    m, n = a.shape[-2:]
    xp = namespace(a)
    if hermitian:
        S = xp.abs(xp.linalg.eigvalsh(a))
        smax = _abs_max(S)
    else:
        S = xp.linalg.svd(a, compute_uv=False)
        smax = S[..., :1] if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,), dtype=S.dtype)
    cut = _tolerances(smax, m, n, a.real.dtype, atol, rtol)
    r = Tensor._make(xp.asarray(xp.sum(S > cut, axis=-1), dtype=np.int64))
    return r if out is None else write_out(out, r)


class LinalgLstsq(ArrayFunction):
    """X = argmin |AX - B| (minimum norm);   gA, gB through pinv (PyTorch's linalg_lstsq_backward);
    residuals r = |AX - B|^2 (per column):  gA = 2 (AX - B) (g_r X^H),  gB = -2 (AX - B) g_r"""
    node_name = "LinalgLstsqBackward0"

    @staticmethod
    def forward(ctx, A, B, rcond, driver, vector):
        ctx.set_materialize_grads(False)
        ctx.vector = vector
        m, n = A.shape[-2:]
        Bm = B[..., None] if vector else B
        xp = namespace(A, B)
        U, S, Vh = xp.linalg.svd(A, full_matrices=False)
        smax = S[..., :1] if S.shape[-1] else xp.zeros(S.shape[:-1] + (1,), dtype=A.real.dtype)
        rc = np.finfo(A.real.dtype).eps * max(m, n) if rcond is None else rcond
        if driver == "gels":
            rc = 0.0
        keep = S > rc * smax
        rank = xp.sum(keep, axis=-1).astype(np.int64)
        sinv = xp.where(keep, 1 / xp.where(S == 0, 1, S), 0)
        # X = V diag(1/s) U^H B: the minimum-norm least-squares solution
        X = xp.matmul(xp.conj(xp.swapaxes(Vh, -1, -2)) * sinv[..., None, :],
                      xp.matmul(xp.conj(xp.swapaxes(U, -1, -2)), Bm)).astype(A.dtype)
        if driver in ("gelsd", "gelss", "gels") and m > n and (rank == n).all():
            res = xp.sum(xp.abs(xp.matmul(A, X) - Bm) ** 2, axis=-2).astype(A.real.dtype)
        else:
            res = xp.zeros((0,), dtype=A.real.dtype)
        X = xp.ascontiguousarray(X[..., 0] if vector else X)
        ctx.save_for_backward(A, B, X)
        ctx.has_res = res.size > 0
        if driver in ("gelsd", "gelss"):
            sv = xp.ascontiguousarray(S.astype(A.real.dtype))
        else:
            sv = xp.zeros((0,), dtype=A.real.dtype)
        if driver == "gels":
            rank = xp.zeros((0,), dtype=np.int64)
        return X, res, rank, sv

    @staticmethod
    def backward(ctx, gX, g_res, g_rank=None, g_sv=None):
        A, B, X = ctx.saved_tensors
        nA, nB = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        vector = ctx.vector
        Bm = B.unsqueeze(-1) if vector else B
        Xm = X.unsqueeze(-1) if vector else X
        gA = gB = None
        if gX is not None:
            gXm = gX.unsqueeze(-1) if vector else gX
            pinvA = pinv(A)
            if nA:
                gA = _pinv_backward(_matmul(gXm, _mH(Bm)), pinvA, A)
            if nB:
                gB = _matmul(_mH(pinvA), gXm)
        if g_res is not None and ctx.has_res:
            Rm = _matmul(A, Xm) - Bm                  # residual matrix; X is optimal so dX drops out
            gr = g_res.unsqueeze(-2)
            if nA:
                t = _matmul(Rm * gr, _mH(Xm)) * 2
                gA = t if gA is None else gA + t
            if nB:
                t = Rm * gr * -2
                gB = t if gB is None else gB + t
        if gB is not None and vector:
            gB = gB.squeeze(-1)
        return gA, gB, None, None, None


def lstsq(A, B, rcond=None, *, driver=None):
    if A._data.dtype.name not in ("float32", "float64", "complex64", "complex128"):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if driver is not None and driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A._data.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B._data.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_type_word(A._data.dtype)} and other's dtype {_type_word(B._data.dtype)}")
    dim_diff = A._data.ndim - B._data.ndim
    if not 0 <= dim_diff <= 1:   # (B's batch may not add dimensions to A's)
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = _solve_is_vector_rhs(A, B)
    if A._data.shape[-2] != (B._data.shape[-1] if vector else B._data.shape[-2]):
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-1)" if vector else
                           "torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    # the batch dimensions broadcast; for a matrix B with one dimension less than A, ATen broadcasts A's batch
    # with B.shape[:-1] (B's batch and its row count) and repeats B over that batch
    batch = broadcast_shapes_or_raise(tuple(A.shape[:-2]), tuple(B.shape[:-1] if dim_diff == 1 else B.shape[:-2]))
    if dim_diff == 1 and not vector:
        A, B = A.expand(*batch, *A.shape[-2:]), B.expand(*batch, *B.shape[-2:])
    X, res, rank, sv = LinalgLstsq.apply(A, B, rcond, driver or "gelsy", vector)
    return linalg_lstsq((X, res, rank, sv.detach()))


# ====================================================================== cross, diagonal, vecdot, matrix_power

def cross(input, other, *, dim=-1, out=None):
    from .ops.manip import linalg_cross
    r = linalg_cross(input, other, dim)
    return r if out is None else write_out(out, r)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _shape.diagonal(A, offset, dim1, dim2)


def matmul(input, other, *, out=None):
    return _matmul(input, other, out=out)


def multi_dot(tensors, *, out=None):
    return _multi_dot(tensors, out=out)


def vecdot(x, y, *, dim=-1, out=None):
    x, y = before_checks("linalg_vecdot", x, y)   # (autocast casts first)
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_type_word(x._data.dtype)} and y of type {_type_word(y._data.dtype)} instead")
    _check_float(x, "linalg.vecdot")
    r = (_conj(x) * y).sum(dim)
    return r if out is None else write_out(out, r)


def matrix_power(A, n, *, out=None):
    """A^n by repeated squaring (n < 0: powers of the inverse)."""
    _check_square(A, "linalg.matrix_power")
    if n == 0:
        xp = namespace(A._data)
        eye = Tensor._make(xp.broadcast_to(xp.eye(A.shape[-1], dtype=A._data.dtype), A.shape))
        r = A.clone(memory_format=_contig()).copy_(eye)
    elif n == 1:
        r = A.clone(memory_format=_contig())
    else:
        a = A
        if n < 0:
            a = inv(A)
            n = -n
        if n == 1:
            r = a
        elif n == 2:
            r = _matmul(a, a)
        elif n == 3:
            r = _matmul(_matmul(a, a), a)
        else:
            z = r = None
            while n > 0:   # binary decomposition of n, lowest bit first
                bit, n = n % 2, n // 2
                z = a if z is None else _matmul(z, z)
                if bit:
                    r = z if r is None else _matmul(r, z)
    return r if out is None else write_out(out, r)


def _contig():
    from ._tensor import contiguous_format
    return contiguous_format


# ====================================================================== norms
# vector_norm is ops/reduction.py's (torch.norm's too): one op in one place

class _Amax(ArrayFunction):
    """out = max over dim;   gx = g shared evenly among the maxima"""
    node_name = "AmaxBackward0"
    _reduce = "max"

    @classmethod
    def forward(cls, ctx, x, dim, keepdim):
        ctx.dim, ctx.keepdim = dim, keepdim
        xp = namespace(x)
        r = xp.asarray(getattr(xp, cls._reduce)(x, axis=dim, keepdims=keepdim))
        ctx.save_for_backward(x, r)
        return r

    @staticmethod
    def backward(ctx, g):
        x, r = ctx.saved_tensors
        if not ctx.keepdim:
            g, r = g.unsqueeze(ctx.dim), r.unsqueeze(ctx.dim)
        mask = x == r
        return (g / mask.sum(ctx.dim, True)) * mask, None, None


class _Amin(_Amax):
    node_name = "AminBackward0"
    _reduce = "min"


def _backshift(d0, d1, ndim):
    return [i for i in range(ndim) if i not in (d0, d1)] + [d0, d1]


def _inverse_perm(perm):
    return [i for i, _ in sorted(enumerate(perm), key=lambda t: t[1])]


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    _check_matrix(A, "linalg.matrix_norm")
    nd = A._data.ndim
    if isinstance(dim, numbers.Integral):
        raise TypeError("linalg_matrix_norm() received an invalid combination of arguments - got (Tensor, dim=int)")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    d0, d1 = wrap_dim(dim[0], nd), wrap_dim(dim[1], nd)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    _check_norm_dtype(dtype, A.dtype, "linalg.matrix_norm")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        _check_float(A, "linalg.matrix_norm")
        if ord == "fro":
            r = vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
        else:
            _check_low_precision(A, "linalg.matrix_norm")
            if dtype is not None:
                A = A.to(dtype)
            perm = _backshift(d0, d1, nd)
            r = svdvals(A.permute(tuple(perm))).sum(-1, keepdim)
            if keepdim:
                r = r.unsqueeze(-1).permute(tuple(_inverse_perm(perm)))
        return r if out is None else write_out(out, r)
    abs_ord = abs(ord)
    if abs_ord not in (2, 1, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_scalar_word(ord)} not supported.")
    _check_float(A, "linalg.matrix_norm")
    reduce = _Amax if ord > 0 else _Amin

    def max_min(x, d):
        if x.shape[d] == 0 and ord > 0:
            shape = list(x.shape)
            if keepdim:
                shape[d] = 1
            else:
                del shape[d]
            return x.new_zeros(shape)
        return reduce.apply(x, wrap_dim(d, x.ndim), keepdim)
    if abs_ord == 2:
        _check_low_precision(A, "linalg.matrix_norm")
        if dtype is not None:
            A = A.to(dtype)
        perm = _backshift(d0, d1, nd)
        r = max_min(svdvals(A.permute(tuple(perm))), -1)
        if keepdim:
            r = r.unsqueeze(-1).permute(tuple(_inverse_perm(perm)))
    else:
        if abs_ord == math.inf:
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        r = max_min(vector_norm(A, 1.0, d0, keepdim, dtype=dtype), d1)
    return r if out is None else write_out(out, r)


def _dims_word(dims):
    if isinstance(dims, numbers.Integral):
        return str(dims)
    return "[" + ", ".join(str(d) for d in dims) + "]"


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    if dim is not None:
        if isinstance(dim, numbers.Integral):
            dim = (dim,)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                               f"{_dims_word(dim)}")
    elif ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A._data.ndim}D.")
    if isinstance(ord, str):
        r = matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    elif ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and A._data.ndim == 2)):
        r = matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    else:
        r = vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)
    return r if out is None else write_out(out, r)


# ====================================================================== triangular solves

def _substitute(xp, A, B, upper, unitriangular):
    """X with A X = B for triangular A: back substitution (upper) or forward substitution (lower), one row
    of X per step, vectorised over the batch and B's columns.  A zero on A's diagonal gives inf/nan, as LAPACK's
    trsm does (no error)."""
    n = A.shape[-1]
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = xp.broadcast_to(A, batch + A.shape[-2:])
    X = xp.array(xp.broadcast_to(B, batch + B.shape[-2:]), dtype=np.result_type(A.dtype, B.dtype), copy=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (range(n - 1, -1, -1) if upper else range(n)):
            done = slice(i + 1, n) if upper else slice(0, i)    # the rows of X already known
            X[..., i, :] -= (A[..., i, done, None] * X[..., done, :]).sum(-2)
            if not unitriangular:
                X[..., i, :] /= A[..., i, i, None]
    return X


class LinalgSolveTriangular(ArrayFunction):
    """X = A^-1 B (left) or B A^-1 (right), A triangular;   gB = A^-H g (resp. g A^-H),
    gA = -gB X^H (resp. -X^H gB), kept to A's triangle (without the diagonal when it is taken as ones)"""
    node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx, A, B, upper, left, unitriangular):
        ctx.upper, ctx.left, ctx.unitriangular = upper, left, unitriangular
        xp = namespace(A, B)
        if left:
            X = _substitute(xp, A, B, upper, unitriangular)
        else:   # X A = B  <=>  A^T X^T = B^T
            X = xp.swapaxes(_substitute(xp, xp.swapaxes(A, -1, -2), xp.swapaxes(B, -1, -2), not upper,
                                        unitriangular), -1, -2)
        X = xp.ascontiguousarray(X)
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.upper, ctx.left, ctx.unitriangular
        gB = solve_triangular(_mH(A), g, upper=not upper, left=left, unitriangular=unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = -_matmul(gB, _mH(X)) if left else -_matmul(_mH(X), gB)
            k = 1 if unit else 0
            gA = gA.triu(k) if upper else gA.tril(-k)
        return gA, (gB if ctx.needs_input_grad[1] else None), None, None, None


def solve_triangular(A, B, *, upper=None, left=True, unitriangular=False, out=None):
    """X with A X = B (``left=False``: X A = B) for a triangular A: only A's triangle named by ``upper`` is
    read (and not its diagonal when ``unitriangular``).  ``upper`` has no default."""
    if upper is None:   # (PyTorch's argument parser words it so)
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    fn = "linalg.solve_triangular"
    if B._data.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    _check_square(A, fn)
    n = A._data.shape[-1]
    Bs = B._data.shape
    if (Bs[-2] if left else Bs[-1]) != n:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                           f"({n}x{n} and {Bs[-2]}x{Bs[-1]})")
    if not is_inexact_np(A._data.dtype):
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_type_word(A._data.dtype)}'")
    _check_low_precision(A, fn, "triangular_solve_cpu")
    if B._data.dtype != A._data.dtype:   # (PyTorch computes in A's dtype, whatever B's)
        B = B.to(A.dtype)
    X = LinalgSolveTriangular.apply(A, B, upper, left, unitriangular)
    return X if out is None else write_out(out, X)


class CholeskySolve(ArrayFunction):
    """X = A^-1 B for A = L L^H (``upper``: A = U^H U), given the factor: two triangular solves (LAPACK's potrs);
    gB = A^-1 g (a cholesky_solve again),  gL = -(gB X^H + X gB^H) L  (upper: -U (gB X^H + X gB^H)).  PyTorch's
    formula: the factor's gradient is a full matrix, not kept to its triangle."""
    node_name = "CholeskySolveBackward0"

    @staticmethod
    def forward(ctx, B, F, upper):
        xp = namespace(B, F)
        low = xp.conj(xp.swapaxes(F, -1, -2)) if upper else F
        Y = _substitute(xp, low, B, False, False)
        X = xp.ascontiguousarray(_substitute(xp, xp.conj(xp.swapaxes(low, -1, -2)), Y, True, False))
        ctx.upper = upper
        ctx.save_for_backward(F, X)
        return X

    @staticmethod
    def backward(ctx, g):
        F, X = ctx.saved_tensors
        gB = CholeskySolve.apply(g, F, ctx.upper)
        common = gB @ X.mH
        common = common + common.mH
        return gB, -(F @ common) if ctx.upper else -(common @ F), None


# ====================================================================== LU

linalg_lu = _rt("linalg_lu", ["P", "L", "U"])
linalg_lu_factor = _rt("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = _rt("linalg_lu_factor_ex", ["LU", "pivots", "info"])
lu_unpack_result = _rt("lu_unpack", ["P", "L", "U"])


def _getrf(A):
    """LAPACK getrf: Gaussian elimination with partial pivoting, in A's dtype, vectorised over the batch (the
    loop is over the min(m, n) columns).  Returns (LU, pivots, info): L's multipliers below the diagonal and U
    on and above it in one matrix; pivots[j] = the (1-based) row swapped with row j + 1 at step j; info = 1 + the
    column of the first zero pivot (0: none)."""
    xp = namespace(A)
    a = xp.array(A, copy=True).reshape((-1,) + A.shape[-2:])
    b, m, n = a.shape
    k = min(m, n)
    pivots = xp.zeros((b, k), dtype=np.int32)
    info = xp.zeros(b, dtype=np.int32)
    rows = xp.arange(b)
    for j in range(k):
        col = a[:, j:, j]
        size = xp.abs(col.real) + xp.abs(col.imag) if col.dtype.kind == "c" else xp.abs(col)  # (LAPACK's i?amax)
        piv = j + xp.argmax(size, axis=1)                  # the first largest entry
        pivots[:, j] = piv + 1
        a[rows, j], a[rows, piv] = a[rows, piv].copy(), a[rows, j].copy()
        p = a[:, j, j]
        zero = p == 0
        info[zero & (info == 0)] = j + 1
        f = a[:, j + 1:, j] / xp.where(zero, 1, p)[:, None]   # (a zero pivot's column is all zeros: left as is)
        a[:, j + 1:, j] = f
        a[:, j + 1:, j + 1:] -= f[:, :, None] * a[:, j:j + 1, j + 1:]
    return a.reshape(A.shape), pivots.reshape(A.shape[:-2] + (k,)), info.reshape(A.shape[:-2])


def _permutation(xp, pivots, m, dtype):
    """P (m x m) with A = P L U, from getrf's row swaps."""
    batch = pivots.shape[:-1]
    perm = xp.broadcast_to(xp.arange(m), batch + (m,)).reshape(-1, m).copy()
    piv = pivots.reshape(-1, pivots.shape[-1]).astype(np.int64) - 1
    rows = xp.arange(perm.shape[0])
    for j in range(piv.shape[-1]):   # replay the swaps: perm[i] = which row of A is row i of P^T A
        pj = piv[:, j]
        perm[rows, j], perm[rows, pj] = perm[rows, pj].copy(), perm[rows, j].copy()
    P = xp.zeros((perm.shape[0], m, m), dtype=dtype)
    P[rows[:, None], perm, xp.arange(m)[None, :]] = 1
    return P.reshape(batch + (m, m))


def _unpack_lu(LU):
    """L (unit lower, m x k) and U (upper, k x n) out of a packed LU (Tensor ops: differentiable)."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = LU.narrow(-1, 0, k).tril(-1) + _eye_rect(m, k, LU)
    U = LU.narrow(-2, 0, k).triu()
    return L, U


def _eye_rect(m, k, like):
    return Tensor._make(namespace(like._data).eye(m, k, dtype=like._data.dtype))


def _lu_backward(gL, gU, P, L, U):
    """gA from gL and gU for A = P L U (PyTorch's linalg_lu_backward; m x n with k = min(m, n))."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    if m == n:   # gA = P L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H
        phi = None
        if gL is not None:
            phi = _matmul(_mH(L), gL).tril(-1)
        if gU is not None:
            t = _matmul(gU, _mH(U)).triu()
            phi = t if phi is None else phi + t
        gA = solve_triangular(_mH(U), phi, upper=False, left=False)
        gA = solve_triangular(_mH(L), gA, upper=True, unitriangular=True)
    elif m < n:  # wide: U = [U1 U2] with U1 square
        U1 = U.narrow(-1, 0, k)
        phi = _matmul(_mH(L), gL) if gL is not None else None
        if gU is not None:
            t = _matmul(gU.triu(), _mH(U))
            phi = -t if phi is None else phi - t
        gA = solve_triangular(_mH(U1), phi.tril(-1), upper=False, left=False)
        if gU is not None:
            from .ops.join import cat
            gA = cat([gA + gU.narrow(-1, 0, k).triu(), gU.narrow(-1, k, n - k)], -1)
        gA = solve_triangular(_mH(L), gA, upper=True, unitriangular=True)
        if gU is None:
            from .ops.join import cat
            from .ops.creation import zeros_like
            gA = cat([gA, zeros_like(U.narrow(-1, k, n - k))], -1)
    else:        # tall: L = [L1; L2] with L1 square
        from .ops.join import cat
        L1 = L.narrow(-2, 0, k)
        if gL is not None:   # (L1's diagonal and upper triangle are constants: what arrives there counts for nothing)
            gL = cat([gL.narrow(-2, 0, k).tril(-1), gL.narrow(-2, k, m - k)], -2)
        phi = _matmul(gU, _mH(U)) if gU is not None else None
        if gL is not None:
            t = _matmul(_mH(L), gL)
            phi = -t if phi is None else phi - t
        gA = solve_triangular(_mH(L1), phi.triu(), upper=True, unitriangular=True)
        if gL is not None:
            from .ops.join import cat
            gA = cat([gA + gL.narrow(-2, 0, k).tril(-1), gL.narrow(-2, k, m - k)], -2)
        gA = solve_triangular(_mH(U), gA, upper=False, left=False)
        if gL is None:
            from .ops.join import cat
            from .ops.creation import zeros_like
            gA = cat([gA, zeros_like(L.narrow(-2, k, m - k))], -2)
    return _matmul(P, gA) if P is not None else gA


class LinalgLu(ArrayFunction):
    """A = P L U;   gA = P L^-H [tril(L^H gL, -1) + triu(gU U^H)] U^-H (square; see _lu_backward for m != n)"""
    node_name = "LinalgLuBackward0"

    @staticmethod
    def forward(ctx, A, pivot):
        ctx.set_materialize_grads(False)
        xp = namespace(A)
        LU, pivots, _ = _getrf(A)
        m, n = A.shape[-2:]
        k = min(m, n)
        L = xp.tril(LU[..., :, :k], -1) + xp.eye(m, k, dtype=A.dtype)
        U = xp.ascontiguousarray(xp.triu(LU[..., :k, :]))
        P = _permutation(xp, pivots, m, A.dtype)
        ctx.save_for_backward(P, L, U)
        ctx.mark_non_differentiable(P)
        return P, L, U

    @staticmethod
    def backward(ctx, gP, gL, gU):
        if gL is None and gU is None:
            return None, None
        P, L, U = ctx.saved_tensors
        return _lu_backward(gL, gU, P, L, U), None


class LinalgLuFactorEx(ArrayFunction):
    """LU (L's multipliers and U packed in one matrix) and pivots;   the gradient as linalg.lu's, of the
    two triangles"""
    node_name = "LinalgLuFactorExBackward0"

    @staticmethod
    def forward(ctx, A, pivot):
        ctx.set_materialize_grads(False)
        LU, pivots, info = _getrf(A)
        ctx.save_for_backward(LU, pivots)
        ctx.mark_non_differentiable(pivots, info)
        return LU, pivots, info

    @staticmethod
    def backward(ctx, gLU, g_pivots=None, g_info=None):
        if gLU is None:
            return None, None
        LU, pivots = ctx.saved_tensors
        m, n = LU.shape[-2], LU.shape[-1]
        k = min(m, n)
        L, U = _unpack_lu(LU.detach())
        P = Tensor._make(_permutation(namespace(LU._data), pivots._data, m, LU._data.dtype))
        return _lu_backward(gLU.narrow(-1, 0, k).tril(-1), gLU.narrow(-2, 0, k).triu(), P, L, U), None


def _check_lu(A, fn, pivot=True):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(map(str, A._data.shape))}] instead")
    if not pivot:
        raise RuntimeError(f"{fn}: LU without pivoting is not implemented on the CPU")
    _check_float(A, fn)
    _check_low_precision(A, fn, "lu_cpu")


def lu(A, *, pivot=True, out=None):
    """A = P L U with P a permutation, L unit lower triangular (m x k), U upper triangular (k x n)."""
    _check_lu(A, "linalg.lu", pivot)
    r = linalg_lu(LinalgLu.apply(A, pivot))
    return r if out is None else write_out(out, r)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    _check_lu(A, "torch.linalg.lu_factor_ex", pivot)
    LU, pivots, info = LinalgLuFactorEx.apply(A, pivot)
    if check_errors:
        _raise_lu(info, "torch.linalg.lu_factor_ex")
    r = linalg_lu_factor_ex((LU, pivots, info))
    return r if out is None else write_out(out, r)


def _raise_lu(info, fn):
    if info._data.any():
        k, code = _first_failure(info._data)
        raise RuntimeError(f"{fn}: {_batch_prefix(info.shape, k)}U[{code},{code}] is zero and using it on lu_solve "
                           f"would result in a division by zero. If you still want to perform the factorization, "
                           f"consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def lu_factor(A, *, pivot=True, out=None):
    """The LU decomposition packed as LAPACK stores it: (LU, pivots), for ``lu_solve`` and ``lu_unpack``."""
    _check_lu(A, "torch.linalg.lu_factor", pivot)
    LU, pivots, info = LinalgLuFactorEx.apply(A, pivot)
    _raise_lu(info, "torch.linalg.lu_factor")
    r = linalg_lu_factor((LU, pivots))
    return r if out is None else write_out(out, r)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) out of ``lu_factor``'s packed form (L and U differentiable with respect to LU_data)."""
    from .ops.creation import empty
    m = LU_data.shape[-2]
    xp = namespace(LU_data._data)
    P = Tensor._make(_permutation(xp, LU_pivots._data, m, LU_data._data.dtype)) if unpack_pivots else \
        empty(0, dtype=LU_data.dtype, device=LU_data.device)
    if unpack_data:
        L, U = _unpack_lu(LU_data)
    else:
        L = empty(0, dtype=LU_data.dtype, device=LU_data.device)
        U = empty(0, dtype=LU_data.dtype, device=LU_data.device)
    r = lu_unpack_result((P, L, U))
    return r if out is None else write_out(out, r)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """X with A X = B (``left=False``: X A = B; ``adjoint``: A^H instead of A) from A's ``lu_factor``:
    two triangular solves and the row permutation, composed of differentiable ops."""
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:     # X = U^-1 L^-1 P^T B
        X = solve_triangular(U, solve_triangular(L, _matmul(P.mT, B), upper=False, unitriangular=True), upper=True)
    elif left:                   # A^H X = B:  X = P L^-H U^-H B
        X = _matmul(P, solve_triangular(_mH(L), solve_triangular(_mH(U), B, upper=False), upper=True,
                                        unitriangular=True))
    elif not adjoint:            # X A = B:  X = B U^-1 L^-1 P^T
        X = _matmul(solve_triangular(L, solve_triangular(U, B, upper=True, left=False), upper=False, left=False,
                                     unitriangular=True), P.mT)
    else:                        # X A^H = B:  X = B P L^-H U^-H
        X = solve_triangular(_mH(U), solve_triangular(_mH(L), _matmul(B, P), upper=True, left=False,
                                                      unitriangular=True), upper=False, left=False)
    return X if out is None else write_out(out, X)


# ====================================================================== LDL^T (Bunch-Kaufman)

linalg_ldl_factor = _rt("linalg_ldl_factor", ["LD", "pivots"])
linalg_ldl_factor_ex = _rt("linalg_ldl_factor_ex", ["LD", "pivots", "info"])

_BK_ALPHA = (1 + math.sqrt(17)) / 8   # Bunch-Kaufman's bound: it keeps the growth of L's entries in check


def _cabs1(v):
    """LAPACK's size of an entry for pivoting: |re| + |im| (|x| for real numbers)."""
    return abs(v.real) + abs(v.imag) if v.dtype.kind == "c" else abs(v)


def _sytf2(a):
    """LAPACK's ?sytf2 on the lower triangle of one symmetric matrix ``a`` (overwritten): A = P L D L^T P^T
    with D of 1x1 and 2x2 blocks.  Each step pivots on the diagonal entry when it is large enough against
    its column (no swap), else on another diagonal entry (a symmetric row/column swap), else on a 2x2
    block.  Returns (LD, pivots, info): L below the diagonal, D's blocks on it; pivots 1-based, negative for
    the two columns of a 2x2 block; info = 1 + the first zero column (0: none)."""
    xp = namespace(a)
    n = a.shape[0]
    pivots = xp.zeros(n, dtype=np.int32)
    info, k = 0, 0
    while k < n:
        step, kp = 1, k
        absakk = _cabs1(a[k, k])
        col = _cabs1(a[k + 1:, k])
        imax = k + 1 + int(xp.argmax(col)) if col.size else k
        absakk, colmax = float(absakk), float(col.max()) if col.size else 0.0   # (host numbers: they steer)
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            info = info or k + 1   # a zero (or NaN) column: recorded, left as it is
        else:
            if absakk < _BK_ALPHA * colmax:
                rowmax = float(_cabs1(a[imax, k:imax]).max())
                if imax < n - 1:
                    rowmax = max(rowmax, float(_cabs1(a[imax + 1:, imax]).max()))
                if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif float(_cabs1(a[imax, imax])) >= _BK_ALPHA * rowmax:
                    kp = imax
                else:
                    kp, step = imax, 2
            kk = k + step - 1
            if kp != kk:   # swap rows and columns kk and kp of the trailing (lower) matrix
                a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
                a[kk + 1:kp, kk], a[kp, kk + 1:kp] = a[kp, kk + 1:kp].copy(), a[kk + 1:kp, kk].copy()
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if step == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if step == 1 and k < n - 1:   # A22 -= x x^T / d (lower part), then x / d is L's column
                d11 = 1 / a[k, k]
                x = a[k + 1:, k].copy()
                a[k + 1:, k + 1:] += xp.tril(x[:, None] * (-d11 * x)[None, :])
                a[k + 1:, k] = x * d11
            elif step == 2 and k < n - 2:   # the same with the inverse of the 2x2 block, column by column
                d21 = a[k + 1, k]
                d11, d22 = a[k + 1, k + 1] / d21, a[k, k] / d21
                d21 = (1 / (d11 * d22 - 1)) / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                    wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                    a[j:, j] = a[j:, j] - a[j:, k] * wk - a[j:, k + 1] * wkp1
                    a[j, k], a[j, k + 1] = wk, wkp1
        pivots[k:k + step] = kp + 1 if step == 1 else -(kp + 1)
        k += step
    return xp.tril(a), pivots, info


class LinalgLdlFactorEx(ArrayFunction):
    """(LD, pivots, info) of each matrix's LDL^T factorization; PyTorch has no derivative for it"""
    node_name = "LinalgLdlFactorExBackward0"

    @staticmethod
    def forward(ctx, A):
        xp = namespace(A)
        outs = [_sytf2(m.copy()) for m in A.reshape((-1,) + A.shape[-2:])]   # (one matrix at a time)
        LD = xp.stack([o[0] for o in outs]).reshape(A.shape) if outs else A.copy()
        pivots = xp.stack([o[1] for o in outs]).reshape(A.shape[:-1]) if outs else \
            xp.zeros(A.shape[:-1], np.int32)
        info = xp.asarray([o[2] for o in outs], dtype=np.int32).reshape(A.shape[:-2])
        ctx.mark_non_differentiable(pivots, info)
        return LD, pivots, info

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


def _check_ldl(A, fn, hermitian):
    _check_square(A, fn)
    _check_float(A, fn)
    _check_low_precision(A, fn, "ldl_factor_kernel_cpu")
    if hermitian and A._data.dtype.kind == "c":
        raise NotImplementedError(f"pedatorch: {fn}(hermitian=True) of complex matrices (LAPACK's ?hetrf) is not "
                                  f"implemented; a real symmetric matrix is the same either way")


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """LAPACK's Bunch-Kaufman LDL^T factorization of symmetric matrices (the lower triangle is read), with
    ``info`` per matrix (1 + the first zero column of D, 0 when none)."""
    _check_ldl(A, "torch.linalg.ldl_factor_ex", hermitian)
    LD, pivots, info = LinalgLdlFactorEx.apply(A)
    if check_errors and info._data.any():
        raise RuntimeError(f"torch.linalg.ldl_factor_ex: Unknown error code: {int(info._data.max())}.")
    r = linalg_ldl_factor_ex((LD, pivots, info))
    return r if out is None else write_out(out, r)


def ldl_factor(A, *, hermitian=False, out=None):
    """(LD, pivots) of ``ldl_factor_ex``; a singular D is refused."""
    _check_ldl(A, "torch.linalg.ldl_factor_ex", hermitian)   # (PyTorch checks in the _ex it calls)
    LD, pivots, info = LinalgLdlFactorEx.apply(A)
    if info._data.any():   # (PyTorch 2.13 reports this through an internal assert)
        raise RuntimeError(f"torch.linalg.ldl_factor: Unknown error code: {int(info._data.max())}.")
    r = linalg_ldl_factor((LD, pivots))
    return r if out is None else write_out(out, r)


def _sytrs(a, pivots, b):
    """LAPACK's ?sytrs (lower): solve A X = B with ?sytf2's factors, B (n, k) overwritten: first L D Y = P^T B
    (forward, with each pivot's swap), then L^T P^T X = Y (backward, swaps undone)."""
    n = a.shape[0]
    pivots = [int(p) for p in pivots]   # (host numbers: they steer the loop)
    k = 0
    while k < n:
        if pivots[k] > 0:
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= a[k + 1:, k, None] * b[k]
            b[k] = b[k] / a[k, k]
            k += 1
        else:
            kp = -pivots[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= a[k + 2:, k, None] * b[k]
            b[k + 2:] -= a[k + 2:, k + 1, None] * b[k + 1]
            akm1k = a[k + 1, k]
            akm1, ak = a[k, k] / akm1k, a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:
        if pivots[k] > 0:
            b[k] -= a[k + 1:, k] @ b[k + 1:]
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= a[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= a[k + 1:, k - 1] @ b[k + 1:]
            kp = -pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


class LinalgLdlSolve(ArrayFunction):
    """X with A X = B from A's LDL^T factors (no derivative, as in PyTorch)"""
    node_name = "LinalgLdlSolveBackward0"

    @staticmethod
    def forward(ctx, LD, pivots, B):
        xp = namespace(LD)
        batch = np.broadcast_shapes(LD.shape[:-2], B.shape[:-2])
        each = [xp.broadcast_to(v, batch + v.shape[-k:]).reshape((-1,) + v.shape[-k:])
                for v, k in ((LD, 2), (pivots, 1), (B, 2))]
        X = [_sytrs(a, p, b.copy()) for a, p, b in zip(*each)]
        return (xp.stack(X) if X else each[2].copy()).reshape(batch + B.shape[-2:])

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """X with A X = B, from ``ldl_factor``'s (LD, pivots)."""
    fn = "torch.linalg.ldl_solve"
    _check_square(LD, fn, "LD")
    if B._data.ndim < 2:
        raise RuntimeError(f"{fn}: Expected B to have at least 2 dimensions, but it has {B._data.ndim} dimensions "
                           "instead")
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {_type_word(pivots._data.dtype)}")
    if LD._data.dtype != B._data.dtype:
        raise RuntimeError(f"{fn}: Expected LD and B to have the same dtype, but got LD with dtype "
                           f"{_type_word(LD._data.dtype)} and B with dtype {_type_word(B._data.dtype)} instead")
    n = LD._data.shape[-1]
    if B._data.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is {n} by {n} but each b matrix is "
                           f"{B._data.shape[-2]} by {B._data.shape[-1]}")
    if hermitian and LD._data.dtype.kind == "c":
        raise NotImplementedError(f"pedatorch: {fn}(hermitian=True) of complex matrices (LAPACK's ?hetrs) is not "
                                  f"implemented")
    r = LinalgLdlSolve.apply(LD, pivots, B)
    return r if out is None else write_out(out, r)


# ====================================================================== matrix exponential

def _expm(xp, A):
    """exp(A) by scaling and squaring with a [13/13] Pade approximant (Higham 2005), computed in double
    precision and rounded once to A's dtype."""
    work = np.result_type(A.dtype, np.float64)
    if A.size == 0:
        return xp.ascontiguousarray(A.copy())   # (exp of a 0 x 0 matrix, or of no matrices)
    a = A.astype(work).reshape((-1,) + A.shape[-2:])
    n = a.shape[-1]
    b = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
         10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.)
    norm1 = xp.abs(a).sum(-2).max(-1)
    with np.errstate(divide="ignore"):
        s = xp.maximum(0, xp.ceil(xp.log2(norm1 / 5.371920351148152))).astype(np.int64)
    s = xp.where(xp.isfinite(norm1), s, 0)
    a = a / (2.0 ** s)[:, None, None]
    eye = xp.eye(n, dtype=work)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    with np.errstate(all="ignore"):
        r = xp.linalg.solve(v - u, v + u)
        for i in range(int(s.max())):   # square back up, each matrix its own number of times
            r = xp.where((i < s)[:, None, None], r @ r, r)
    return xp.ascontiguousarray(r.reshape(A.shape).astype(A.dtype))


class LinalgMatrixExp(ArrayFunction):
    """E = exp(A);   gA = the top-right block of exp([[A^H, g], [0, A^H]]) (a matrix_exp of twice the size)"""
    node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return _expm(namespace(A), A)

    @staticmethod
    def backward(ctx, g):
        A, = ctx.saved_tensors
        from .ops.join import cat
        from .ops.creation import zeros_like
        n = A.shape[-1]
        Ah = _mH(A)
        block = cat([cat([Ah, g], -1), cat([zeros_like(A), Ah], -1)], -2)
        return matrix_exp(block).narrow(-2, 0, n).narrow(-1, n, n)


def matrix_exp(A):
    """The matrix exponential sum_k A^k / k!."""
    _check_square(A, "linalg.matrix_exp")
    _check_float(A, "linalg.matrix_exp")
    _check_low_precision(A, "linalg.matrix_exp", "linalg_matrix_exp_cpu")
    return LinalgMatrixExp.apply(A)


# ====================================================================== eig

linalg_eig = _rt("linalg_eig", ["eigenvalues", "eigenvectors"])


def _complex_of(npdt):
    return np.result_type(npdt, np.complex64)


class LinalgEig(ArrayFunction):
    """A = V diag(L) V^-1 (complex);   gA = V^-H [diag(gL) + (V^H gV - V^H V Re diag(V^H gV)) / conj(E)] V^H,
    E_ij = L_j - L_i (the real part of that for a real A)"""
    node_name = "LinalgEigBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.set_materialize_grads(False)
        xp = namespace(A)
        w, V = _eig_kernel(A)
        ct = _complex_of(A.dtype)
        w, V = xp.ascontiguousarray(w.astype(ct)), xp.ascontiguousarray(V.astype(ct))
        ctx.real_input = A.dtype.kind != "c"
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx, gL, gV):
        if gL is None and gV is None:
            return None
        L, V = ctx.saved_tensors
        n = L.shape[-1]
        xp = namespace(V._data)
        eye = Tensor._make(xp.eye(n, dtype=V._data.dtype))
        Vh = _mH(V)
        if gV is not None:
            VhgV = _matmul(Vh, gV)
            diag = VhgV.diagonal(0, -2, -1)
            if bool(xp.any(xp.abs(diag.imag._data) > 1e-2 * (1 + xp.abs(diag._data)))):  # (a device read)
                raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case are specified up to "
                                   "multiplication by e^{i phi}. The specified loss function depends on this quantity, "
                                   "so it is ill-defined.")
            VhgV = VhgV - _matmul(Vh, V * diag.real.unsqueeze(-2))
            Lc = L.conj()
            E = Lc.unsqueeze(-2) - Lc.unsqueeze(-1) + eye       # (1 on the diagonal: no division there)
            M = (VhgV / E) * (1 - eye)
            if gL is not None:
                M = M + gL.unsqueeze(-1) * eye
        else:
            M = gL.unsqueeze(-1) * eye
        gA = solve(Vh, _matmul(M, Vh))
        return gA.real if ctx.real_input else gA


def _check_eig(A, fn):
    _check_square(A, fn)
    _check_float(A, fn)
    _check_low_precision(A, fn, "linalg_eig_out_cpu")
    if A._data.size and not bool(namespace(A._data).isfinite(A._data).all()):
        raise RuntimeError(f"{fn}: input tensor should not contain infs or NaNs.")


def eig(A, *, out=None):
    """Eigenvalues and (unit-norm) eigenvectors of a general square matrix, complex (LAPACK geev, as PyTorch)."""
    _check_eig(A, "torch.linalg.eig")
    r = linalg_eig(LinalgEig.apply(A))
    return r if out is None else write_out(out, r)


def eigvals(A, *, out=None):
    _check_eig(A, "torch.linalg.eigvals")
    w = LinalgEig.apply(A)[0]
    return w if out is None else write_out(out, w)


# ====================================================================== composites

def _cond_empty(A):
    """NumPy leaves cond of a 0 x 0 matrix undefined; PyTorch returns 0 (in the real dtype)."""
    from .ops.creation import zeros
    return zeros(A.shape[:-2], dtype=A.real.dtype if A.is_complex() else A.dtype, device=A.device)


def _cond_check_ord(p):
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    elif abs(p) not in (1, 2, math.inf):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {float(p):g}")


def _cond_by_inverse(A, p):
    """||A|| ||A^-1||, as ATen computes it: a singular matrix's inverse reads as all inf, and 0 * inf (a zero
    matrix) as inf."""
    inverse, info = inv_ex(A)
    inverse = inverse.masked_fill((info > 0).unsqueeze(-1).unsqueeze(-1), math.inf)
    r = matrix_norm(A, p) * matrix_norm(inverse, p)
    return r.nan_to_num(math.inf, math.inf, -math.inf)


def cond(A, p=None, *, out=None):
    """The condition number ||A|| ||A^-1||: for p in (None, 2, -2) the ratio of the extreme singular values,
    for "nuc" sum(s) * sum(1 / s); for "fro", 1, -1, inf and -inf the norms of A and of its inverse.
    The checks come in ATen's order: a named norm wants a square A first."""
    if isinstance(p, str):
        _check_square(A, f"linalg.cond(ord={p})")
        _cond_check_ord(p)
        if A.numel() == 0:
            r = _cond_empty(A)
        elif p == "nuc":   # (from the singular values: matrix_norm of an inverse holding inf would fail)
            s = svdvals(A)
            r = s.sum(-1) * s.reciprocal().sum(-1)
        else:
            r = _cond_by_inverse(A, p)
        return r if out is None else write_out(out, r)
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    p = 2 if p is None else p
    _cond_check_ord(p)
    if A.numel() == 0:
        r = _cond_empty(A)
    elif abs(p) == 2:
        s = svdvals(A)   # (descending)
        first, last = s.narrow(-1, 0, 1), s.narrow(-1, s.shape[-1] - 1, 1)
        r = (first / last if p == 2 else last / first).squeeze(-1)
    else:
        # ATen words the order as C++ prints a double ("1.000000", "inf") or an integer
        word = str(p) if isinstance(p, numbers.Integral) else f"{p:f}"
        _check_square(A, f"linalg.cond(ord={word})")
        r = _cond_by_inverse(A, p)
    return r if out is None else write_out(out, r)


def vander(x, *, N=None):
    """Columns 1, x, x^2, ..., x^(N-1) (increasing powers), as cumulative products."""
    from .ops.join import cat
    from .ops.reduction import cumprod
    shape = list(x.shape)
    n = N if N is not None else (shape[-1] if shape else 0)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(x.unsqueeze(-1).expand(*shape, n - 1), -1)
    return cat([powers.new_ones(*shape, 1), powers], -1)


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A for ``tensordot(A, X, ind)``: A reshaped to a square matrix, inverted, reshaped back."""
    if not (isinstance(ind, numbers.Integral) and ind > 0):
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    r = inv(A.reshape(rows, cols)).reshape(*shape[ind:], *shape[:ind])
    return r if out is None else write_out(out, r)


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B: A reshaped to a square matrix, ``solve``, reshaped back."""
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in dims], *dims)
    shape = tuple(A.shape)
    result_shape = shape[B.ndim:]
    rows, cols = math.prod(shape[:B.ndim]), math.prod(result_shape)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    r = solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*result_shape)
    return r if out is None else write_out(out, r)


def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^H with v_i = (0, ..., 0, 1, A[i+1:, i])
    (the Q of a QR decomposition from geqrf's packed reflectors), as differentiable matrix products."""
    fn = "torch.linalg.householder_product"
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A._data.dtype != tau._data.dtype:
        raise RuntimeError(f"{fn}: tau dtype {_type_word(tau._data.dtype)} does not match input dtype "
                           f"{_type_word(A._data.dtype)}")
    below = A.tril(-1) + _eye_rect(m, n, A)   # the reflectors' vectors as columns, with their leading 1
    Q = _eye_rect(m, n, A).expand(*A.shape[:-2], m, n)
    for i in range(tau.shape[-1] - 1, -1, -1):   # Q = H_i Q, the last reflector first
        v = below.narrow(-1, i, 1)
        t = tau.narrow(-1, i, 1).unsqueeze(-1)
        Q = Q - _matmul(v * t, _matmul(_mH(v), Q))
    return Q if out is None else write_out(out, Q)


__all__ += ["solve_triangular", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matrix_exp", "eig", "eigvals",
            "cond", "vander", "tensorinv", "tensorsolve", "householder_product"]


class Geqrf(ArrayFunction):
    """QR in LAPACK's packed form: R on and above the diagonal, the Householder vectors below it, and tau
    (numpy's ``qr(mode="raw")``).  No derivative, as in PyTorch."""
    node_name = "GeqrfBackward0"

    @staticmethod
    def forward(ctx, A):
        xp = namespace(A)
        h, tau = xp.linalg.qr(A, mode="raw")    # (h is the packed matrix transposed: LAPACK's column order)
        return xp.ascontiguousarray(xp.swapaxes(h, -1, -2)), xp.ascontiguousarray(tau)

    @staticmethod
    def backward(ctx, ga, gtau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")
