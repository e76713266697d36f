"""The continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem & Cunningham, 2019)."""
import math

from .._tensor import Size
from ..autograd.grad_mode import no_grad
from ..nn.functional import binary_cross_entropy_with_logits
from ..ops.elementwise import expm1, ge, gt, le, log, log1p, maximum, pow, where
from ..ops.creation import ones_like, zeros_like
from ..ops.random import rand
from . import constraints
from .exp_family import ExponentialFamily
from .utils import expand_probs_logits, _is_number, broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    r"""A density on [0, 1] proportional to the Bernoulli likelihood: p(x) = C(lambda) lambda^x (1 - lambda)^(1-x),
    given by ``probs`` (lambda) or ``logits``.  The normaliser

        C(lambda) = 2 atanh(1 - 2 lambda) / (1 - 2 lambda)   (= 2 at lambda = 1/2)

    and the moments have a removable singularity at lambda = 1/2; inside ``lims`` (default (0.499, 0.501))
    they are replaced by Taylor expansions around 1/2.  ``rsample`` is the icdf of u ~ U(0, 1):

        icdf(u) = (log1p(-lambda + u (2 lambda - 1)) - log1p(-lambda)) / (log lambda - log1p(-lambda))

    Example::

        >>> m = ContinuousBernoulli(torch.tensor([0.3]))
        >>> m.sample()
        tensor([ 0.2538])

    Args:
        probs (Number, Tensor): (0,1) valued parameters
        logits (Number, Tensor): real valued parameters whose sigmoid matches 'probs'
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = _is_number(probs)
            (self.probs,) = broadcast_all(probs)
            # checked here when validate_args is given: after clamping into [eps, 1 - eps] they always pass
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = _is_number(logits)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        expand_probs_logits(self, new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _outside_unstable_region(self):
        return maximum(le(self.probs, self._lims[0]), gt(self.probs, self._lims[1]))

    def _cut_probs(self):
        return where(self._outside_unstable_region(), self.probs, self._lims[0] * ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(lambda), by its closed form outside ``lims`` and a Taylor expansion inside."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = where(le(cut_probs, 0.5), cut_probs, zeros_like(cut_probs))
        cut_probs_above_half = where(ge(cut_probs, 0.5), cut_probs, ones_like(cut_probs))
        log_norm = log((log1p(-cut_probs) - log(cut_probs)).abs()) - where(
            le(cut_probs, 0.5), log1p(-2.0 * cut_probs_below_half), log(2.0 * cut_probs_above_half - 1.0))
        x = pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (log1p(-cut_probs) - log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * pow(x, 2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        vars = (cut_probs * (cut_probs - 1.0) / pow(1.0 - 2.0 * cut_probs, 2)
                + 1.0 / pow(log1p(-cut_probs) - log(cut_probs), 2))
        x = pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), vars, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = ((pow(cut_probs, value) * pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0)
                / (2.0 * cut_probs - 1.0))
        unbounded_cdfs = where(self._outside_unstable_region(), cdfs, value)
        return where(le(value, 0.0), zeros_like(value), where(ge(value, 1.0), ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return where(self._outside_unstable_region(),
                     (log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - log1p(-cut_probs))
                     / (log(cut_probs) - log1p(-cut_probs)),
                     value)

    def entropy(self):
        log_probs0 = log1p(-self.probs)
        log_probs1 = log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    # exponential-family form: theta = logits, F(theta) = log((e^theta - 1) / theta) (Taylor near 0)
    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        out_unst_reg = maximum(le(x, self._lims[0] - 0.5), gt(x, self._lims[1] - 0.5))
        cut_nat_params = where(out_unst_reg, x, (self._lims[0] - 0.5) * ones_like(x))
        log_norm = log(expm1(cut_nat_params).abs()) - log(cut_nat_params.abs())
        taylor = 0.5 * x + pow(x, 2) / 24.0 - pow(x, 4) / 2880.0
        return where(out_unst_reg, log_norm, taylor)
