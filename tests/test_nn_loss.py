"""nn.functional losses against PyTorch: values, gradients, dtypes, grad_fn chains, errors, warnings;
gradcheck (and gradgradcheck for the one-node losses) in float64."""
import math
import warnings
import zlib

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close

REDUCTIONS = ("none", "mean", "sum")


class Env:
    """Builds a case's tensors in one library: ``leaf`` (differentiated) and ``const`` tensors."""

    def __init__(self, T, given=None):
        self.T, self.F = T, T.nn.functional
        self.given = list(given) if given is not None else None
        self.leaves = []

    def leaf(self, a):
        if self.given is not None:
            t = self.given[len(self.leaves)]
        else:
            t = self.T.tensor(a, requires_grad=True)
        self.leaves.append(t)
        return t

    def const(self, a):
        return self.T.tensor(a)


def _chain(t, depth=5):
    names, g = [], t.grad_fn
    while g is not None and len(names) < depth:
        names.append(type(g).__name__)
        nxt = [n for n, _ in g.next_functions if n is not None and type(n).__name__ != "AccumulateGrad"]
        g = nxt[0] if nxt else None
    return names


def _tol(dtype):
    return (2e-4, 2e-5) if dtype == "float32" else (1e-7, 1e-9)


def _rand(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------- cases
# Each case: make(rng, dtype) -> dict of numpy arrays;  fn(env, a, reduction) -> loss (built with env)

def _xy(r, dt, shape=(3, 4)):
    return dict(x=r.standard_normal(shape).astype(dt), y=r.standard_normal(shape).astype(dt),
                w=r.uniform(0.2, 2.0, shape).astype(dt))


def _probs(r, dt, shape=(3, 4)):
    return dict(x=r.uniform(0.05, 0.95, shape).astype(dt), y=r.uniform(0.0, 1.0, shape).astype(dt),
                w=r.uniform(0.2, 2.0, shape).astype(dt), wb=r.uniform(0.2, 2.0, shape[-1:]).astype(dt),
                z=r.standard_normal(shape).astype(dt))


def _cls(r, dt, shape=(5, 4), ignore=True):
    n, c = shape[0], shape[1]
    t = r.integers(0, c, (n,) + shape[2:])
    if ignore:
        t.reshape(-1)[1] = -100
    return dict(x=r.standard_normal(shape).astype(dt), t=t, t2=np.where(t < 0, 2, t),
                w=r.uniform(0.2, 2.0, c).astype(dt), p=_softmax(r.standard_normal(shape), 1).astype(dt))


def _softmax(z, axis):
    e = np.exp(z - z.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def _pm1(r, shape):
    return np.where(r.uniform(size=shape) > 0.5, 1.0, -1.0)


CASES = {
    # name: (make, fn, one_node)
    "mse": (_xy, lambda e, a, red: e.F.mse_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red), True),
    "mse_weight": (_xy, lambda e, a, red: e.F.mse_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red,
                                                       weight=e.const(a["w"])), False),
    "mse_broadcast": (lambda r, dt: dict(x=r.standard_normal((3, 4)).astype(dt), y=r.standard_normal(4).astype(dt)),
                      lambda e, a, red: e.F.mse_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red), True),
    "l1": (_xy, lambda e, a, red: e.F.l1_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red), False),
    "l1_weight": (_xy, lambda e, a, red: e.F.l1_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red,
                                                     weight=e.const(a["w"])), False),
    "smooth_l1": (_xy, lambda e, a, red: e.F.smooth_l1_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red), True),
    "smooth_l1_beta": (_xy, lambda e, a, red: e.F.smooth_l1_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red,
                                                                 beta=0.4), True),
    "smooth_l1_beta0": (_xy, lambda e, a, red: e.F.smooth_l1_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red,
                                                                  beta=0.0), False),
    "huber": (_xy, lambda e, a, red: e.F.huber_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red), True),
    "huber_delta": (_xy, lambda e, a, red: e.F.huber_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red,
                                                          delta=0.3), True),
    "huber_weight": (_xy, lambda e, a, red: e.F.huber_loss(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red,
                                                           delta=0.7, weight=e.const(a["w"])), False),
    "nll": (_cls, lambda e, a, red: e.F.nll_loss(e.leaf(a["x"]), e.const(a["t"]), reduction=red), True),
    "nll_weight": (_cls, lambda e, a, red: e.F.nll_loss(e.leaf(a["x"]), e.const(a["t"]), reduction=red,
                                                        weight=e.const(a["w"])), True),
    "nll_ignore": (_cls, lambda e, a, red: e.F.nll_loss(e.leaf(a["x"]), e.const(a["t2"]), reduction=red,
                                                        weight=e.const(a["w"]), ignore_index=2), True),
    "nll_1d": (lambda r, dt: dict(x=r.standard_normal(4).astype(dt)),
               lambda e, a, red: e.F.nll_loss(e.leaf(a["x"]), e.const(np.array(2)), reduction=red), True),
    "nll_3d": (lambda r, dt: _cls(r, dt, (2, 4, 3)),
               lambda e, a, red: e.F.nll_loss(e.leaf(a["x"]), e.const(a["t"]), weight=e.const(a["w"]),
                                              reduction=red), True),
    "nll_4d": (lambda r, dt: _cls(r, dt, (2, 4, 3, 2)),
               lambda e, a, red: e.F.nll_loss(e.leaf(a["x"]), e.const(a["t"]), reduction=red), True),
    "nll_5d": (lambda r, dt: _cls(r, dt, (2, 3, 2, 2, 2)),
               lambda e, a, red: e.F.nll_loss(e.leaf(a["x"]), e.const(a["t"]), reduction=red), True),
    "ce": (_cls, lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.const(a["t"]), reduction=red), False),
    "ce_weight": (_cls, lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.const(a["t"]), reduction=red,
                                                            weight=e.const(a["w"])), False),
    "ce_ignore": (_cls, lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.const(a["t2"]), reduction=red,
                                                            ignore_index=2), False),
    "ce_smooth": (_cls, lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.const(a["t"]), reduction=red,
                                                            label_smoothing=0.2), False),
    "ce_smooth_weight": (_cls, lambda e, a, red: e.F.cross_entropy(
        e.leaf(a["x"]), e.const(a["t"]), reduction=red, label_smoothing=0.3, weight=e.const(a["w"])), False),
    "ce_1d": (lambda r, dt: dict(x=r.standard_normal(4).astype(dt)),
              lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.const(np.array(1)), reduction=red,
                                                  label_smoothing=0.1), False),
    "ce_4d": (lambda r, dt: _cls(r, dt, (2, 4, 3, 2)),
              lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.const(a["t"]), reduction=red,
                                                  weight=e.const(a["w"]), label_smoothing=0.1), False),
    "ce_3d": (lambda r, dt: _cls(r, dt, (2, 4, 3)),
              lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.const(a["t"]), reduction=red), False),
    "ce_prob": (_cls, lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.leaf(a["p"]), reduction=red), False),
    "ce_prob_weight_smooth": (_cls, lambda e, a, red: e.F.cross_entropy(
        e.leaf(a["x"]), e.leaf(a["p"]), reduction=red, weight=e.const(a["w"]), label_smoothing=0.25), False),
    "ce_prob_4d": (lambda r, dt: _cls(r, dt, (2, 4, 3, 2)),
                   lambda e, a, red: e.F.cross_entropy(e.leaf(a["x"]), e.leaf(a["p"]), reduction=red,
                                                       weight=e.const(a["w"])), False),
    "bce": (_probs, lambda e, a, red: e.F.binary_cross_entropy(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red), True),
    "bce_weight": (_probs, lambda e, a, red: e.F.binary_cross_entropy(e.leaf(a["x"]), e.leaf(a["y"]), reduction=red,
                                                                      weight=e.const(a["w"])), True),
    "bce_weight_bcast": (_probs, lambda e, a, red: e.F.binary_cross_entropy(
        e.leaf(a["x"]), e.const(a["y"]), reduction=red, weight=e.const(a["wb"])), True),
    "bce_logits": (_probs, lambda e, a, red: e.F.binary_cross_entropy_with_logits(
        e.leaf(a["z"]), e.leaf(a["y"]), reduction=red), True),
    "bce_logits_weights": (_probs, lambda e, a, red: e.F.binary_cross_entropy_with_logits(
        e.leaf(a["z"]), e.leaf(a["y"]), reduction=red, weight=e.const(a["w"]), pos_weight=e.const(a["wb"])), True),
    "bce_logits_pos": (_probs, lambda e, a, red: e.F.binary_cross_entropy_with_logits(
        e.leaf(a["z"]), e.leaf(a["y"]), reduction=red, pos_weight=e.const(a["wb"])), True),
    "kl_div": (_probs, lambda e, a, red: e.F.kl_div(e.leaf(a["z"]), e.leaf(a["x"]), reduction=red), False),
    "kl_div_batchmean": (_probs, lambda e, a, red: e.F.kl_div(e.leaf(a["z"]), e.leaf(a["x"]),
                                                              reduction="batchmean" if red == "mean" else red), False),
    "kl_div_log": (_probs, lambda e, a, red: e.F.kl_div(e.leaf(a["z"]), e.leaf(a["w"]), reduction=red,
                                                        log_target=True), False),
    "poisson": (_probs, lambda e, a, red: e.F.poisson_nll_loss(e.leaf(a["z"]), e.leaf(a["w"] * 2), reduction=red),
                False),
    "poisson_full": (_probs, lambda e, a, red: e.F.poisson_nll_loss(e.leaf(a["z"]), e.leaf(a["w"] * 2), full=True,
                                                                    reduction=red), False),
    "poisson_nolog": (_probs, lambda e, a, red: e.F.poisson_nll_loss(e.leaf(a["x"]), e.leaf(a["w"]), log_input=False,
                                                                     full=True, reduction=red), False),
    "gaussian": (_probs, lambda e, a, red: e.F.gaussian_nll_loss(e.leaf(a["z"]), e.leaf(a["y"]), e.leaf(a["w"]),
                                                                 reduction=red), False),
    "gaussian_full_short": (_probs, lambda e, a, red: e.F.gaussian_nll_loss(
        e.leaf(a["z"]), e.leaf(a["y"]), e.leaf(a["w"][:, 0]), full=True, reduction=red), False),
    "gaussian_bcast": (_probs, lambda e, a, red: e.F.gaussian_nll_loss(
        e.leaf(a["z"]), e.leaf(a["y"]), e.leaf(a["w"][:1]), reduction=red), False),
    "gaussian_float": (_probs, lambda e, a, red: e.F.gaussian_nll_loss(e.leaf(a["z"]), e.leaf(a["y"]), 0.7,
                                                                       reduction=red), False),
    "cosine": (lambda r, dt: dict(x=r.standard_normal((4, 3)).astype(dt), y=r.standard_normal((4, 3)).astype(dt),
                                  t=np.array([1, -1, 1, -1])),
               lambda e, a, red: e.F.cosine_embedding_loss(e.leaf(a["x"]), e.leaf(a["y"]), e.const(a["t"]),
                                                           margin=-0.2, reduction=red), False),
    "cosine_0d": (lambda r, dt: dict(x=r.standard_normal(3).astype(dt), y=r.standard_normal(3).astype(dt)),
                  lambda e, a, red: e.F.cosine_embedding_loss(e.leaf(a["x"]), e.leaf(a["y"]), e.const(np.array(-1.0)),
                                                              reduction=red), False),
    "margin_ranking": (lambda r, dt: dict(x=r.standard_normal(6).astype(dt), y=r.standard_normal(6).astype(dt),
                                          t=_pm1(r, 6).astype(dt)),
                       lambda e, a, red: e.F.margin_ranking_loss(e.leaf(a["x"]), e.leaf(a["y"]), e.leaf(a["t"]),
                                                                 margin=0.3, reduction=red), False),
    "hinge": (lambda r, dt: dict(x=r.standard_normal((3, 4)).astype(dt), t=_pm1(r, (3, 4)).astype(dt)),
              lambda e, a, red: e.F.hinge_embedding_loss(e.leaf(a["x"]), e.const(a["t"]), margin=0.5, reduction=red),
              False),
    "soft_margin": (lambda r, dt: dict(x=r.standard_normal((3, 4)).astype(dt), t=_pm1(r, (3, 4)).astype(dt)),
                    lambda e, a, red: e.F.soft_margin_loss(e.leaf(a["x"]), e.const(a["t"]), reduction=red), True),
    "multilabel_soft_margin": (_probs, lambda e, a, red: e.F.multilabel_soft_margin_loss(
        e.leaf(a["z"]), e.leaf(a["y"]), weight=e.const(a["wb"]), reduction=red), False),
    "multi_margin": (_cls, lambda e, a, red: e.F.multi_margin_loss(e.leaf(a["x"]), e.const(a["t2"]), reduction=red),
                     "no_dd"),
    "multi_margin_p2": (_cls, lambda e, a, red: e.F.multi_margin_loss(
        e.leaf(a["x"]), e.const(a["t2"]), p=2, margin=0.6, weight=e.const(a["w"]), reduction=red), "no_dd"),
    "multi_margin_1d": (lambda r, dt: dict(x=r.standard_normal(4).astype(dt)),
                        lambda e, a, red: e.F.multi_margin_loss(e.leaf(a["x"]), e.const(np.array([2])), p=2,
                                                                reduction=red), "no_dd"),
    "multilabel_margin": (lambda r, dt: dict(x=r.standard_normal((4, 5)).astype(dt),
                                             t=np.array([[1, 3, -1, 0, 0], [4, -1, 2, 2, 2], [0, 1, 2, 3, 4],
                                                         [-1, 1, 1, 1, 1]])),
                          lambda e, a, red: e.F.multilabel_margin_loss(e.leaf(a["x"]), e.const(a["t"]),
                                                                       reduction=red), "no_dd"),
    "multilabel_margin_1d": (lambda r, dt: dict(x=r.standard_normal(4).astype(dt)),
                             lambda e, a, red: e.F.multilabel_margin_loss(e.leaf(a["x"]),
                                                                          e.const(np.array([3, 0, -1, 1])),
                                                                          reduction=red), "no_dd"),
    "triplet": (lambda r, dt: _xy(r, dt, (4, 3)),
                lambda e, a, red: e.F.triplet_margin_loss(e.leaf(a["x"]), e.leaf(a["y"]), e.leaf(a["w"]),
                                                          margin=2.0, reduction=red), False),
    "triplet_p1_swap": (lambda r, dt: _xy(r, dt, (4, 3)),
                        lambda e, a, red: e.F.triplet_margin_loss(e.leaf(a["x"]), e.leaf(a["y"]), e.leaf(a["w"]),
                                                                  margin=2.0, p=1, swap=True, reduction=red), False),
    "triplet_p3": (lambda r, dt: _xy(r, dt, (4, 3)),
                   lambda e, a, red: e.F.triplet_margin_loss(e.leaf(a["x"]), e.leaf(a["y"]), e.leaf(a["w"]),
                                                             margin=3.0, p=3, eps=1e-3, reduction=red), False),
    "triplet_distance": (lambda r, dt: _xy(r, dt, (4, 3)),
                         lambda e, a, red: e.F.triplet_margin_with_distance_loss(
                             e.leaf(a["x"]), e.leaf(a["y"]), e.leaf(a["w"]), margin=2.0, swap=True, reduction=red),
                         False),
    "triplet_distance_fn": (lambda r, dt: _xy(r, dt, (4, 3)),
                            lambda e, a, red: e.F.triplet_margin_with_distance_loss(
                                e.leaf(a["x"]), e.leaf(a["y"]), e.leaf(a["w"]), reduction=red,
                                distance_function=lambda u, v: (u - v).abs().sum(-1)), False),
    "ctc": (lambda r, dt: dict(x=r.standard_normal((6, 3, 5)).astype(dt), t=r.integers(1, 5, (3, 3)),
                               il=np.array([6, 5, 4]), tl=np.array([3, 2, 0])),
            lambda e, a, red: e.F.ctc_loss(e.T.log_softmax(e.leaf(a["x"]), 2), e.const(a["t"]), e.const(a["il"]),
                                           e.const(a["tl"]), reduction=red), False),
    "ctc_concat_blank": (lambda r, dt: dict(x=r.standard_normal((5, 2, 4)).astype(dt), t=np.array([0, 1, 1, 2, 1]),
                                            il=np.array([5, 4]), tl=np.array([3, 2])),
                         lambda e, a, red: e.F.ctc_loss(e.T.log_softmax(e.leaf(a["x"]), 2), e.const(a["t"]),
                                                        e.const(a["il"]), e.const(a["tl"]), blank=3,
                                                        reduction=red), False),
    "ctc_unbatched_inf": (lambda r, dt: dict(x=r.standard_normal((3, 4)).astype(dt), t=np.array([1, 1, 2])),
                          lambda e, a, red: e.F.ctc_loss(e.T.log_softmax(e.leaf(a["x"]), 1), e.const(a["t"]),
                                                         e.const(np.array(3)), e.const(np.array(3)),
                                                         reduction=red, zero_infinity=True), False),
}


def _build(T, name, a, red, given=None):
    make, fn, _ = CASES[name]
    env = Env(T, given)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(env, a, red)
    return out, env.leaves


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_torch(torch, name):
    make, fn, one_node = CASES[name]
    for dtype in ("float32", "float64"):
        rtol, atol = _tol(dtype)
        for i, red in enumerate(REDUCTIONS):
            a = make(_rand(zlib.crc32(f"{name}{i}".encode())), dtype)
            ot, lt = _build(torch, name, a, red)
            op, lp = _build(pt, name, a, red)
            assert_close(op, ot, rtol=rtol, atol=atol)
            assert _chain(op) == _chain(ot), (dtype, red)
            v = _rand(7).standard_normal(tuple(ot.shape)).astype(str(ot.dtype).split(".")[-1])
            dd = one_node is True  # torch has no double backward for the multi(label) margin losses
            gt = torch.autograd.grad((ot * torch.tensor(v)).sum(), lt, allow_unused=True, create_graph=dd)
            gp = pt.autograd.grad((op * pt.tensor(v)).sum(), lp, allow_unused=True, create_graph=dd)
            for x, y in zip(gp, gt):
                assert (x is None) == (y is None)
                if x is not None:
                    assert_close(x, y, rtol=rtol, atol=atol)
            if dd and dtype == "float64":  # double backward: d/dx sum(grad * u)
                us = [_rand(8).standard_normal(tuple(g.shape)) for g in gt if g is not None]
                st = sum((g * torch.tensor(u)).sum() for g, u in zip([g for g in gt if g is not None], us))
                sp = sum((g * pt.tensor(u)).sum() for g, u in zip([g for g in gp if g is not None], us))
                ggt = torch.autograd.grad(st, lt, allow_unused=True)
                ggp = pt.autograd.grad(sp, lp, allow_unused=True)
                for x, y in zip(ggp, ggt):
                    if y is None or x is None:
                        assert all(z is None or not np.any(z.detach().numpy() if hasattr(z, "numpy") else z._data)
                                   for z in (x, y))
                    else:
                        assert_close(x, y, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_gradcheck(name):
    make, fn, one_node = CASES[name]
    for i, red in enumerate(REDUCTIONS):
        a = make(_rand(zlib.crc32(f"{name}gc{i}".encode())), "float64")
        _, leaves = _build(pt, name, a, red)
        inputs = tuple(pt.tensor(l._data.copy(), requires_grad=True) for l in leaves)

        def f(*ts):
            return _build(pt, name, a, red, given=ts)[0]

        assert pt.autograd.gradcheck(f, inputs)
        if one_node and red == "sum":
            assert pt.autograd.gradgradcheck(f, inputs)


# ---------------------------------------------------------------------------------------------- dtypes

@pytest.mark.parametrize("fn,dtypes", [
    ("mse_loss", ("float32", "float64")), ("mse_loss", ("float64", "float32")), ("mse_loss", ("float32", "int64")),
    ("l1_loss", ("float32", "float64")), ("smooth_l1_loss", ("float64", "float32")),
    ("huber_loss", ("float32", "float64")), ("huber_loss", ("float64", "float32")),
    ("binary_cross_entropy_with_logits", ("float32", "float64")),
    ("binary_cross_entropy_with_logits", ("float64", "float32")),
    ("kl_div", ("float32", "float64")), ("soft_margin_loss", ("float32", "int64")),
    ("cross_entropy", ("float32", "float64")), ("hinge_embedding_loss", ("float32", "float64")),
])
def test_mixed_dtypes(torch, fn, dtypes):
    r = _rand(3)
    x = r.uniform(0.1, 0.9, (2, 3)).astype(dtypes[0])
    y = (r.uniform(0.1, 0.9, (2, 3)) if dtypes[1] != "int64" else r.integers(0, 2, (2, 3)) * 2 - 1).astype(dtypes[1])
    outs = []
    for T in (torch, pt):
        xt = T.tensor(x, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o = getattr(T.nn.functional, fn)(xt, T.tensor(y), reduction="sum")
        try:
            g, = T.autograd.grad(o, xt)
        except RuntimeError:  # torch's huber backward refuses mixed dtypes
            g = None
        outs.append((o, g))
    assert_close(outs[1][0], outs[0][0], rtol=1e-5, atol=1e-6)
    if outs[0][1] is not None:
        assert_close(outs[1][1], outs[0][1], rtol=1e-5, atol=1e-6)


def test_half_precision(torch):
    x = np.array([0.2, 0.7, 0.4], dtype="float16")
    y = np.array([0.0, 1.0, 0.5], dtype="float16")
    for fn in ("mse_loss", "binary_cross_entropy", "smooth_l1_loss", "l1_loss"):
        o_t = getattr(torch.nn.functional, fn)(torch.tensor(x), torch.tensor(y))
        o_p = getattr(pt.nn.functional, fn)(pt.tensor(x), pt.tensor(y))
        assert_close(o_p, o_t, rtol=2e-3, atol=1e-3)


# ---------------------------------------------------------------------------------------------- special values

def _both(torch, build):
    """Run ``build(T)`` with torch and pedatorch; return both results (or both exceptions)."""
    res = []
    for T in (torch, pt):
        T.manual_seed(0)  # pedatorch reproduces torch's random streams
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                res.append(build(T))
            except Exception as e:  # noqa: BLE001
                res.append(e)
    return res


SPECIAL = {
    "nll_all_ignored_mean": lambda T: T.nn.functional.nll_loss(T.zeros(3, 4, requires_grad=True),
                                                               T.tensor([-100, -100, -100])),
    "nll_all_ignored_sum": lambda T: T.nn.functional.nll_loss(T.zeros(3, 4, requires_grad=True),
                                                              T.tensor([-100, -100, -100]), reduction="sum"),
    "nll_zero_weights": lambda T: T.nn.functional.nll_loss(T.ones(2, 3, requires_grad=True), T.tensor([0, 1]),
                                                           weight=T.zeros(3)),
    "nll_empty": lambda T: T.nn.functional.nll_loss(T.zeros(0, 3, requires_grad=True), T.zeros(0, dtype=T.long)),
    "nll_empty_5d": lambda T: T.nn.functional.nll_loss(T.zeros(0, 3, 1, 2, 1, requires_grad=True),
                                                       T.zeros(0, 1, 2, 1, dtype=T.long)),
    "nll_byte_target": lambda T: T.nn.functional.nll_loss(T.ones(2, 3, requires_grad=True),
                                                          T.tensor([0, 2], dtype=T.uint8)),
    "ce_all_ignored_smooth": lambda T: T.nn.functional.cross_entropy(T.ones(2, 3, requires_grad=True),
                                                                     T.tensor([-100, -100]), label_smoothing=0.1),
    "ce_all_ignored_smooth_w": lambda T: T.nn.functional.cross_entropy(
        T.ones(2, 3, requires_grad=True), T.tensor([-100, -100]), label_smoothing=0.1, weight=T.ones(3)),
    "ce_ignored_smooth_none": lambda T: T.nn.functional.cross_entropy(
        T.arange(6.).reshape(2, 3).requires_grad_(), T.tensor([1, -100]), label_smoothing=0.1, reduction="none"),
    "ce_prob_empty": lambda T: T.nn.functional.cross_entropy(T.zeros(0, 3, requires_grad=True), T.zeros(0, 3)),
    "ce_prob_negative_smoothing": lambda T: T.nn.functional.cross_entropy(
        T.arange(6.).reshape(2, 3).requires_grad_(), T.full((2, 3), 1 / 3), label_smoothing=-0.5),
    "bce_clamp": lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.0, 1.0, 0.0, 1.0], requires_grad=True),
                                                                T.tensor([0.0, 1.0, 1.0, 0.0])),
    "bce_clamp_none": lambda T: T.nn.functional.binary_cross_entropy(
        T.tensor([0.0, 1.0, 0.0, 1.0], requires_grad=True), T.tensor([0.0, 1.0, 1.0, 0.0]), reduction="none"),
    "bce_logits_extreme": lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        T.tensor([-800.0, 800.0, 30.0, -30.0], requires_grad=True), T.tensor([1.0, 0.0, 1.0, 0.0]), reduction="none"),
    "soft_margin_overflow": lambda T: T.nn.functional.soft_margin_loss(
        T.tensor([-100.0, 100.0, 0.5], requires_grad=True), T.tensor([1.0, -1.0, 1.0]), reduction="none"),
    "mse_empty": lambda T: T.nn.functional.mse_loss(T.zeros(0, requires_grad=True), T.zeros(0)),
    "l1_empty": lambda T: T.nn.functional.l1_loss(T.zeros(0, requires_grad=True), T.zeros(0)),
    "l1_complex": lambda T: T.nn.functional.l1_loss(T.tensor([1 + 2j, 3 - 1j]), T.tensor([0j, 1j])),
    "kl_zero_target": lambda T: T.nn.functional.kl_div(T.tensor([-1.0, -2.0], requires_grad=True),
                                                       T.tensor([0.0, 0.5]), reduction="none"),
    "kl_batchmean_0d": lambda T: T.nn.functional.kl_div(T.tensor(-1.0, requires_grad=True), T.tensor(0.5),
                                                        reduction="batchmean"),
    "poisson_full_small_target": lambda T: T.nn.functional.poisson_nll_loss(
        T.tensor([0.1, 0.2, 0.3], requires_grad=True), T.tensor([0.0, 1.0, 3.0]), full=True, reduction="none"),
    "cosine_target_zero": lambda T: T.nn.functional.cosine_embedding_loss(
        T.ones(3, 2, requires_grad=True), T.ones(3, 2), T.tensor([0, 1, -1]), reduction="none"),
    "cosine_zero_vectors": lambda T: T.nn.functional.cosine_embedding_loss(
        T.zeros(2, 2, requires_grad=True), T.zeros(2, 2), T.tensor([1, -1])),
    "multi_margin_0d": lambda T: T.nn.functional.multi_margin_loss(T.tensor(0.5, requires_grad=True), T.tensor(0),
                                                                   reduction="none"),
    "multi_margin_1d_0d_target": lambda T: T.nn.functional.multi_margin_loss(
        T.tensor([0.1, 0.5, 0.2], requires_grad=True), T.tensor(1), reduction="none"),
    "multilabel_margin_0d": lambda T: T.nn.functional.multilabel_margin_loss(T.tensor(0.3, requires_grad=True),
                                                                             T.tensor(0), reduction="none"),
    "triplet_1d": lambda T: T.nn.functional.triplet_margin_loss(
        T.tensor([1.0, 2.0], requires_grad=True), T.tensor([0.0, 1.0]), T.tensor([3.0, -1.0])),
    "triplet_inf_norm": lambda T: T.nn.functional.triplet_margin_loss(
        T.tensor([[1.0, 2.0], [0.5, 0.1]], requires_grad=True), T.tensor([[0.0, 1.0], [1.0, 1.0]]),
        T.tensor([[3.0, -1.0], [0.2, 0.3]]), p=math.inf, margin=5.0),
    "ctc_empty_input": lambda T: T.nn.functional.ctc_loss(
        T.zeros(2, 1, 3).log_softmax(2).requires_grad_(), T.tensor([[1]]), T.tensor([0]), T.tensor([0]),
        reduction="none"),
    "ctc_impossible": lambda T: T.nn.functional.ctc_loss(
        T.zeros(2, 1, 3).log_softmax(2).requires_grad_(), T.tensor([[1, 1, 1]]), T.tensor([2]), T.tensor([3]),
        reduction="sum"),
    "kl_batchmean_legacy": lambda T: T.nn.functional.kl_div(T.zeros(3, 4, requires_grad=True), T.ones(3, 4) / 4,
                                                            reduction="batchmean", reduce=False),
    "cosine_margin_sum": lambda T: T.nn.functional.cosine_embedding_loss(
        T.arange(12.).reshape(3, 4).requires_grad_(), T.ones(3, 4), T.tensor([1, -1, -1]), margin=0.5,
        reduction="sum"),
    "hinge_broadcast": lambda T: T.nn.functional.hinge_embedding_loss(T.arange(3.).reshape(3, 1).requires_grad_(),
                                                                      T.tensor([1, -1, 1])),
    "soft_margin_target_broadcast": lambda T: T.nn.functional.soft_margin_loss(
        T.arange(3.).requires_grad_(), T.ones(1)),
    "poisson_broadcast": lambda T: T.nn.functional.poisson_nll_loss(T.arange(3.).reshape(3, 1).requires_grad_(),
                                                                    T.ones(3)),
    "triplet_p0": lambda T: T.nn.functional.triplet_margin_loss(
        T.arange(6.).reshape(3, 2).requires_grad_(), T.zeros(3, 2), T.ones(3, 2), p=0),
    "triplet_p_half_bcast": lambda T: T.nn.functional.triplet_margin_loss(
        T.arange(6.).reshape(3, 2).requires_grad_(), T.zeros(3, 2), T.ones(1, 2), p=0.5, margin=3.0),
    "gaussian_eps_clamp": lambda T: T.nn.functional.gaussian_nll_loss(
        T.arange(6.).reshape(3, 2).requires_grad_(), T.zeros(3, 2), T.full((3, 2), 0.5), eps=1.0),
    "ctc_unbatched_mean": lambda T: T.nn.functional.ctc_loss(
        T.arange(12.).reshape(3, 4).cos().log_softmax(1).requires_grad_(), T.tensor([1, 2]), T.tensor(3),
        T.tensor(2)),
    "ctc_int_lengths_list": lambda T: T.nn.functional.ctc_loss(
        T.arange(24.).reshape(4, 2, 3).sin().log_softmax(2).requires_grad_(), T.tensor([[1, 2], [2, 2]],
                                                                                       dtype=T.int32),
        (4, 3), (2, 2), reduction="mean"),
}


@pytest.mark.parametrize("name", sorted(SPECIAL))
def test_special_values(torch, name):
    rt, rp = _both(torch, SPECIAL[name])
    assert not isinstance(rt, Exception), rt
    assert not isinstance(rp, Exception), rp
    assert_close(rp, rt, rtol=1e-5, atol=1e-6)
    assert _chain(rp) == _chain(rt)
    if rt.requires_grad:
        leaf_t = _leaf_of(rt)
        leaf_p = _leaf_of(rp)
        gt, = torch.autograd.grad(rt.sum(), leaf_t, allow_unused=True)
        gp, = pt.autograd.grad(rp.sum(), leaf_p, allow_unused=True)
        if gt is None:  # torch's norm(p=0) has no gradient at all; ours is zeros
            assert gp is None or not np.any(gp._data)
        else:
            assert_close(gp, gt, rtol=1e-5, atol=1e-6)


def _leaf_of(t):
    """The (only) leaf requiring grad behind ``t``."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        g = stack.pop()
        if g is None or id(g) in seen:
            continue
        seen.add(id(g))
        if type(g).__name__ == "AccumulateGrad":
            return g.variable
        stack.extend(n for n, _ in g.next_functions)
    raise AssertionError("no leaf")


# ---------------------------------------------------------------------------------------------- errors

ERRORS = {
    "nll_batch": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3])),
    "nll_bounds": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3, 5])),
    "nll_bounds_negative": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, -1, 3, 4]), reduction="none"),
    "nll_bounds_2d": lambda T, F: F.nll_loss(T.zeros(2, 4, 3, 2), T.full((2, 3, 2), 7)),
    "nll_bounds_3d": lambda T, F: F.nll_loss(T.zeros(2, 4, 3), T.full((2, 3), 4)),
    "nll_multi_target": lambda T, F: F.nll_loss(T.zeros(5), T.tensor([[2]])),
    "nll_1d_target_size": lambda T, F: F.nll_loss(T.zeros(5), T.tensor([2, 1])),
    "nll_0d_input": lambda T, F: F.nll_loss(T.tensor(1.0), T.tensor(2)),
    "nll_0d_target": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor(2)),
    "nll_target_dtype": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1.0, 2, 3, 4])),
    "nll_target_int32": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3, 4], dtype=T.int32)),
    "nll_2d_target_byte": lambda T, F: F.nll_loss(T.zeros(4, 5, 1, 1), T.zeros(4, 1, 1, dtype=T.uint8)),
    "nll_weight_size": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3, 4]), weight=T.ones(4)),
    "nll_weight_2d": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3, 4]), weight=T.ones(1, 5)),
    "nll2d_weight_size": lambda T, F: F.nll_loss(T.zeros(4, 5, 1, 1), T.zeros(4, 1, 1, dtype=T.long),
                                                 weight=T.ones(4)),
    "nll_weight_dtype": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3, 4]),
                                                weight=T.ones(5, dtype=T.float64)),
    "nll_weight_grad": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3, 4]),
                                               weight=T.ones(5, requires_grad=True)),
    "nll2d_weight_grad": lambda T, F: F.nll_loss(T.zeros(4, 5, 1, 1), T.zeros(4, 1, 1, dtype=T.long),
                                                 weight=T.ones(5, requires_grad=True)),
    "nll_input_long": lambda T, F: F.nll_loss(T.zeros(4, 5, dtype=T.long), T.tensor([1, 2, 3, 4])),
    "nll_3d_target_size": lambda T, F: F.nll_loss(T.zeros(2, 4, 3), T.zeros(2, 4, dtype=T.long)),
    "nll_4d_target_size": lambda T, F: F.nll_loss(T.zeros(2, 4, 3, 2), T.zeros(2, 3, 3, dtype=T.long)),
    "nll_4d_target_dim": lambda T, F: F.nll_loss(T.zeros(2, 4, 3, 2), T.zeros(2, 3, dtype=T.long)),
    "nll_reduction": lambda T, F: F.nll_loss(T.zeros(4, 5), T.tensor([1, 2, 3, 4]), reduction="foo"),
    "ce_batch": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.tensor([1, 2, 3])),
    "ce_bounds": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.tensor([1, 2, 3, 8]), label_smoothing=0.1),
    "ce_prob_ignore": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.rand(4, 5), ignore_index=1),
    "ce_prob_long": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.zeros(4, 5, dtype=T.long)),
    "ce_smoothing_range": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.tensor([1, 2, 3, 4]), label_smoothing=1.5),
    "ce_prob_smoothing_range": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.rand(4, 5), label_smoothing=1.25),
    "ce_prob_weight": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.rand(4, 5), weight=T.ones(4)),
    "ce_smooth_weight": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.tensor([1, 2, 3, 4]), weight=T.ones(4),
                                                     label_smoothing=0.2),
    "ce_smoothing_1_1": lambda T, F: F.cross_entropy(T.zeros(3, 4), T.tensor([0, 1, 2]), label_smoothing=1.1),
    "nll_weight_long": lambda T, F: F.nll_loss(T.zeros(3, 4), T.tensor([0, 1, 2]), weight=T.ones(4, dtype=T.long)),
    "nll_double_input_float_weight": lambda T, F: F.nll_loss(T.zeros(2, 3).double(), T.tensor([0, 1]),
                                                             weight=T.ones(3)),
    "bce_reduction": lambda T, F: F.binary_cross_entropy(T.tensor([0.5]), T.tensor([0.5]), reduction="x"),
    "smooth_l1_beta0_reduction": lambda T, F: F.smooth_l1_loss(T.ones(3), T.ones(3), reduction="x", beta=0.0),
    "multi_margin_long_input": lambda T, F: F.multi_margin_loss(T.zeros(3, 4, dtype=T.long), T.tensor([0, 1, 2])),
    "multilabel_margin_long_input": lambda T, F: F.multilabel_margin_loss(T.zeros(3, 4, dtype=T.long),
                                                                          T.zeros(3, 4, dtype=T.long)),
    "ctc_int_lengths": lambda T, F: F.ctc_loss(T.zeros(3, 4).log_softmax(1), T.tensor([1, 2]), 3, 2),
    "ctc_reduction": lambda T, F: F.ctc_loss(T.zeros(3, 4).log_softmax(1), T.tensor([1, 2]), T.tensor(3),
                                             T.tensor(2), reduction="x"),
    "ce_long_input": lambda T, F: F.cross_entropy(T.zeros(4, 5, dtype=T.long), T.tensor([1, 2, 3, 4])),
    "ce_reduction": lambda T, F: F.cross_entropy(T.zeros(4, 5), T.tensor([1, 2, 3, 4]), reduction="avg"),
    "mse_broadcast": lambda T, F: F.mse_loss(T.zeros(3), T.zeros(4)),
    "mse_int": lambda T, F: F.mse_loss(T.tensor([1, 2]), T.tensor([1, 2])),
    "mse_complex": lambda T, F: F.mse_loss(T.zeros(2, dtype=T.complex64), T.zeros(2, dtype=T.complex64)),
    "mse_reduction": lambda T, F: F.mse_loss(T.zeros(3), T.zeros(3), reduction="foo"),
    "mse_weight_size": lambda T, F: F.mse_loss(T.zeros(3), T.zeros(3), weight=T.ones(1)),
    "mse_weight_reduction": lambda T, F: F.mse_loss(T.zeros(3), T.zeros(3), weight=T.ones(3), reduction="foo"),
    "l1_weight_size": lambda T, F: F.l1_loss(T.zeros(3), T.zeros(3), weight=T.ones(2)),
    "smooth_l1_beta": lambda T, F: F.smooth_l1_loss(T.zeros(3), T.zeros(3), beta=-1.0),
    "smooth_l1_int": lambda T, F: F.smooth_l1_loss(T.tensor([1, 2]), T.tensor([1, 2])),
    "huber_delta": lambda T, F: F.huber_loss(T.zeros(3), T.zeros(3), delta=0.0),
    "huber_int": lambda T, F: F.huber_loss(T.tensor([1, 2]), T.tensor([1, 2])),
    "huber_weight_reduction": lambda T, F: F.huber_loss(T.zeros(3), T.zeros(3), weight=T.ones(3), reduction="x"),
    "bce_range": lambda T, F: F.binary_cross_entropy(T.tensor([1.5]), T.tensor([0.5])),
    "bce_nan": lambda T, F: F.binary_cross_entropy(T.tensor([math.nan]), T.tensor([0.5])),
    "bce_size": lambda T, F: F.binary_cross_entropy(T.rand(3), T.rand(3, 1)),
    "bce_dtype": lambda T, F: F.binary_cross_entropy(T.rand(3), T.rand(3, dtype=T.float64)),
    "bce_int": lambda T, F: F.binary_cross_entropy(T.tensor([1, 0]), T.tensor([1, 0])),
    "bce_weight_grad": lambda T, F: F.binary_cross_entropy(T.rand(3), T.rand(3), weight=T.ones(3, requires_grad=True)),
    "bce_weight_bigger": lambda T, F: F.binary_cross_entropy(T.rand(2, 3), T.rand(2, 3), weight=T.ones(4, 2, 3)),
    "bcel_size": lambda T, F: F.binary_cross_entropy_with_logits(T.rand(3), T.rand(3, 1)),
    "bcel_int": lambda T, F: F.binary_cross_entropy_with_logits(T.tensor([1, 0]), T.tensor([1, 0])),
    "bcel_int_target": lambda T, F: F.binary_cross_entropy_with_logits(T.rand(2), T.tensor([1, 0])),
    "bcel_weight_grad": lambda T, F: F.binary_cross_entropy_with_logits(T.rand(3), T.rand(3),
                                                                        weight=T.ones(3, requires_grad=True)),
    "bcel_pos_weight_grad": lambda T, F: F.binary_cross_entropy_with_logits(T.rand(3), T.rand(3),
                                                                            pos_weight=T.ones(3, requires_grad=True)),
    "bcel_weight_bigger": lambda T, F: F.binary_cross_entropy_with_logits(T.rand(2, 3), T.rand(2, 3),
                                                                          weight=T.ones(4, 2, 3)),
    "bcel_pos_weight_bigger": lambda T, F: F.binary_cross_entropy_with_logits(T.rand(2, 3), T.rand(2, 3),
                                                                              pos_weight=T.ones(4, 2, 3)),
    "kl_int": lambda T, F: F.kl_div(T.tensor([1, 2]), T.tensor([1.0, 2.0])),
    "kl_complex": lambda T, F: F.kl_div(T.zeros(2, dtype=T.complex64), T.zeros(2, dtype=T.complex64)),
    "kl_reduction": lambda T, F: F.kl_div(T.zeros(2), T.zeros(2), reduction="foo"),
    "poisson_reduction": lambda T, F: F.poisson_nll_loss(T.zeros(2), T.zeros(2), reduction="elementwise_mean"),
    "gaussian_negative_float": lambda T, F: F.gaussian_nll_loss(T.zeros(2), T.zeros(2), -1.0),
    "gaussian_negative": lambda T, F: F.gaussian_nll_loss(T.zeros(2), T.zeros(2), -T.ones(2)),
    "gaussian_size": lambda T, F: F.gaussian_nll_loss(T.zeros(3, 2), T.zeros(3, 2), T.ones(2)),
    "gaussian_size_2": lambda T, F: F.gaussian_nll_loss(T.zeros(3, 2), T.zeros(3, 2), T.ones(2, 1)),
    "gaussian_reduction": lambda T, F: F.gaussian_nll_loss(T.zeros(3, 2), T.zeros(3, 2), T.ones(3, 2),
                                                           reduction="x"),
    "cosine_target_2d": lambda T, F: F.cosine_embedding_loss(T.zeros(3, 2), T.zeros(3, 2), T.ones(3, 1)),
    "cosine_1d_inputs": lambda T, F: F.cosine_embedding_loss(T.zeros(3), T.zeros(3), T.ones(3)),
    "cosine_0d_target": lambda T, F: F.cosine_embedding_loss(T.zeros(3, 2), T.zeros(3, 2), T.tensor(1)),
    "cosine_mismatch": lambda T, F: F.cosine_embedding_loss(T.zeros(3, 2), T.zeros(3, 3), T.ones(3)),
    "margin_ranking_dim": lambda T, F: F.margin_ranking_loss(T.zeros(3), T.zeros(3), T.ones(3, 1)),
    "margin_ranking_size": lambda T, F: F.margin_ranking_loss(T.zeros(3), T.zeros(4), T.ones(3)),
    "soft_margin_target_grad": lambda T, F: F.soft_margin_loss(T.zeros(3), T.ones(3, requires_grad=True)),
    "soft_margin_broadcast": lambda T, F: F.soft_margin_loss(T.zeros(3, 1), T.ones(3)),
    "soft_margin_int": lambda T, F: F.soft_margin_loss(T.tensor([1, 2]), T.tensor([1, -1])),
    "multilabel_soft_margin_reduction": lambda T, F: F.multilabel_soft_margin_loss(T.zeros(2, 3), T.zeros(2, 3),
                                                                                   reduction="x"),
    "multi_margin_p": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, 1, 2]), p=3),
    "multi_margin_weight_dim": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, 1, 2]),
                                                                weight=T.ones(1, 4)),
    "multi_margin_weight_size": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, 1, 2]),
                                                                 weight=T.ones(3)),
    "multi_margin_weight_grad": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, 1, 2]),
                                                                 weight=T.ones(4, requires_grad=True)),
    "multi_margin_weight_dtype": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, 1, 2]),
                                                                  weight=T.ones(4, dtype=T.float64)),
    "multi_margin_target_size": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, 1])),
    "multi_margin_target_2d": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([[0, 1, 2]])),
    "multi_margin_range": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, 1, 4])),
    "multi_margin_negative": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0, -1, 1])),
    "multi_margin_empty": lambda T, F: F.multi_margin_loss(T.zeros(3, 0), T.tensor([0, 0, 0])),
    "multi_margin_3d": lambda T, F: F.multi_margin_loss(T.zeros(3, 4, 2), T.tensor([0, 0, 0])),
    "multi_margin_float_target": lambda T, F: F.multi_margin_loss(T.zeros(3, 4), T.tensor([0.0, 0, 0])),
    "multilabel_margin_size": lambda T, F: F.multilabel_margin_loss(T.zeros(3, 4), T.zeros(3, 3, dtype=T.long)),
    "multilabel_margin_1d_size": lambda T, F: F.multilabel_margin_loss(T.zeros(4), T.zeros(1, 4, dtype=T.long)),
    "multilabel_margin_range": lambda T, F: F.multilabel_margin_loss(T.zeros(2, 4), T.tensor([[0, 1, 4, -1]] * 2)),
    "multilabel_margin_negative": lambda T, F: F.multilabel_margin_loss(T.zeros(2, 4), T.tensor([[0, -2, 1, -1]] * 2)),
    "multilabel_margin_3d": lambda T, F: F.multilabel_margin_loss(T.zeros(2, 3, 4), T.zeros(2, 3, 4, dtype=T.long)),
    "multilabel_margin_float": lambda T, F: F.multilabel_margin_loss(T.zeros(3, 4), T.zeros(3, 4)),
    "triplet_dims": lambda T, F: F.triplet_margin_loss(T.zeros(3, 4), T.zeros(4), T.zeros(3, 4)),
    "triplet_margin": lambda T, F: F.triplet_margin_loss(T.zeros(3, 4), T.zeros(3, 4), T.zeros(3, 4), margin=0),
    "triplet_distance_dims": lambda T, F: F.triplet_margin_with_distance_loss(T.zeros(3, 4), T.zeros(4),
                                                                              T.zeros(3, 4)),
    "triplet_distance_reduction": lambda T, F: F.triplet_margin_with_distance_loss(T.zeros(3, 4), T.zeros(3, 4),
                                                                                   T.zeros(3, 4), reduction="x"),
    "triplet_distance_margin": lambda T, F: F.triplet_margin_with_distance_loss(T.zeros(3, 4), T.zeros(3, 4),
                                                                                T.zeros(3, 4), margin=-1),
    "ctc_lengths_float": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long), T.tensor([4.0, 4.0]),
                                                 T.tensor([2, 2])),
    "ctc_target_lengths_float": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long),
                                                        T.tensor([4, 4]), T.tensor([2.0, 2])),
    "ctc_blank": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long), T.tensor([4, 4]),
                                         T.tensor([2, 2]), blank=3),
    "ctc_input_lengths_size": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long), T.tensor([4]),
                                                      T.tensor([2, 2])),
    "ctc_target_lengths_size": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long),
                                                       T.tensor([4, 4]), T.tensor([2])),
    "ctc_input_too_long": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long), T.tensor([5, 4]),
                                                  T.tensor([2, 2])),
    "ctc_input_negative": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long), T.tensor([-1, 4]),
                                                  T.tensor([2, 2])),
    "ctc_target_negative": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long), T.tensor([4, 4]),
                                                   T.tensor([2, -2])),
    "ctc_target_too_short": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, dtype=T.long), T.tensor([4, 4]),
                                                    T.tensor([2, 3])),
    "ctc_target_batch": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(1, 2, dtype=T.long), T.tensor([4, 4]),
                                                T.tensor([2, 2])),
    "ctc_concat_size": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(3, dtype=T.long), T.tensor([4, 4]),
                                               T.tensor([2, 2])),
    "ctc_target_3d": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3), T.ones(2, 2, 1, dtype=T.long), T.tensor([4, 4]),
                                             T.tensor([2, 2])),
    "ctc_long_input": lambda T, F: F.ctc_loss(T.zeros(4, 2, 3, dtype=T.long), T.ones(2, 2, dtype=T.long),
                                              T.tensor([4, 4]), T.tensor([2, 2])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch, name):
    build = ERRORS[name]
    rt, rp = _both(torch, lambda T: build(T, T.nn.functional))
    assert isinstance(rt, Exception), "torch accepted it"
    assert isinstance(rp, Exception), "pedatorch accepted it"
    assert type(rp).__name__ == type(rt).__name__
    assert str(rp).split("\n")[0] == str(rt).split("\n")[0]


def test_errors_leave_no_grad_check_under_no_grad(torch):
    for T in (torch, pt):
        with T.no_grad():
            T.nn.functional.nll_loss(T.zeros(2, 3), T.tensor([0, 1]), weight=T.ones(3, requires_grad=True))


# ---------------------------------------------------------------------------------------------- warnings

WARNS = {
    "mse_size": lambda T, F: F.mse_loss(T.zeros(3, 1), T.zeros(3)),
    "l1_size": lambda T, F: F.l1_loss(T.zeros(3, 1), T.zeros(3)),
    "smooth_l1_size": lambda T, F: F.smooth_l1_loss(T.zeros(3, 1), T.zeros(3)),
    "huber_size": lambda T, F: F.huber_loss(T.zeros(3, 1), T.zeros(3)),
    "mse_size_average": lambda T, F: F.mse_loss(T.zeros(3), T.zeros(3), size_average=False),
    "mse_reduce": lambda T, F: F.mse_loss(T.zeros(3), T.zeros(3), reduce=False),
    "mse_elementwise_mean": lambda T, F: F.mse_loss(T.zeros(3), T.zeros(3), reduction="elementwise_mean"),
    "nll_size_average": lambda T, F: F.nll_loss(T.zeros(2, 3), T.tensor([0, 1]), size_average=True, reduce=True),
    "ce_reduce": lambda T, F: F.cross_entropy(T.zeros(2, 3), T.tensor([0, 1]), reduce=False),
    "bce_size_average": lambda T, F: F.binary_cross_entropy(T.rand(3), T.rand(3), size_average=False),
    "bcel_reduce": lambda T, F: F.binary_cross_entropy_with_logits(T.rand(3), T.rand(3), reduce=False),
    "kl_mean": lambda T, F: F.kl_div(T.zeros(2), T.rand(2)),
    "kl_legacy": lambda T, F: F.kl_div(T.zeros(2), T.rand(2), reduce=False),
    "kl_batchmean": lambda T, F: F.kl_div(T.zeros(2), T.rand(2), reduction="batchmean"),
    "poisson_legacy": lambda T, F: F.poisson_nll_loss(T.zeros(2), T.rand(2), size_average=False),
    "margin_ranking_legacy": lambda T, F: F.margin_ranking_loss(T.zeros(2), T.zeros(2), T.ones(2), reduce=False),
    "hinge_legacy": lambda T, F: F.hinge_embedding_loss(T.zeros(2), T.ones(2), size_average=False),
    "soft_margin_legacy": lambda T, F: F.soft_margin_loss(T.zeros(2), T.ones(2), reduce=False),
    "multilabel_soft_legacy": lambda T, F: F.multilabel_soft_margin_loss(T.zeros(2, 3), T.ones(2, 3), reduce=False),
    "cosine_legacy": lambda T, F: F.cosine_embedding_loss(T.ones(2, 3), T.ones(2, 3), T.ones(2), reduce=False),
    "multi_margin_legacy": lambda T, F: F.multi_margin_loss(T.zeros(2, 3), T.tensor([0, 1]), size_average=False),
    "multilabel_margin_legacy": lambda T, F: F.multilabel_margin_loss(T.zeros(2, 3), T.zeros(2, 3, dtype=T.long),
                                                                      reduce=False),
    "triplet_legacy": lambda T, F: F.triplet_margin_loss(T.ones(2, 3), T.zeros(2, 3), T.zeros(2, 3), reduce=False),
}


def _record(T, build):
    T.manual_seed(0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = build(T, T.nn.functional)
    return out, [(x.category.__name__, str(x.message)) for x in w]


@pytest.mark.parametrize("name", sorted(WARNS))
def test_warnings_match_torch(torch, name):
    ot, wt = _record(torch, WARNS[name])
    op, wp = _record(pt, WARNS[name])
    assert wp == wt
    assert_close(op, ot)


def test_no_warning_for_same_sizes(torch):
    _, w = _record(pt, lambda T, F: F.mse_loss(T.zeros(3), T.zeros(3)))
    assert w == []


# ---------------------------------------------------------------------------------------------- misc

def test_all_names_exported():
    import pedatorch.nn.functional as F
    for n in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
              "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
              "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
              "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
              "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"):
        assert callable(getattr(F, n))


def test_signatures_match_torch(torch):
    import inspect
    import pedatorch.nn.functional as F
    for n in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
              "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
              "gaussian_nll_loss", "cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
              "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
              "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss"):
        ps = inspect.signature(getattr(F, n)).parameters
        ts = inspect.signature(getattr(torch.nn.functional, n)).parameters
        assert list(ps) == list(ts), n
        for k in ps:
            assert ps[k].kind == ts[k].kind, (n, k)
            assert ps[k].default == ts[k].default, (n, k)

