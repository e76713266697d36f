"""The Dirichlet distribution: random probability vectors."""
from .._dtype import finfo, float64
from .._tensor import Size, Tensor
from ..autograd import Function
from ..nn.functional import one_hot
from ..ops.elementwise import where
from ..ops.random import _aten_row_sums
from ..ops.special import digamma, lgamma
from . import constraints
from .exp_family import ExponentialFamily
from .gamma import _standard_gamma
from .utils import _xlogy

__all__ = ["Dirichlet"]


class _GammaTotal(Function):
    """sum(G) over the last dim (keepdim), added in the order of PyTorch's CPU sum kernel, so that the
    normalised float64 draws agree to the last bit; its gradient is that of any sum (grad, expanded)."""
    node_name = "SumBackward1"

    @staticmethod
    def forward(ctx, gammas):
        ctx.shape = gammas.shape
        g = gammas.detach()
        if not g.is_cpu or g.dim() == 0:
            return g.sum(-1, keepdim=True)
        arr = g._data
        return Tensor._make(_aten_row_sums(arr.reshape(-1, arr.shape[-1])).reshape(arr.shape[:-1] + (1,)))

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)


def _sample_dirichlet(concentration):
    """x = G / sum(G) with independent G_i ~ Gamma(alpha_i, 1): a Dirichlet(alpha) sample.

    As PyTorch's ``_sample_dirichlet`` does, the gammas are drawn and normalised in float64 (the alphas
    widened first) and the result cast back, so the samples are PyTorch's for the same seed.  Written with
    Tensor ops on top of the reparameterised gamma draws, so autograd carries the gradient dx/dalpha through
    the division (the gammas' implicit gradients, then the normalisation).
    """
    gammas = _standard_gamma(concentration.to(float64))
    x = (gammas / _GammaTotal.apply(gammas)).to(concentration.dtype)
    # keep every coordinate inside (0, 1) as PyTorch does; on the detached data, so nothing is recorded
    limits = finfo(x.dtype)
    x.detach().clamp_(min=limits.tiny, max=1 - limits.eps / 2)
    return x


class Dirichlet(ExponentialFamily):
    r"""A Dirichlet distribution over the probability simplex with concentration alpha (the last dim).

        log p(x) = sum_i (alpha_i - 1) log x_i + log Gamma(alpha_0) - sum_i log Gamma(alpha_i),  alpha_0 = sum_i alpha_i
        mean_i = alpha_i / alpha_0,  variance_i = alpha_i (alpha_0 - alpha_i) / (alpha_0^2 (alpha_0 + 1))
        H = sum_i log Gamma(alpha_i) - log Gamma(alpha_0) - (K - alpha_0) digamma(alpha_0)
            - sum_i (alpha_i - 1) digamma(alpha_i)

    ``rsample`` normalises gamma draws, x = G / sum(G), and differentiates through that construction (the
    gammas carry implicit reparameterisation gradients).  PyTorch instead applies the implicit gradient of
    the Dirichlet itself (``_dirichlet_grad``, a function of x and alpha only).  Both are unbiased
    reparameterisation gradients with the same expectation, but per sample they differ (the samples for a
    seed are PyTorch's).

    Example::

        >>> m = Dirichlet(torch.tensor([0.5, 0.5]))
        >>> m.sample()  # Dirichlet distributed with concentration [0.5, 0.5]
        tensor([ 0.1046,  0.8954])

    Args:
        concentration (Tensor): concentration parameter of the distribution (often referred to as alpha)
    """
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # xlogy: a coordinate x_i = 0 with alpha_i = 1 contributes 0 * log 0 = 0
        return (_xlogy(self.concentration - 1.0, value).sum(-1) + lgamma(self.concentration.sum(-1))
                - lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """(alpha - 1)^+ normalised; when every alpha_i < 1 the density peaks at a corner: a one-hot vector."""
        concentration_m1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentration_m1 / concentration_m1.sum(-1, True)
        all_below_one = (self.concentration < 1).all(dim=-1, keepdim=True)
        corner = one_hot(mode.argmax(dim=-1), concentration_m1.shape[-1]).to(mode)
        return where(all_below_one, corner, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (lgamma(self.concentration).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1))

    # exponential-family form: theta = alpha, F = sum_i log Gamma(alpha_i) - log Gamma(alpha_0)
    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - lgamma(x.sum(-1))
