"""``pedatorch.distributions``: probability distributions with sampling and log-probabilities (``torch.distributions``).

    import pedatorch as torch
    from torch.distributions import Normal, kl_divergence

    q = Normal(mu, sigma)                  # parameters: tensors (possibly requiring grad) or numbers
    z = q.rsample()                        # reparameterised sample: gradients reach mu and sigma
    q.log_prob(z), q.entropy()             # differentiable too
    kl_divergence(q, Normal(0., 1.))       # closed form

Files, as in PyTorch: ``distribution.py`` (the base class and its shape rules), ``constraints.py``
(parameter and support sets, checked when ``validate_args`` is on), ``utils.py``, one file per
distribution, ``kl.py`` (``kl_divergence`` and ``register_kl``).
"""
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Gamma
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "ExponentialFamily", "Gamma",
           "Independent", "Multinomial", "MultivariateNormal", "Normal", "Uniform", "constraints",
           "kl_divergence", "register_kl"]
