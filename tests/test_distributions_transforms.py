"""pedatorch.distributions.transforms, TransformedDistribution and the distributions built on it, against torch:
forward / inverse / log_abs_det_jacobian values and gradients, constraints and flags, caching, equality,
biject_to / transform_to, log_prob, seeded samples and rsample gradients."""
import numpy as np
import pytest

import pedatorch as pt
import pedatorch.distributions as ptd
from pedatorch.distributions import transforms as ptt
from conftest import assert_close, to_np

RNG = np.random.RandomState(0)
_VEC = RNG.randn(2, 3)                        # unconstrained inputs: 2 vectors of 3
_POS = np.exp(RNG.randn(2, 3))                # positive inputs
_MAT = RNG.randn(2, 3, 3)                     # unconstrained square matrices
_SPD = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])


def _close(ours, theirs):
    """Tight in float64; float32 results (distributions built from Python numbers) may differ in the last bit,
    as numpy's and PyTorch's exp / log round differently."""
    tight = to_np(ours).dtype == np.float64
    assert_close(ours, theirs, rtol=1e-10 if tight else 1e-6, atol=1e-12 if tight else 1e-6)


def _t(lib, a):
    return lib.tensor(np.asarray(a, dtype=np.float64))


# ---------------------------------------------------------------------------------------------- transform cases
# name: (builder(lib) -> transform, input x, has log_abs_det_jacobian)
TRANSFORMS = {
    "exp": (lambda L: L.distributions.transforms.ExpTransform(), _VEC, True),
    "exp_inv": (lambda L: L.distributions.transforms.ExpTransform().inv, _POS, True),
    "affine_numbers": (lambda L: L.distributions.transforms.AffineTransform(1.5, -2.0), _VEC, True),
    "affine_tensors": (lambda L: L.distributions.transforms.AffineTransform(_t(L, [0.5, -1.0, 2.0]),
                                                                             _t(L, [2.0, -0.5, 3.0])), _VEC, True),
    "affine_event1": (lambda L: L.distributions.transforms.AffineTransform(_t(L, [0.5, -1.0, 2.0]),
                                                                            _t(L, [[2.0, -0.5, 3.0]] * 2),
                                                                            event_dim=1), _VEC, True),
    "affine_event1_number": (lambda L: L.distributions.transforms.AffineTransform(0.0, 3.0, event_dim=1), _VEC, True),
    "sigmoid": (lambda L: L.distributions.transforms.SigmoidTransform(), _VEC, True),
    "softplus": (lambda L: L.distributions.transforms.SoftplusTransform(), _VEC, True),
    "tanh": (lambda L: L.distributions.transforms.TanhTransform(), _VEC, True),
    "power": (lambda L: L.distributions.transforms.PowerTransform(_t(L, [2.0, -0.5, 1.5])), _POS, True),
    "power_number": (lambda L: L.distributions.transforms.PowerTransform(3.0), _POS, True),
    "stick_breaking": (lambda L: L.distributions.transforms.StickBreakingTransform(), _VEC, True),
    "corr_cholesky": (lambda L: L.distributions.transforms.CorrCholeskyTransform(), _VEC, True),
    "independent": (lambda L: L.distributions.transforms.IndependentTransform(
        L.distributions.transforms.ExpTransform(), 1), _VEC, True),
    "reshape": (lambda L: L.distributions.transforms.ReshapeTransform((3,), (3, 1)), _VEC, True),
    "compose": (lambda L: L.distributions.transforms.ComposeTransform(
        [L.distributions.transforms.ExpTransform(), L.distributions.transforms.AffineTransform(1.0, -2.0)]),
        _VEC, True),
    "compose_vector": (lambda L: L.distributions.transforms.ComposeTransform(
        [L.distributions.transforms.AffineTransform(0.5, 2.0), L.distributions.transforms.StickBreakingTransform(),
         L.distributions.transforms.ExpTransform().inv]), _VEC, True),
    "identity": (lambda L: L.distributions.transforms.identity_transform, _VEC, True),
    "cat": (lambda L: L.distributions.transforms.CatTransform(
        [L.distributions.transforms.ExpTransform(), L.distributions.transforms.SigmoidTransform()],
        dim=-1, lengths=[1, 2]), _VEC, True),
    "stack": (lambda L: L.distributions.transforms.StackTransform(
        [L.distributions.transforms.ExpTransform(), L.distributions.transforms.TanhTransform()], dim=0), _VEC, True),
    "cdf": (lambda L: L.distributions.transforms.CumulativeDistributionTransform(L.distributions.Normal(0.5, 2.0)),
            _VEC, True),
    # not bijective: forward and (pseudo-)inverse only
    "abs": (lambda L: L.distributions.transforms.AbsTransform(), _VEC, False),
    "softmax": (lambda L: L.distributions.transforms.SoftmaxTransform(), _VEC, False),
    "lower_cholesky": (lambda L: L.distributions.transforms.LowerCholeskyTransform(), _MAT, False),
    "positive_definite": (lambda L: L.distributions.transforms.PositiveDefiniteTransform(), _MAT, False),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_values_match_torch(torch, name):
    build, x, has_jac = TRANSFORMS[name]
    ours, theirs = build(pt), build(torch)
    xo, xt = _t(pt, x), _t(torch, x)
    yo, yt = ours(xo), theirs(xt)
    assert_close(yo, yt, rtol=1e-10, atol=1e-12)
    assert_close(ours.inv(yo), theirs.inv(yt), rtol=1e-9, atol=1e-10)
    if has_jac:
        assert_close(ours.log_abs_det_jacobian(xo, yo), theirs.log_abs_det_jacobian(xt, yt), rtol=1e-10, atol=1e-12)
    for shape in (xo.shape, (5,) + tuple(xo.shape)):
        assert ours.forward_shape(pt.Size(shape)) == tuple(theirs.forward_shape(torch.Size(shape)))
        ys = theirs.forward_shape(torch.Size(shape))
        assert ours.inverse_shape(pt.Size(ys)) == tuple(theirs.inverse_shape(ys))


@pytest.mark.parametrize("name", sorted(n for n in TRANSFORMS if TRANSFORMS[n][2]))
def test_log_abs_det_jacobian_gradients(torch, name):
    """d/dx of log|det J|(x, f(x)) matches torch's, and passes pedatorch's own gradcheck."""
    build, x, _ = TRANSFORMS[name]
    ours, theirs = build(pt), build(torch)
    xo = pt.tensor(np.asarray(x, np.float64), requires_grad=True)
    xt = torch.tensor(np.asarray(x, np.float64), requires_grad=True)
    (ours.log_abs_det_jacobian(xo, ours(xo)).sum() + ours(xo).sum()).backward()
    (theirs.log_abs_det_jacobian(xt, theirs(xt)).sum() + theirs(xt).sum()).backward()
    assert_close(xo.grad, xt.grad, rtol=1e-8, atol=1e-10)
    assert pt.autograd.gradcheck(lambda v: ours.log_abs_det_jacobian(v, ours(v)),
                                 (pt.tensor(np.asarray(x, np.float64), requires_grad=True),))


def test_log_abs_det_jacobian_is_the_log_determinant():
    """For the stick-breaking map (K -> K + 1 entries) log|det| is that of the Jacobian of the first K outputs."""
    x = pt.tensor(_VEC[0], requires_grad=True)
    t = ptt.StickBreakingTransform()
    jac = np.stack([to_np(pt.autograd.grad(t(x)[i], x)[0]) for i in range(3)])
    assert np.isclose(np.log(abs(np.linalg.det(jac))), t.log_abs_det_jacobian(x, t(x)).item())


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_flags_and_constraints_match_torch(torch, name):
    ours, theirs = TRANSFORMS[name][0](pt), TRANSFORMS[name][0](torch)
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == repr(theirs.domain)
    assert repr(ours.codomain) == repr(theirs.codomain)
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    assert ours.bijective == theirs.bijective
    assert repr(ours.inv.domain) == repr(theirs.inv.domain)
    try:
        expected = theirs.sign
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            ours.sign
    else:
        assert_close(ours.sign, expected, check_dtype=False)


def test_event_dim_error_when_domain_and_codomain_differ():
    t = ptt.ComposeTransform([ptt.ReshapeTransform((6,), (2, 3))])
    assert t.domain.event_dim == 1 and t.codomain.event_dim == 2
    with pytest.raises(ValueError, match="Please use either .domain.event_dim or .codomain.event_dim"):
        t.event_dim
    assert ptt.AffineTransform(0.0, 1.0, event_dim=2).event_dim == 2
    assert ptt.StickBreakingTransform().event_dim == 1


def test_outputs_lie_in_the_codomain():
    x = pt.tensor(_VEC)
    for t in [ptt.ExpTransform(), ptt.SigmoidTransform(), ptt.TanhTransform(), ptt.SoftmaxTransform(),
              ptt.StickBreakingTransform(), ptt.AbsTransform(), ptt.CorrCholeskyTransform()]:
        assert t.codomain.check(t(x)).all(), t
    m = pt.tensor(_MAT)
    for t in [ptt.LowerCholeskyTransform(), ptt.PositiveDefiniteTransform()]:
        assert t.codomain.check(t(m)).all(), t


def test_inverse_is_inverse():
    x = pt.tensor(_VEC)
    for t in [ptt.ExpTransform(), ptt.SigmoidTransform(), ptt.TanhTransform(), ptt.StickBreakingTransform(),
              ptt.AffineTransform(1.0, 3.0), ptt.CorrCholeskyTransform(), ptt.SoftplusTransform()]:
        assert_close(t.inv(t(x)), x, rtol=1e-9, atol=1e-9)
    t = ptt.LowerCholeskyTransform()
    low = t(pt.tensor(_MAT))
    assert_close(t(t.inv(low)), low, rtol=1e-12)


# ---------------------------------------------------------------------------------------------- caching, inv, __eq__

def test_cache_size():
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        ptt.ExpTransform(cache_size=2)
    x = pt.tensor(_VEC)
    cached = ptt.TanhTransform(cache_size=1)
    y = cached(x)
    assert cached(x) is y                 # the same input object: the remembered output
    assert cached.inv(y) is x             # and the inverse gives back the very input
    plain = ptt.TanhTransform()
    assert plain.inv(plain(x)) is not x
    # atanh(1) is infinite, the cache gives the input back
    big = pt.tensor([30.0], dtype=pt.float64)
    assert pt.isinf(plain.inv(plain(big))).all()
    assert cached.inv(cached(big)) is big
    # with_cache: a copy with another cache size (itself when unchanged)
    assert cached.with_cache(1) is cached
    assert ptt.ExpTransform().with_cache(1)._cache_size == 1
    affine = ptt.AffineTransform(1.0, 2.0).with_cache()
    assert affine._cache_size == 1 and affine == ptt.AffineTransform(1.0, 2.0)
    compose = ptt.ComposeTransform([ptt.ExpTransform(), ptt.AffineTransform(0.0, 2.0)], cache_size=1)
    assert all(p._cache_size == 1 for p in compose.parts)
    assert ptt.IndependentTransform(ptt.ExpTransform(), 1, cache_size=1).base_transform._cache_size == 1


def test_with_cache_not_implemented():
    class Scale(ptt.Transform):
        def __init__(self, factor, cache_size=0):
            super().__init__(cache_size=cache_size)
            self.factor = factor
    with pytest.raises(NotImplementedError, match="with_cache is not implemented"):
        Scale(2.0).with_cache(1)


def test_inv_and_equality():
    exp = ptt.ExpTransform()
    assert exp.inv.inv is exp and exp.inv is exp.inv
    assert exp == ptt.ExpTransform() and exp.inv == ptt.ExpTransform().inv
    assert exp != ptt.SigmoidTransform() and exp.inv != exp
    assert ptt.AffineTransform(1.0, 2.0) == ptt.AffineTransform(1.0, 2.0)
    assert ptt.AffineTransform(1.0, 2.0) != ptt.AffineTransform(1.0, 3.0)
    assert ptt.AffineTransform(pt.tensor([1.0, 2.0]), 2.0) == ptt.AffineTransform(pt.tensor([1.0, 2.0]), 2.0)
    assert ptt.AffineTransform(pt.tensor([1.0, 2.0]), 2.0) != ptt.AffineTransform(pt.tensor([1.0, 0.0]), 2.0)
    assert ptt.PowerTransform(2.0) == ptt.PowerTransform(pt.tensor(2.0)) != ptt.PowerTransform(3.0)
    c = ptt.ComposeTransform([ptt.ExpTransform(), ptt.AffineTransform(1.0, 2.0)])
    assert c == ptt.ComposeTransform([ptt.ExpTransform(), ptt.AffineTransform(1.0, 2.0)])
    assert c != ptt.ComposeTransform([ptt.AffineTransform(1.0, 2.0), ptt.ExpTransform()])
    assert c.inv.inv is c
    assert c.inv.parts == [ptt.AffineTransform(1.0, 2.0).inv, ptt.ExpTransform().inv]
    assert ptt.Transform() != ptt.Transform()      # plain transforms compare by identity
    assert ptt.identity_transform == ptt.ComposeTransform([])


def test_sign_of_compositions_and_decreasing_maps():
    assert ptt.AffineTransform(0.0, -2.0).sign == -1 and ptt.AffineTransform(0.0, 0.0).sign == 0
    c = ptt.ComposeTransform([ptt.AffineTransform(0.0, -2.0), ptt.ExpTransform(), ptt.AffineTransform(1.0, -1.0)])
    assert c.sign == 1 and c.inv.sign == 1
    assert_close(ptt.AffineTransform(0.0, pt.tensor([-2.0, 3.0])).sign, [-1.0, 1.0], check_dtype=False)
    assert_close(ptt.PowerTransform(pt.tensor([-2.0, 3.0])).sign, [-1.0, 1.0], check_dtype=False)
    assert ptt.ComposeTransform([ptt.ExpTransform(), ptt.SoftmaxTransform()]).bijective is False


def test_shape_errors():
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers of elements"):
        ptt.ReshapeTransform((2, 3), (5,))
    t = ptt.ReshapeTransform((2, 3), (6,))
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        t.forward_shape(pt.Size((3,)))
    with pytest.raises(ValueError, match="Shape mismatch"):
        t.forward_shape(pt.Size((3, 3)))
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        ptt.StickBreakingTransform().forward_shape(pt.Size(()))
    with pytest.raises(ValueError, match="Input is not a flattened lower-diagonal number"):
        ptt.CorrCholeskyTransform().forward_shape(pt.Size((4,)))
    with pytest.raises(ValueError, match="Too few dimensions on input"):
        ptt.IndependentTransform(ptt.ExpTransform(), 2)(pt.zeros(3))
    with pytest.raises(AssertionError, match=r"x.size\(0\) = 2 must equal length 3"):
        ptt.CatTransform([ptt.ExpTransform(), ptt.ExpTransform()], 0, [1, 2])(pt.zeros(2))
    with pytest.raises(AssertionError, match="All elements of tseq must be Transform instances"):
        ptt.StackTransform([ptt.ExpTransform(), 3])


# ------------------------------------------------------------------------------------------ biject_to / transform_to

def _constraint_cases(C, L):
    return {
        "real": C.real, "real_vector": C.real_vector, "positive": C.positive, "nonnegative": C.nonnegative,
        "greater_than": C.greater_than(2.0), "greater_than_eq": C.greater_than_eq(-1.0),
        "less_than": C.less_than(1.5), "unit_interval": C.unit_interval, "interval": C.interval(-1.0, 2.0),
        "half_open": C.half_open_interval(0.0, 5.0), "interval_tensor": C.interval(_t(L, [0.0, 1.0, 2.0]), 4.0),
        "simplex": C.simplex, "independent_positive": C.independent(C.positive, 1),
        "corr_cholesky": C.corr_cholesky, "lower_cholesky": C.lower_cholesky,
        "positive_definite": C.positive_definite, "positive_semidefinite": C.positive_semidefinite,
        "cat": C.cat([C.positive, C.real, C.unit_interval], dim=-1, lengths=[1, 1, 1]),
        "stack": C.stack([C.positive, C.unit_interval], dim=0),
    }


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", sorted(_constraint_cases(ptd.constraints, pt)))
def test_constraint_registries_match_torch(torch, registry, name):
    c_ours = _constraint_cases(ptd.constraints, pt)[name]
    c_theirs = _constraint_cases(torch.distributions.constraints, torch)[name]
    try:
        theirs = getattr(torch.distributions, registry)(c_theirs)
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError, match=str(e)):
            getattr(ptd, registry)(c_ours)
        return
    ours = getattr(ptd, registry)(c_ours)
    assert repr(ours) == repr(theirs)
    x = _MAT if c_ours.event_dim == 2 else _VEC
    if name == "stack":
        x = _VEC[:, :2]
    xo, xt = _t(pt, x), _t(torch, x)
    yo, yt = ours(xo), theirs(xt)
    assert_close(yo, yt, rtol=1e-10, atol=1e-12)
    assert c_ours.check(yo).all()
    if registry == "biject_to":
        assert ours.bijective
        assert_close(ours.log_abs_det_jacobian(xo, yo), theirs.log_abs_det_jacobian(xt, yt), rtol=1e-10, atol=1e-12)


def test_registry_errors_and_register():
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        ptd.biject_to(ptd.constraints.lower_cholesky)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        ptd.biject_to.register(3, lambda c: None)
    registry = ptd.constraint_registry.ConstraintRegistry()

    @registry.register(ptd.constraints.positive)
    def _softplus(constraint):
        return ptt.SoftplusTransform()
    assert registry(ptd.constraints.positive) == ptt.SoftplusTransform()
    assert registry(ptd.constraints.greater_than(3.0)) == ptt.SoftplusTransform()   # the same class
    # the classic use: optimise an unconstrained value, read it through the transform
    u = pt.zeros(3, requires_grad=True)
    scale = ptd.transform_to(ptd.Normal.arg_constraints["scale"])(u)
    assert (scale > 0).all() and scale.requires_grad


# ---------------------------------------------------------------------------------------------- distributions

def _lib_params(L, arrays):
    return {k: (L.tensor(np.asarray(v, np.float64), requires_grad=True) if isinstance(v, (list, np.ndarray)) else v)
            for k, v in arrays.items()}


# name: (builder(lib, params), params, a value for log_prob)
DISTS = {
    "lognormal": (lambda L, p: L.distributions.LogNormal(p["loc"], p["scale"]),
                  dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.5]), [0.3, 1.2, 7.0]),
    "lognormal_scalar": (lambda L, p: L.distributions.LogNormal(p["loc"], p["scale"]),
                         dict(loc=0.0, scale=1.0), [[0.5], [2.0]]),
    "gumbel": (lambda L, p: L.distributions.Gumbel(p["loc"], p["scale"]),
               dict(loc=[0.5, -1.0, 2.0], scale=[1.0, 0.5, 2.5]), [0.3, -1.2, 7.0]),
    "gumbel_scalar": (lambda L, p: L.distributions.Gumbel(p["loc"], p["scale"]), dict(loc=1.0, scale=2.0), [0.5, 3.0]),
    "relaxed_bernoulli": (lambda L, p: L.distributions.RelaxedBernoulli(p["temperature"], probs=p["probs"]),
                          dict(temperature=[0.7], probs=[0.2, 0.5, 0.9]), [0.1, 0.6, 0.95]),
    "relaxed_bernoulli_logits": (lambda L, p: L.distributions.RelaxedBernoulli(p["temperature"], logits=p["logits"]),
                                 dict(temperature=[1.5], logits=[-1.0, 0.3, 2.0]), [0.1, 0.6, 0.95]),
    "relaxed_onehot": (lambda L, p: L.distributions.RelaxedOneHotCategorical(p["temperature"], probs=p["probs"]),
                       dict(temperature=[0.8], probs=[[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]), [0.2, 0.5, 0.3]),
    "relaxed_onehot_logits": (lambda L, p: L.distributions.RelaxedOneHotCategorical(p["temperature"],
                                                                                   logits=p["logits"]),
                              dict(temperature=[2.0], logits=[0.5, -1.0, 2.0, 0.0]), [0.1, 0.2, 0.3, 0.4]),
    "logistic_normal": (lambda L, p: L.distributions.LogisticNormal(p["loc"], p["scale"]),
                        dict(loc=[0.5, -1.0, 0.2], scale=[1.0, 0.5, 2.5]), [0.1, 0.2, 0.3, 0.4]),
    "logistic": (lambda L, p: L.distributions.TransformedDistribution(
        L.distributions.Uniform(L.tensor(0.0, dtype=L.float64), L.tensor(1.0, dtype=L.float64)),
        [L.distributions.transforms.SigmoidTransform().inv,
         L.distributions.transforms.AffineTransform(p["loc"], p["scale"])]),
        dict(loc=[0.5, -1.0], scale=[1.0, 2.0]), [[0.3, 2.0], [-1.0, 0.0]]),
    "decreasing": (lambda L, p: L.distributions.TransformedDistribution(
        L.distributions.Normal(p["loc"], 1.0),
        [L.distributions.transforms.AffineTransform(1.0, -2.0), L.distributions.transforms.ExpTransform()]),
        dict(loc=[0.5, -1.0]), [0.3, 2.0]),
    "reshape": (lambda L, p: L.distributions.TransformedDistribution(
        L.distributions.Normal(p["loc"], p["scale"]), [L.distributions.transforms.ReshapeTransform((4,), (2, 2))]),
        dict(loc=[[0.0, 1.0, 2.0, 3.0]], scale=[[1.0, 0.5, 2.0, 1.5]]), [[0.3, 2.0], [-1.0, 0.0]]),
    "broadcast_by_transform": (lambda L, p: L.distributions.TransformedDistribution(
        L.distributions.Normal(0.0, 1.0), [L.distributions.transforms.AffineTransform(p["loc"], 2.0)]),
        dict(loc=[0.5, -1.0, 0.0]), [0.3, 2.0, -1.0]),
}


def _build(L, name):
    build, arrays, value = DISTS[name]
    params = _lib_params(L, arrays)
    return build(L, params), {k: v for k, v in params.items() if not isinstance(v, float)}, \
        L.tensor(np.asarray(value, np.float64))


def _grads(lib, out, params):
    names = list(params)
    if not names:
        return {}
    got = lib.autograd.grad(out.sum(), [params[n] for n in names], allow_unused=True, retain_graph=True)
    return {n: (None if g is None else to_np(g)) for n, g in zip(names, got)}


def _assert_grads_close(a, b, **kw):
    assert a.keys() == b.keys()
    for k in a:
        assert (a[k] is None) == (b[k] is None), k
        if a[k] is not None:
            np.testing.assert_allclose(a[k], b[k], err_msg=k, **kw)


@pytest.mark.parametrize("name", sorted(DISTS))
def test_distribution_shapes_and_log_prob_match_torch(torch, name):
    ours, po, vo = _build(pt, name)
    theirs, pth, vt = _build(torch, name)
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.event_shape == tuple(theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    assert repr(ours.base_dist) == repr(theirs.base_dist)
    assert len(ours.transforms) == len(theirs.transforms)
    lo, lt = ours.log_prob(vo), theirs.log_prob(vt)
    _close(lo, lt)
    _assert_grads_close(_grads(pt, lo, po), _grads(torch, lt, pth), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(DISTS))
def test_seeded_samples_and_rsample_gradients_match_torch(torch, name):
    """pedatorch's RNG reproduces PyTorch's streams, so the same seed gives the same samples, and the
    reparameterised samples have the same gradients."""
    ours, po, _ = _build(pt, name)
    theirs, pth, _ = _build(torch, name)
    assert ours.has_rsample == theirs.has_rsample
    for shape in ((), (4,), (2, 3)):
        pt.manual_seed(0), torch.manual_seed(0)
        so, st = ours.sample(shape), theirs.sample(shape)
        _close(so, st)
        assert not so.requires_grad
        if ours.has_rsample:
            pt.manual_seed(1), torch.manual_seed(1)
            ro, rt = ours.rsample(shape), theirs.rsample(shape)
            _close(ro, rt)
            _assert_grads_close(_grads(pt, ro, po), _grads(torch, rt, pth), rtol=1e-8, atol=1e-12)
    assert ours.support.check(ours.sample((50,))).all()


@pytest.mark.parametrize("name", ["lognormal", "lognormal_scalar", "logistic", "decreasing", "gumbel",
                                  "broadcast_by_transform"])
def test_cdf_and_icdf_match_torch(torch, name):
    ours, po, vo = _build(pt, name)
    theirs, pth, vt = _build(torch, name)
    co, ct = ours.cdf(vo), theirs.cdf(vt)
    _close(co, ct)
    _assert_grads_close(_grads(pt, co, po), _grads(torch, ct, pth), rtol=1e-9, atol=1e-12)
    q = np.array([0.1, 0.5, 0.8])[:ours.batch_shape[-1]] if ours.batch_shape else np.array([0.1, 0.5, 0.8])
    io, it = ours.icdf(pt.tensor(q)), theirs.icdf(torch.tensor(q))
    assert_close(io, it, rtol=1e-9, atol=1e-12)
    assert_close(ours.cdf(io), q, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["lognormal", "lognormal_scalar", "gumbel", "gumbel_scalar"])
def test_moments_and_entropy_match_torch(torch, name):
    ours, _, _ = _build(pt, name)
    theirs, _, _ = _build(torch, name)
    for attr in ("mean", "mode", "variance", "stddev"):
        _close(getattr(ours, attr), getattr(theirs, attr))
    _close(ours.entropy(), theirs.entropy())


@pytest.mark.parametrize("name", ["lognormal", "gumbel", "relaxed_bernoulli", "relaxed_onehot_logits",
                                  "logistic_normal", "logistic"])
def test_expand_matches_torch(torch, name):
    ours, _, vo = _build(pt, name)
    theirs, _, vt = _build(torch, name)
    shape = (2,) + tuple(theirs.batch_shape)
    eo, et = ours.expand(shape), theirs.expand(torch.Size(shape))
    assert type(eo) is type(ours)
    assert eo.batch_shape == tuple(et.batch_shape) and eo.event_shape == tuple(et.event_shape)
    _close(eo.log_prob(vo), et.log_prob(vt))
    pt.manual_seed(2), torch.manual_seed(2)
    _close(eo.sample(), et.sample())


def test_parameters_and_validation(torch):
    d = ptd.LogNormal(pt.tensor([0.0, 1.0]), pt.tensor([1.0, 2.0]))
    assert_close(d.loc, np.float32([0.0, 1.0]))
    assert_close(d.scale, np.float32([1.0, 2.0]))
    assert isinstance(d.base_dist, ptd.Normal) and d.transforms == [ptt.ExpTransform()]
    assert repr(d) == repr(torch.distributions.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0])))
    with pytest.raises(ValueError, match="Expected parameter scale"):
        ptd.LogNormal(0.0, -1.0, validate_args=True)
    with pytest.raises(ValueError, match="to be within the support"):
        ptd.LogNormal(0.0, 1.0, validate_args=True).log_prob(pt.tensor(-1.0))
    r = ptd.RelaxedBernoulli(pt.tensor(0.5), logits=pt.tensor([0.0, 1.0]))
    assert_close(r.probs, np.float32([0.5, 1 / (1 + np.exp(-1.0))]))
    assert r.temperature.item() == 0.5
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        ptd.RelaxedBernoulli(pt.tensor(0.5))
    ln = ptd.LogisticNormal(0.0, 1.0)
    assert ln.event_shape == (2,) and ln.loc.shape == (1,)


def test_transformed_distribution_errors():
    base = ptd.Normal(0.0, 1.0)
    with pytest.raises(ValueError, match="transforms must be a Transform or list, but was"):
        ptd.TransformedDistribution(base, "exp")
    with pytest.raises(ValueError, match="transforms must be a Transform or a list of Transforms"):
        ptd.TransformedDistribution(base, [ptt.ExpTransform(), "exp"])
    with pytest.raises(ValueError, match=r"base_distribution needs to have shape with size at least 1, but got"):
        ptd.TransformedDistribution(base, [ptt.StickBreakingTransform()])


def test_vector_transform_makes_vector_events(torch):
    """Stick breaking couples the entries: the Normal base is wrapped in Independent, log_prob sums them."""
    loc = np.array([[0.5, -1.0, 0.2], [0.0, 0.0, 0.0]])
    ours = ptd.TransformedDistribution(ptd.Normal(pt.tensor(loc), 1.0), ptt.StickBreakingTransform())
    theirs = torch.distributions.TransformedDistribution(torch.distributions.Normal(torch.tensor(loc), 1.0),
                                                         torch.distributions.transforms.StickBreakingTransform())
    assert isinstance(ours.base_dist, ptd.Independent)
    assert ours.batch_shape == (2,) and ours.event_shape == (4,)
    v = np.array([0.1, 0.2, 0.3, 0.4])
    assert_close(ours.log_prob(pt.tensor(v)), theirs.log_prob(torch.tensor(v)), rtol=1e-10)


def test_affine_event_dim_counts_every_entry():
    """log|det| of x -> 2x on vectors of 3 is 3 log 2, whether the scale is a number or a 0-dim tensor
    (PyTorch 2.13 gives log 2 for the 0-dim tensor; pedatorch broadcasts the scale first)."""
    x = pt.zeros(2, 3)
    for scale in (2.0, pt.tensor(2.0)):
        t = ptt.AffineTransform(0.0, scale, event_dim=1)
        assert_close(t.log_abs_det_jacobian(x, t(x)), np.full(2, 3 * np.log(2.0), np.float32))
