"""The exponential distribution: waiting times of a process with constant rate."""
from .._tensor import Size
from ..ops.creation import empty, zeros_like
from ..ops.elementwise import exp, log, log1p
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    r"""An exponential distribution with ``rate`` lambda (= 1 / mean):

        log p(x) = log(lambda) - lambda x          (x >= 0)
        cdf(x)   = 1 - exp(-lambda x),   icdf(u) = -log(1 - u) / lambda
        mean = stddev = 1 / lambda,  variance = 1 / lambda^2,  mode = 0,  H = 1 - log(lambda)

    ``rsample`` draws E ~ Exp(1) with ``Tensor.exponential_`` (-log(1 - u), u uniform) and returns
    E / lambda, so d sample / d lambda = -sample / lambda.

    Example::

        >>> m = Exponential(torch.tensor([1.0]))
        >>> m.sample()  # Exponential distributed with rate=1
        tensor([ 0.1046])

    Args:
        rate (float or Tensor): rate = 1 / scale of the distribution
    """
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if _is_number(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        # PyTorch: self.rate.new(shape).exponential_()
        return empty(shape, dtype=self.rate.dtype, device=self.rate.device).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - exp(-self.rate * value)

    def icdf(self, value):
        return -log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - log(self.rate)

    # exponential-family form: theta = -lambda, F(theta) = -log(-theta)
    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -log(-x)
