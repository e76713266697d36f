"""The top-level (older) linear-algebra API: ``torch.det``, ``torch.inverse``, ``torch.svd``, ...

They are thin wrappers over ``pedatorch.linalg``, with the older functions' argument
conventions (``svd(some=True)`` returns V, not Vh; ``cholesky(upper=False)``).
"""
from .._warnings import user_stacklevel
from .. import linalg as L
from . import reduction as _reduction
from ._util import register, write_out, _type_word
from .sorting import _return_type

__all__ = ["det", "logdet", "slogdet", "inverse", "pinverse", "matrix_power", "svd", "qr", "cholesky",
           "cholesky_solve", "cholesky_inverse", "matrix_exp", "lu", "lu_solve", "lu_unpack", "triangular_solve",
           "geqrf", "orgqr", "ormqr", "norm"]


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: the nuclear norm (``p='nuc'``) is a matrix norm, over all dims when none are given (so the
    input must be a matrix); every other ``p`` is a vector norm (ops/reduction.py)."""
    if isinstance(p, str) and p == "nuc":
        r = L.matrix_norm(input, "nuc", list(range(input.dim())) if dim is None else dim, keepdim, dtype=dtype)
        return r if out is None else write_out(out, r)
    return _reduction.norm(input, p, dim, keepdim, out=out, dtype=dtype)


def det(input):
    return L.det(input)


def logdet(input):
    sign, logabs = L.slogdet(input)
    if input.is_complex():
        return logabs + sign.log()
    from .elementwise import where
    return where(sign < 0, float("nan"), logabs)  # the log of a negative determinant is nan


_slogdet = _return_type("slogdet", ("sign", "logabsdet"))


def slogdet(input, *, out=None):
    """``torch.slogdet``: ``linalg.slogdet``'s values, under the older name (``torch.return_types.slogdet``)."""
    return _slogdet(tuple(L.slogdet(input, out=out)))


def inverse(input, *, out=None):
    return L.inv(input, out=out)


def pinverse(input, rcond=1e-15):
    return L.pinv(input, rtol=rcond)


def matrix_power(input, n):
    return L.matrix_power(input, n)


def svd(input, some=True, compute_uv=True, *, out=None):
    """U, S, V with A = U diag(S) V^H (note V, not Vh); ``some=False`` gives full U and V."""
    if not compute_uv:
        S = L.svdvals(input)
        from .creation import zeros
        m, n = input.shape[-2], input.shape[-1]
        return _svd_result(zeros(*input.shape[:-2], m, m if not some else min(m, n), dtype=input.dtype), S,
                           zeros(*input.shape[:-2], n, n if not some else min(m, n), dtype=input.dtype))
    U, S, Vh = L.svd(input, full_matrices=not some)
    return _svd_result(U, S, Vh.mH)


def _svd_result(U, S, V):
    from .sorting import return_types, _return_type
    cls = getattr(return_types, "svd", None) or _return_type("svd", ("U", "S", "V"))
    return cls((U, S, V))


def qr(input, some=True, *, out=None):
    Q, R = L.qr(input, mode="reduced" if some else "complete")
    from .sorting import return_types, _return_type
    cls = getattr(return_types, "qr", None) or _return_type("qr", ("Q", "R"))
    return cls((Q, R))


def cholesky(input, upper=False, *, out=None):
    return L.cholesky(input, upper=upper, out=out)


def cholesky_solve(B, L_, upper=False, *, out=None):
    """Solve A X = B given A's Cholesky factor (lower L: A = L L^H; upper U: A = U^H U): two triangular solves."""
    if B.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.dim()} dimensions instead")
    if L_.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L_.dim()} dimensions instead")
    if B.dtype is not L_.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_type_word(B._data.dtype)} "
                           f"and A of type {_type_word(L_._data.dtype)} instead.")
    x = L.CholeskySolve.apply(B, L_, bool(upper))
    return x if out is None else write_out(out, x)


def cholesky_inverse(L_, upper=False, *, out=None):
    Lf = L_.mH if upper else L_
    return L.inv(Lf @ Lf.mH)


def matrix_exp(A):
    return L.matrix_exp(A)


def lu(A, pivot=True, get_infos=False, out=None):
    """(LU, pivots[, infos]): ``linalg.lu_factor_ex`` under its older name."""
    LU, pivots, infos = L.lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    return L.lu_solve(LU_data, LU_pivots, b, out=out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    return L.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots, out=out)


_warned = set()


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """(solution, cloned_coefficient) of A X = b (A^T X = b with ``transpose``): the older linalg.solve_triangular."""
    if "triangular_solve" not in _warned:   # (once per process, as PyTorch's TORCH_WARN_ONCE)
        _warned.add("triangular_solve")
        import warnings
        warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
                      "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
                      "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
                      "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).", UserWarning,
                      stacklevel=user_stacklevel())
    M = A.mT if transpose else A
    X = L.solve_triangular(M, b, upper=upper != transpose, unitriangular=unitriangular)
    from .sorting import return_types, _return_type
    cls = getattr(return_types, "triangular_solve", None) or _return_type("triangular_solve",
                                                                          ("solution", "cloned_coefficient"))
    return cls((X, A.clone()))


def geqrf(input, *, out=None):
    from .sorting import return_types, _return_type
    cls = getattr(return_types, "geqrf", None) or _return_type("geqrf", ("a", "tau"))
    return cls(L.Geqrf.apply(input))


def orgqr(input, tau):
    return L.householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """Q @ other (``left``; other @ Q otherwise), Q^H with ``transpose``: Q the full m x m product of the
    Householder reflectors in geqrf's packed ``input``."""
    from .creation import zeros
    from .join import cat
    m, n = input.shape[-2], input.shape[-1]
    square = input if m == n else cat([input, zeros(*input.shape[:-1], m - n, dtype=input.dtype)], -1) if m > n \
        else input.narrow(-1, 0, m)
    Q = L.householder_product(square, tau)
    if transpose:
        Q = Q.mH
    return Q @ other if left else other @ Q


register({"det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse, "pinverse": pinverse,
          "matrix_power": matrix_power, "svd": svd, "qr": qr, "cholesky": cholesky,
          "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse, "matrix_exp": matrix_exp,
          "lu": lu, "lu_solve": lu_solve, "triangular_solve": triangular_solve, "geqrf": geqrf, "orgqr": orgqr,
          "ormqr": ormqr, "norm": norm})
