"""The multinomial distribution: class counts of ``total_count`` categorical draws."""
import math

from .._tensor import Size
from ..nn.functional import softplus
from ..ops.creation import arange, ones_like, tensor, zeros
from ..ops.elementwise import exp, where
from ..ops.special import lgamma
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all, probs_to_logits

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    r"""Counts x = (x_1, ..., x_K) of ``total_count`` = n independent draws from Categorical(p).

        log p(x) = log n! - sum_i log x_i! + sum_i x_i log p_i        (n = sum_i x_i)
        H        = n H(Categorical(p)) - log n! + sum_i sum_{k=1..n} Binomial(k; n, p_i) log k!

    ``probs`` / ``logits`` are normalised as in ``Categorical`` (the last dim indexes the classes).
    ``sample`` needs one ``total_count`` for all; ``log_prob`` accepts any counts (n is taken from them).

    Example::

        >>> m = Multinomial(100, torch.tensor([ 1., 1., 1., 1.]))
        >>> x = m.sample()  # equal probability of 0, 1, 2, 3
        tensor([ 21.,  24.,  30.,  25.])
        >>> Multinomial(probs=torch.tensor([1., 1., 1., 1.])).log_prob(x)
        tensor([-4.1338])

    Args:
        total_count (int): number of trials
        probs (Tensor): event probabilities
        logits (Tensor): event log probabilities (unnormalized)
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        sample_shape = Size(sample_shape)
        # total_count class labels per event, on a new leading dim, which then moves to the end ...
        labels = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        order = list(range(labels.dim()))
        labels = labels.permute(*order[1:], order[0])
        # ... and each label adds 1 to its class's count
        counts = zeros(self._extended_shape(sample_shape), dtype=labels.dtype, device=labels.device)
        counts.scatter_add_(-1, labels, ones_like(labels))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # a class with p = 0 (logit -inf) and count 0 contributes 0 * log 0 = 0, not NaN
        logits = where((value == 0) & (logits == -math.inf), 0.0, logits)
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self):
        n = tensor(self.total_count)      # an int64 tensor: lgamma(n + 1) is float32, as in PyTorch
        term1 = n * self._categorical.entropy() - lgamma(n + 1)
        # E[log x_i!] for each class: x_i ~ Binomial(n, p_i), summed over k = 1..n (log 0! = 0)
        probs = self.probs
        k = arange(1, self.total_count + 1, dtype=probs.dtype, device=probs.device)
        k = k.view((-1,) + (1,) * probs.dim())
        binomial_probs = exp(_binomial_log_prob(self.total_count, probs, k))
        term2 = (binomial_probs * lgamma(k + 1)).sum([0, -1])
        return term1 + term2


def _binomial_log_prob(n, probs, k):
    """log Binomial(k; n, p) = log C(n, k) + k logit - n log(1 + e^logit), stable for p near 0 or 1."""
    logits = probs_to_logits(probs, is_binary=True)
    log_binom = lgamma(k.new_tensor(n + 1.0)) - lgamma(k + 1) - lgamma(n - k + 1)
    return log_binom + k * logits - n * softplus(logits)
