"""The categorical distribution over {0, ..., K-1}."""
import math

from .._dtype import finfo, long
from .._tensor import Size
from ..ops.creation import arange, full
from ..ops.elementwise import clamp
from ..ops.random import multinomial
from ..ops.shape import broadcast_tensors
from . import constraints
from .distribution import Distribution
from .utils import expand_probs_logits, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    r"""A distribution over the K classes {0, ..., K-1}, given by ``probs`` or ``logits`` (not both).

    The last dim of the parameter indexes the classes; the other dims are batch dims.  ``probs`` are
    normalised to sum to 1, ``logits`` to log-probabilities (logits - logsumexp(logits)):

        log p(k) = logits[k]
        H        = -sum_k p_k log p_k

    It is the distribution ``torch.multinomial`` samples from.

    Example::

        >>> m = Categorical(torch.tensor([ 0.25, 0.25, 0.25, 0.25 ]))
        >>> m.sample()  # equal probability of 0, 1, 2, 3
        tensor(3)

    Args:
        probs (Tensor): event probabilities
        logits (Tensor): event log probabilities (unnormalized)
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = batch_shape + Size((self._num_events,))
        expand_probs_logits(self, new, param_shape)
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        """Undefined for class labels: NaN (as PyTorch)."""
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype, device=self.probs.device)

    def sample(self, sample_shape=Size()):
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        # one row of probabilities per batch element, all the draws of a row at once (as PyTorch, so that a
        # seeded sample agrees with PyTorch's)
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # pick logits[..., value] for every value, broadcasting value's dims against the batch dims
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        # a class with p = 0 has logit -inf; clamping it to the dtype's min makes 0 * logit = 0, not NaN
        logits = clamp(self.logits, min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = arange(self._num_events, dtype=long, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
