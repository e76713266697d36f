"""The normal (Gaussian) distribution N(loc, scale^2)."""
import math

from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..ops.elementwise import erf, erfinv, log
from ..ops.random import normal
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _is_number, _standard_normal, broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    r"""A normal distribution with mean ``loc`` and standard deviation ``scale``.

        log p(x) = -(x - loc)^2 / (2 scale^2) - log(scale) - log(sqrt(2 pi))
        cdf(x)   = (1 + erf((x - loc) / (scale sqrt(2)))) / 2
        H        = 1/2 + log(sqrt(2 pi)) + log(scale)

    ``rsample`` is ``loc + eps * scale`` with eps ~ N(0, 1): the reparameterisation trick, so
    d sample / d loc = 1 and d sample / d scale = eps.

    Example::

        >>> m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> m.sample()  # normally distributed with loc=0 and scale=1
        tensor([ 0.1046])

    Args:
        loc (float or Tensor): mean of the distribution (often referred to as mu)
        scale (float or Tensor): standard deviation of the distribution (often referred to as sigma)
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = Size() if _is_number(loc) and _is_number(scale) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            # torch.normal(mean, std) draws the same numbers as PyTorch's Normal.sample after manual_seed
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        """x = loc + scale * sqrt(2) * erfinv(2 value - 1)"""
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + log(self.scale)

    # exponential-family form: theta = (loc / scale^2, -1 / (2 scale^2)),
    # F(theta) = -theta1^2 / (4 theta2) + log(pi / -theta2) / 2
    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * log(-math.pi / y)
