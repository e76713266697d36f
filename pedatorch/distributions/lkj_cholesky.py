"""The LKJ distribution over Cholesky factors of correlation matrices (Lewandowski, Kurowicka & Joe, 2009)."""
import math

from .._dtype import finfo
from .._tensor import Size
from ..ops.creation import arange
from ..ops.elementwise import sqrt
from ..ops.join import cat
from ..ops.manip import diag_embed
from ..ops.random import randn
from ..ops.special import lgamma, mvlgamma
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    r"""The LKJ distribution for lower-triangular Cholesky factors L of ``dim`` x ``dim`` correlation matrices
    C = L L^T, with density proportional to det(C)^(eta - 1) (``concentration`` eta: 1 is uniform over
    correlation matrices, larger eta favours the identity).  In terms of L:

        log p(L) = sum_{i=2..d} (2 (eta - 1) + d - i) log L_ii - log Z(eta)

    ``sample`` is the onion method (Ghosh & Henderson, 2003): row i of L is sqrt(y_i) times a uniform direction
    in the first i coordinates (normalised normals), with y_i ~ Beta(i/2, eta + (d - 2)/2 - i/2), and the
    diagonal entry makes the row a unit vector.

    Example::

        >>> l = LKJCholesky(3, 0.5)
        >>> l.sample()  # l @ l.T is a sample of a correlation 3x3 matrix
        tensor([[ 1.0000,  0.0000,  0.0000],
                [ 0.3516,  0.9361,  0.0000],
                [-0.1899,  0.4748,  0.8593]])

    Args:
        dimension (dim): dimension of the matrices
        concentration (float or Tensor): concentration/shape parameter of the
            distribution (often referred to as eta)
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # the Beta parameters of the onion method, one pair per row
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = randn(self._extended_shape(sample_shape), dtype=y.dtype, device=y.device).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        # row 0 has no off-diagonal entries (0 / 0 above): make it 0
        u_hypersphere[..., 0, :].fill_(0.0)
        w = sqrt(y) * u_hypersphere
        # the diagonal completes each row to unit length (clamped: rounding can leave 1 - sum slightly negative)
        eps = finfo(w.dtype).tiny
        diag_elems = (1 - (w ** 2).sum(dim=-1)).clamp(min=eps).sqrt()
        w += diag_embed(diag_elems)
        return w

    def log_prob(self, value):
        # log Z(eta) = (d - 1) / 2 * log(pi) + mvlgamma(eta + (d - 1)/2 - 1/2, d - 1) - (d - 1) lgamma(eta + (d - 1)/2)
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
