"""The inverse gamma distribution: 1 / X for X ~ Gamma (a conjugate prior for a normal's variance)."""
import math

from ..ops.elementwise import where
from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    r"""Y = 1 / X with X ~ Gamma(concentration, rate)::

        X ~ Gamma(alpha, beta)
        Y = 1 / X ~ InverseGamma(alpha, beta)

        p(y) = beta^alpha / Gamma(alpha) y^(-alpha - 1) exp(-beta / y)
        mean = beta / (alpha - 1) (inf for alpha <= 1),  mode = beta / (alpha + 1)
        variance = beta^2 / ((alpha - 1)^2 (alpha - 2)) (inf for alpha <= 2)
        H = alpha + log(beta) + log Gamma(alpha) - (1 + alpha) digamma(alpha)

    Example::

        >>> m = InverseGamma(torch.tensor([2.0]), torch.tensor([3.0]))
        >>> m.sample()
        tensor([ 1.2953])

    Args:
        concentration (float or Tensor): shape parameter of the distribution
            (often referred to as alpha)
        rate (float or Tensor): rate = 1 / scale of the distribution
            (often referred to as beta)
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return where(self.concentration > 2, result, math.inf)

    def entropy(self):
        return (self.concentration + self.rate.log() + self.concentration.lgamma()
                - (1 + self.concentration) * self.concentration.digamma())
