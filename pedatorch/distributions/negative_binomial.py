"""The negative binomial distribution: failures before ``total_count`` successes (over-dispersed counts)."""
from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn.functional import logsigmoid
from ..ops.elementwise import exp, sigmoid
from ..ops.random import poisson
from ..ops.special import lgamma
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import expand_probs_logits, set_count_and_probs_or_logits, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    r"""The number of successes k = 0, 1, ... in independent Bernoulli(``probs``) trials before
    ``total_count`` (r, any real > 0) failures.  With l = logits = log(p / (1 - p)):

        log p(k) = r logsigmoid(-l) + k logsigmoid(l) + log Gamma(r + k) - log Gamma(k + 1) - log Gamma(r)
        mean = r e^l,  variance = mean / sigmoid(-l),  mode = max(floor((r - 1) e^l), 0)

    ``sample`` is the Gamma-Poisson mixture: lambda ~ Gamma(r, rate = e^-l), then k ~ Poisson(lambda).

    Args:
        total_count (float or Tensor): non-negative number of negative Bernoulli
            trials to stop, although the distribution is still valid for real
            valued count
        probs (Tensor): Event probabilities of success in the half open interval [0, 1)
        logits (Tensor): Event log-odds for probabilities of success
    """
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        set_count_and_probs_or_logits(self, total_count, probs, logits)
        batch_shape = self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        expand_probs_logits(self, new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=Size()):
        with no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -lgamma(self.total_count + value) + lgamma(1.0 + value) + lgamma(self.total_count)
        # r = 0 and k = 0 has probability 1, but lgamma(0) is infinite: the normaliser is 0 there
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
