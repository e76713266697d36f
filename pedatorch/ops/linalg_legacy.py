"""The top-level (older) linear-algebra API: ``torch.det``, ``torch.inverse``, ``torch.svd``, ...

They are thin wrappers over ``pedatorch.linalg``, with the older functions' argument
conventions (``svd(some=True)`` returns V, not Vh; ``cholesky(upper=False)``).
"""
from .. import linalg as L
from ._util import register

__all__ = ["det", "logdet", "slogdet", "inverse", "pinverse", "matrix_power", "svd", "qr", "cholesky",
           "cholesky_solve", "cholesky_inverse"]


def det(input):
    return L.det(input)


def logdet(input):
    sign, logabs = L.slogdet(input)
    if input.is_complex():
        return logabs + sign.log()
    from .elementwise import where
    return where(sign < 0, float("nan"), logabs)  # the log of a negative determinant is nan


def slogdet(input):
    return L.slogdet(input)


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
    """Solve A X = B given A's Cholesky factor."""
    Lf = L_.mH if upper else L_
    y = L.solve(Lf, B)
    return L.solve(Lf.mH, y)


def cholesky_inverse(L_, upper=False, *, out=None):
    Lf = L_.mH if upper else L_
    return L.inv(Lf @ Lf.mH)


register({"det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse, "pinverse": pinverse,
          "matrix_power": matrix_power, "svd": svd, "qr": qr, "cholesky": cholesky,
          "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse})
