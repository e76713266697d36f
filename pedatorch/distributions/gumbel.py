"""The Gumbel distribution: the law of the maximum of many samples (extreme values)."""
import math

from .._dtype import finfo
from ..ops.creation import full_like, ones_like
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import _is_number, broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    r"""A Gumbel distribution with location ``loc`` and scale ``scale``.

    Built by inverting its cdf F(x) = exp(-exp(-(x - loc) / scale)) on a uniform U:
    x = loc - scale log(-log U), i.e. the chain  log,  times -1,  log,  loc - scale * (.)  applied to
    U ~ Uniform(tiny, 1 - eps) (kept away from 0 and 1, where the logs are infinite).

        log p(x) = z - exp(z) - log(scale),  z = (loc - x) / scale   (written directly: more accurate
                                                                        than the chain of log |det|s)
        mean = loc + scale * euler_gamma,  variance = (pi scale)^2 / 6,  H = log(scale) + 1 + euler_gamma

    Example::

        >>> m = Gumbel(torch.tensor([1.0]), torch.tensor([2.0]))
        >>> m.sample()  # sample from Gumbel distribution with loc=1, scale=2
        tensor([ 1.0124])

    Args:
        loc (float or Tensor): Location parameter of the distribution
        scale (float or Tensor): Scale parameter of the distribution
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        limits = finfo(self.loc.dtype)
        if _is_number(loc) and _is_number(scale):
            base_dist = Uniform(limits.tiny, 1 - limits.eps, validate_args=validate_args)
        else:
            base_dist = Uniform(full_like(self.loc, limits.tiny), full_like(self.loc, 1 - limits.eps),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
