"""``pedatorch.distributions``: probability distributions with sampling and log-probabilities (``torch.distributions``).

    import pedatorch as torch
    from torch.distributions import Normal, kl_divergence

    q = Normal(mu, sigma)                  # parameters: tensors (possibly requiring grad) or numbers
    z = q.rsample()                        # reparameterised sample: gradients reach mu and sigma
    q.log_prob(z), q.entropy()             # differentiable too
    kl_divergence(q, Normal(0., 1.))       # closed form

Files, as in PyTorch: ``distribution.py`` (the base class and its shape rules), ``constraints.py``
(parameter and support sets, checked when ``validate_args`` is on), ``utils.py``, one file per
distribution, ``kl.py`` (``kl_divergence`` and ``register_kl``), ``transforms.py`` (invertible maps with
their log-Jacobians), ``transformed_distribution.py`` (the distribution of f(X): ``LogNormal``, ``Gumbel``,
the relaxed ones and ``LogisticNormal`` are built on it), ``constraint_registry.py`` (``biject_to`` and
``transform_to``: from a constraint to a transform onto it).

Where ``torch.distributions`` writes ``torch.where`` or ``torch.Size``, these files import the name from the
layer that defines it (``from ..ops.elementwise import where``, ``from .._tensor import Size``), not from
``pedatorch`` itself: the package root imports this package, so importing it back would be a circle.
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .constraint_registry import biject_to, transform_to
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma import Gamma
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403  (ExpTransform, AffineTransform, ... as in PyTorch)
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "ExponentialFamily", "Gamma", "Gumbel",
           "Independent", "LogNormal", "LogisticNormal", "Multinomial", "MultivariateNormal", "Normal",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "TransformedDistribution", "Uniform", "biject_to",
           "constraints", "kl_divergence", "register_kl", "transform_to"] + transforms.__all__
