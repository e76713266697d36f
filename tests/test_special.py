"""Special functions and the smaller elementwise ops, against PyTorch and finite differences."""
import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close

X = np.array([0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 25.0, -0.5, -2.5])
POS = np.array([0.1, 0.5, 1.0, 1.5, 2.0, 3.7, 10.0, 25.0])


@pytest.mark.parametrize("name,data", [("lgamma", X), ("digamma", X), ("i0", X), ("angle", X)])
def test_unary_special_matches_torch(torch, name, data):
    for dt in ("float64", "float32"):
        ours = getattr(pt, name)(pt.tensor(data, dtype=getattr(pt, dt)))
        theirs = getattr(torch, name)(torch.tensor(data, dtype=getattr(torch, dt)))
        assert_close(ours, theirs, rtol=1e-6 if dt == "float32" else 1e-11, atol=1e-6 if dt == "float32" else 1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_matches_torch(torch, n):
    assert_close(pt.polygamma(n, pt.tensor(POS)), torch.polygamma(n, torch.tensor(POS)), rtol=1e-10)


def test_mvlgamma(torch):
    assert_close(pt.mvlgamma(pt.tensor(POS + 2), 3), torch.mvlgamma(torch.tensor(POS + 2), 3), rtol=1e-10)


@pytest.mark.parametrize("fn", [pt.lgamma, pt.digamma, lambda x: pt.polygamma(1, x), pt.i0,
                                lambda x: pt.copysign(x, pt.tensor(-1.0, dtype=pt.float64)),
                                lambda x: pt.logcumsumexp(x, 0)])
def test_gradcheck(fn):
    x = pt.tensor(POS[:5], dtype=pt.float64, requires_grad=True)
    assert pt.autograd.gradcheck(fn, (x,))


def test_binary_small_ops(torch):
    a, b = np.array([1.5, -2.0, 3.0, 0.0]), np.array([-1.0, 2.0, 0.5, -3.0])
    for name in ["copysign", "logaddexp2", "nextafter"]:
        assert_close(getattr(pt, name)(pt.tensor(a), pt.tensor(b)), getattr(torch, name)(torch.tensor(a),
                                                                                          torch.tensor(b)))
    ia, ib = np.array([12, 18, 7]), np.array([8, 27, 3])
    for name in ["gcd", "lcm"]:
        assert_close(getattr(pt, name)(pt.tensor(ia), pt.tensor(ib)), getattr(torch, name)(torch.tensor(ia),
                                                                                          torch.tensor(ib)))
    assert_close(pt.heaviside(pt.tensor(a), pt.tensor(b)), torch.heaviside(torch.tensor(a), torch.tensor(b)))
    assert_close(pt.ldexp(pt.tensor(a), pt.tensor([1, 2, 3, 4])), torch.ldexp(torch.tensor(a),
                                                                              torch.tensor([1, 2, 3, 4])))
    m, e = pt.frexp(pt.tensor(a))
    tm, te = torch.frexp(torch.tensor(a))
    assert_close(m, tm) and assert_close(e, te)


def test_bincount_cov_corrcoef_logcumsumexp(torch):
    idx = [0, 1, 1, 3, 5, 5, 5]
    assert_close(pt.bincount(pt.tensor(idx)), torch.bincount(torch.tensor(idx)))
    w = [0.5, 1.0, 2.0, 0.1, 0.2, 0.3, 0.4]
    assert_close(pt.bincount(pt.tensor(idx), pt.tensor(w), minlength=8),
                 torch.bincount(torch.tensor(idx), torch.tensor(w), minlength=8))
    data = np.random.default_rng(0).standard_normal((3, 7))
    assert_close(pt.cov(pt.tensor(data)), torch.cov(torch.tensor(data)), rtol=1e-10)
    assert_close(pt.cov(pt.tensor(data), correction=0), torch.cov(torch.tensor(data), correction=0), rtol=1e-10)
    assert_close(pt.corrcoef(pt.tensor(data)), torch.corrcoef(torch.tensor(data)), rtol=1e-10)
    assert_close(pt.logcumsumexp(pt.tensor(data), 1), torch.logcumsumexp(torch.tensor(data), 1), rtol=1e-10)
    x = pt.tensor(data, requires_grad=True)
    y = torch.tensor(data, requires_grad=True)
    pt.logcumsumexp(x, 1).sum().backward()
    torch.logcumsumexp(y, 1).sum().backward()
    assert_close(x.grad, y.grad, rtol=1e-10)


def test_inplace_variants_exist_and_work(torch):
    for name, args in [("hypot_", (2.0,)), ("copysign_", (-1.0,)), ("greater_", (0.5,)), ("logit_", ()),
                       ("lgamma_", ()), ("xlogy_", (2.0,)), ("floor_divide_", (2,))]:
        data = np.array([0.2, 0.7, 0.9])
        a, b = pt.tensor(data), torch.tensor(data)
        targs = [torch.tensor(x) if name in ("hypot_", "xlogy_") else x for x in args]
        pargs = [pt.tensor(x) if name in ("hypot_", "xlogy_") else x for x in args]
        getattr(a, name)(*pargs)
        getattr(b, name)(*targs)
        assert_close(a, b, rtol=1e-10)


def test_namespace_extras(torch):
    x = np.array([[1.0, 2.5, 4.0], [0.5, 1.5, 3.5]])
    assert_close(pt.trapezoid(pt.tensor(x)), torch.trapezoid(torch.tensor(x)))
    assert_close(pt.trapezoid(pt.tensor(x), dx=0.5, dim=0), torch.trapezoid(torch.tensor(x), dx=0.5, dim=0))
    assert_close(pt.cumulative_trapezoid(pt.tensor(x)), torch.cumulative_trapezoid(torch.tensor(x)))
    assert pt.isin(pt.tensor([1, 2, 3]), pt.tensor([2, 5])).tolist() == torch.isin(torch.tensor([1, 2, 3]),
                                                                                   torch.tensor([2, 5])).tolist()
    assert [t.tolist() for t in pt.unravel_index(pt.tensor([4, 7]), (3, 3))] == \
        [t.tolist() for t in torch.unravel_index(torch.tensor([4, 7]), (3, 3))]
    assert_close(pt.vander(pt.tensor([1., 2., 3.])), torch.vander(torch.tensor([1., 2., 3.])))
    for name in ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]:
        for periodic in (True, False):
            assert_close(getattr(pt, name)(8, periodic), getattr(torch, name)(8, periodic), rtol=1e-5, atol=1e-6)
    A = np.array([[0.1, 0.5], [-0.3, 0.2]])
    assert_close(pt.matrix_exp(pt.tensor(A)), torch.matrix_exp(torch.tensor(A)), rtol=1e-10)
    assert_close(pt.matrix_exp(pt.tensor(A * 20)), torch.matrix_exp(torch.tensor(A * 20)), rtol=1e-8)
    a, xx = np.array([0.5, 1.0, 3.0, 10.0]), np.array([0.2, 2.0, 3.5, 4.0])
    assert_close(pt.igamma(pt.tensor(a), pt.tensor(xx)), torch.igamma(torch.tensor(a), torch.tensor(xx)),
                 rtol=1e-10)
    assert_close(pt.igammac(pt.tensor(a), pt.tensor(xx)), torch.igammac(torch.tensor(a), torch.tensor(xx)),
                 rtol=1e-9)
    h, e = pt.histogram(pt.tensor([1., 2., 1., 4.]), bins=3)
    th, te = torch.histogram(torch.tensor([1., 2., 1., 4.]), bins=3)
    assert_close(h, th) and assert_close(e, te)
    assert_close(pt.threshold(pt.tensor(x), 1.5, -1.0), torch.threshold(torch.tensor(x), 1.5, -1.0))
    assert_close(pt.view_copy(pt.tensor(x), 6), torch.view_copy(torch.tensor(x), [6]))
    assert pt.subtract is pt.sub and pt.divide is pt.div and pt.clip is pt.clamp
