"""The Cauchy (Lorentz) distribution: heavy tails, no mean, no variance."""
import math

from .._tensor import Size
from ..ops.creation import empty, full
from ..ops.elementwise import atan, tan
from . import constraints
from .distribution import Distribution
from .utils import _is_number, broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    r"""A Cauchy distribution with median ``loc`` (x0) and half width ``scale`` (gamma): the ratio of two
    independent standard normals, shifted and scaled.

        log p(x) = -log(pi) - log(gamma) - log(1 + ((x - x0) / gamma)^2)
        cdf(x)   = atan((x - x0) / gamma) / pi + 1/2,   icdf(u) = x0 + gamma tan(pi (u - 1/2))
        mean = NaN, variance = inf (they do not exist),  mode = x0,  H = log(4 pi gamma)

    ``rsample`` is x0 + eps * gamma with eps from ``Tensor.cauchy_``.

    Example::

        >>> m = Cauchy(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> m.sample()  # sample from a Cauchy distribution with loc=0 and scale=1
        tensor([ 2.3214])

    Args:
        loc (float or Tensor): mode or median of the distribution.
        scale (float or Tensor): half width at half maximum.
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        batch_shape = Size() if _is_number(loc) and _is_number(scale) else self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Cauchy, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Cauchy, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return full(self._extended_shape(), math.nan, dtype=self.loc.dtype, device=self.loc.device)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return full(self._extended_shape(), math.inf, dtype=self.loc.dtype, device=self.loc.device)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = empty(shape, dtype=self.loc.dtype, device=self.loc.device).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
