"""nn.init: the same numbers as PyTorch after the same seed, gains, fans, errors, no_grad."""
import math
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.nn import init
from conftest import to_np

DTYPES = ["float32", "float64"]


def _both(torch, fn, shape, dtype, *args, seed=0, use_generator=False, **kwargs):
    """Run the same initialiser on an empty tensor in pedatorch and torch after the same seed."""
    pt.manual_seed(seed)
    torch.manual_seed(seed)
    a = pt.empty(*shape, dtype=getattr(pt, dtype))
    b = torch.empty(*shape, dtype=getattr(torch, dtype))
    ka, kb = dict(kwargs), dict(kwargs)
    if use_generator:
        ka["generator"] = pt.Generator().manual_seed(seed + 11)
        kb["generator"] = torch.Generator().manual_seed(seed + 11)
    ra = getattr(init, fn)(a, *args, **ka)
    rb = getattr(torch.nn.init, fn)(b, *args, **kb)
    assert ra is a and rb is b
    # the global stream must have moved the same way too
    assert pt.rand(3).tolist() == torch.rand(3).tolist()
    return a, b


def _equal(a, b):
    x, y = to_np(a), to_np(b)
    assert x.dtype == y.dtype and x.shape == y.shape
    np.testing.assert_array_equal(x, y)


# ------------------------------------------------------------------ calculate_gain
@pytest.mark.parametrize("name", ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                  "conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"])
def test_calculate_gain(torch, name):
    g, h = init.calculate_gain(name), torch.nn.init.calculate_gain(name)
    assert g == h and type(g) is type(h)


@pytest.mark.parametrize("param", [None, 0, 3, 0.2, math.sqrt(5)])
def test_calculate_gain_leaky_relu_param(torch, param):
    assert init.calculate_gain("leaky_relu", param) == torch.nn.init.calculate_gain("leaky_relu", param)


@pytest.mark.parametrize("name,param", [("leaky_relu", True), ("leaky_relu", "0.1"), ("leaky_relu", [0.1]),
                                        ("softmax", None), ("Relu", None), ("gelu", 1.0)])
def test_calculate_gain_errors(torch, name, param):
    with pytest.raises(ValueError) as ours:
        init.calculate_gain(name, param)
    with pytest.raises(ValueError) as theirs:
        torch.nn.init.calculate_gain(name, param)
    assert str(ours.value) == str(theirs.value)


def test_calculate_gain_values():
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("selu") == 0.75
    assert init.calculate_gain("linear", 12) == 1


# ------------------------------------------------------------------ fans
@pytest.mark.parametrize("shape", [(3, 5), (4, 3, 5), (6, 2, 3, 3), (2, 8, 1, 2, 3), (0, 4), (4, 0, 3)])
def test_fans(torch, shape):
    a, b = pt.empty(*shape), torch.empty(*shape)
    assert init._calculate_fan_in_and_fan_out(a) == torch.nn.init._calculate_fan_in_and_fan_out(b)
    for mode in ["fan_in", "fan_out", "FAN_IN", "Fan_Out"]:
        assert init._calculate_correct_fan(a, mode) == torch.nn.init._calculate_correct_fan(b, mode)


@pytest.mark.parametrize("shape", [(), (5,)])
def test_fans_error(torch, shape):
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2 "
                                         "dimensions"):
        init._calculate_fan_in_and_fan_out(pt.empty(shape))
    for fn in ["xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]:
        with pytest.raises(ValueError) as ours:
            getattr(init, fn)(pt.empty(shape))
        with pytest.raises(ValueError) as theirs:
            getattr(torch.nn.init, fn)(torch.empty(shape))
        assert str(ours.value) == str(theirs.value)


def test_correct_fan_mode_error(torch):
    with pytest.raises(ValueError) as ours:
        init._calculate_correct_fan(pt.empty(3, 4), "fan_avg")
    with pytest.raises(ValueError) as theirs:
        torch.nn.init._calculate_correct_fan(torch.empty(3, 4), "fan_avg")
    assert str(ours.value) == str(theirs.value) == "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']"
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_normal_(pt.empty(3, 4), mode="fan_avg")


# ------------------------------------------------------------------ random initialisers: exact values
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("gen", [False, True])
def test_uniform_normal(torch, dtype, gen):
    _equal(*_both(torch, "uniform_", (7, 9), dtype, use_generator=gen))
    _equal(*_both(torch, "uniform_", (7, 9), dtype, -3.0, 0.5, use_generator=gen))
    _equal(*_both(torch, "normal_", (33,), dtype, use_generator=gen))
    _equal(*_both(torch, "normal_", (4, 5, 6), dtype, mean=1.5, std=0.3, use_generator=gen))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"a": math.sqrt(5)}, {"a": 0.1, "mode": "fan_out"},
                                {"nonlinearity": "relu"}, {"nonlinearity": "tanh", "mode": "fan_out"},
                                {"a": 2, "nonlinearity": "leaky_relu"}, {"nonlinearity": "selu"}])
@pytest.mark.parametrize("shape", [(5, 7), (8, 3, 3, 3), (16, 4, 5)])
def test_kaiming(torch, dtype, kw, shape):
    _equal(*_both(torch, "kaiming_uniform_", shape, dtype, **kw))
    _equal(*_both(torch, "kaiming_normal_", shape, dtype, **kw))


@pytest.mark.parametrize("dtype", DTYPES)
def test_kaiming_linear_default(torch, dtype):
    """nn.Linear's reset_parameters: kaiming_uniform_(w, a=sqrt(5)) then a uniform bias."""
    pt.manual_seed(0)
    torch.manual_seed(0)
    w, v = pt.empty(4, 6, dtype=getattr(pt, dtype)), torch.empty(4, 6, dtype=getattr(torch, dtype))
    init.kaiming_uniform_(w, a=math.sqrt(5))
    torch.nn.init.kaiming_uniform_(v, a=math.sqrt(5))
    fan_in, _ = init._calculate_fan_in_and_fan_out(w)
    bound = 1 / math.sqrt(fan_in)
    bw, bv = init.uniform_(pt.empty(4, dtype=w.dtype), -bound, bound), torch.nn.init.uniform_(
        torch.empty(4, dtype=v.dtype), -bound, bound)
    _equal(w, v)
    _equal(bw, bv)


@pytest.mark.parametrize("dtype", DTYPES)
def test_kaiming_generator(torch, dtype):
    _equal(*_both(torch, "kaiming_uniform_", (6, 5), dtype, use_generator=True, a=1.0))
    _equal(*_both(torch, "kaiming_normal_", (6, 5), dtype, use_generator=True, mode="fan_out"))


def test_kaiming_zero_element_warning(torch):
    for fn in ["kaiming_uniform_", "kaiming_normal_"]:
        a = pt.empty(0, 3)
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            assert getattr(init, fn)(a) is a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("gain", [1.0, 0.5, math.sqrt(2)])
@pytest.mark.parametrize("shape", [(5, 7), (7, 5), (4, 3, 2, 2)])
def test_xavier(torch, dtype, gain, shape):
    _equal(*_both(torch, "xavier_uniform_", shape, dtype, gain=gain))
    _equal(*_both(torch, "xavier_normal_", shape, dtype, gain))
    _equal(*_both(torch, "xavier_uniform_", shape, dtype, gain=gain, use_generator=True))
    _equal(*_both(torch, "xavier_normal_", shape, dtype, gain=gain, use_generator=True))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kw", [{}, {"mean": 0.0, "std": 0.02}, {"mean": 1.0, "std": 2.0, "a": -1.0, "b": 4.0},
                                # narrow window -> the uniform proposal / acceptance branch
                                {"a": -0.1, "b": 0.1}, {"mean": 0.0, "std": 1.0, "a": 1.0, "b": 3.0},
                                {"mean": 2.0, "std": 0.5, "a": 0.0, "b": 1.0}])
def test_trunc_normal(torch, dtype, kw):
    a, b = _both(torch, "trunc_normal_", (40, 50), dtype, **kw)
    _equal(a, b)
    lo, hi = kw.get("a", -2.0), kw.get("b", 2.0)
    assert a.min().item() >= lo - 1e-6 and a.max().item() <= hi + 1e-6
    _equal(*_both(torch, "trunc_normal_", (13, 7), dtype, use_generator=True, **kw))


def test_trunc_normal_far_mean_warning(torch):
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        a, b = _both(torch, "trunc_normal_", (20,), "float32", mean=10.0, std=1.0, a=-1.0, b=1.0)
    _equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 7), (7, 5), (6, 6), (6, 2, 3), (2, 3, 2, 2), (1, 4)])
@pytest.mark.parametrize("gain", [1, 2.5])
def test_orthogonal(torch, dtype, shape, gain):
    a, b = _both(torch, "orthogonal_", shape, dtype, gain=gain)
    # LAPACK builds differ (numpy's vs torch's) by a few ulps only
    tol = 2e-6 if dtype == "float32" else 1e-14
    np.testing.assert_allclose(to_np(a), to_np(b), rtol=0, atol=tol * gain)
    m = to_np(a).reshape(shape[0], -1).astype(np.float64) / gain
    eye = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    np.testing.assert_allclose(eye, np.eye(eye.shape[0]), atol=1e-5)
    a, b = _both(torch, "orthogonal_", shape, dtype, gain=gain, use_generator=True)
    np.testing.assert_allclose(to_np(a), to_np(b), rtol=0, atol=tol * gain)


def test_orthogonal_errors_and_empty(torch):
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(pt.empty(3))
    a = pt.empty(0, 3)
    assert init.orthogonal_(a) is a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sparsity,std", [(0.1, 0.01), (0.5, 1.0), (0.0, 0.01), (1.0, 0.01)])
def test_sparse(torch, dtype, sparsity, std):
    a, b = _both(torch, "sparse_", (10, 6), dtype, sparsity, std=std)
    _equal(a, b)
    assert int((to_np(a) == 0).sum(0).min()) >= math.ceil(sparsity * 10)
    _equal(*_both(torch, "sparse_", (9, 4), dtype, sparsity, std, use_generator=True))


def test_sparse_error(torch):
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.sparse_(pt.empty(2, 3, 4), 0.1)


# ------------------------------------------------------------------ deterministic initialisers
@pytest.mark.parametrize("dtype", DTYPES + ["int64"])
def test_constant_ones_zeros(torch, dtype):
    a, b = pt.empty(3, 4, dtype=getattr(pt, dtype)), torch.empty(3, 4, dtype=getattr(torch, dtype))
    for fn, args in [("constant_", (0.3,)), ("ones_", ()), ("zeros_", ()), ("constant_", (-2,))]:
        assert getattr(init, fn)(a, *args) is a
        getattr(torch.nn.init, fn)(b, *args)
        _equal(a, b)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_eye(torch, shape):
    a, b = pt.empty(*shape), torch.empty(*shape)
    assert init.eye_(a) is a
    torch.nn.init.eye_(b)
    _equal(a, b)
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(pt.empty(2, 2, 2))


@pytest.mark.parametrize("shape,groups", [((4, 4, 3), 1), ((6, 2, 3, 3), 3), ((4, 6, 5), 2), ((8, 3, 3, 4, 5), 2),
                                          ((3, 16, 5, 5), 1), ((6, 1, 2, 2), 6)])
def test_dirac(torch, shape, groups):
    a, b = pt.randn(*shape), torch.randn(*shape)
    assert init.dirac_(a, groups) is a
    torch.nn.init.dirac_(b, groups)
    _equal(a, b)


def test_dirac_errors(torch):
    for shape, groups in [((3, 3), 1), ((3, 3, 3, 3, 3, 3), 1), ((5, 2, 3), 2)]:
        with pytest.raises(ValueError) as ours:
            init.dirac_(pt.empty(*shape), groups)
        with pytest.raises(ValueError) as theirs:
            torch.nn.init.dirac_(torch.empty(*shape), groups)
        assert str(ours.value) == str(theirs.value)


# ------------------------------------------------------------------ grad mode, Parameters, aliases
ALL = [("uniform_", ()), ("normal_", ()), ("trunc_normal_", ()), ("constant_", (0.5,)), ("ones_", ()),
       ("zeros_", ()), ("eye_", ()), ("xavier_uniform_", ()), ("xavier_normal_", ()), ("kaiming_uniform_", ()),
       ("kaiming_normal_", ()), ("orthogonal_", ()), ("sparse_", (0.2,))]


@pytest.mark.parametrize("fn,args", ALL)
def test_parameter_stays_leaf(fn, args):
    p = pt.nn.Parameter(pt.empty(4, 5))
    v = p._version
    out = getattr(init, fn)(p, *args)
    assert out is p and p.is_leaf and p.grad_fn is None and p.requires_grad
    assert p._version > v
    (p * 2).sum().backward()
    assert p.grad is not None


def test_dirac_parameter_stays_leaf():
    p = pt.nn.Parameter(pt.empty(4, 4, 3))
    init.dirac_(p)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


@pytest.mark.parametrize("dtype", DTYPES)
def test_noncontiguous(torch, dtype):
    pt.manual_seed(3)
    torch.manual_seed(3)
    a, b = pt.empty(5, 7, dtype=getattr(pt, dtype)).T, torch.empty(5, 7, dtype=getattr(torch, dtype)).T
    init.kaiming_uniform_(a, a=math.sqrt(5))
    torch.nn.init.kaiming_uniform_(b, a=math.sqrt(5))
    _equal(a, b)


def test_deprecated_aliases(torch):
    for old in ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]:
        fn = getattr(init, old)
        assert fn.__name__ == old
        shape = (4, 4, 3) if old == "dirac" else (4, 5)
        args = (0.5,) if old in ("constant", "sparse") else ()
        with pytest.warns(FutureWarning, match=rf"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`."):
            fn(pt.empty(*shape), *args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _equal(*_both(torch, "kaiming_uniform", (3, 4), "float32"))
    assert set(init.__all__) == set(torch.nn.init.__all__)


def test_signatures(torch):
    import inspect
    for name in torch.nn.init.__all__:
        if name.endswith("_") or name == "calculate_gain":
            ours = inspect.signature(getattr(init, name))
            theirs = inspect.signature(getattr(torch.nn.init, name))
            assert list(ours.parameters) == list(theirs.parameters), name
            assert [p.default for p in ours.parameters.values()] == [p.default for p in theirs.parameters.values()]
