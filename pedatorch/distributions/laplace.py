"""The Laplace (double exponential) distribution."""
from .._dtype import finfo
from .._tensor import Size
from ..ops.creation import empty
from ..ops.elementwise import expm1, log, log1p
from . import constraints
from .distribution import Distribution
from .utils import _is_number, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    r"""A Laplace distribution with location ``loc`` (mu) and scale ``scale`` (b):

        log p(x) = -log(2 b) - |x - mu| / b
        cdf(x)   = 1/2 - sign(x - mu) expm1(-|x - mu| / b) / 2
        icdf(u)  = mu - b sign(u - 1/2) log(1 - 2 |u - 1/2|)
        mean = mode = mu,  variance = 2 b^2,  H = 1 + log(2 b)

    ``rsample`` is the icdf applied to u ~ U(eps - 1, 1) (written for u in (-1, 1)):
    mu - b sign(u) log(1 - |u|).

    Example::

        >>> m = Laplace(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> m.sample()  # Laplace distributed with loc=0, scale=1
        tensor([ 0.1046])

    Args:
        loc (float or Tensor): mean of the distribution
        scale (float or Tensor): scale of the distribution
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = Size() if _is_number(loc) and _is_number(scale) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = finfo(self.loc.dtype).eps
        u = empty(shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * log1p(-2 * term.abs())

    def entropy(self):
        return 1 + log(2 * self.scale)
