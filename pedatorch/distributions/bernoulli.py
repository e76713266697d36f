"""The Bernoulli distribution: 1 with probability p, 0 with probability 1 - p."""
import math

from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from ..ops.creation import arange
from ..ops.elementwise import exp, log1p, logit, where
from ..ops.random import bernoulli
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all, expand_probs_logits, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    r"""A Bernoulli distribution given by ``probs`` (p) or ``logits`` (log(p / (1 - p))), not both.

        log p(x) = x log p + (1 - x) log(1 - p)  = -BCEWithLogits(logit, x)
        H        = -p log p - (1 - p) log(1 - p) =  BCEWithLogits(logit, p)

    Written with ``binary_cross_entropy_with_logits`` because it is stable for large |logit|.
    Sampling is discrete, so there is no ``rsample``; use ``log_prob`` (REINFORCE) for gradients.

    Example::

        >>> m = Bernoulli(torch.tensor([0.3]))
        >>> m.sample()  # 30% chance 1; 70% chance 0
        tensor([ 0.])

    Args:
        probs (Number, Tensor): the probability of sampling `1`
        logits (Number, Tensor): the log-odds of sampling `1`
        validate_args (bool, optional): whether to validate arguments, None by default
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = _is_number(probs)
            (self.probs,) = broadcast_all(probs)
        else:
            is_scalar = _is_number(logits)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        expand_probs_logits(self, new, batch_shape)
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        """1 if p > 1/2, 0 if p < 1/2, NaN at p = 1/2 (two modes)."""
        mode = (self.probs >= 0.5).to(self.probs)
        return where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values

    # exponential-family form: theta = logit(p), F(theta) = log(1 + exp(theta))
    @property
    def _natural_params(self):
        return (logit(self.probs),)

    def _log_normalizer(self, x):
        return log1p(exp(x))
