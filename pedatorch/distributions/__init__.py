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
``HalfNormal``, ``HalfCauchy``, ``Pareto``, ``Weibull``, ``Kumaraswamy``, ``InverseGamma``, the relaxed ones and
``LogisticNormal`` are built on it), ``constraint_registry.py`` (``biject_to`` and
``transform_to``: from a constraint to a transform onto it).

Where ``torch.distributions`` writes ``torch.where`` or ``torch.Size``, these files import the name from the
layer that defines it (``from ..ops.elementwise import where``, ``from .._tensor import Size``), not from
``pedatorch`` itself: the package root imports this package, so importing it back would be a circle.
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403  (ExpTransform, AffineTransform, ... as in PyTorch)
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
           "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical",
           "StudentT", "TransformedDistribution", "Uniform", "VonMises", "Weibull", "Wishart", "biject_to",
           "constraints", "kl_divergence", "register_kl", "transform_to"] + transforms.__all__
