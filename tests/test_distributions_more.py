"""The later distributions (Exponential, Laplace, Poisson, ..., Wishart, LKJCholesky) against torch.distributions:
samples after the same seed, log_prob, cdf/icdf, moments, entropy, KL, shapes, gradients, validation errors."""
import math
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.distributions as ptd
from conftest import assert_close, gradcheck, to_np

# ---------------------------------------------------------------------------------------------- cases
# Each case: (class name, parameters, a value for log_prob/cdf, dtype).  Lists become tensors of the dtype
# requiring grad (in both libraries); plain numbers stay numbers.  Nested dicts ("_dist") build a
# distribution argument (MixtureSameFamily).

_SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
_TRIL = np.linalg.cholesky(_SPD)
_W = [[1.0, 0.5], [0.0, -0.3], [0.2, 0.1]]

CASES = {
    "exponential": ("Exponential", dict(rate=[0.5, 1.0, 3.0]), [0.2, 1.5, 0.01]),
    "exponential_scalar": ("Exponential", dict(rate=2.0), [[0.3], [1.0]]),
    "laplace": ("Laplace", dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 0.5, 2.0]), [0.3, 0.2, -5.0]),
    "poisson": ("Poisson", dict(rate=[0.5, 4.0, 15.0]), [0.0, 3.0, 17.0]),
    "onehot": ("OneHotCategorical", dict(probs=[[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]), [[0.0, 0.0, 1.0], [1.0, 0, 0]]),
    "onehot_logits": ("OneHotCategorical", dict(logits=[0.5, -1.0, 2.0, 0.0]), [0.0, 1.0, 0.0, 0.0]),
    "onehot_st": ("OneHotCategoricalStraightThrough", dict(probs=[0.2, 0.3, 0.5]), [0.0, 1.0, 0.0]),
    "studentt": ("StudentT", dict(df=[0.8, 1.5, 3.0, 7.0], loc=[0.0, 1.0, -1.0, 0.5], scale=[1.0, 2.0, 0.5, 1.0]),
                 [0.3, -0.5, 2.0, 0.0]),
    "studentt_df": ("StudentT", dict(df=[2.5, 5.0]), [0.3, -1.0]),
    "halfnormal": ("HalfNormal", dict(scale=[1.0, 0.5, 3.0]), [0.2, 1.0, 2.5]),
    "cauchy": ("Cauchy", dict(loc=[0.0, 1.0], scale=[1.0, 0.3]), [0.5, -2.0]),
    "halfcauchy": ("HalfCauchy", dict(scale=[1.0, 2.5]), [0.5, 3.0]),
    "binomial": ("Binomial", dict(total_count=[10.0, 10.0, 10.0], probs=[0.1, 0.5, 0.95]), [1.0, 5.0, 10.0]),
    "binomial_logits": ("Binomial", dict(total_count=40, logits=[-1.0, 0.3, 2.0]), [10.0, 20.0, 39.0]),
    "geometric": ("Geometric", dict(probs=[0.2, 0.5, 0.9]), [0.0, 3.0, 1.0]),
    "geometric_logits": ("Geometric", dict(logits=[-1.0, 0.5]), [2.0, 0.0]),
    "chi2": ("Chi2", dict(df=[0.7, 2.0, 5.0]), [0.3, 1.5, 4.0]),
    "negbinomial": ("NegativeBinomial", dict(total_count=[3.0, 0.5, 10.0], probs=[0.2, 0.5, 0.7]), [2.0, 0.0, 15.0]),
    "negbinomial_logits": ("NegativeBinomial", dict(total_count=4.0, logits=[-0.5, 1.0]), [1.0, 6.0]),
    "contbern": ("ContinuousBernoulli", dict(probs=[0.2, 0.4995, 0.5, 0.8]), [0.3, 0.5, 0.9, 0.1]),
    "contbern_logits": ("ContinuousBernoulli", dict(logits=[-2.0, 0.0, 1.5]), [0.3, 0.7, 0.5]),
    "pareto": ("Pareto", dict(scale=[1.0, 2.0, 0.5], alpha=[0.8, 1.5, 3.0]), [1.5, 2.5, 4.0]),
    "weibull": ("Weibull", dict(scale=[1.0, 2.0], concentration=[0.7, 3.0]), [0.5, 1.8]),
    "kumaraswamy": ("Kumaraswamy", dict(concentration1=[0.5, 2.0, 3.0], concentration0=[0.7, 2.0, 1.5]),
                    [0.3, 0.5, 0.9]),
    "lowrank_mvn": ("LowRankMultivariateNormal", dict(loc=[0.1, -0.2, 0.3], cov_factor=_W, cov_diag=[1.0, 0.5, 2.0]),
                    [[0.5, 0.0, -1.0], [1.0, 2.0, 3.0]]),
    "fisher": ("FisherSnedecor", dict(df1=[1.0, 3.0, 6.0], df2=[2.0, 5.0, 12.0]), [0.5, 1.2, 2.0]),
    "vonmises": ("VonMises", dict(loc=[0.0, 1.0, -2.0], concentration=[0.5, 2.0, 10.0]), [0.3, 1.5, 3.0]),
    "inversegamma": ("InverseGamma", dict(concentration=[0.8, 2.5, 4.0], rate=[1.0, 2.0, 0.5]), [0.3, 1.2, 5.0]),
    "genpareto": ("GeneralizedPareto", dict(loc=[0.0, 1.0, 0.0], scale=[1.0, 2.0, 0.5], concentration=[0.3, 0.0, -0.2]),
                  [0.5, 2.0, 1.0]),
    "wishart": ("Wishart", dict(df=4.0, covariance_matrix=_SPD), [_SPD * 3]),
    "wishart_tril": ("Wishart", dict(df=[3.5, 6.0], scale_tril=_TRIL), _SPD * 2),
    "lkj": ("LKJCholesky", dict(dim=3, concentration=[0.5, 2.0]), _TRIL / np.sqrt(np.diag(_SPD))[:, None]),
    "mixture": ("MixtureSameFamily", dict(mixture_distribution=("Categorical", dict(logits=[0.3, -1.0, 0.5])),
                                          component_distribution=("Normal", dict(loc=[-1.0, 0.0, 2.0],
                                                                                 scale=[0.5, 1.0, 2.0]))),
                [0.3, -1.0]),
    "mixture_2d": ("MixtureSameFamily",
                   dict(mixture_distribution=("Categorical", dict(probs=[[0.2, 0.8], [0.5, 0.5]])),
                        component_distribution=("Independent", ("Normal", dict(loc=[[[0.0, 1.0], [2.0, -1.0]]] * 2,
                                                                               scale=[[[1.0, 0.5], [2.0, 1.0]]] * 2)),
                                                1)),
                   [[0.3, 0.4], [1.0, -1.0]]),
}

def _tensor(lib, v, requires_grad, dtype="float64"):
    return lib.tensor(np.array(v, dtype=np.float64), dtype=getattr(lib, dtype), requires_grad=requires_grad)


def _build_spec(lib, spec, tensors, requires_grad, dtype, prefix=""):
    if spec[0] == "Independent":
        base = _build_spec(lib, spec[1], tensors, requires_grad, dtype, prefix)
        return lib.distributions.Independent(base, spec[2])
    cls_name, params = spec
    kwargs = {}
    for k, v in params.items():
        if isinstance(v, tuple):
            kwargs[k] = _build_spec(lib, v, tensors, requires_grad, dtype, prefix + k + ".")
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            kwargs[k] = v
        else:
            kwargs[k] = tensors[prefix + k] = _tensor(lib, v, requires_grad, dtype)
    return getattr(lib.distributions, cls_name)(**kwargs)


# PyTorch's GeneralizedPareto compares its concentration with a float32 ``tensor(0.0)``: float64 raises there
FLOAT32_ONLY = {"genpareto"}


def build(lib, case, requires_grad=True, dtype="float64"):
    """The case's distribution in ``lib`` and its tensor parameters by name."""
    cls_name, params, _ = CASES[case]
    dtype = "float32" if case in FLOAT32_ONLY else dtype
    tensors = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = _build_spec(lib, (cls_name, params), tensors, requires_grad, dtype)
    return d, tensors


def value_of(lib, case, dtype="float64"):
    return _tensor(lib, CASES[case][2], False, "float32" if case in FLOAT32_ONLY else dtype)


def grads_of(lib, out, tensors):
    names = list(tensors)
    if not names or not out.requires_grad:
        return {n: None for n in names}
    got = lib.autograd.grad(out.sum(), [tensors[n] for n in names], allow_unused=True, retain_graph=True)
    return {n: (None if g is None else to_np(g)) for n, g in zip(names, got)}


def _same_grads(a, b, rtol=1e-6, atol=1e-8, case=None):
    assert a.keys() == b.keys()
    if case in FLOAT32_ONLY:
        rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
    for k in a:
        assert (a[k] is None) == (b[k] is None), k
        if a[k] is not None:
            np.testing.assert_allclose(a[k], b[k], rtol=rtol, atol=atol, err_msg=k)


def _attr(d, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return getattr(d, name)() if name in ("entropy",) else getattr(d, name)
        except NotImplementedError as e:
            return ("NotImplementedError", str(e).split(" ")[-1])
        except (AttributeError, ValueError) as e:
            return (type(e).__name__,)


# ---------------------------------------------------------------------------------------------- shapes, flags

@pytest.mark.parametrize("case", CASES)
def test_shapes_flags_and_constraints(torch, case):
    ours, _ = build(pt, case)
    theirs, _ = build(torch, case)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert isinstance(ours.batch_shape, pt.Size)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    assert list(ours.arg_constraints) == list(theirs.arg_constraints)
    assert [repr(c) for c in ours.arg_constraints.values()] == [repr(c) for c in theirs.arg_constraints.values()]
    assert repr(ours.support) == repr(theirs.support)
    assert repr(ours) == repr(theirs)
    for sample_shape in [(), (2,), (3, 1)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s, t = ours.sample(sample_shape), theirs.sample(sample_shape)
        assert tuple(s.shape) == tuple(t.shape)
        assert str(s.dtype) == str(t.dtype)
        assert not s.requires_grad
        assert bool(ours.support.check(s).all())


@pytest.mark.parametrize("case", CASES)
def test_expand(torch, case):
    ours, _ = build(pt, case)
    theirs, _ = build(torch, case)
    new_batch = (2,) + tuple(theirs.batch_shape)
    a, b = ours.expand(new_batch), theirs.expand(new_batch)
    assert type(a) is type(ours)
    assert tuple(a.batch_shape) == tuple(b.batch_shape) and tuple(a.event_shape) == tuple(b.event_shape)
    v = value_of(pt, case)
    if case not in ("lkj",) and not (case.startswith("wishart")):
        assert_close(a.log_prob(v), b.log_prob(value_of(torch, case)), rtol=1e-6, atol=1e-7)
    pt.manual_seed(3), torch.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tuple(a.sample((2,)).shape) == tuple(b.sample((2,)).shape)


# ---------------------------------------------------------------------------------------------- values

@pytest.mark.parametrize("case", CASES)
def test_log_prob_moments_entropy_and_gradients(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    v_pt, v_th = value_of(pt, case), value_of(torch, case)
    lp_pt, lp_th = ours.log_prob(v_pt), theirs.log_prob(v_th)
    tol = dict(rtol=1e-9, atol=1e-10) if case not in FLOAT32_ONLY else dict(rtol=1e-6, atol=1e-6)
    assert_close(lp_pt, lp_th, **tol)
    _same_grads(grads_of(pt, lp_pt, pt_params), grads_of(torch, lp_th, th_params), case=case)
    for name in ("mean", "mode", "variance", "stddev", "entropy"):
        a, b = _attr(ours, name), _attr(theirs, name)
        if isinstance(b, tuple):
            assert isinstance(a, tuple) and a[0] == b[0], (name, a, b)
            continue
        assert_close(a, b, **tol)
        assert a.requires_grad == b.requires_grad, name
        if b.requires_grad and name != "mode":
            _same_grads(grads_of(pt, a.nan_to_num(0, 0, 0), pt_params), grads_of(torch, b.nan_to_num(0, 0, 0),
                                                                                  th_params), case=case)


@pytest.mark.parametrize("case, names", [
    ("lowrank_mvn", ["covariance_matrix", "precision_matrix", "scale_tril"]),
    ("wishart", ["covariance_matrix", "precision_matrix", "scale_tril"]),
    ("wishart_tril", ["covariance_matrix", "precision_matrix", "scale_tril"])])
def test_matrix_properties(torch, case, names):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    for name in names:
        a, b = getattr(ours, name), getattr(theirs, name)
        assert_close(a, b, rtol=1e-12, atol=1e-14)
        _same_grads(grads_of(pt, a, pt_params), grads_of(torch, b, th_params), rtol=1e-9, atol=1e-12)


CDF_CASES = ["exponential", "laplace", "halfnormal", "cauchy", "halfcauchy", "chi2", "contbern", "pareto", "weibull",
             "kumaraswamy", "genpareto", "mixture"]
ICDF_CASES = ["exponential", "laplace", "halfnormal", "cauchy", "halfcauchy", "contbern", "pareto", "weibull",
              "kumaraswamy", "genpareto"]


@pytest.mark.parametrize("case", CDF_CASES)
def test_cdf(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    a, b = ours.cdf(value_of(pt, case)), theirs.cdf(value_of(torch, case))
    assert_close(a, b, **(dict(rtol=1e-9, atol=1e-12) if case not in FLOAT32_ONLY else dict(rtol=1e-6, atol=1e-7)))
    if case != "chi2":     # (PyTorch has no gradient of igamma w.r.t. the concentration)
        _same_grads(grads_of(pt, a, pt_params), grads_of(torch, b, th_params), case=case)


@pytest.mark.parametrize("case", ICDF_CASES)
def test_icdf(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    u = np.resize(np.array([0.1, 0.5, 0.93, 0.3]), tuple(theirs.batch_shape))
    dt = "float32" if case in FLOAT32_ONLY else "float64"
    a, b = ours.icdf(_tensor(pt, u, False, dt)), theirs.icdf(_tensor(torch, u, False, dt))
    assert_close(a, b, **(dict(rtol=1e-9, atol=1e-12) if case not in FLOAT32_ONLY else dict(rtol=1e-6, atol=1e-7)))
    _same_grads(grads_of(pt, a, pt_params), grads_of(torch, b, th_params), case=case)


def test_generalized_pareto_log_survival_and_log_cdf(torch):
    ours, _ = build(pt, "genpareto")
    theirs, _ = build(torch, "genpareto")
    for name in ("log_survival_function", "log_cdf"):
        assert_close(getattr(ours, name)(value_of(pt, "genpareto")),
                     getattr(theirs, name)(value_of(torch, "genpareto")), rtol=1e-6)


@pytest.mark.parametrize("case", ["onehot", "onehot_logits", "binomial_logits"])
def test_enumerate_support(torch, case):
    ours, _ = build(pt, case)
    theirs, _ = build(torch, case)
    for expand in (True, False):
        assert_close(ours.enumerate_support(expand), theirs.enumerate_support(expand), rtol=0, atol=0)


# ---------------------------------------------------------------------------------------------- sampling

# every sampler draws PyTorch's numbers (exact up to the last bit of the arithmetic after the draws)
SAMPLE_CASES = list(CASES)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", SAMPLE_CASES)
def test_samples_match_pytorch_after_the_same_seed(torch, case, dtype):
    ours, _ = build(pt, case, requires_grad=False, dtype=dtype)
    theirs, _ = build(torch, case, requires_grad=False, dtype=dtype)
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == "float64" and case not in FLOAT32_ONLY else dict(rtol=2e-6,
                                                                                                     atol=2e-6)
    for shape in [(), (5,), (2, 3)]:
        pt.manual_seed(11), torch.manual_seed(11)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = ours.sample(shape), theirs.sample(shape)
        assert_close(a, b, **tol)
        # the stream is left where PyTorch leaves it
        assert_close(pt.rand(2, dtype=pt.float64), torch.rand(2, dtype=torch.float64), rtol=0, atol=0)
        if theirs.has_rsample:
            pt.manual_seed(12), torch.manual_seed(12)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a, b = ours.rsample(shape), theirs.rsample(shape)
            assert_close(a, b, **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_beta_dirichlet_samples_match_pytorch(torch, dtype):
    """The gamma-based families of the first batch draw PyTorch's numbers too (Dirichlet's float64 normalising sum
    in PyTorch's order, over 9 categories)."""
    def draw(lib):
        dt = getattr(lib, dtype)
        D = lib.distributions
        lib.manual_seed(4)
        return (D.Gamma(lib.tensor([0.3, 1.0, 7.5], dtype=dt), lib.tensor([1.0, 2.0, 0.5], dtype=dt)).rsample((6,)),
                D.Beta(lib.tensor([0.4, 3.0], dtype=dt), lib.tensor([2.0, 0.7], dtype=dt)).sample((5,)),
                D.Dirichlet(lib.linspace(0.2, 4.0, 9, dtype=dt)).rsample((7,)), lib.randn(3, dtype=dt))
    for a, b in zip(draw(pt), draw(torch)):
        assert_close(a, b, rtol=0, atol=0)


RSAMPLE_GRAD_CASES = [c for c in CASES if c not in ("studentt", "studentt_df", "chi2", "fisher", "inversegamma",
                                                    "wishart", "wishart_tril")]


@pytest.mark.parametrize("case", [c for c in RSAMPLE_GRAD_CASES if CASES[c][0] not in
                                  ("Poisson", "Binomial", "Geometric", "NegativeBinomial", "OneHotCategorical",
                                   "VonMises", "LKJCholesky", "MixtureSameFamily")])
def test_rsample_gradients_match_pytorch(torch, case):
    """Reparameterised samples that need no gamma draw: the same noise gives the same gradients."""
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    pt.manual_seed(5), torch.manual_seed(5)
    a, b = ours.rsample((4,)), theirs.rsample((4,))
    assert_close(a, b, **(dict(rtol=1e-12, atol=1e-12) if case not in FLOAT32_ONLY else dict(rtol=1e-6, atol=1e-7)))
    _same_grads(grads_of(pt, a.sin(), pt_params), grads_of(torch, b.sin(), th_params), rtol=1e-9, atol=1e-12,
                case=case)


@pytest.mark.parametrize("case", ["studentt", "chi2", "fisher", "inversegamma"])
def test_gamma_based_rsample_gradients_are_close_to_pytorch(torch, case):
    """Through a gamma draw, pedatorch's dx/dalpha is exact and PyTorch's approximate (~1e-4 relative)."""
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    pt.manual_seed(5), torch.manual_seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = ours.rsample((4,)), theirs.rsample((4,))
    assert_close(a, b, rtol=1e-12, atol=1e-12)
    # (PyTorch's approximation is at its worst for small concentrations: ~1% at alpha = 0.5)
    _same_grads(grads_of(pt, a, pt_params), grads_of(torch, b, th_params), rtol=2e-2, atol=1e-6)


def test_wishart_rsample_is_differentiable(torch):
    """PyTorch's Wishart.rsample cannot be differentiated (its redraw loop changes a mask that autograd saved);
    pedatorch's can: the same sample, and gradients that pass gradcheck w.r.t. the scale."""
    ours, pt_params = build(pt, "wishart")
    theirs, th_params = build(torch, "wishart")
    pt.manual_seed(5), torch.manual_seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = ours.rsample((4,)), theirs.rsample((4,))
    assert_close(a, b, rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        grads_of(torch, b, th_params)
    assert np.isfinite(grads_of(pt, a, pt_params)["covariance_matrix"]).all()

    def sample(L):
        pt.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ptd.Wishart(pt.tensor(4.0, dtype=pt.float64), scale_tril=L.tril()).rsample((2,))
    assert gradcheck(sample, _TRIL)


def test_onehot_straight_through_gradient(torch):
    def run(lib):
        p = lib.tensor([0.2, 0.3, 0.5], requires_grad=True)
        lib.manual_seed(0)
        s = lib.distributions.OneHotCategoricalStraightThrough(probs=p).rsample((4,))
        (s * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        return s, p.grad
    for a, b in zip(run(pt), run(torch)):
        assert_close(a, b, rtol=0, atol=0)


def test_sampling_is_plausible():
    """Long-run means of the discrete samplers and the rejection samplers."""
    pt.manual_seed(0)
    x = ptd.Binomial(pt.tensor([5.0, 100.0, 1000.0]), pt.tensor([0.3, 0.4, 0.97])).sample((3000,))
    np.testing.assert_allclose(to_np(x).mean(0), [1.5, 40.0, 970.0], rtol=0.02)
    x = ptd.VonMises(pt.tensor([1.0]), pt.tensor([4.0])).sample((3000,))
    np.testing.assert_allclose(to_np(x).mean(), 1.0, atol=0.03)
    x = ptd.NegativeBinomial(pt.tensor([3.0]), pt.tensor([0.4])).sample((4000,))
    np.testing.assert_allclose(to_np(x).mean(), 2.0, rtol=0.06)
    L = ptd.LKJCholesky(4, pt.tensor(1.5, dtype=pt.float64)).sample((50,))
    C = L @ L.mT
    np.testing.assert_allclose(to_np(C.diagonal(dim1=-2, dim2=-1)), 1.0, rtol=1e-12)


def test_random_ops_binomial_and_standard_gamma(torch):
    for dt in ("float32", "float64"):
        pt.manual_seed(2), torch.manual_seed(2)
        c = np.array([[5.0, 100.0, 50.0, 1000.0, 20.0, 7.0, 7.0, 0.0]] * 40)
        p = np.array([0.3, 0.4, 0.9, 0.97, 0.999, 0.0, 1.0, 0.5])
        a = pt.binomial(pt.tensor(c, dtype=getattr(pt, dt)), pt.tensor(p, dtype=getattr(pt, dt)).expand(40, 8))
        b = torch.binomial(torch.tensor(c, dtype=getattr(torch, dt)), torch.tensor(p, dtype=getattr(torch, dt))
                           .expand(40, 8))
        assert_close(a, b, rtol=0, atol=0)
        alpha = np.array([0.05, 0.3, 1.0, 2.5, 150.0, 0.0])
        a = pt._standard_gamma(pt.tensor(alpha, dtype=getattr(pt, dt)).expand(30, 6))
        b = torch._standard_gamma(torch.tensor(alpha, dtype=getattr(torch, dt)).expand(30, 6))
        assert_close(a, b, rtol=0, atol=0)
        a = pt._sample_dirichlet(pt.tensor([[0.3, 2.0, 5.0]], dtype=getattr(pt, dt)).expand(20, 3))
        b = torch._sample_dirichlet(torch.tensor([[0.3, 2.0, 5.0]], dtype=getattr(torch, dt)).expand(20, 3))
        assert_close(a, b, rtol=0, atol=0)
        assert_close(pt.randn(3), torch.randn(3), rtol=0, atol=0)     # (the cached spare normal agrees too)


# ---------------------------------------------------------------------------------------------- KL

KL_PAIRS = [
    ("Exponential", dict(rate=[0.5, 2.0]), "Exponential", dict(rate=[1.0, 0.7])),
    ("Laplace", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Laplace", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Poisson", dict(rate=[0.5, 4.0]), "Poisson", dict(rate=[1.0, 3.0])),
    ("Cauchy", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Cauchy", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("HalfNormal", dict(scale=[1.0, 2.0]), "HalfNormal", dict(scale=[0.5, 3.0])),
    ("Geometric", dict(probs=[0.2, 0.7]), "Geometric", dict(probs=[0.5, 0.4])),
    ("Binomial", dict(total_count=[5.0, 8.0], probs=[0.2, 0.7]), "Binomial", dict(total_count=[5.0, 5.0],
                                                                                 probs=[0.5, 0.4])),
    ("ContinuousBernoulli", dict(probs=[0.2, 0.7]), "ContinuousBernoulli", dict(probs=[0.5, 0.4])),
    ("Pareto", dict(scale=[1.0, 2.0], alpha=[1.5, 3.0]), "Pareto", dict(scale=[0.5, 3.0], alpha=[2.0, 1.0])),
    ("Gumbel", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Gumbel", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("OneHotCategorical", dict(probs=[0.2, 0.3, 0.5]), "OneHotCategorical", dict(probs=[0.4, 0.4, 0.2])),
    ("LowRankMultivariateNormal", dict(loc=[0.1, -0.2, 0.3], cov_factor=_W, cov_diag=[1.0, 0.5, 2.0]),
     "LowRankMultivariateNormal", dict(loc=[0.0, 0.2, 0.0], cov_factor=[[0.5], [0.1], [1.0]], cov_diag=[2.0, 1.0, 1.0])),
    ("MultivariateNormal", dict(loc=[0.1, -0.2, 0.3], scale_tril=_TRIL),
     "LowRankMultivariateNormal", dict(loc=[0.0, 0.2, 0.0], cov_factor=_W, cov_diag=[2.0, 1.0, 1.0])),
    ("LowRankMultivariateNormal", dict(loc=[0.1, -0.2, 0.3], cov_factor=_W, cov_diag=[1.0, 0.5, 2.0]),
     "MultivariateNormal", dict(loc=[0.0, 0.2, 0.0], covariance_matrix=_SPD)),
    ("Weibull", dict(scale=[1.0, 2.0], concentration=[1.5, 3.0]), "Weibull", dict(scale=[1.0, 2.0],
                                                                                  concentration=[1.5, 3.0])),
    ("Bernoulli", dict(probs=[0.2, 0.7]), "Poisson", dict(rate=[0.5, 2.0])),
    ("Beta", dict(concentration1=[0.5, 2.0], concentration0=[1.5, 3.0]), "ContinuousBernoulli", dict(probs=[0.3, 0.6])),
    ("Beta", dict(concentration1=[0.5, 2.0], concentration0=[1.5, 3.0]), "Exponential", dict(rate=[0.5, 2.0])),
    ("Beta", dict(concentration1=[0.5, 2.0], concentration0=[1.5, 3.0]), "Pareto", dict(scale=[1.0, 2.0],
                                                                                       alpha=[1.0, 2.0])),
    ("ContinuousBernoulli", dict(probs=[0.2, 0.7]), "Exponential", dict(rate=[0.5, 2.0])),
    ("ContinuousBernoulli", dict(probs=[0.2, 0.7]), "Normal", dict(loc=[0.5, 2.0], scale=[1.0, 0.3])),
    ("ContinuousBernoulli", dict(probs=[0.2, 0.7]), "Uniform", dict(low=[-0.5, 0.2], high=[1.5, 2.0])),
    ("Exponential", dict(rate=[0.5, 2.0]), "Gamma", dict(concentration=[1.5, 0.7], rate=[1.0, 3.0])),
    ("Exponential", dict(rate=[0.5, 2.0]), "Gumbel", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Exponential", dict(rate=[0.5, 2.0]), "Normal", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Exponential", dict(rate=[0.5, 2.0]), "Uniform", dict(low=[0.0, 0.0], high=[1.0, 2.0])),
    ("Gamma", dict(concentration=[1.5, 0.7], rate=[1.0, 3.0]), "Exponential", dict(rate=[0.5, 2.0])),
    ("Gamma", dict(concentration=[1.5, 0.7], rate=[1.0, 3.0]), "Gumbel", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Gamma", dict(concentration=[1.5, 0.7], rate=[1.0, 3.0]), "Pareto", dict(scale=[1.0, 2.0], alpha=[1.0, 2.0])),
    ("Gumbel", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Normal", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Gumbel", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Gamma", dict(concentration=[1.5, 0.7], rate=[1.0, 3.0])),
    ("Laplace", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Normal", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Laplace", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Exponential", dict(rate=[0.5, 2.0])),
    ("Normal", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Gumbel", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Normal", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Laplace", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Normal", dict(loc=[0.0, 1.0], scale=[1.0, 2.0]), "Exponential", dict(rate=[0.5, 2.0])),
    ("Pareto", dict(scale=[1.0, 2.0], alpha=[0.8, 3.0]), "Exponential", dict(rate=[0.5, 2.0])),
    ("Pareto", dict(scale=[1.0, 2.0], alpha=[0.8, 3.0]), "Gamma", dict(concentration=[1.5, 0.7], rate=[1.0, 3.0])),
    ("Pareto", dict(scale=[1.0, 2.0], alpha=[1.8, 3.0]), "Normal", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Pareto", dict(scale=[1.0, 2.0], alpha=[0.8, 3.0]), "Uniform", dict(low=[0.0, 0.0], high=[1.0, 2.0])),
    ("Poisson", dict(rate=[0.5, 4.0]), "Binomial", dict(total_count=[5.0, 8.0], probs=[0.2, 0.7])),
    ("Uniform", dict(low=[0.1, 0.3], high=[0.5, 0.9]), "ContinuousBernoulli", dict(probs=[0.3, 0.6])),
    ("Uniform", dict(low=[-0.1, 0.3], high=[0.5, 2.9]), "Exponential", dict(rate=[0.5, 2.0])),
    ("Uniform", dict(low=[-0.1, 0.3], high=[0.5, 2.9]), "Gumbel", dict(loc=[0.5, -1.0], scale=[0.3, 1.0])),
    ("Uniform", dict(low=[1.1, 0.3], high=[1.5, 2.9]), "Pareto", dict(scale=[1.0, 2.0], alpha=[1.0, 2.0])),
]


@pytest.mark.parametrize("pq", KL_PAIRS, ids=[f"{p}-{q}" for p, _, q, _ in KL_PAIRS])
def test_kl_divergence(torch, pq):
    p_name, p_params, q_name, q_params = pq

    def run(lib):
        tensors = {}
        p = _build_spec(lib, (p_name, p_params), tensors, True, "float64", "p.")
        q = _build_spec(lib, (q_name, q_params), tensors, True, "float64", "q.")
        kl = lib.distributions.kl_divergence(p, q)
        return kl, grads_of(lib, kl.nan_to_num(0, 0, 0), tensors)
    (a, ga), (b, gb) = run(pt), run(torch)
    assert_close(a, b, rtol=1e-9, atol=1e-10)
    assert a.requires_grad == b.requires_grad
    _same_grads(ga, gb, rtol=1e-8, atol=1e-10)


def test_kl_errors(torch):
    for lib in (pt, torch):
        D = lib.distributions
        with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
            D.kl_divergence(D.Binomial(3, lib.tensor([0.5])), D.Binomial(5, lib.tensor([0.5])))
        with pytest.raises(NotImplementedError):
            D.kl_divergence(D.Weibull(1.0, 2.0), D.Pareto(1.0, 2.0))
        with pytest.raises(NotImplementedError, match="No KL"):
            D.kl_divergence(D.StudentT(3.0), D.Normal(0.0, 1.0))


# ---------------------------------------------------------------------------------------------- gradcheck

def test_gradcheck_float64():
    v = pt.tensor([0.3, 1.7], dtype=pt.float64)
    assert gradcheck(lambda r: ptd.Exponential(r).log_prob(v), [0.5, 2.0])
    assert gradcheck(lambda m, s: ptd.Laplace(m, s).cdf(v), [0.0, 1.0], [1.0, 0.5])
    assert gradcheck(lambda df, m, s: ptd.StudentT(df, m, s).log_prob(v), [2.5, 4.0], [0.0, 1.0], [1.0, 2.0])
    assert gradcheck(lambda df: ptd.StudentT(df).entropy(), [2.5, 4.0])
    assert gradcheck(lambda a, b: ptd.Kumaraswamy(a, b).log_prob(pt.tensor([0.3, 0.6], dtype=pt.float64)),
                     [0.7, 2.0], [1.5, 3.0])
    assert gradcheck(lambda s, a: ptd.Pareto(s, a).log_prob(pt.tensor([2.5, 4.0], dtype=pt.float64)),
                     [1.0, 2.0], [1.5, 3.0])
    assert gradcheck(lambda l: ptd.ContinuousBernoulli(logits=l).log_prob(pt.tensor([0.3, 0.6], dtype=pt.float64)),
                     [-1.0, 0.002])
    assert gradcheck(lambda W, D: ptd.LowRankMultivariateNormal(pt.zeros(3, dtype=pt.float64), W, D).log_prob(
        pt.tensor([0.5, 0.0, -1.0], dtype=pt.float64)), _W, [1.0, 0.5, 2.0])
    assert gradcheck(lambda a, b: ptd.kl_divergence(ptd.Laplace(a, 1.0), ptd.Laplace(0.0, b)), [0.3, -1.0],
                     [0.5, 2.0])


def test_gradcheck_reparameterised_samples():
    def seeded(fn):
        def run(*args):
            pt.manual_seed(0)
            return fn(*args)
        return run
    assert gradcheck(seeded(lambda s, c: ptd.Weibull(s, c).rsample((3,))), [1.0, 2.0], [1.5, 3.0])
    assert gradcheck(seeded(lambda m, s: ptd.Laplace(m, s).rsample((3,))), [1.0, 2.0], [1.5, 3.0])
    assert gradcheck(seeded(lambda m, s: ptd.Cauchy(m, s).rsample((3,))), [1.0, 2.0], [1.5, 3.0])


# ---------------------------------------------------------------------------------------------- validation errors

INVALID = {
    "exponential": lambda lib: lib.distributions.Exponential(lib.tensor([1.0, -1.0])),
    "laplace": lambda lib: lib.distributions.Laplace(lib.tensor([0.0]), lib.tensor([0.0])),
    "poisson": lambda lib: lib.distributions.Poisson(lib.tensor([-0.5])),
    "onehot": lambda lib: lib.distributions.OneHotCategorical(lib.tensor([0.5, -0.1, 0.6])),
    "studentt": lambda lib: lib.distributions.StudentT(lib.tensor([-1.0])),
    "halfnormal": lambda lib: lib.distributions.HalfNormal(lib.tensor([-1.0])),
    "cauchy": lambda lib: lib.distributions.Cauchy(lib.tensor([0.0]), lib.tensor([-1.0])),
    "halfcauchy": lambda lib: lib.distributions.HalfCauchy(lib.tensor([0.0])),
    "binomial": lambda lib: lib.distributions.Binomial(lib.tensor([2.5]), lib.tensor([0.5])),
    "binomial_probs": lambda lib: lib.distributions.Binomial(3, lib.tensor([1.5])),
    "geometric_zero": lambda lib: lib.distributions.Geometric(lib.tensor([0.0, 0.5])),
    "geometric": lambda lib: lib.distributions.Geometric(lib.tensor([1.5])),
    "chi2": lambda lib: lib.distributions.Chi2(lib.tensor([-2.0])),
    "negbinomial": lambda lib: lib.distributions.NegativeBinomial(lib.tensor([2.0]), lib.tensor([1.0])),
    "contbern": lambda lib: lib.distributions.ContinuousBernoulli(lib.tensor([1.2]), validate_args=True),
    "pareto": lambda lib: lib.distributions.Pareto(lib.tensor([1.0]), lib.tensor([-2.0])),
    "weibull": lambda lib: lib.distributions.Weibull(lib.tensor([-1.0]), lib.tensor([2.0])),
    "kumaraswamy": lambda lib: lib.distributions.Kumaraswamy(lib.tensor([1.0]), lib.tensor([0.0])),
    "lowrank": lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.tensor([1.0,
                                                                                                                -1.0])),
    "lowrank_shape": lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(2), lib.ones(3, 1), lib.ones(2)),
    "lowrank_diag": lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(2), lib.ones(2, 1), lib.ones(3)),
    "lowrank_loc": lambda lib: lib.distributions.LowRankMultivariateNormal(lib.tensor(0.0), lib.ones(2, 1), lib.ones(2)),
    "fisher": lambda lib: lib.distributions.FisherSnedecor(lib.tensor([1.0]), lib.tensor([-2.0])),
    "vonmises": lambda lib: lib.distributions.VonMises(lib.tensor([0.0]), lib.tensor([-1.0])),
    "inversegamma": lambda lib: lib.distributions.InverseGamma(lib.tensor([-1.0]), lib.tensor([1.0])),
    "genpareto": lambda lib: lib.distributions.GeneralizedPareto(0.0, lib.tensor([-1.0]), 0.5),
    "wishart_df": lambda lib: lib.distributions.Wishart(lib.tensor(1.5), lib.eye(3)),
    "wishart_none": lambda lib: lib.distributions.Wishart(lib.tensor(4.0)),
    "wishart_dim": lambda lib: lib.distributions.Wishart(4.0, scale_tril=lib.ones(3)),
    "wishart_pd": lambda lib: lib.distributions.Wishart(4.0, covariance_matrix=-lib.eye(2), validate_args=True),
    "lkj_dim": lambda lib: lib.distributions.LKJCholesky(1, 1.0),
    "lkj": lambda lib: lib.distributions.LKJCholesky(3, lib.tensor([-1.0])),
    "mixture_mix": lambda lib: lib.distributions.MixtureSameFamily(lib.distributions.Normal(0.0, 1.0),
                                                                   lib.distributions.Normal(lib.zeros(2), 1.0)),
    "mixture_comp": lambda lib: lib.distributions.MixtureSameFamily(lib.distributions.Categorical(lib.ones(2)), 3.0),
    "mixture_k": lambda lib: lib.distributions.MixtureSameFamily(lib.distributions.Categorical(lib.ones(3)),
                                                                 lib.distributions.Normal(lib.zeros(2), 1.0)),
    "mixture_batch": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(3, 2)), lib.distributions.Normal(lib.zeros(4, 2), 1.0)),
    "value_support": lambda lib: lib.distributions.Exponential(lib.tensor([1.0])).log_prob(lib.tensor([-1.0])),
    "value_integer": lambda lib: lib.distributions.Poisson(lib.tensor([1.0])).log_prob(lib.tensor([1.5])),
    "value_binomial": lambda lib: lib.distributions.Binomial(3, lib.tensor([0.5])).log_prob(lib.tensor([4.0])),
    "value_onehot": lambda lib: lib.distributions.OneHotCategorical(lib.ones(3)).log_prob(lib.tensor([1.0, 1.0, 0.0])),
    "value_pareto": lambda lib: lib.distributions.Pareto(2.0, 1.0).log_prob(lib.tensor([1.0])),
    "value_mixture": lambda lib: lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(lib.ones(2)), lib.distributions.Exponential(lib.ones(2))).log_prob(
        lib.tensor([-1.0])),
    "value_lkj": lambda lib: lib.distributions.LKJCholesky(2, 1.0).log_prob(lib.eye(2) * 2),
    "binomial_entropy": lambda lib: lib.distributions.Binomial(lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5])).entropy(),
    "both_probs_logits": lambda lib: lib.distributions.Geometric(probs=lib.tensor([0.5]), logits=lib.tensor([0.0])),
}


@pytest.mark.parametrize("case", INVALID)
def test_validation_errors(torch, case):
    with pytest.raises(Exception) as theirs, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        INVALID[case](torch)
    with pytest.raises(type(theirs.value)) as ours, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        INVALID[case](pt)
    assert str(ours.value).replace("pedatorch", "torch") == str(theirs.value)


def test_validate_args_off_allows_invalid_parameters(torch):
    d = ptd.Exponential(pt.tensor([-1.0]), validate_args=False)
    assert d.log_prob(pt.tensor([1.0])).isnan().all()       # log(-1)
    ptd.Pareto(1.0, -1.0, validate_args=False)
    for lib in (pt, torch):     # (StudentT's inner Chi2 validates whatever StudentT was told)
        with pytest.raises(ValueError, match="Expected parameter df"):
            lib.distributions.StudentT(lib.tensor([-1.0]), validate_args=False)


def test_wishart_warnings(torch):
    for lib in (pt, torch):
        with pytest.warns(UserWarning, match="Low df values detected"):
            lib.distributions.Wishart(lib.tensor(2.5), lib.eye(3))
        lib.manual_seed(0)
        with pytest.warns(UserWarning, match="Singular sample detected"):
            lib.distributions.Wishart(lib.tensor(4.0), lib.eye(3)).rsample()


def test_module_names(torch):
    import importlib
    for mod in ["exponential", "laplace", "poisson", "one_hot_categorical", "mixture_same_family", "studentT",
                "half_normal", "cauchy", "half_cauchy", "binomial", "geometric", "chi2", "negative_binomial",
                "continuous_bernoulli", "pareto", "weibull", "kumaraswamy", "lowrank_multivariate_normal",
                "fishersnedecor", "von_mises", "inverse_gamma", "generalized_pareto", "wishart", "lkj_cholesky"]:
        ours = importlib.import_module("pedatorch.distributions." + mod)
        theirs = importlib.import_module("torch.distributions." + mod)
        assert sorted(ours.__all__) == sorted(theirs.__all__)
        for name in ours.__all__:
            assert getattr(ptd, name) is getattr(ours, name)
    assert sorted(set(torch.distributions.__all__)) == sorted(set(ptd.__all__) - {"constraints"})
    assert repr(ptd.constraints.MixtureSameFamilyConstraint(ptd.constraints.real)) == \
        repr(torch.distributions.constraints.MixtureSameFamilyConstraint(torch.distributions.constraints.real))


# ---------------------------------------------------------------------------------------------- devices

def test_samplers_and_distributions_on_each_device(device):
    """On CUDA the draws come from the device generator (not PyTorch's numbers): shapes, dtypes, devices and
    plausible values, and the parameters' device is kept."""
    pt.manual_seed(0)
    c = pt.tensor([[5.0, 100.0, 0.0, 7.0]] * 500, device=device)
    p = pt.tensor([0.3, 0.6, 0.5, 1.0], device=device)
    x = pt.binomial(c, p.expand(500, 4))
    assert x.device.type == device and x.dtype == pt.float32 and x.shape == (500, 4)
    np.testing.assert_allclose(to_np(x).mean(0), [1.5, 60.0, 0.0, 7.0], rtol=0.05, atol=0.05)
    g = pt._standard_gamma(pt.tensor([0.5, 2.0, 0.0], dtype=pt.float64, device=device).expand(2000, 3))
    assert g.device.type == device and g.dtype == pt.float64
    np.testing.assert_allclose(to_np(g).mean(0), [0.5, 2.0, np.finfo(np.float64).tiny], rtol=0.1)
    d = pt._sample_dirichlet(pt.tensor([0.5, 2.0, 3.0], device=device).expand(10, 3))
    assert d.device.type == device
    np.testing.assert_allclose(to_np(d.sum(-1)), 1.0, rtol=1e-5)
    D = ptd
    for dist in [D.Exponential(pt.tensor([2.0], device=device)), D.Laplace(pt.zeros(2, device=device), 1.0),
                 D.Cauchy(pt.zeros(2, device=device), 1.0), D.Poisson(pt.tensor([3.0], device=device)),
                 D.StudentT(pt.tensor([3.0], device=device)), D.Geometric(pt.tensor([0.3], device=device)),
                 D.Binomial(10, pt.tensor([0.3], device=device)), D.VonMises(pt.zeros(1, device=device),
                                                                           pt.ones(1, device=device)),
                 D.NegativeBinomial(pt.tensor([3.0], device=device), pt.tensor([0.4], device=device)),
                 D.LowRankMultivariateNormal(pt.zeros(2, device=device), pt.ones(2, 1, device=device),
                                             pt.ones(2, device=device)),
                 D.OneHotCategorical(pt.ones(3, device=device)),
                 D.MixtureSameFamily(D.Categorical(pt.ones(2, device=device)),
                                     D.Normal(pt.zeros(2, device=device), 1.0))]:
        s = dist.sample((3,))
        assert s.device.type == device, type(dist).__name__
        assert bool(dist.support.check(s).all()), type(dist).__name__
        assert dist.log_prob(s).device.type == device


def test_random_op_errors(torch):
    cases = [lambda L: L._standard_gamma(L.ones(2, dtype=L.half)), lambda L: L._standard_gamma(L.ones(2, dtype=L.long)),
             lambda L: L._sample_dirichlet(L.ones(2, dtype=L.half)),
             lambda L: L.binomial(L.ones(2, dtype=L.half), L.ones(2, dtype=L.half)),
             lambda L: L.binomial(L.ones(2, dtype=L.long), L.ones(2, dtype=L.long)),
             lambda L: L.binomial(L.ones(2), L.ones(2, dtype=L.float64)),
             lambda L: L.binomial(L.ones(2), L.ones(3))]
    for make in cases:
        with pytest.raises(Exception) as theirs:
            make(torch)
        with pytest.raises(type(theirs.value)) as ours:
            make(pt)
        assert str(ours.value) == str(theirs.value)
