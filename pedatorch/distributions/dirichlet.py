"""The Dirichlet distribution: random probability vectors, and the implicit gradient of its samples."""
import numpy as np

from .._tensor import Size, Tensor
from ..autograd import Function, once_differentiable
from ..backend import namespace
from ..nn.functional import one_hot
from ..ops.elementwise import where
from ..ops.random import _sample_dirichlet
from ..ops.special import digamma, lgamma, _digamma
from . import constraints
from .exp_family import ExponentialFamily
from .utils import _xlogy

__all__ = ["Dirichlet"]


def _dirichlet_grad(x, alpha, total):
    """``torch._dirichlet_grad``: for a sample x of Dirichlet(alpha), coordinate by coordinate,
    (dx_j / dalpha_j) / (1 - x_j), the other alphas held fixed (float64 arrays).

    x_j alone is Beta(a, b) with a = alpha_j, b = total - a, and it is a fixed quantile of it: I_x(a, b) = u
    stays constant as a moves, so dx/da = -(dI_x(a, b)/da) / density(x).  Expanding the incomplete beta
    function in its positive-term series B_x(a, b) = x^a (1 - x)^b sum_n (a + b)_n / (a)_(n+1) x^n and
    differentiating term by term, the powers and the Beta function cancel, leaving
        below the middle:  D = -x sum_n (a+b)_n / (a)_(n+1) x^n     (log x + psi(a + b + n) - psi(a + 1 + n))
        above it:          D =  x sum_n (a+b)_n / (b)_(n+1) (1-x)^n (log x + psi(a + b + n) - psi(a))
    (the second from I_x(a, b) = 1 - I_(1-x)(b, a)).  The middle, x = exp(psi(a + 1) - psi(a + b)), is where
    the first one's brackets turn positive: each series is used where its terms all have one sign.
    The series need about sqrt(a + b) terms.  PyTorch evaluates the same quantity by approximations
    (Taylor series near 0 and 1, a saddle-point expansion for large a and b, a fitted rational function
    elsewhere); they agree with this to about 1e-3 at worst, and mostly to 1e-12.
    """
    xp = namespace(x, alpha, total)
    x, a, t = xp.broadcast_arrays(*(xp.asarray(v, dtype=np.float64) for v in (x, alpha, total)))
    b = t - a
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        below = x <= xp.exp(_digamma(a + 1) - _digamma(t))
        y = xp.where(below, x, 1 - x)                 # the series' variable
        c = xp.where(below, a, b)                     # (c)_(n+1) in the denominators
        log_x = xp.log(x)
        psi_t = _digamma(t)                           # psi(a + b + n)
        psi_a = xp.where(below, _digamma(a + 1), _digamma(a))      # psi(a + 1 + n) below, psi(a) above
        term = 1 / c                                  # (a + b)_n / (c)_(n+1) y^n
        total_sum = term * (log_x + psi_t - psi_a)
        for n in range(100000):
            ratio = (t + n) * y / (c + 1 + n)
            term = term * ratio
            psi_t = psi_t + 1 / (t + n)
            psi_a = xp.where(below, psi_a + 1 / (a + 1 + n), psi_a)
            step = term * (log_x + psi_t - psi_a)
            total_sum = total_sum + step
            if n % 8 == 7:
                # the terms shrink at least geometrically once the ratio (which tends to y) is below 1:
                # stop when what is left is below the sum's last bit everywhere
                r = xp.maximum(ratio, y)
                tail = xp.abs(step) * r / (1 - r)
                done = ((r < 1) & (tail <= 1e-17 * xp.abs(total_sum))) | ~xp.isfinite(total_sum)
                if bool(done.all()):
                    break
        out = xp.where(below, -x * total_sum, x * total_sum)
    return xp.where(xp.isfinite(out), out, 0.0)      # (x = 0 or 1 exactly: no gradient, as PyTorch's 0)


class _Dirichlet(Function):
    """A Dirichlet sample with its implicit reparameterisation gradient, as PyTorch's ``_Dirichlet``:
    forward draws ``torch._sample_dirichlet`` (PyTorch's numbers for the seed); backward applies
    d loss / d alpha_j = D_j (g_j - sum_i g_i x_i) with D = ``_dirichlet_grad`` (x_j moves by D_j (1 - x_j),
    the other coordinates give way in proportion to their sizes)."""
    node_name = "_DirichletBackward"

    @staticmethod
    def forward(ctx, concentration):
        x = _sample_dirichlet(concentration.detach())
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        d = Tensor._make(_dirichlet_grad(x._data, concentration._data, total._data).astype(x._data.dtype))
        return d * (grad - (x * grad).sum(-1, True))


class Dirichlet(ExponentialFamily):
    r"""A Dirichlet distribution over the probability simplex with concentration alpha (the last dim).

        log p(x) = sum_i (alpha_i - 1) log x_i + log Gamma(alpha_0) - sum_i log Gamma(alpha_i),  alpha_0 = sum_i alpha_i
        mean_i = alpha_i / alpha_0,  variance_i = alpha_i (alpha_0 - alpha_i) / (alpha_0^2 (alpha_0 + 1))
        H = sum_i log Gamma(alpha_i) - log Gamma(alpha_0) - (K - alpha_0) digamma(alpha_0)
            - sum_i (alpha_i - 1) digamma(alpha_i)

    ``rsample`` normalises gamma draws, x = G / sum(G) (PyTorch's numbers for a seed), and its gradient is
    the implicit one of the Dirichlet itself (``_dirichlet_grad``, a function of x and alpha only), as in
    PyTorch.

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
        return _Dirichlet.apply(self.concentration.expand(shape))

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
