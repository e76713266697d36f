"""``kl_divergence(p, q)`` and ``register_kl``: closed-form KL divergences between distributions.

    KL(p || q) = E_p[log p(X) - log q(X)]  (>= 0, and = 0 only when p = q)

Each formula is a function registered for a pair of types; ``kl_divergence`` looks up the most specific
registered pair for ``(type(p), type(q))`` (subclasses inherit their parents' formulas), remembering the
answer per pair of types.
"""
import math
import warnings

from .. import autograd
from ..nn.functional import softplus
from ..ops.creation import full_like
from ..ops.elementwise import log, where, xlogy
from ..ops.special import digamma, lgamma
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .gamma import Gamma
from .independent import Independent
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis, _batch_trace_XXT, _solve_lower
from .normal import Normal
from .uniform import Uniform
from .utils import _sum_rightmost

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}   # (type_p, type_q) -> function: what register_kl was given
_KL_MEMOIZE = {}    # (type(p), type(q)) -> function (or NotImplemented): lookups already made


def register_kl(type_p, type_q):
    """Decorator registering a function ``fn(p, q)`` as KL(p || q) for distributions of these types::

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q):
            ...

    Lookup picks the most specific pair (by subclass).  When two registrations are equally specific in
    different ways (``(Base, Derived)`` and ``(Derived, Base)``), a RuntimeWarning asks for a third one,
    ``register_kl(Derived, Derived)``, to break the tie.
    """
    if not isinstance(type_p, type):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()    # a new registration can change earlier answers
        return fun
    return decorator


def _dispatch_kl(type_p, type_q):
    """The registered function for the most specific pair of superclasses of (type_p, type_q)."""
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    # specificity = position in the method resolution order (0 = the class itself); ranking p first and
    # q first must agree, otherwise the choice is ambiguous
    p_rank, q_rank = type_p.__mro__.index, type_q.__mro__.index
    left_p, left_q = min(matches, key=lambda m: (p_rank(m[0]), q_rank(m[1])))
    right_p, right_q = min(matches, key=lambda m: (q_rank(m[1]), p_rank(m[0])))
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p, q):
    r"""KL(p || q) = \int p(x) log(p(x) / q(x)) dx, batched: a Tensor of shape ``batch_shape``.

    Raises NotImplementedError when no formula is registered for the two types.
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _KL_MEMOIZE[type(p), type(q)] = _dispatch_kl(type(p), type(q))
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
                                  f"{q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return full_like(tensor, math.inf)


def _x_log_x(tensor):
    return xlogy(tensor, tensor)     # 0 log 0 = 0


# ====================================================================== same family

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    """p log(p/q) + (1-p) log((1-p)/(1-q)), with log p = -softplus(-logit) and log(1-p) = -softplus(logit)."""
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = where(q.probs == 0, math.inf, t1)       # p puts mass where q has none
    t1 = where(p.probs == 0, 0.0, t1)            # 0 log 0 = 0
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = where(q.probs == 1, math.inf, t2)
    t2 = where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    """log B(a2, b2) - log B(a1, b1) + (a1 - a2) psi(a1) + (b1 - b2) psi(b1) + (a2 - a1 + b2 - b1) psi(a1 + b1)"""
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * digamma(p.concentration0)
    t5 = (sum_q - sum_p) * digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """sum_k p_k (log p_k - log q_k)"""
    t = p.probs * (p.logits - q.logits)
    t = where(q.probs == 0, math.inf, t)
    t = where(p.probs == 0, 0.0, t)
    return t.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    """log Gamma(a0) - log Gamma(b0) - sum_i (log Gamma(a_i) - log Gamma(b_i))
    + sum_i (a_i - b_i)(psi(a_i) - psi(a0)),   a0 = sum_i a_i, b0 = sum_i b_i"""
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Within one exponential family: the Bregman divergence of the log-normaliser F,
    F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)> (grad F by autograd)."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot "
                                  "be computed using Bregman divergences")
    p_nparams = [theta.detach().requires_grad_() for theta in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    """a2 log(b1/b2) + log Gamma(a2) - log Gamma(a1) + (a1 - a2) psi(a1) + (b2 - b1) a1 / b1"""
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = lgamma(q.concentration) - lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    """(log det Sigma_q - log det Sigma_p + tr(Sigma_q^-1 Sigma_p) + (mu_q - mu_p)^T Sigma_q^-1 (mu_q - mu_p) - n) / 2

    With Cholesky factors: tr(Sigma_q^-1 Sigma_p) = ||L_q^-1 L_p||_F^2.
    """
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with"
                         "                          different event shapes cannot be computed")
    p_L, q_L = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = q_L.diagonal(dim1=-2, dim2=-1).log().sum(-1) - p_L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term2 = _batch_trace_XXT(_solve_lower(q_L, p_L))
    term3 = _batch_mahalanobis(q_L, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - p.event_shape[0])


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    """(s1^2 / s2^2 + (m1 - m2)^2 / s2^2 - 1 - log(s1^2 / s2^2)) / 2"""
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """log((high_q - low_q) / (high_p - low_p)), infinite unless [low_p, high_p] lies inside [low_q, high_q]"""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    """The base distributions' KL summed over the reinterpreted dims (KL adds up over independent parts)."""
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


# ====================================================================== across families

@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    """-H(p) - E_p[log q(X)] with E[log X] = psi(a) - psi(a + b) and E[X] = a / (a + b)"""
    t1 = -p.entropy()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma())
    t4 = q.rate * p.concentration1 / (p.concentration1 + p.concentration0)
    return t1 + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    """-H(p) + log(sqrt(2 pi) s) + E_p[(X - m)^2] / (2 s^2)"""
    E_beta = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale.pow(2)
    t1 = -p.entropy()
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (E_beta * (1 - E_beta) / (p.concentration1 + p.concentration0 + 1) + E_beta.pow(2)) * 0.5
    t4 = q.loc * E_beta
    t5 = q.loc.pow(2) * 0.5
    return t1 + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    """-H(p) + log(high - low), infinite unless [0, 1] lies inside [low, high]"""
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return where(outside, math.inf, result)


@register_kl(Gamma, Beta)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    """p has mass outside q's bounded support."""
    return _infinite_like(p.concentration)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    """-H(p) + log(sqrt(2 pi) s) + E_p[(X - m)^2] / (2 s^2), E[X] = a/b, E[X^2] = (a^2 + a)/b^2"""
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = 0.5 * log(beta_sqr * var_normal * 2 * math.pi) - p.concentration - p.concentration.lgamma()
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / beta_sqr
    t3 = q.loc * p.concentration / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (p.concentration - 1) * p.concentration.digamma() + (t2 - t3 + t4) / var_normal


@register_kl(Normal, Beta)
@register_kl(Normal, Gamma)
@register_kl(Normal, Uniform)
def _kl_normal_infinity(p, q):
    """p has mass outside q's support."""
    return _infinite_like(p.loc)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    """-log(high - low) - E_p[log q(X)], infinite unless [low, high] lies inside [0, 1]"""
    width = p.high - p.low
    t1 = log(width)
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = t3 + t4 - t1 - t2
    outside = (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound)
    return where(outside, math.inf, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    """-log(high - low) - E_p[log q(X)], infinite when low < 0"""
    width = p.high - p.low
    t1 = width.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    return where(p.low < q.support.lower_bound, math.inf, result)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    """log(sqrt(2 pi) s / (high - low)) + E_p[(X - m)^2] / (2 s^2)"""
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)
