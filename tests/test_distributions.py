"""pedatorch.distributions against torch.distributions: values, gradients, shapes, reprs, errors, sampling."""
import math

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.distributions as ptd
from pedatorch.distributions import constraints as ptc
from conftest import assert_close, gradcheck, to_np

# ---------------------------------------------------------------------------------------------- cases
# Each case: (class name, parameters, a value for log_prob).  Arrays become float64 tensors requiring grad
# (in both libraries); plain numbers stay numbers.

_SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
_TRIL = np.linalg.cholesky(_SPD)

CASES = {
    "normal": ("Normal", dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.5]), [0.1, -0.3, 4.0]),
    "normal_scalar": ("Normal", dict(loc=0.0, scale=1.0), [[0.5], [-1.0]]),
    "normal_bcast": ("Normal", dict(loc=[[0.0], [1.0]], scale=[0.5, 1.0, 2.0]), [0.3, 0.2, -0.1]),
    "bernoulli_probs": ("Bernoulli", dict(probs=[0.2, 0.5, 0.9]), [1.0, 0.0, 1.0]),
    "bernoulli_logits": ("Bernoulli", dict(logits=[-1.0, 0.3, 2.0]), [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]),
    "categorical_probs": ("Categorical", dict(probs=[[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]), [2, 0]),
    "categorical_logits": ("Categorical", dict(logits=[0.5, -1.0, 2.0, 0.0]), [[3], [1]]),
    "multinomial": ("Multinomial", dict(total_count=4, probs=[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
                    [[1.0, 1.0, 2.0], [0.0, 0.0, 4.0]]),
    "multinomial_logits": ("Multinomial", dict(total_count=3, logits=[0.3, -0.2, 1.0]), [1.0, 0.0, 2.0]),
    "uniform": ("Uniform", dict(low=[0.0, -1.0], high=[1.0, 3.0]), [0.5, 2.0]),
    "beta": ("Beta", dict(concentration1=[0.5, 2.0, 3.0], concentration0=[0.7, 2.0, 1.5]), [0.3, 0.5, 0.9]),
    "beta_scalar": ("Beta", dict(concentration1=2.0, concentration0=3.0), [0.25]),
    "dirichlet": ("Dirichlet", dict(concentration=[[0.5, 1.0, 2.0], [3.0, 1.5, 0.8]]), [0.2, 0.3, 0.5]),
    "gamma": ("Gamma", dict(concentration=[0.5, 1.0, 3.0], rate=[2.0, 1.0, 0.5]), [0.3, 1.2, 5.0]),
    "mvn_cov": ("MultivariateNormal", dict(loc=[0.1, -0.2, 0.3], covariance_matrix=_SPD), [[0.5, 0.0, -1.0]]),
    "mvn_prec": ("MultivariateNormal", dict(loc=[[0.1, -0.2, 0.3], [1.0, 0.0, 0.0]],
                                            precision_matrix=np.linalg.inv(_SPD)), [0.5, 0.0, -1.0]),
    "mvn_tril": ("MultivariateNormal", dict(loc=[0.1, -0.2, 0.3], scale_tril=_TRIL), [[0.5, 0.0, -1.0], [1, 2, 3]]),
}

NO_MODE = {"Multinomial"}
NAN_MOMENTS = {"Categorical"}   # mean/variance are NaN by definition


def _lib_tensor(lib, v, requires_grad):
    arr = np.array(v, dtype=np.float64)
    return lib.tensor(arr, requires_grad=requires_grad)


def build(lib, case, requires_grad=True, validate_args=None):
    """The case's distribution in ``lib`` (pedatorch or torch), and its tensor parameters by name."""
    cls_name, params, _ = CASES[case]
    kwargs, tensors = {}, {}
    for k, v in params.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            kwargs[k] = v
        else:
            kwargs[k] = tensors[k] = _lib_tensor(lib, v, requires_grad)
    if validate_args is not None:
        kwargs["validate_args"] = validate_args
    return getattr(lib.distributions, cls_name)(**kwargs), tensors


def value_of(lib, case):
    return lib.tensor(np.array(CASES[case][2], dtype=np.float64))


def grads_of(out, tensors):
    """d out.sum() / d each parameter (None where unused), as numpy."""
    names = list(tensors)
    if not names:
        return {}
    gs = out.sum()
    mod = pt if isinstance(gs, pt.Tensor) else None
    if mod is None:
        import torch
        mod = torch
    got = mod.autograd.grad(gs, [tensors[n] for n in names], allow_unused=True, retain_graph=True)
    return {n: (None if g is None else to_np(g)) for n, g in zip(names, got)}


def _rtol(t):
    """float64 results agree to rounding; float32 ones (number parameters) to float32 rounding."""
    return 1e-10 if t.dtype == pt.float64 else 1e-5


def assert_same_grads(a, b, **kw):
    """Equal gradients; "no gradient" (None) on one side must be zeros (or None) on the other."""
    assert a.keys() == b.keys()
    for k in a:
        if a[k] is None or b[k] is None:
            other = b[k] if a[k] is None else a[k]
            assert other is None or np.allclose(other, 0), k
        else:
            np.testing.assert_allclose(a[k], b[k], rtol=kw.get("rtol", 1e-6), atol=kw.get("atol", 1e-9),
                                       err_msg=k)


# ---------------------------------------------------------------------------------------------- values

@pytest.mark.parametrize("case", sorted(CASES))
def test_shapes_and_repr(torch, case):
    ours, _ = build(pt, case)
    theirs, _ = build(torch, case)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert isinstance(ours.batch_shape, pt.Size) and isinstance(ours.event_shape, pt.Size)
    assert repr(ours) == repr(theirs)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    assert repr(ours.support) == repr(theirs.support)


@pytest.mark.parametrize("case", sorted(CASES))
def test_log_prob_and_its_gradients(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    a, b = ours.log_prob(value_of(pt, case)), theirs.log_prob(value_of(torch, case))
    assert_close(a, b, rtol=1e-10, atol=1e-12)
    assert_same_grads(grads_of(a, pt_params), grads_of(b, th_params))


@pytest.mark.parametrize("case", sorted(CASES))
def test_entropy_and_its_gradients(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    a, b = ours.entropy(), theirs.entropy()
    assert_close(a, b, rtol=_rtol(a), atol=1e-12)
    if a.requires_grad:
        assert_same_grads(grads_of(a, pt_params), grads_of(b, th_params))
    assert_close(ours.perplexity(), theirs.perplexity(), rtol=_rtol(a))


@pytest.mark.parametrize("case", sorted(CASES))
def test_moments(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    for name in ("mean", "variance", "stddev"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert_close(a, b, rtol=1e-10, atol=1e-12)
        if a.requires_grad and CASES[case][0] not in NAN_MOMENTS:
            assert_same_grads(grads_of(a, pt_params), grads_of(b, th_params))
    if CASES[case][0] in NO_MODE:
        with pytest.raises(NotImplementedError):
            ours.mode
    else:
        assert_close(ours.mode, theirs.mode, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", ["normal", "normal_bcast", "uniform", "gamma"])
def test_cdf(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    if case == "gamma":      # PyTorch has no derivative w.r.t. the concentration: only the rate's
        ours, pt_params = ptd.Gamma(pt_params["concentration"].detach(), pt_params["rate"]), {"rate": pt_params["rate"]}
        theirs, th_params = (torch.distributions.Gamma(th_params["concentration"].detach(), th_params["rate"]),
                             {"rate": th_params["rate"]})
    a, b = ours.cdf(value_of(pt, case)), theirs.cdf(value_of(torch, case))
    assert_close(a, b, rtol=1e-7, atol=1e-10)
    assert_same_grads(grads_of(a, pt_params), grads_of(b, th_params), rtol=1e-6)


@pytest.mark.parametrize("case", ["normal", "normal_bcast", "uniform"])
def test_icdf(torch, case):
    ours, pt_params = build(pt, case)
    theirs, th_params = build(torch, case)
    q = np.array([0.1, 0.5, 0.95])[: ours.batch_shape[-1]]
    a, b = ours.icdf(pt.tensor(q)), theirs.icdf(torch.tensor(q))
    assert_close(a, b, rtol=1e-10)
    assert_same_grads(grads_of(a, pt_params), grads_of(b, th_params))
    assert_close(ours.cdf(a), q * np.ones(a.shape), rtol=1e-10)


def test_gamma_cdf_concentration_gradient_is_not_implemented(torch):
    a, b = pt.tensor(2.0, requires_grad=True), torch.tensor(2.0, requires_grad=True)
    for lib, c in ((pt, a), (torch, b)):
        y = lib.distributions.Gamma(c, 1.0).cdf(lib.tensor(1.5))
        with pytest.raises((NotImplementedError, RuntimeError), match="derivative for 'igamma: input'"):
            y.backward()


def test_exponential_family_entropy_matches_closed_forms():
    """The generic Bregman entropy (ExponentialFamily.entropy) equals each class's closed form."""
    for case in ("normal", "normal_bcast", "bernoulli_probs", "bernoulli_logits", "gamma"):
        d, _ = build(pt, case)
        generic = ptd.ExponentialFamily.entropy(d)
        np.testing.assert_allclose(to_np(generic), to_np(d.entropy()), rtol=1e-9, err_msg=case)


def test_enumerate_support(torch):
    for case in ("bernoulli_probs", "categorical_probs", "categorical_logits"):
        ours, _ = build(pt, case)
        theirs, _ = build(torch, case)
        for expand in (True, False):
            assert_close(ours.enumerate_support(expand), theirs.enumerate_support(expand))


@pytest.mark.parametrize("case", ["normal", "bernoulli_logits", "categorical_probs", "multinomial", "uniform", "beta",
                                  "dirichlet", "gamma", "mvn_tril", "mvn_cov"])
def test_expand(torch, case):
    ours, _ = build(pt, case)
    theirs, _ = build(torch, case)
    shape = (2,) + tuple(ours.batch_shape)
    e1, e2 = ours.expand(shape), theirs.expand(torch.Size(shape))
    assert type(e1) is type(ours)
    assert tuple(e1.batch_shape) == tuple(e2.batch_shape) and tuple(e1.event_shape) == tuple(e2.event_shape)
    assert repr(e1) == repr(e2)
    v = value_of(pt, case)
    if case in ("dirichlet", "mvn_tril", "mvn_cov", "multinomial"):
        v = v[..., : ours.event_shape[-1]]
    assert_close(e1.log_prob(v), e2.log_prob(torch.tensor(to_np(v))), rtol=1e-10)
    if case != "multinomial":     # PyTorch's expanded Multinomial lacks the ``_binomial`` its entropy needs
        assert_close(e1.entropy(), e2.entropy(), rtol=1e-10)


def test_repr_with_number_parameters(torch):
    makers = [lambda lib, D: D.Bernoulli(0.3), lambda lib, D: D.Bernoulli(logits=-1.5),
              lambda lib, D: D.Gamma(1.0, 2.0), lambda lib, D: D.Uniform(0.0, 1.0), lambda lib, D: D.Beta(1.0, 2.0),
              lambda lib, D: D.Normal(0, 1), lambda lib, D: D.Multinomial(3, lib.ones(3)),
              lambda lib, D: D.Normal(lib.tensor([1.0]), 2.0),
              lambda lib, D: D.Independent(D.Normal(0.0, 1.0).expand((2,)), 1)]
    for make in makers:
        assert repr(make(pt, ptd)) == repr(make(torch, torch.distributions))


def test_lazy_probs_and_logits(torch):
    c = ptd.Categorical(logits=pt.tensor([1.0, 2.0, 3.0]))
    assert "probs" not in c.__dict__
    assert_close(c.probs, torch.distributions.Categorical(logits=torch.tensor([1.0, 2.0, 3.0])).probs)
    assert "probs" in c.__dict__
    assert_close(c.logits.exp().sum(), np.float32(1.0))
    b = ptd.Bernoulli(probs=pt.tensor([0.0, 0.25, 1.0]))
    tb = torch.distributions.Bernoulli(probs=torch.tensor([0.0, 0.25, 1.0]))
    assert_close(b.logits, tb.logits)          # clamped: finite at 0 and 1
    with pt.no_grad():                          # computed under no_grad, still differentiable
        p = pt.tensor([0.3], requires_grad=True)
        assert ptd.Bernoulli(probs=p).logits.requires_grad


def test_mvn_parameterisations_agree(torch):
    loc = np.array([0.1, -0.2, 0.3])
    dists = [ptd.MultivariateNormal(pt.tensor(loc), covariance_matrix=pt.tensor(_SPD)),
             ptd.MultivariateNormal(pt.tensor(loc), precision_matrix=pt.tensor(np.linalg.inv(_SPD))),
             ptd.MultivariateNormal(pt.tensor(loc), scale_tril=pt.tensor(_TRIL))]
    for d in dists:
        assert_close(d.covariance_matrix, _SPD, rtol=1e-10)
        assert_close(d.precision_matrix, np.linalg.inv(_SPD), rtol=1e-10)
        assert_close(d.scale_tril, _TRIL, rtol=1e-10, atol=1e-12)
    t = torch.distributions.MultivariateNormal(torch.tensor(loc), precision_matrix=torch.tensor(np.linalg.inv(_SPD)))
    assert_close(dists[1]._unbroadcasted_scale_tril, t._unbroadcasted_scale_tril, rtol=1e-10, atol=1e-12)


def test_mvn_batch_broadcasting(torch):
    L = np.stack([_TRIL, 2 * _TRIL])                    # batch of 2 factors
    loc = np.zeros((4, 1, 3))                            # broadcasts to batch (4, 2)
    ours = ptd.MultivariateNormal(pt.tensor(loc), scale_tril=pt.tensor(L))
    theirs = torch.distributions.MultivariateNormal(torch.tensor(loc), scale_tril=torch.tensor(L))
    assert tuple(ours.batch_shape) == (4, 2) == tuple(theirs.batch_shape)
    x = np.random.default_rng(0).normal(size=(5, 4, 2, 3))
    assert_close(ours.log_prob(pt.tensor(x)), theirs.log_prob(torch.tensor(x)), rtol=1e-10)
    assert_close(ours.variance, theirs.variance, rtol=1e-12)


# ---------------------------------------------------------------------------------------------- KL

KL_PAIRS = [
    ("normal", dict(loc=[0.0, 1.0, -1.0], scale=[2.0, 0.3, 1.0])),
    ("bernoulli_probs", dict(probs=[0.5, 0.1, 0.9])),
    ("categorical_probs", dict(probs=[[0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])),
    ("beta", dict(concentration1=[1.0, 0.5, 2.0], concentration0=[1.0, 3.0, 2.5])),
    ("dirichlet", dict(concentration=[[1.0, 1.0, 1.0], [2.0, 0.5, 4.0]])),
    ("gamma", dict(concentration=[2.0, 0.7, 1.0], rate=[1.0, 3.0, 0.2])),
    ("uniform", dict(low=[-1.0, -2.0], high=[2.0, 0.5])),
    ("mvn_tril", dict(loc=[[1.0, 0.0, 0.5]], scale_tril=np.linalg.cholesky(np.array([[1.0, 0.2, 0.0],
                                                                                     [0.2, 2.0, 0.3],
                                                                                     [0.0, 0.3, 0.5]])))),
]


def _make(lib, cls_name, params):
    kwargs = {k: (v if isinstance(v, (int, float)) else _lib_tensor(lib, v, True)) for k, v in params.items()}
    return getattr(lib.distributions, cls_name)(**kwargs), {k: v for k, v in kwargs.items()
                                                             if not isinstance(v, (int, float))}


@pytest.mark.parametrize("case,q_params", KL_PAIRS, ids=[c for c, _ in KL_PAIRS])
def test_kl_same_family(torch, case, q_params):
    cls_name = CASES[case][0]
    p1, pp1 = build(pt, case)
    p2, pp2 = build(torch, case)
    q1, qp1 = _make(pt, cls_name, q_params)
    q2, qp2 = _make(torch, cls_name, q_params)
    a, b = ptd.kl_divergence(p1, q1), torch.distributions.kl_divergence(p2, q2)
    assert_close(a, b, rtol=1e-9, atol=1e-12)
    g1 = grads_of(a, {**{"p_" + k: v for k, v in pp1.items()}, **{"q_" + k: v for k, v in qp1.items()}})
    g2 = grads_of(b, {**{"p_" + k: v for k, v in pp2.items()}, **{"q_" + k: v for k, v in qp2.items()}})
    assert_same_grads(g1, g2, rtol=1e-7)
    assert_close(ptd.kl_divergence(p1, p1), np.zeros(tuple(p1.batch_shape)), atol=1e-12)


def test_kl_independent_and_expfamily(torch):
    def make(lib):
        loc = lib.tensor([[0.0, 1.0], [2.0, -1.0]], dtype=lib.float64)
        p = lib.distributions.Independent(lib.distributions.Normal(loc, 1.5), 1)
        q = lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2, 2, dtype=lib.float64), 1.0), 1)
        return p, q
    (p1, q1), (p2, q2) = make(pt), make(torch)
    assert_close(ptd.kl_divergence(p1, q1), torch.distributions.kl_divergence(p2, q2), rtol=1e-12)
    # the generic exponential-family (Bregman) KL agrees with the closed form
    from pedatorch.distributions.kl import _kl_expfamily_expfamily
    for case, q_params in KL_PAIRS[:6]:
        p, _ = build(pt, case)
        q, _ = _make(pt, CASES[case][0], q_params)
        if isinstance(p, ptd.ExponentialFamily):
            assert_close(_kl_expfamily_expfamily(p, q), ptd.kl_divergence(p, q), rtol=1e-8, atol=1e-12)


CROSS = [("beta", "gamma", dict(concentration=[2.0, 1.0, 0.5], rate=[1.0, 2.0, 1.0])),
         ("beta", "normal", dict(loc=[0.0, 0.5, 1.0], scale=[1.0, 0.2, 2.0])),
         ("beta", "uniform", dict(low=[-1.0, 0.0, 0.1], high=[2.0, 1.0, 1.0])),
         ("gamma", "normal", dict(loc=[0.0, 0.5, 1.0], scale=[1.0, 0.2, 2.0])),
         ("gamma", "uniform", dict(low=[0.0, 0.0, 0.0], high=[2.0, 1.0, 1.0])),
         ("normal", "gamma", dict(concentration=[2.0, 1.0, 0.5], rate=[1.0, 2.0, 1.0])),
         ("uniform", "normal", dict(loc=[0.0, 0.5], scale=[1.0, 2.0])),
         ("uniform", "gamma", dict(concentration=[2.0, 1.0], rate=[1.0, 2.0])),
         ("uniform", "beta", dict(concentration1=[2.0, 1.0], concentration0=[1.0, 2.0]))]


@pytest.mark.parametrize("p_case,q_case,q_params", CROSS, ids=[f"{a}-{b}" for a, b, _ in CROSS])
def test_kl_across_families(torch, p_case, q_case, q_params):
    p1, pp1 = build(pt, p_case)
    p2, pp2 = build(torch, p_case)
    q1, qp1 = _make(pt, CASES[q_case][0], q_params)
    q2, qp2 = _make(torch, CASES[q_case][0], q_params)
    a, b = ptd.kl_divergence(p1, q1), torch.distributions.kl_divergence(p2, q2)
    assert_close(a, b, rtol=1e-9, atol=1e-12)
    if a.requires_grad and np.isfinite(to_np(a)).all():
        assert_same_grads(grads_of(a, {**pp1, **{"q" + k: v for k, v in qp1.items()}}),
                          grads_of(b, {**pp2, **{"q" + k: v for k, v in qp2.items()}}), rtol=1e-7)


def test_kl_infinite_and_zero_cases(torch):
    for lib in (pt, torch):
        D = lib.distributions
        kl = D.kl_divergence
        u = kl(D.Uniform(lib.tensor([0.0, 0.0]), lib.tensor([1.0, 3.0])), D.Uniform(lib.tensor([0.0, 0.0]),
                                                                                     lib.tensor([2.0, 2.0])))
        assert to_np(u)[1] == math.inf and np.isclose(to_np(u)[0], math.log(2))
        c = kl(D.Categorical(lib.tensor([0.5, 0.5, 0.0])), D.Categorical(lib.tensor([0.5, 0.0, 0.5])))
        assert to_np(c) == math.inf
        c = kl(D.Categorical(lib.tensor([0.5, 0.5, 0.0])), D.Categorical(lib.tensor([0.5, 0.5, 0.5])))
        assert np.isfinite(to_np(c))
        b = kl(D.Bernoulli(lib.tensor([0.0, 1.0, 0.3])), D.Bernoulli(lib.tensor([0.5, 0.0, 1.0])))
        assert np.allclose(to_np(b)[:1], math.log(2)) and (to_np(b)[1:] == math.inf).all()


def test_kl_dispatch_errors_and_register(torch):
    with pytest.raises(NotImplementedError,
                       match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Categorical"):
        ptd.kl_divergence(ptd.Normal(0.0, 1.0), ptd.Categorical(pt.ones(2)))

    class MyNormal(ptd.Normal):
        pass
    # a subclass inherits Normal's formula ...
    assert_close(ptd.kl_divergence(MyNormal(0.0, 1.0), ptd.Normal(1.0, 1.0)), np.float32(0.5))

    # ... until a more specific one is registered
    @ptd.register_kl(MyNormal, ptd.Normal)
    def _kl_mine(p, q):
        return pt.tensor(42.0)
    assert ptd.kl_divergence(MyNormal(0.0, 1.0), ptd.Normal(1.0, 1.0)).item() == 42.0
    assert ptd.kl_divergence(ptd.Normal(0.0, 1.0), ptd.Normal(1.0, 1.0)).item() == 0.5

    # (MyNormal, Normal) and (Normal, MyNormal2) are equally specific for (MyNormal, MyNormal2): ambiguous
    class MyNormal2(ptd.Normal):
        pass

    @ptd.register_kl(ptd.Normal, MyNormal2)
    def _kl_mine2(p, q):
        return pt.tensor(7.0)
    with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence\\(MyNormal, MyNormal2\\). "
                                            "Please register_kl\\(MyNormal, MyNormal2\\)"):
        ptd.kl_divergence(MyNormal(0.0, 1.0), MyNormal2(0.0, 1.0))
    from pedatorch.distributions import kl as kl_module
    for key in [(MyNormal, ptd.Normal), (ptd.Normal, MyNormal2)]:
        del kl_module._KL_REGISTRY[key]
    kl_module._KL_MEMOIZE.clear()


def test_kl_mvn_event_shape_error(torch):
    msgs = []
    for lib in (pt, torch):
        D = lib.distributions
        with pytest.raises(ValueError) as e:
            D.kl_divergence(D.MultivariateNormal(lib.zeros(2), lib.eye(2)), D.MultivariateNormal(lib.zeros(3),
                                                                                                  lib.eye(3)))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------------------------------------- sampling

@pytest.mark.parametrize("case", sorted(CASES))
def test_sample_shapes_and_dtypes(torch, case):
    ours, _ = build(pt, case)
    theirs, _ = build(torch, case)
    for shape in ((), (5,), (2, 3)):
        a, b = ours.sample(shape), theirs.sample(shape)
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype), shape
        assert not a.requires_grad
        assert ours.support.check(a).all()
        if ours.has_rsample:
            r = ours.rsample(shape)
            assert tuple(r.shape) == tuple(b.shape)
            assert r.requires_grad == any(isinstance(v, list) or isinstance(v, np.ndarray)
                                          for v in CASES[case][1].values())
    assert tuple(ours.sample(pt.Size([4])).shape) == tuple(theirs.sample(torch.Size([4])).shape)


SEEDED = {
    "normal": lambda D, lib: D.Normal(lib.tensor([0.0, 1.0, 2.0]), lib.tensor([1.0, 0.5, 2.0])),
    "normal_scalar": lambda D, lib: D.Normal(0.0, 1.0),
    "normal_big": lambda D, lib: D.Normal(lib.zeros(5, 4), lib.ones(5, 4)),
    "uniform": lambda D, lib: D.Uniform(lib.tensor([0.0, -1.0]), lib.tensor([1.0, 3.0])),
    "bernoulli": lambda D, lib: D.Bernoulli(lib.tensor([0.2, 0.5, 0.9])),
    "categorical": lambda D, lib: D.Categorical(lib.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    "categorical_logits": lambda D, lib: D.Categorical(logits=lib.tensor([0.5, -1.0, 2.0, 0.0])),
    "multinomial": lambda D, lib: D.Multinomial(5, lib.tensor([0.2, 0.3, 0.5])),
    "mvn": lambda D, lib: D.MultivariateNormal(lib.tensor([0.0, 1.0, 2.0]), lib.tensor(_SPD, dtype=lib.float32)),
    "independent": lambda D, lib: D.Independent(D.Normal(lib.zeros(3, 2), lib.ones(3, 2)), 1),
}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_seeded_samples_are_pytorchs(torch, name):
    """pedatorch's RNG reproduces PyTorch's streams, so seeded samples agree number for number."""
    ours, theirs = SEEDED[name](ptd, pt), SEEDED[name](torch.distributions, torch)
    for shape in ((), (3,), (4, 2)):
        pt.manual_seed(0), torch.manual_seed(0)
        exact = name != "mvn"     # loc + L eps: the same eps, matmul rounding may differ in the last bit
        assert_close(ours.sample(shape), theirs.sample(shape), rtol=0 if exact else 1e-6, atol=0 if exact else 1e-6)
        if ours.has_rsample:
            pt.manual_seed(1), torch.manual_seed(1)
            assert_close(ours.rsample(shape), theirs.rsample(shape), rtol=1e-6, atol=1e-6)


def test_normal_sample_example(torch):
    pt.manual_seed(0), torch.manual_seed(0)
    assert_close(ptd.Normal(0, 1).sample((3,)), torch.distributions.Normal(0, 1).sample((3,)), rtol=0, atol=0)


def test_gamma_family_sampling_is_reproducible_and_plausible():
    pt.manual_seed(3)
    a = ptd.Gamma(pt.tensor([0.2, 1.0, 7.0]), pt.tensor([1.0, 2.0, 0.5])).sample((4000,))
    pt.manual_seed(3)
    b = ptd.Gamma(pt.tensor([0.2, 1.0, 7.0]), pt.tensor([1.0, 2.0, 0.5])).sample((4000,))
    assert_close(a, b, rtol=0, atol=0)
    assert (a > 0).all()
    mean, var = to_np(a).astype(np.float64).mean(0), to_np(a).astype(np.float64).var(0)
    np.testing.assert_allclose(mean, [0.2, 0.5, 14.0], rtol=0.08)
    np.testing.assert_allclose(var, [0.2, 0.25, 28.0], rtol=0.2)     # (Gamma(0.2)'s sample variance is noisy)
    pt.manual_seed(4)
    d = ptd.Dirichlet(pt.tensor([0.5, 2.0, 3.0])).sample((4000,))
    assert_close(d.sum(-1), np.ones(4000, np.float32), rtol=1e-6)
    np.testing.assert_allclose(to_np(d).mean(0), [0.5 / 5.5, 2 / 5.5, 3 / 5.5], atol=0.01)
    x = ptd.Beta(pt.tensor([0.3]), pt.tensor([0.3])).sample((1000,))
    assert ((x > 0) & (x < 1)).all()


# ---------------------------------------------------------------------------------------------- rsample gradients

def test_rsample_reparameterisation_gradients(torch):
    """Normal, Uniform and MVN: the same noise in both libraries gives the same sample and gradients."""
    def run(lib):
        D = lib.distributions
        loc = lib.tensor([0.5, -1.0], requires_grad=True)
        scale = lib.tensor([1.0, 2.0], requires_grad=True)
        low, high = lib.tensor([0.0, 1.0], requires_grad=True), lib.tensor([2.0, 1.5], requires_grad=True)
        L = lib.tensor(_TRIL, dtype=lib.float32, requires_grad=True)
        m = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        lib.manual_seed(5)
        out = (D.Normal(loc, scale).rsample((7,)) ** 2).sum() + D.Uniform(low, high).rsample((3,)).pow(3).sum() \
            + D.MultivariateNormal(m, scale_tril=L).rsample((6,)).sin().sum()
        out.backward()
        return [out] + [t.grad for t in (loc, scale, low, high, L, m)]
    for a, b in zip(run(pt), run(torch)):
        assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_gamma_implicit_gradient_against_pytorch(torch):
    """dx/dalpha for fixed (alpha, x): ours (exact series) vs PyTorch's approximations (good to ~1e-4)."""
    from pedatorch.distributions.gamma import _standard_gamma_grad
    alpha = np.array([0.05, 0.3, 0.9, 1.0, 2.5, 7.0, 30.0, 150.0, 2e4, 2e4])
    x = np.array([1e-8, 0.2, 0.7, 3.0, 2.0, 9.0, 25.0, 160.0, 2e4 - 100, 2e4 + 300])
    ours = _standard_gamma_grad(alpha, x)
    theirs = torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-3)


def test_gamma_implicit_gradient_is_exact():
    """dx/dalpha = -(dP/dalpha) / (dP/dx), with dP/dalpha by central differences of pedatorch.igamma."""
    from pedatorch.distributions.gamma import _standard_gamma_grad
    alpha = np.array([0.4, 1.0, 3.0, 12.0])
    x = np.array([0.3, 1.7, 2.2, 15.0])
    h = 1e-5
    P = lambda a: pt.igamma(pt.tensor(a), pt.tensor(x)).numpy()
    dP_da = (P(alpha + h) - P(alpha - h)) / (2 * h)
    density = np.exp((alpha - 1) * np.log(x) - x - pt.lgamma(pt.tensor(alpha)).numpy())
    np.testing.assert_allclose(_standard_gamma_grad(alpha, x), -dP_da / density, rtol=1e-6)


def test_gamma_beta_dirichlet_rsample_gradients_are_unbiased():
    """E[d sample / d param] = d E[sample] / d param, checked by Monte Carlo."""
    pt.manual_seed(0)
    n = 20000
    a = pt.tensor([0.5, 2.0, 6.0], dtype=pt.float64, requires_grad=True)
    r = pt.tensor([1.0, 2.0, 0.5], dtype=pt.float64, requires_grad=True)
    ptd.Gamma(a, r).rsample((n,)).mean(0).sum().backward()
    np.testing.assert_allclose(to_np(a.grad), 1 / to_np(r), rtol=0.05)                   # d(a/r)/da
    np.testing.assert_allclose(to_np(r.grad), -to_np(a) / to_np(r) ** 2, rtol=0.05)       # d(a/r)/dr

    c1 = pt.tensor([0.7, 3.0], dtype=pt.float64, requires_grad=True)
    c0 = pt.tensor([1.5, 2.0], dtype=pt.float64, requires_grad=True)
    ptd.Beta(c1, c0).rsample((n,)).mean(0).sum().backward()
    s = to_np(c1) + to_np(c0)
    np.testing.assert_allclose(to_np(c1.grad), to_np(c0) / s ** 2, rtol=0.06)
    np.testing.assert_allclose(to_np(c0.grad), -to_np(c1) / s ** 2, rtol=0.06)

    conc = pt.tensor([0.5, 1.0, 2.5], dtype=pt.float64, requires_grad=True)
    (ptd.Dirichlet(conc).rsample((n,)).mean(0) * pt.tensor([1.0, 0.0, 0.0], dtype=pt.float64)).sum().backward()
    c = to_np(conc)
    expected = -c[0] / c.sum() ** 2 * np.ones(3)
    expected[0] += 1 / c.sum()                                                         # d(c0 / sum c)/dc
    np.testing.assert_allclose(to_np(conc.grad), expected, atol=0.01)


def test_gamma_rsample_grad_fn_and_clamp():
    pt.manual_seed(0)
    x = ptd.Gamma(pt.tensor([1e-3] * 50, requires_grad=True), 1.0).rsample()
    assert (x > 0).all()              # tiny concentrations underflow; clamped to the dtype's tiny
    assert x.grad_fn is not None


# ---------------------------------------------------------------------------------------------- gradcheck (no torch)

def test_gradcheck_log_probs():
    assert gradcheck(lambda m, s, v: ptd.Normal(m, s).log_prob(v), [0.3, -1.0], [1.2, 0.4], [0.0, 0.5])
    assert gradcheck(lambda m, s, v: ptd.Normal(m, s).cdf(v), [0.3, -1.0], [1.2, 0.4], [0.0, 0.5])
    assert gradcheck(lambda l: ptd.Bernoulli(logits=l).log_prob(pt.tensor([1.0, 0.0], dtype=pt.float64)), [0.3, -2.0])
    assert gradcheck(lambda p: ptd.Bernoulli(probs=p).entropy(), [0.3, 0.8])
    assert gradcheck(lambda l: ptd.Categorical(logits=l).log_prob(pt.tensor([0, 2])), [[0.3, 1.0, -1.0],
                                                                                      [0.0, 0.5, 0.2]])
    assert gradcheck(lambda l: ptd.Categorical(logits=l).entropy(), [[0.3, 1.0, -1.0]])
    assert gradcheck(lambda p: ptd.Multinomial(3, probs=p).log_prob(pt.tensor([1.0, 0.0, 2.0], dtype=pt.float64)),
                     [0.2, 0.3, 0.5])
    assert gradcheck(lambda a, b, v: ptd.Beta(a, b).log_prob(v), [0.7, 2.0], [1.5, 3.0], [0.3, 0.6])
    assert gradcheck(lambda a, b: ptd.Beta(a, b).entropy(), [0.7, 2.0], [1.5, 3.0])
    assert gradcheck(lambda c: ptd.Dirichlet(c).log_prob(pt.tensor([0.2, 0.3, 0.5], dtype=pt.float64)),
                     [0.5, 1.0, 2.0])
    assert gradcheck(lambda a, r, v: ptd.Gamma(a, r).log_prob(v), [0.7, 2.0], [1.5, 3.0], [0.3, 0.6])
    assert gradcheck(lambda r, v: ptd.Gamma(pt.tensor([0.7, 2.0], dtype=pt.float64), r).cdf(v), [1.5, 3.0],
                     [0.3, 0.6])
    assert gradcheck(lambda lo, hi: ptd.Uniform(lo, hi).entropy(), [0.0, 1.0], [2.0, 1.5])


def test_gradcheck_mvn():
    def via_tril(m, L, v):
        return ptd.MultivariateNormal(m, scale_tril=L.tril()).log_prob(v)

    def via_cov(m, A, v):
        cov = A @ A.mT + pt.eye(3, dtype=pt.float64)   # any A gives a positive-definite covariance
        return ptd.MultivariateNormal(m, covariance_matrix=cov).log_prob(v)

    def via_prec(m, A, v):
        prec = A @ A.mT + pt.eye(3, dtype=pt.float64)
        return ptd.MultivariateNormal(m, precision_matrix=prec).log_prob(v)
    v = [[0.5, 0.0, -1.0], [1.0, 2.0, 3.0]]
    assert gradcheck(via_tril, [0.1, -0.2, 0.3], _TRIL, v)
    assert gradcheck(via_cov, [0.1, -0.2, 0.3], _TRIL, v)
    assert gradcheck(via_prec, [0.1, -0.2, 0.3], _TRIL, v)
    assert gradcheck(lambda L: ptd.MultivariateNormal(pt.zeros(3, dtype=pt.float64), scale_tril=L.tril()).entropy(),
                     _TRIL)


def test_gradcheck_rsample_paths():
    def seeded(fn):
        def run(*args):
            pt.manual_seed(11)       # the same noise at every evaluation
            return fn(*args)
        return run
    assert gradcheck(seeded(lambda m, s: ptd.Normal(m, s).rsample((4,))), [0.3, -1.0], [1.2, 0.4])
    assert gradcheck(seeded(lambda lo, hi: ptd.Uniform(lo, hi).rsample((4,))), [0.0, 1.0], [2.0, 1.5])
    assert gradcheck(seeded(lambda m, L: ptd.MultivariateNormal(m, scale_tril=L.tril()).rsample((3,))),
                     [0.1, -0.2, 0.3], _TRIL)
    # Gamma: the rate enters as x / rate, an ordinary path (the concentration's gradient is implicit)
    assert gradcheck(seeded(lambda r: ptd.Gamma(pt.tensor([0.7, 3.0], dtype=pt.float64), r).rsample((3,))),
                     [1.5, 0.5])


def test_gradcheck_kl():
    assert gradcheck(lambda m1, s1, m2, s2: ptd.kl_divergence(ptd.Normal(m1, s1), ptd.Normal(m2, s2)),
                     [0.0, 1.0], [1.0, 0.5], [0.5, -1.0], [2.0, 1.0])
    assert gradcheck(lambda a, b: ptd.kl_divergence(ptd.Dirichlet(a), ptd.Dirichlet(b)), [0.5, 1.0, 2.0],
                     [1.0, 1.0, 1.0])
    assert gradcheck(lambda a1, r1, a2, r2: ptd.kl_divergence(ptd.Gamma(a1, r1), ptd.Gamma(a2, r2)),
                     [0.7, 2.0], [1.5, 3.0], [1.0, 1.0], [2.0, 0.5])
    assert gradcheck(lambda L1, L2: ptd.kl_divergence(
        ptd.MultivariateNormal(pt.zeros(3, dtype=pt.float64), scale_tril=L1.tril()),
        ptd.MultivariateNormal(pt.ones(3, dtype=pt.float64), scale_tril=L2.tril())), _TRIL, 2 * _TRIL)


# ---------------------------------------------------------------------------------------------- validation

def _errors(torch, make):
    """The exception each library raises for ``make(lib)``: (class name, message)."""
    out = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as e:
            make(lib)
        out.append((type(e.value).__name__, str(e.value)))
    return out


INVALID = {
    "normal_scale": lambda lib: lib.distributions.Normal(0.0, -1.0),
    "normal_scale_tensor": lambda lib: lib.distributions.Normal(lib.zeros(2), lib.tensor([1.0, 0.0])),
    "normal_nan_loc": lambda lib: lib.distributions.Normal(lib.tensor([math.nan]), 1.0),
    "bernoulli_probs": lambda lib: lib.distributions.Bernoulli(lib.tensor([0.5, 1.5])),
    "bernoulli_both": lambda lib: lib.distributions.Bernoulli(probs=0.5, logits=0.0),
    "bernoulli_neither": lambda lib: lib.distributions.Bernoulli(),
    "categorical_negative": lambda lib: lib.distributions.Categorical(lib.tensor([0.5, -0.1])),
    "categorical_0d": lambda lib: lib.distributions.Categorical(lib.tensor(0.5)),
    "categorical_logits_0d": lambda lib: lib.distributions.Categorical(logits=lib.tensor(0.5)),
    "uniform_low_high": lambda lib: lib.distributions.Uniform(1.0, 0.0),
    "beta": lambda lib: lib.distributions.Beta(lib.tensor([1.0, -1.0]), 2.0),
    "dirichlet": lambda lib: lib.distributions.Dirichlet(lib.tensor([1.0, 0.0, 2.0])),
    "dirichlet_0d": lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)),
    "gamma": lambda lib: lib.distributions.Gamma(lib.tensor([1.0, 2.0]), lib.tensor([1.0, -2.0])),
    "mvn_not_pd": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    "mvn_not_sym": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
    "mvn_tril": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0],
                                                                                                       [0.0, 1.0]])),
    "mvn_two": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    "mvn_loc_0d": lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    "mvn_cov_1d": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    "mvn_tril_1d": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    "multinomial_count": lambda lib: lib.distributions.Multinomial(lib.tensor(3), lib.ones(3)),
    "independent_ndims": lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2), 1.0), 2),
    # values given to log_prob / cdf
    "value_not_tensor": lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(1.0),
    "value_bad_shape": lambda lib: lib.distributions.Normal(lib.zeros(2), 1.0).log_prob(lib.zeros(3)),
    "value_event_shape": lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(lib.ones(2)),
    "value_bernoulli": lambda lib: lib.distributions.Bernoulli(0.3).log_prob(lib.tensor(0.5)),
    "value_categorical": lambda lib: lib.distributions.Categorical(lib.tensor([0.5, 0.5])).log_prob(lib.tensor(3)),
    "value_uniform": lambda lib: lib.distributions.Uniform(lib.zeros(2), 1.0).cdf(lib.tensor([0.5, 2.0])),
    "value_simplex": lambda lib: lib.distributions.Dirichlet(lib.ones(2, 3)).log_prob(lib.tensor([0.5, 0.6, 0.1])),
    "value_gamma": lambda lib: lib.distributions.Gamma(1.0, 1.0).log_prob(lib.tensor([-1.0])),
    "value_multinomial": lambda lib: lib.distributions.Multinomial(2, lib.ones(3)).log_prob(lib.tensor([1.0, 1, 1])),
    "value_beta": lambda lib: lib.distributions.Beta(2.0, 2.0).log_prob(lib.tensor([1.5])),
    "value_mvn": lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(2, 3)),
    "value_independent": lambda lib: lib.distributions.Independent(
        lib.distributions.Bernoulli(lib.ones(2, 3) / 2), 1).log_prob(lib.tensor([[0.0, 1.0, 2.0]])),
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_validation_errors(torch, name):
    ours, theirs = _errors(torch, INVALID[name])
    assert ours == theirs


def test_validate_args_switches(torch):
    ptd.Normal(0.0, -1.0, validate_args=False)                    # no check when asked not to
    ptd.Normal(0.0, 1.0, validate_args=False).log_prob(pt.tensor(1))
    d = ptd.Bernoulli(0.3, validate_args=False)
    assert not d._validate_args and not d.expand((2,))._validate_args
    assert np.isfinite(d.log_prob(pt.tensor(0.5)).item())         # out of support, but computed
    with pytest.raises(ValueError):
        ptd.Distribution.set_default_validate_args("yes")
    try:
        ptd.Distribution.set_default_validate_args(False)
        ptd.Normal(0.0, -1.0)
        assert ptd.Normal(0.0, 1.0, validate_args=True)._validate_args
        with pytest.raises(ValueError):
            ptd.Normal(0.0, -1.0, validate_args=True)
    finally:
        ptd.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        ptd.Normal(0.0, -1.0)


def test_constraints(torch):
    tc = torch.distributions.constraints
    x = np.array([[-1.0, 0.0, 0.5], [1.0, 2.0, math.nan]])
    pairs = [(ptc.real, tc.real), (ptc.positive, tc.positive), (ptc.nonnegative, tc.nonnegative),
             (ptc.unit_interval, tc.unit_interval), (ptc.boolean, tc.boolean), (ptc.simplex, tc.simplex),
             (ptc.real_vector, tc.real_vector), (ptc.greater_than(0.5), tc.greater_than(0.5)),
             (ptc.greater_than_eq(0.5), tc.greater_than_eq(0.5)), (ptc.less_than(1.0), tc.less_than(1.0)),
             (ptc.interval(-1, 1), tc.interval(-1, 1)), (ptc.half_open_interval(-1, 1), tc.half_open_interval(-1, 1)),
             (ptc.integer_interval(0, 1), tc.integer_interval(0, 1)), (ptc.nonnegative_integer, tc.nonnegative_integer),
             (ptc.positive_integer, tc.positive_integer), (ptc.one_hot, tc.one_hot),
             (ptc.multinomial(2), tc.multinomial(2)),
             (ptc.independent(ptc.positive, 1), tc.independent(tc.positive, 1))]
    for a, b in pairs:
        assert repr(a) == repr(b)
        assert a.event_dim == b.event_dim and a.is_discrete == b.is_discrete
        assert_close(a.check(pt.tensor(x)), b.check(torch.tensor(x)))
    m = np.array([[[2.0, 0.0], [0.5, 1.0]], [[1.0, 0.3], [0.3, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])
    for name in ("lower_triangular", "lower_cholesky", "square", "symmetric", "positive_definite",
                 "positive_semidefinite", "corr_cholesky"):
        a, b = getattr(ptc, name), getattr(tc, name)
        assert repr(a) == repr(b)
        assert_close(a.check(pt.tensor(m)), b.check(torch.tensor(m)))
    assert ptc.is_dependent(ptc.dependent) and ptc.is_dependent(ptd.Uniform.support)
    assert not ptc.is_dependent(ptc.real)
    assert ptd.Categorical.support.is_discrete and ptd.Categorical.support.event_dim == 0
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        ptc.dependent.check(pt.zeros(1))
    with pytest.raises(NotImplementedError):
        ptc.dependent.event_dim
    assert ptc.dependent(is_discrete=True, event_dim=1).event_dim == 1


def test_public_names(torch):
    for name in ptd.__all__:
        assert hasattr(torch.distributions, name), name
    import pedatorch
    assert pedatorch.distributions is ptd
    assert issubclass(ptd.Normal, ptd.ExponentialFamily) and issubclass(ptd.Normal, ptd.Distribution)


# ---------------------------------------------------------------------------------------------- user code

def reinforce(torch, steps=5):
    """A policy-gradient loop: Categorical over logits from a linear layer, REINFORCE loss, SGD."""
    Categorical = torch.distributions.Categorical
    torch.manual_seed(0)
    policy = torch.nn.Linear(4, 3)
    opt = torch.optim.SGD(policy.parameters(), lr=0.1)
    states = torch.randn(8, 4)
    reward_of_action = torch.tensor([1.0, -1.0, 0.5])
    losses = []
    for _ in range(steps):
        dist = Categorical(logits=policy(states))
        actions = dist.sample()
        rewards = reward_of_action[actions]
        loss = -(dist.log_prob(actions) * rewards).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, policy.weight.detach().numpy().copy(), actions.numpy().copy()


def vae(torch, steps=5):
    """A tiny VAE: Gaussian encoder, reparameterised sample, Bernoulli decoder, KL to N(0, I), Adam."""
    D = torch.distributions
    Bernoulli, Independent, Normal, kl_divergence = D.Bernoulli, D.Independent, D.Normal, D.kl_divergence
    torch.manual_seed(0)
    enc, dec = torch.nn.Linear(6, 4), torch.nn.Linear(2, 6)
    opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=0.05)
    x = (torch.rand(16, 6) > 0.5).float()
    prior = Independent(Normal(torch.zeros(16, 2), torch.ones(16, 2)), 1)
    losses = []
    for _ in range(steps):
        h = enc(x)
        mu, log_var = h[:, :2], h[:, 2:]
        q = Independent(Normal(mu, torch.exp(0.5 * log_var)), 1)
        z = q.rsample()
        likelihood = Independent(Bernoulli(logits=dec(z)), 1)
        loss = (-likelihood.log_prob(x) + kl_divergence(q, prior)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, enc.weight.detach().numpy().copy()


def test_reinforce_runs_identically(torch):
    a, b = reinforce(pt), reinforce(torch)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(a[2], b[2])


def test_vae_runs_identically(torch):
    a, b = vae(pt), vae(torch)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-4, atol=1e-5)
