# torch.distributions as its reference page describes it, distribution by distribution: the parameters
# (probs / logits, scale_tril / covariance_matrix / precision_matrix), sample and rsample with a
# sample_shape, log_prob, entropy, mean, variance, stddev, mode, cdf / icdf where defined (the
# NotImplementedError where not), batch_shape / event_shape, expand, support, repr; gradients through
# rsample and log_prob (Normal, Gamma, Beta, Dirichlet, MultivariateNormal, the relaxed ones);
# kl_divergence for pairs (and the NotImplementedError of an unregistered pair); Independent,
# MixtureSameFamily, TransformedDistribution with Exp / Affine / Sigmoid / Tanh / Compose transforms; and
# validate_args: the ValueError of a bad parameter or an out-of-support value, and what switching it
# off allows.
import math
import warnings

import torch
from torch.distributions import (AffineTransform, Bernoulli, Beta, Binomial, Categorical, Cauchy,
                                 ComposeTransform, Dirichlet, Distribution, ExpTransform, Exponential, Gamma,
                                 Geometric, Gumbel, Independent, Laplace, LogNormal, LowRankMultivariateNormal,
                                 MixtureSameFamily, Multinomial, MultivariateNormal, Normal, OneHotCategorical,
                                 Poisson, RelaxedBernoulli, RelaxedOneHotCategorical, SigmoidTransform, StudentT,
                                 TanhTransform, TransformedDistribution, Uniform, VonMises, Weibull, constraints,
                                 kl_divergence)

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def attempt(label, fn):
    """Print fn()'s result, or the exception's class and message, as a user poking at the API would."""
    try:
        print(label, fn())
    except Exception as e:
        print(label, type(e).__name__, e)


def tour(name, d, value):
    """The documented properties and methods of one distribution, each on its own line."""
    print(f"==== {name}: {d}")
    print("  shapes", d.batch_shape, d.event_shape, "support", d.support, "rsample", d.has_rsample,
          "enumerate", d.has_enumerate_support)
    torch.manual_seed(1)
    s = d.sample()
    print("  sample", s.dtype, s)
    print("  sample((2, 3)) shape", d.sample((2, 3)).shape, "sample(4) shape", d.sample(torch.Size([4])).shape)
    if d.has_rsample:
        torch.manual_seed(1)
        r = d.rsample((2,))
        print("  rsample", r.shape, r.requires_grad)
    attempt("  log_prob", lambda: d.log_prob(value))
    attempt("  entropy", d.entropy)
    attempt("  mean", lambda: d.mean)
    attempt("  variance", lambda: d.variance)
    attempt("  stddev", lambda: d.stddev)
    attempt("  mode", lambda: d.mode)
    attempt("  cdf", lambda: d.cdf(value))
    attempt("  icdf", lambda: d.icdf(torch.full(d.batch_shape + d.event_shape, 0.3)))
    e = d.expand(torch.Size([2]) + d.batch_shape)
    print("  expand", type(e).__name__, e.batch_shape, e.event_shape, e.sample().shape)


# ---- univariate continuous
tour("Normal", Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])), torch.tensor([0.5, -1.0]))
tour("Normal scalars", Normal(0.0, 2.0), torch.tensor(1.0))
tour("LogNormal", LogNormal(torch.tensor([0.0, 0.5]), torch.tensor([1.0, 0.25])), torch.tensor([0.5, 2.0]))
tour("Beta", Beta(torch.tensor([0.5, 2.0, 3.0]), torch.tensor([0.5, 5.0, 1.0])), torch.tensor([0.3, 0.2, 0.9]))
tour("Gamma", Gamma(torch.tensor([0.5, 2.0, 9.0]), torch.tensor([1.0, 3.0, 0.5])), torch.tensor([0.3, 0.5, 20.0]))
tour("Exponential", Exponential(torch.tensor([0.5, 4.0])), torch.tensor([1.0, 0.1]))
tour("Laplace", Laplace(torch.tensor([0.0, -2.0]), torch.tensor([1.0, 3.0])), torch.tensor([0.5, 1.0]))
tour("Cauchy", Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.1])), torch.tensor([2.0, 1.05]))
tour("Gumbel", Gumbel(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.5])), torch.tensor([0.5, 2.5]))
tour("StudentT", StudentT(torch.tensor([1.0, 2.5, 30.0]), torch.tensor([0.0, 1.0, -1.0]), torch.tensor([1.0, 2.0, 0.5])),
     torch.tensor([0.5, 0.0, -1.2]))
tour("Uniform", Uniform(torch.tensor([0.0, -1.0]), torch.tensor([1.0, 3.0])), torch.tensor([0.25, 2.0]))
tour("VonMises", VonMises(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 8.0])), torch.tensor([0.3, 1.2]))
tour("Weibull", Weibull(torch.tensor([1.0, 2.0]), torch.tensor([0.5, 3.0])), torch.tensor([0.7, 1.5]))

# ---- discrete
tour("Bernoulli probs", Bernoulli(probs=torch.tensor([0.1, 0.5, 0.9])), torch.tensor([1.0, 0.0, 1.0]))
tour("Bernoulli logits", Bernoulli(logits=torch.tensor([-2.0, 0.0, 3.0])), torch.tensor([0.0, 1.0, 1.0]))
tour("Categorical", Categorical(probs=torch.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])), torch.tensor([2, 0]))
tour("Categorical logits", Categorical(logits=torch.tensor([1.0, 2.0, 0.5, -1.0])), torch.tensor(1))
tour("OneHotCategorical", OneHotCategorical(torch.tensor([0.2, 0.3, 0.5])), torch.tensor([0.0, 1.0, 0.0]))
tour("Binomial", Binomial(10, torch.tensor([0.2, 0.5, 0.95])), torch.tensor([2.0, 5.0, 10.0]))
tour("Binomial counts", Binomial(torch.tensor([3.0, 7.0]), logits=torch.tensor([0.0, -1.0])), torch.tensor([1.0, 2.0]))
tour("Geometric", Geometric(torch.tensor([0.3, 0.9])), torch.tensor([2.0, 0.0]))
tour("Poisson", Poisson(torch.tensor([0.5, 4.0, 30.0])), torch.tensor([0.0, 3.0, 28.0]))
tour("Multinomial", Multinomial(6, torch.tensor([0.2, 0.3, 0.5])), torch.tensor([1.0, 2.0, 3.0]))

# ---- multivariate
tour("Dirichlet", Dirichlet(torch.tensor([[0.5, 1.0, 2.0], [4.0, 4.0, 4.0]])), torch.tensor([0.2, 0.3, 0.5]))
loc = torch.tensor([1.0, -1.0])
cov = torch.tensor([[2.0, 0.6], [0.6, 1.0]])
mvn_cov = MultivariateNormal(loc, covariance_matrix=cov)
mvn_tril = MultivariateNormal(loc, scale_tril=torch.linalg.cholesky(cov))
mvn_prec = MultivariateNormal(loc, precision_matrix=torch.linalg.inv(cov))
tour("MVN covariance", mvn_cov, torch.tensor([0.5, 0.5]))
for name, m in (("scale_tril", mvn_tril), ("precision", mvn_prec)):
    print(name, m.log_prob(torch.tensor([0.5, 0.5])), m.entropy(), m.scale_tril, m.covariance_matrix,
          m.precision_matrix)
lr = LowRankMultivariateNormal(torch.zeros(3), torch.tensor([[1.0], [0.5], [-0.5]]), torch.tensor([0.5, 1.0, 2.0]))
tour("LowRankMVN", lr, torch.tensor([0.1, 0.2, -0.3]))
print("lowrank covariance", lr.covariance_matrix, lr.precision_matrix, lr.scale_tril)
batched = MultivariateNormal(torch.zeros(4, 2), scale_tril=torch.eye(2).expand(4, 2, 2) * torch.arange(1.0, 5.0).view(4, 1, 1))
print("batched MVN", batched.batch_shape, batched.event_shape, batched.log_prob(torch.ones(2)), batched.entropy())

# ---- wrappers
ind = Independent(Normal(torch.zeros(3, 2), torch.ones(3, 2)), 1)
tour("Independent", ind, torch.full((3, 2), 0.5))
print("reinterpreted", ind.reinterpreted_batch_ndims, ind.base_dist, Independent(ind.base_dist, 2).log_prob(torch.zeros(3, 2)))
mix = Categorical(torch.tensor([0.3, 0.7]))
comp = Normal(torch.tensor([-1.0, 2.0]), torch.tensor([0.5, 1.0]))
gmm = MixtureSameFamily(mix, comp)
tour("MixtureSameFamily", gmm, torch.tensor(0.5))
comp2 = Independent(Normal(torch.randn(3, 2), torch.rand(3, 2) + 0.5), 1)
gmm2 = MixtureSameFamily(Categorical(logits=torch.zeros(3)), comp2)
print("2-d mixture", gmm2.batch_shape, gmm2.event_shape, gmm2.log_prob(torch.zeros(4, 2)), gmm2.mean, gmm2.variance)
print("mixture parts", gmm2.mixture_distribution, gmm2.component_distribution)

# ---- transformed distributions
base = Normal(torch.zeros(2), torch.ones(2))
logn = TransformedDistribution(base, [ExpTransform()])
tour("exp(Normal)", logn, torch.tensor([0.5, 2.0]))
print("  matches LogNormal", LogNormal(torch.zeros(2), torch.ones(2)).log_prob(torch.tensor([0.5, 2.0])))
aff = TransformedDistribution(base, AffineTransform(loc=3.0, scale=torch.tensor([2.0, -0.5])))
tour("affine(Normal)", aff, torch.tensor([3.5, 1.0]))
logistic = TransformedDistribution(Uniform(0.0, 1.0), [SigmoidTransform().inv, AffineTransform(loc=1.0, scale=2.0)])
tour("logistic", logistic, torch.tensor(0.7))
squashed = TransformedDistribution(Normal(torch.tensor([0.0, 0.5]), torch.tensor([1.0, 2.0])), [TanhTransform(cache_size=1)])
tour("tanh(Normal)", squashed, torch.tensor([0.5, -0.9]))
chain = ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform(), AffineTransform(1.0, 1.0)])
x = torch.tensor([-1.0, 0.0, 0.5])
y = chain(x)
print("compose", chain, y, chain.inv(y), chain.log_abs_det_jacobian(x, y), chain.sign, chain.domain, chain.codomain)
print("inverses", ExpTransform().inv, ExpTransform().inv.inv, SigmoidTransform().inv(torch.tensor([0.25, 0.5])),
      TanhTransform().log_abs_det_jacobian(torch.tensor([0.0, 2.0]), torch.tanh(torch.tensor([0.0, 2.0]))),
      AffineTransform(1.0, -2.0).sign, ExpTransform() == ExpTransform(), ExpTransform().bijective)
print("transformed props", logn.base_dist, logn.transforms, logn.support, logn.batch_shape)

# ---- relaxed
rb = RelaxedBernoulli(torch.tensor([0.5, 2.0]), probs=torch.tensor([0.3, 0.8]))
tour("RelaxedBernoulli", rb, torch.tensor([0.4, 0.9]))
print("  temperature", rb.temperature, rb.probs, rb.logits)
roc = RelaxedOneHotCategorical(torch.tensor(0.5), logits=torch.tensor([0.0, 1.0, -1.0]))
tour("RelaxedOneHotCategorical", roc, torch.tensor([0.2, 0.7, 0.1]))

# ---- enumerate_support
print("enumerate Bernoulli", Bernoulli(torch.tensor([0.2, 0.7])).enumerate_support())
print("enumerate Categorical", Categorical(torch.ones(2, 3)).enumerate_support(expand=False).shape,
      Categorical(torch.ones(2, 3)).enumerate_support().shape)
print("enumerate Binomial", Binomial(3, torch.tensor([0.5, 0.5])).enumerate_support().squeeze(-1))
print("enumerate OneHot", OneHotCategorical(torch.ones(3)).enumerate_support())

# ---- gradients through rsample and log_prob
mu = torch.tensor([0.5, -0.5], requires_grad=True)
sigma = torch.tensor([1.0, 2.0], requires_grad=True)
torch.manual_seed(2)
z = Normal(mu, sigma).rsample((5,))
(z ** 2).mean().backward()
print("Normal rsample grads", mu.grad, sigma.grad)
mu.grad = sigma.grad = None
Normal(mu, sigma).log_prob(torch.tensor([0.0, 1.0])).sum().backward()
print("Normal log_prob grads", mu.grad, sigma.grad)
conc = torch.tensor([0.7, 3.0], requires_grad=True)
rate = torch.tensor([1.0, 2.0], requires_grad=True)
torch.manual_seed(3)
g = Gamma(conc, rate).rsample((4,))
g.sum().backward()
print("Gamma rsample", g, conc.grad, rate.grad)
conc.grad = rate.grad = None
Gamma(conc, rate).log_prob(torch.tensor([0.5, 1.5])).sum().backward()
print("Gamma log_prob grads", conc.grad, rate.grad)
a = torch.tensor([2.0, 0.5], requires_grad=True)
b = torch.tensor([3.0, 1.5], requires_grad=True)
torch.manual_seed(4)
bs = Beta(a, b).rsample((3,))
bs.sum().backward()
print("Beta rsample", bs, a.grad, b.grad)
alpha = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
torch.manual_seed(5)
ds = Dirichlet(alpha).rsample()
(ds * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("Dirichlet rsample", ds, alpha.grad)
alpha.grad = None
Dirichlet(alpha).entropy().backward()
print("Dirichlet entropy grad", alpha.grad)
L = torch.tensor([[1.0, 0.0], [0.5, 2.0]], requires_grad=True)
m0 = torch.zeros(2, requires_grad=True)
torch.manual_seed(6)
mv = MultivariateNormal(m0, scale_tril=L)
(mv.rsample((3,)).pow(2).sum() + mv.log_prob(torch.tensor([1.0, 1.0]))).backward()
print("MVN grads", m0.grad, L.grad)
p = torch.tensor([0.2, 0.6], requires_grad=True)
Bernoulli(p).log_prob(torch.tensor([1.0, 0.0])).sum().backward()
print("Bernoulli log_prob grad", p.grad)
lg = torch.tensor([0.5, -0.2, 1.0], requires_grad=True)
Categorical(logits=lg).entropy().backward()
print("Categorical entropy grad", lg.grad)
temp = torch.tensor(0.7, requires_grad=True)
lg2 = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
torch.manual_seed(7)
rs = RelaxedOneHotCategorical(temp, logits=lg2).rsample()
(rs * torch.tensor([1.0, 0.0, -1.0])).sum().backward()
print("relaxed grads", rs, temp.grad, lg2.grad)
sc = torch.tensor([0.5, 2.0], requires_grad=True)
scaled_lognormal = TransformedDistribution(Normal(0.0, 1.0), [AffineTransform(1.0, sc), ExpTransform()])
scaled_lognormal.log_prob(torch.tensor([1.5, 4.0])).sum().backward()
print("transformed log_prob grad", sc.grad)

# ---- kl_divergence
n1, n2 = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])), Normal(torch.tensor([0.5, 0.0]), torch.tensor([1.5, 1.0]))
pairs = [
    ("Normal", n1, n2),
    ("Bernoulli", Bernoulli(torch.tensor([0.2, 0.9])), Bernoulli(logits=torch.tensor([0.0, 1.0]))),
    ("Categorical", Categorical(torch.tensor([0.1, 0.3, 0.6])), Categorical(logits=torch.tensor([0.0, 0.5, 1.0]))),
    ("OneHot", OneHotCategorical(torch.tensor([0.1, 0.3, 0.6])), OneHotCategorical(torch.tensor([0.3, 0.3, 0.4]))),
    ("Beta", Beta(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 0.5])), Beta(torch.tensor([1.0, 1.0]), torch.tensor([1.0, 2.0]))),
    ("Gamma", Gamma(torch.tensor([2.0, 5.0]), torch.tensor([1.0, 2.0])),
     Gamma(torch.tensor([1.5, 4.0]), torch.tensor([0.5, 3.0]))),
    ("Dirichlet", Dirichlet(torch.tensor([1.0, 2.0, 3.0])), Dirichlet(torch.tensor([2.0, 2.0, 2.0]))),
    ("Exponential", Exponential(torch.tensor([1.0, 3.0])), Exponential(torch.tensor([2.0, 0.5]))),
    ("Laplace", Laplace(0.0, 1.0), Laplace(1.0, 2.0)),
    ("Poisson", Poisson(torch.tensor([2.0, 5.0])), Poisson(torch.tensor([3.0, 1.0]))),
    ("Geometric", Geometric(torch.tensor([0.3])), Geometric(torch.tensor([0.6]))),
    ("Gumbel", Gumbel(0.0, 1.0), Gumbel(1.0, 2.0)),
    ("Uniform", Uniform(0.0, 1.0), Uniform(-1.0, 2.0)),
    ("Uniform-Normal", Uniform(0.0, 1.0), Normal(0.0, 1.0)),
    ("Normal-Uniform", Normal(0.0, 1.0), Uniform(-1.0, 1.0)),
    ("Uniform outside", Uniform(0.0, 2.0), Uniform(0.5, 1.0)),
    ("Exponential-Gamma", Exponential(torch.tensor(2.0)), Gamma(torch.tensor(2.0), torch.tensor(1.0))),
    ("Beta-Normal", Beta(2.0, 3.0), Normal(0.5, 1.0)),
    ("MVN", mvn_cov, MultivariateNormal(torch.zeros(2), torch.eye(2))),
    ("LowRank-MVN", lr, MultivariateNormal(torch.zeros(3), torch.eye(3))),
    ("LowRank-LowRank", lr, LowRankMultivariateNormal(torch.ones(3), torch.ones(3, 1), torch.ones(3))),
    ("Independent", Independent(n1, 1), Independent(n2, 1)),
    ("Transformed", LogNormal(0.0, 1.0), LogNormal(1.0, 0.5)),
    ("Binomial", Binomial(5, torch.tensor([0.3])), Binomial(5, torch.tensor([0.6]))),
    ("Binomial total_count", Binomial(5, torch.tensor([0.3])), Binomial(6, torch.tensor([0.6]))),
    ("Cauchy", Cauchy(0.0, 1.0), Cauchy(1.0, 2.0)),
    ("StudentT", StudentT(3.0), StudentT(4.0)),
    ("Bernoulli-Poisson", Bernoulli(0.3), Poisson(1.0)),
]
for name, p_, q_ in pairs:
    attempt(f"kl {name}", lambda: kl_divergence(p_, q_))
print("kl self", kl_divergence(n1, n1), kl_divergence(mvn_cov, mvn_tril))
mu_q = torch.tensor([0.3, -0.2], requires_grad=True)
kl_divergence(Normal(mu_q, torch.ones(2)), Normal(0.0, 1.0)).sum().backward()
print("kl grad", mu_q.grad)

# ---- validate_args
bad_params = [
    ("Normal scale", lambda: Normal(torch.tensor([0.0]), torch.tensor([-1.0]))),
    ("Normal nan loc", lambda: Normal(torch.tensor([float("nan"), 0.0]), torch.ones(2))),
    ("Bernoulli probs", lambda: Bernoulli(torch.tensor([0.5, 1.5]))),
    ("Bernoulli both", lambda: Bernoulli(probs=torch.tensor(0.5), logits=torch.tensor(0.0))),
    ("Bernoulli none", lambda: Bernoulli()),
    ("Categorical negative", lambda: Categorical(torch.tensor([0.5, -0.1]))),
    ("Categorical 0-dim", lambda: Categorical(torch.tensor(1.0))),
    ("Beta", lambda: Beta(torch.tensor([0.0]), torch.tensor([1.0]))),
    ("Gamma", lambda: Gamma(torch.tensor([1.0]), torch.tensor([-2.0]))),
    ("Uniform", lambda: Uniform(torch.tensor([1.0]), torch.tensor([0.0]))),
    ("Dirichlet", lambda: Dirichlet(torch.tensor([1.0, -1.0]))),
    ("Poisson", lambda: Poisson(torch.tensor([-1.0]))),
    ("Geometric", lambda: Geometric(torch.tensor([0.0]))),
    ("Binomial count", lambda: Binomial(torch.tensor([-1.0]), torch.tensor([0.5]))),
    ("Exponential", lambda: Exponential(torch.tensor([0.0]))),
    ("MVN not pd", lambda: MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]]))),
    ("MVN two matrices", lambda: MultivariateNormal(torch.zeros(2), torch.eye(2), precision_matrix=torch.eye(2))),
    ("MVN no matrix", lambda: MultivariateNormal(torch.zeros(2))),
    ("MVN 1-d cov", lambda: MultivariateNormal(torch.zeros(2), torch.ones(2))),
    ("MVN loc 0-dim", lambda: MultivariateNormal(torch.tensor(0.0), torch.eye(2))),
    ("LowRank shape", lambda: LowRankMultivariateNormal(torch.zeros(3), torch.ones(2, 1), torch.ones(3))),
    ("Independent too many", lambda: Independent(Normal(torch.zeros(2), torch.ones(2)), 2)),
    ("Mixture batch", lambda: MixtureSameFamily(Categorical(torch.ones(3)), Normal(torch.zeros(2), torch.ones(2)))),
    ("Mixture type", lambda: MixtureSameFamily(Normal(0.0, 1.0), Normal(torch.zeros(2), torch.ones(2)))),
    ("Relaxed temperature", lambda: RelaxedBernoulli(torch.tensor(-1.0), probs=torch.tensor(0.5))),
    ("VonMises", lambda: VonMises(torch.tensor([0.0]), torch.tensor([-1.0]))),
    ("StudentT df", lambda: StudentT(torch.tensor([0.0]))),
    ("Weibull", lambda: Weibull(torch.tensor([1.0]), torch.tensor([0.0]))),
    ("Multinomial probs", lambda: Multinomial(3, torch.tensor([-0.5, 1.0]))),
]
for name, fn in bad_params:
    attempt(f"bad {name}:", fn)
out_of_support = [
    ("Normal nan", Normal(0.0, 1.0), torch.tensor(float("nan"))),
    ("Exponential negative", Exponential(torch.tensor([1.0])), torch.tensor([-1.0])),
    ("Bernoulli 0.5", Bernoulli(torch.tensor([0.3])), torch.tensor([0.5])),
    ("Categorical 3", Categorical(torch.ones(3)), torch.tensor(3)),
    ("Categorical shape", Categorical(torch.ones(2, 3)), torch.tensor([0, 1, 2])),
    ("Beta 1.5", Beta(torch.tensor([2.0]), torch.tensor([2.0])), torch.tensor([1.5])),
    ("Uniform outside", Uniform(torch.tensor([0.0]), torch.tensor([1.0])), torch.tensor([2.0])),
    ("Poisson fraction", Poisson(torch.tensor([2.0])), torch.tensor([1.5])),
    ("Dirichlet sum", Dirichlet(torch.ones(3)), torch.tensor([0.5, 0.5, 0.5])),
    ("Binomial 11", Binomial(10, torch.tensor([0.5])), torch.tensor([11.0])),
    ("OneHot", OneHotCategorical(torch.ones(3)), torch.tensor([1.0, 1.0, 0.0])),
    ("MVN shape", mvn_cov, torch.zeros(3)),
    ("Multinomial sum", Multinomial(3, torch.ones(2)), torch.tensor([1.0, 1.0])),
]
for name, d, v in out_of_support:
    attempt(f"support {name}:", lambda: d.log_prob(v))
print("no validation", Normal(torch.tensor([0.0]), torch.tensor([-1.0]), validate_args=False).log_prob(torch.tensor([0.0])),
      Bernoulli(torch.tensor([0.3]), validate_args=False).log_prob(torch.tensor([0.5])),
      Exponential(torch.tensor([1.0]), validate_args=False).log_prob(torch.tensor([-1.0])))
Distribution.set_default_validate_args(False)
print("default off", Beta(torch.tensor([2.0]), torch.tensor([2.0])).log_prob(torch.tensor([0.5])),
      Poisson(torch.tensor([2.0])).log_prob(torch.tensor([1.5])))
Distribution.set_default_validate_args(True)
attempt("default back on", lambda: Poisson(torch.tensor([2.0])).log_prob(torch.tensor([1.5])))
attempt("sample shape type", lambda: Normal(0.0, 1.0).sample(3))
attempt("Bernoulli rsample", lambda: Bernoulli(0.5).rsample())
attempt("Bernoulli cdf", lambda: Bernoulli(0.5).cdf(torch.tensor(1.0)))
attempt("Poisson entropy", lambda: Poisson(2.0).entropy())

# ---- constraints
print("constraints", constraints.positive, constraints.unit_interval, constraints.simplex, constraints.real_vector,
      constraints.interval(0.0, 2.0), constraints.integer_interval(0, 5), constraints.greater_than(1.0))
print("check", constraints.positive.check(torch.tensor([-1.0, 0.0, 1.0])), constraints.simplex.check(torch.tensor([0.5, 0.5])),
      constraints.positive_definite.check(cov), constraints.lower_cholesky.check(torch.eye(2)),
      constraints.boolean.check(torch.tensor([0.0, 1.0, 0.5])), constraints.positive.is_discrete, constraints.real.event_dim,
      constraints.simplex.event_dim)
print("arg_constraints", Normal.arg_constraints, sorted(MultivariateNormal.arg_constraints))

# ---- batch statistics: a Monte-Carlo check of mean/variance
torch.manual_seed(8)
many = Gamma(torch.tensor(3.0), torch.tensor(2.0)).sample((20000,))
print("Gamma MC", f"{many.mean().item():.2f}", f"{many.var().item():.2f}")
many = Poisson(torch.tensor(3.5)).sample((20000,))
print("Poisson MC", f"{many.mean().item():.2f}", f"{many.var().item():.2f}", many[:10])
many = Binomial(20, torch.tensor(0.3)).sample((20000,))
print("Binomial MC", f"{many.mean().item():.2f}", f"{many.var().item():.2f}", many[:10])
three = Categorical(torch.tensor([0.25, 0.25, 0.5]))
print("perplexity", three.perplexity(), math.exp(three.entropy().item()))

# ---- float64 parameters, mixed numbers and tensors, broadcasting
d64 = Normal(torch.zeros(2, dtype=torch.float64), 1.0)
torch.manual_seed(9)
print("float64", d64.sample().dtype, d64.sample(), d64.log_prob(torch.tensor([0.5, 1.0], dtype=torch.float64)),
      d64.scale.dtype, d64.cdf(torch.tensor(0.3, dtype=torch.float64)))
g64 = Gamma(torch.tensor([0.3, 1.0, 4.0], dtype=torch.float64), 1.0)
print("Gamma float64", g64.sample(), g64.entropy(), Beta(torch.tensor(0.2, dtype=torch.float64), 0.3).sample((3,)))
print("Dirichlet float64", Dirichlet(torch.tensor([0.1, 0.1, 5.0], dtype=torch.float64)).sample())
print("VonMises float64", VonMises(torch.tensor(0.5, dtype=torch.float64), torch.tensor(50.0, dtype=torch.float64)).sample((4,)))
print("VonMises small kappa", VonMises(0.0, 0.01).sample((4,)), VonMises(1.0, 0.5).log_prob(torch.tensor([-3.0, 3.0])))
bc = Normal(torch.zeros(3, 1), torch.tensor([1.0, 2.0]))
print("broadcast", bc.batch_shape, bc.sample().shape, bc.log_prob(torch.zeros(2)).shape,
      Uniform(0.0, torch.tensor([1.0, 2.0])).batch_shape)
print("Gamma small concentration", Gamma(torch.tensor([0.05, 0.2]), 1.0).sample((3,)))
print("Beta small", Beta(torch.tensor([0.05, 0.5]), torch.tensor([0.05, 100.0])).sample((3,)))
print("Binomial large", Binomial(torch.tensor([1000.0, 50.0, 0.0]), torch.tensor([0.4, 0.01, 0.5])).sample((3,)))
print("Poisson large", Poisson(torch.tensor([0.0, 12.0, 1000.0])).sample((3,)))
print("Categorical many", Categorical(logits=torch.randn(50)).sample((12,)))
print("Categorical unnormalised", Categorical(torch.tensor([1.0, 3.0])).probs, Categorical(torch.tensor([1.0, 3.0])).logits)
print("Multinomial log_prob", Multinomial(4, probs=torch.tensor([0.2, 0.8])).log_prob(torch.tensor([[3.0, 1.0], [0.0, 4.0]])),
      Multinomial(4, logits=torch.tensor([[0.0, 1.0], [1.0, 0.0]])).sample((2,)))
st = StudentT(torch.tensor([3.0, 10.0]))
torch.manual_seed(10)
print("StudentT samples", st.sample((3,)))
ohst = torch.distributions.OneHotCategoricalStraightThrough(logits=torch.tensor([0.0, 1.0, 2.0], requires_grad=True))
torch.manual_seed(11)
r = ohst.rsample((2,))
print("straight-through", r, r.requires_grad, ohst.has_rsample)
cb = torch.distributions.ContinuousBernoulli(torch.tensor([0.2, 0.5, 0.8]))
print("ContinuousBernoulli", cb.mean, cb.variance, cb.log_prob(torch.tensor([0.3, 0.3, 0.3])), cb.entropy(),
      cb.cdf(torch.tensor([0.5, 0.5, 0.5])),
      cb.icdf(torch.tensor([0.5, 0.5, 0.5])))
print("icdf edges", Normal(0.0, 1.0).icdf(torch.tensor([0.0, 1.0, 0.5])), Exponential(2.0).icdf(torch.tensor([0.0, 0.999])),
      Laplace(0.0, 1.0).icdf(torch.tensor([0.0, 0.5, 0.99])), Cauchy(0.0, 1.0).cdf(torch.tensor([-1e8, 0.0, 1e8])))
print("log_prob extremes", Normal(0.0, 1.0).log_prob(torch.tensor([-1e3, 40.0])),
      Bernoulli(logits=torch.tensor([-100.0, 100.0])).log_prob(torch.tensor([1.0, 0.0])),
      Categorical(logits=torch.tensor([-1e4, 0.0])).log_prob(torch.tensor(0)),
      Poisson(torch.tensor([0.0])).log_prob(torch.tensor([0.0])))
print("Beta log_prob edges", Beta(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0])).log_prob(torch.tensor([0.0, 1.0])))
geo = Geometric(logits=torch.tensor([0.0, 2.0]))
print("Geometric logits", geo.probs, geo.log_prob(torch.tensor([3.0, 1.0])))
print("Bernoulli logits+probs props", Bernoulli(logits=torch.tensor(0.3)).param_shape,
      Bernoulli(probs=torch.tensor([0.3, 1.0])).logits)

# ---- more wrappers
mvn_ind = Independent(MultivariateNormal(torch.zeros(3, 2), torch.eye(2)), 1)
print("Independent MVN", mvn_ind.batch_shape, mvn_ind.event_shape, mvn_ind.log_prob(torch.zeros(3, 2)), mvn_ind.entropy())
attempt("kl Independent mismatch", lambda: kl_divergence(Independent(n1, 1), n2))
mix_mvn = MixtureSameFamily(Categorical(torch.tensor([[0.5, 0.5], [0.1, 0.9]])),
                            MultivariateNormal(torch.tensor([[[0.0, 0.0], [2.0, 2.0]], [[1.0, -1.0], [0.0, 3.0]]]), torch.eye(2)))
torch.manual_seed(12)
print("mixture MVN", mix_mvn.batch_shape, mix_mvn.event_shape, mix_mvn.sample((2,)), mix_mvn.log_prob(torch.ones(2)),
      mix_mvn.mean)
print("mixture cdf", gmm.cdf(torch.tensor([-1.0, 0.0, 2.0])), gmm.expand(torch.Size([3])).batch_shape)
print("transformed cdf", aff.cdf(torch.tensor([3.0, 3.0])), aff.icdf(torch.tensor([0.25, 0.25])),
      logn.cdf(torch.tensor([1.0, 2.0])),
      squashed.cdf(torch.tensor([0.0, 0.5])))
print("transformed expand", aff.expand(torch.Size([3, 2])).batch_shape, logn.rsample((2,)).shape)
ts = [torch.distributions.PowerTransform(torch.tensor(2.0)), torch.distributions.AbsTransform(),
      torch.distributions.SoftmaxTransform(), torch.distributions.StickBreakingTransform(),
      torch.distributions.LowerCholeskyTransform(), torch.distributions.SoftplusTransform(),
      torch.distributions.ReshapeTransform((2, 3), (6,)), torch.distributions.IndependentTransform(ExpTransform(), 1),
      torch.distributions.CatTransform([ExpTransform(), AffineTransform(0.0, 3.0)], dim=0, lengths=[1, 1]),
      torch.distributions.StackTransform([ExpTransform(), TanhTransform()], dim=0)]
for t in ts:
    x = torch.tensor([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
    if isinstance(t, (torch.distributions.CatTransform, torch.distributions.StackTransform)):
        x = torch.tensor([[0.5, -1.0], [0.2, 0.7]])
    if isinstance(t, torch.distributions.LowerCholeskyTransform):
        x = torch.tensor([[0.5, -1.0], [0.2, 0.7]])
    y = t(x)
    attempt(f"transform {t}", lambda: (y, t.inv(y), t.log_abs_det_jacobian(x, y), t.domain, t.codomain, t.bijective,
                                        t.forward_shape(x.shape), t.inverse_shape(y.shape)))
dirichlet_like = TransformedDistribution(Normal(torch.zeros(2), torch.ones(2)), torch.distributions.StickBreakingTransform())
print("stick-breaking", dirichlet_like.event_shape, dirichlet_like.log_prob(torch.tensor([0.2, 0.3, 0.5])),
      dirichlet_like.support)
biject = torch.distributions.biject_to(constraints.simplex)
print("biject_to", biject, torch.distributions.transform_to(constraints.positive),
      torch.distributions.biject_to(constraints.interval(1.0, 3.0)),
      torch.distributions.transform_to(constraints.lower_cholesky))
attempt("biject_to unsupported", lambda: torch.distributions.biject_to(constraints.integer_interval(0, 3)))
caching = ExpTransform(cache_size=1)
xx = torch.tensor([1.0, 2.0])
print("cache", caching(xx) is caching(xx), caching.inv(caching(xx)) is xx, ExpTransform()(xx) is ExpTransform()(xx))
attempt("cache size", lambda: ExpTransform(cache_size=2))


def custom_kl(p, q):
    return (p.loc - q.loc).abs()


class MyNormal(Normal):
    pass


torch.distributions.register_kl(MyNormal, Normal)(custom_kl)
print("register_kl", kl_divergence(MyNormal(1.0, 1.0), Normal(3.0, 1.0)), kl_divergence(Normal(1.0, 1.0), MyNormal(3.0, 1.0)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    attempt("abstract mode", lambda: Distribution(torch.Size([2])).mode)
    attempt("abstract sample", lambda: Distribution(torch.Size([2])).sample())
    attempt("support-less log_prob", lambda: Distribution(torch.Size([2]), validate_args=False).log_prob(torch.zeros(2)))
print("warnings", [str(w.message) for w in caught])


class Positive(ExpTransform):
    def __init__(self, power):
        super().__init__()
        self.power = power


attempt("with_cache", lambda: Positive(2).with_cache(1))
attempt("abstract log_prob", lambda: Distribution(torch.Size([2]), validate_args=False).log_prob(torch.zeros(2)))
attempt("Distribution repr", lambda: repr(Distribution(torch.Size([2]), torch.Size([3]), validate_args=False)))
print("Distribution shapes", Distribution(torch.Size([2]), torch.Size([3]), validate_args=False).event_shape)

# ---- the rest of the family, briefly
D = torch.distributions
more = [
    ("HalfNormal", D.HalfNormal(torch.tensor([1.0, 2.0])), torch.tensor([0.5, 3.0])),
    ("HalfCauchy", D.HalfCauchy(torch.tensor([1.0, 2.0])), torch.tensor([0.5, 3.0])),
    ("Pareto", D.Pareto(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 1.5])), torch.tensor([1.5, 4.0])),
    ("Chi2", D.Chi2(torch.tensor([2.0, 5.0])), torch.tensor([1.0, 4.0])),
    ("NegativeBinomial", D.NegativeBinomial(torch.tensor([3.0, 2.5]), torch.tensor([0.3, 0.6])), torch.tensor([2.0, 5.0])),
    ("Kumaraswamy", D.Kumaraswamy(torch.tensor([2.0, 1.0]), torch.tensor([3.0, 0.5])), torch.tensor([0.3, 0.8])),
    ("InverseGamma", D.InverseGamma(torch.tensor([2.0, 3.0]), torch.tensor([1.0, 2.0])), torch.tensor([0.5, 1.5])),
    ("FisherSnedecor", D.FisherSnedecor(torch.tensor([3.0, 5.0]), torch.tensor([4.0, 6.0])), torch.tensor([0.5, 1.5])),
    ("GeneralizedPareto", D.GeneralizedPareto(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]), torch.tensor([0.2, -0.1])),
     torch.tensor([0.5, 3.0])),
    ("LogisticNormal", D.LogisticNormal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])), torch.tensor([0.2, 0.5, 0.3])),
    ("LKJCholesky", D.LKJCholesky(3, torch.tensor(2.0)), torch.eye(3)),
    ("Wishart", D.Wishart(torch.tensor(4.0), covariance_matrix=torch.tensor([[2.0, 0.5], [0.5, 1.0]])), torch.eye(2)),
]
for name, d, v in more:
    tour(name, d, v)
cross = [("Gamma", "Exponential"), ("Exponential", "Gumbel"), ("Normal", "Gumbel"), ("Laplace", "Normal"),
         ("Beta", "Uniform"), ("Pareto", "Exponential"), ("HalfNormal", "HalfNormal"), ("Poisson", "Bernoulli"),
         ("ContinuousBernoulli", "Uniform"), ("Gumbel", "Normal"), ("Uniform", "Gamma"), ("Exponential", "Normal")]
fam = {
    "Gamma": D.Gamma(torch.tensor([2.0, 0.5]), torch.tensor([1.0, 3.0])), "Exponential": D.Exponential(torch.tensor([1.0, 2.0])),
    "Gumbel": D.Gumbel(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])),
    "Normal": D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])),
    "Laplace": D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])),
    "Beta": D.Beta(torch.tensor([2.0, 0.5]), torch.tensor([3.0, 1.5])),
    "Uniform": D.Uniform(torch.tensor([0.0, 0.5]), torch.tensor([1.0, 3.0])),
    "Pareto": D.Pareto(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 1.5])),
    "HalfNormal": D.HalfNormal(torch.tensor([1.0, 2.0])), "Poisson": D.Poisson(torch.tensor([2.0, 0.5])),
    "Bernoulli": D.Bernoulli(torch.tensor([0.3, 0.6])), "ContinuousBernoulli": D.ContinuousBernoulli(torch.tensor([0.3, 0.7])),
}
for a_, b_ in cross:
    attempt(f"kl {a_}-{b_}", lambda: kl_divergence(fam[a_], fam[b_]))
