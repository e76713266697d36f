"""``ExponentialFamily``: distributions whose density has the form

    p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))

with natural parameters theta, sufficient statistic t(x), log-normaliser F and carrier measure k.
Since E[t(X)] = grad F(theta), the entropy and the KL divergence within one family follow from F alone
(Bregman divergences), computed here with autograd:

    H = F(theta) - <theta, grad F(theta)> - E[k(X)]
    KL(p || q) = F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>

Normal, Bernoulli, Gamma, Beta and Dirichlet derive from it (they also have closed-form entropies, which
take precedence; these generic ones are a check and a fallback).
"""
from .. import autograd
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions (see the module docstring for the formulas)."""

    @property
    def _natural_params(self):
        """The natural parameters theta, a tuple of Tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """F(theta)"""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """E[k(X)]"""
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(X)], with grad F from autograd."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for theta, g in zip(nparams, gradients):
            result = result - (theta * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
