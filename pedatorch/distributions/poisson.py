"""The Poisson distribution: counts of events that occur at a constant rate."""
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..ops.elementwise import exp, log
from ..ops.random import poisson
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    r"""A Poisson distribution with ``rate`` lambda, over the counts 0, 1, 2, ...:

        log p(k) = k log(lambda) - lambda - log(k!)      (0 log 0 = 0: p(0) = 1 when lambda = 0)
        mean = variance = lambda,  mode = floor(lambda)

    ``sample`` is ``torch.poisson`` (no ``rsample``: the counts are not differentiable in lambda).

    Example::

        >>> m = Poisson(torch.tensor([4]))
        >>> m.sample()
        tensor([ 3.])

    Args:
        rate (Number, Tensor): the rate parameter
    """
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if _is_number(rate) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    # exponential-family form: theta = log(lambda), F(theta) = exp(theta)
    @property
    def _natural_params(self):
        return (log(self.rate),)

    def _log_normalizer(self, x):
        return exp(x)
