"""The beta distribution on [0, 1]: a Dirichlet over two classes, seen through its first coordinate."""
from .._tensor import Size
from ..ops.creation import tensor
from ..ops.join import stack
from ..ops.special import lgamma
from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    r"""A beta distribution with ``concentration1`` (alpha) and ``concentration0`` (beta).

        log p(x) = (alpha - 1) log x + (beta - 1) log(1 - x) - log B(alpha, beta)
        mean = alpha / (alpha + beta),  variance = alpha beta / ((alpha + beta)^2 (alpha + beta + 1))

    Beta(alpha, beta) is the first coordinate of Dirichlet([alpha, beta]), and that is how it is computed:
    ``log_prob(x)`` is the Dirichlet's at (x, 1 - x), ``rsample`` the Dirichlet's first coordinate
    G_alpha / (G_alpha + G_beta), with the Dirichlet's implicit gradient (the Beta's own, as in PyTorch).

    Example::

        >>> m = Beta(torch.tensor([0.5]), torch.tensor([0.5]))
        >>> m.sample()  # Beta distributed with concentration concentration1 and concentration0
        tensor([ 0.1046])

    Args:
        concentration1 (float or Tensor): 1st concentration parameter of the distribution (often referred to as alpha)
        concentration0 (float or Tensor): 2nd concentration parameter of the distribution (often referred to as beta)
    """
    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if _is_number(concentration1) and _is_number(concentration0):
            concentration1_concentration0 = tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            concentration1_concentration0 = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(concentration1_concentration0, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()

    # exponential-family form: theta = (alpha, beta), F = log Gamma(alpha) + log Gamma(beta) - log Gamma(alpha + beta)
    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return lgamma(x) + lgamma(y) - lgamma(x + y)
