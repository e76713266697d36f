"""The multivariate normal distribution N(loc, Sigma)."""
import math

from .. import linalg
from .._tensor import Size
from ..ops.creation import eye
from ..ops.linalg import matmul
from ..ops.linalg_legacy import cholesky_inverse
from ..ops.manip import flip
from ..ops.shape import broadcast_shapes, transpose
from . import constraints
from .distribution import Distribution
from .utils import _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


def _solve_lower(L, B):
    """X with L X = B for lower-triangular L (batch dims broadcast): ``linalg.solve_triangular``, as PyTorch's
    distributions solve; it reads (and sends gradients to) the lower triangle only."""
    return linalg.solve_triangular(L, B, upper=False)


def _batch_mv(bmat, bvec):
    """Matrix-vector products M v over broadcast batch dims: (..., n, n) x (..., n) -> (..., n)."""
    return matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """The squared Mahalanobis distance x^T M^-1 x for M = L L^T: ||L^-1 x||^2 (batch dims broadcast)."""
    return _solve_lower(bL, bx.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def _batch_trace_XXT(bmat):
    """trace(X X^T) = the sum of the squared entries of X, for each matrix of the batch."""
    return bmat.pow(2).sum((-2, -1))


def _precision_to_scale_tril(P):
    """The lower-triangular L with L L^T = P^-1, without inverting P.

    With J the flip of rows and columns, cholesky(J P J) = Lf gives P = U U^T for the upper-triangular
    U = J Lf J; then P^-1 = U^-T U^-1, so L = U^-T, found by solving U^T L = I.
    """
    Lf = linalg.cholesky(flip(P, (-2, -1)))
    U_T = transpose(flip(Lf, (-2, -1)), -2, -1)     # lower triangular
    identity = eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return _solve_lower(U_T, identity)


class MultivariateNormal(Distribution):
    r"""A multivariate normal with mean vector ``loc`` and a covariance given by exactly one of
    ``covariance_matrix`` (Sigma), ``precision_matrix`` (Sigma^-1) or ``scale_tril`` (L, with L L^T = Sigma).

    Everything is computed from the Cholesky factor L (it is made from the other two when those are
    given):

        log p(x) = -(k log(2 pi) + ||L^-1 (x - loc)||^2) / 2 - sum_i log L_ii
        H        = k (1 + log(2 pi)) / 2 + sum_i log L_ii
        rsample  = loc + L eps,  eps ~ N(0, I_k)

    Example::

        >>> m = MultivariateNormal(torch.zeros(2), torch.eye(2))
        >>> m.sample()  # normally distributed with mean=`[0,0]` and covariance_matrix=`I`
        tensor([-0.2102, -0.5429])

    Args:
        loc (Tensor): mean of the distribution
        covariance_matrix (Tensor): positive-definite covariance matrix
        precision_matrix (Tensor): positive-definite precision matrix
        scale_tril (Tensor): lower-triangular factor of covariance, with positive-valued diagonal
    """
    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        given = {"scale_tril": scale_tril, "covariance_matrix": covariance_matrix,
                 "precision_matrix": precision_matrix}
        name, matrix = next((k, v) for k, v in given.items() if v is not None)
        if matrix.dim() < 2:
            prefix = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{prefix} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)

        # the Cholesky factor, without the batch broadcasting (smaller, and enough for every formula)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return matmul(L, L.mT).expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        return cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """diag(L L^T)_i = sum_j L_ij^2"""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        """log det(Sigma) / 2 = sum_i log L_ii"""
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return H if len(self._batch_shape) == 0 else H.expand(self._batch_shape)
