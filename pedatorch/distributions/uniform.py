"""The continuous uniform distribution on [low, high)."""
import math

from .._tensor import Size
from ..ops.elementwise import log
from ..ops.random import rand
from . import constraints
from .distribution import Distribution
from .utils import _is_number, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    r"""Uniformly distributed samples from the half-open interval ``[low, high)``.

        log p(x) = -log(high - low)       for low <= x < high (-inf outside)
        cdf(x)   = clamp((x - low) / (high - low), 0, 1)
        H        = log(high - low)

    ``rsample`` is ``low + u * (high - low)`` with u ~ U(0, 1), differentiable in ``low`` and ``high``.

    Example::

        >>> m = Uniform(torch.tensor([0.0]), torch.tensor([5.0]))
        >>> m.sample()  # uniformly distributed in the range [0.0, 5.0)
        tensor([ 2.3418])

    Args:
        low (float or Tensor): lower range (inclusive).
        high (float or Tensor): upper range (exclusive).
    """
    has_rsample = True

    @property
    def arg_constraints(self):
        # each bound is constrained by the other one
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch_shape = Size() if _is_number(low) and _is_number(high) else self.low.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = Size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """Every point of the interval is a mode: NaN."""
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low) * self.high.gt(value).type_as(self.low)
        return log(inside) - log(self.high - self.low)    # log 0 = -inf outside

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return log(self.high - self.low)
