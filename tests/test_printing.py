"""repr(tensor) must match PyTorch's character for character.

Every test builds the same data in pedatorch and in real PyTorch and compares
the two reprs (tests taking the ``torch`` fixture are skipped without torch).
"""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch import _tensor_str

try:
    import torch as _real_torch
except ImportError:  # pragma: no cover
    _real_torch = None

try:
    from hypothesis import given, settings, strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError:  # pragma: no cover
    given = None


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    pt.set_printoptions(profile="default")
    pt.set_default_dtype(pt.float32)
    if _real_torch is not None:
        _real_torch.set_printoptions(profile="default")
        _real_torch.set_default_dtype(_real_torch.float32)


def both_options(torch, **kw):
    pt.set_printoptions(**kw)
    torch.set_printoptions(**kw)


def make(torch, arr, dtype=None, requires_grad=False):
    """The same data as a pedatorch tensor and a torch tensor (``dtype`` a name, e.g. 'bfloat16')."""
    arr = np.asarray(arr)
    a = pt.tensor(arr)
    b = torch.tensor(arr)
    if dtype is not None:
        a = a.to(getattr(pt, dtype))
        b = b.to(getattr(torch, dtype))
    if requires_grad:
        a.requires_grad_()
        b.requires_grad_()
    return a, b


def check(torch, arr, dtype=None, requires_grad=False, op=None):
    a, b = make(torch, arr, dtype, requires_grad)
    if op is not None:
        a, b = op(a), op(b)
    ours, theirs = repr(a), repr(b)
    assert ours == theirs, f"\nours:   {ours}\ntheirs: {theirs}"
    assert str(a) == str(b)
    return ours


RNG = np.random.default_rng(12345)


def randn(*shape, scale=1.0, dtype=np.float32):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


# ---------------------------------------------------------------- basic values

def test_known_strings():
    assert repr(pt.tensor([1., 2., 3.])) == "tensor([1., 2., 3.])"
    assert repr(pt.tensor(3.)) == "tensor(3.)"
    assert repr(pt.tensor([0.5, 1.25])) == "tensor([0.5000, 1.2500])"
    assert repr(pt.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(pt.tensor([], dtype=pt.int64)) == "tensor([], dtype=torch.int64)"


@pytest.mark.parametrize("scale", [1e-12, 1e-6, 1e-4, 1e-3, 0.1, 1.0, 10.0, 999.0, 1e4, 1e6, 1e8, 1e9, 1e15,
                                   1e30])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_magnitudes(torch, scale, dtype):
    check(torch, randn(7, scale=scale, dtype=dtype))
    check(torch, randn(3, 4, scale=scale, dtype=dtype))
    check(torch, np.abs(randn(5, scale=scale, dtype=dtype)))


@pytest.mark.parametrize("values", [
    [1e-4, 1.0], [0.99e-4, 1.0], [1.0, 1000.0], [1.0, 1000.1], [1.0, 1e8], [1.0, 1.0001e8], [1e8],
    [1.5e8], [0.0001], [0.00009], [123456.0, 0.5], [1e-3, 0.9], [5e-5, 5e-5], [-1e10, 1e10],
    [0.0, 1e-5], [0.0, 1e9], [99999.5], [9.99995, 1.0], [0.00005, 1.0], [2.5, 3.5, -0.5],
])
def test_sci_mode_boundaries(torch, values):
    check(torch, np.array(values, dtype=np.float32))
    check(torch, np.array(values, dtype=np.float64))


@pytest.mark.parametrize("values", [
    [1., 2., 3.], [-1., 0., 100.], [1e10, 2.], [123456789., 1.], [0., -0.], [-0.], [0.], [-0., 1.],
    [-0., 0.5], [-0., -1.5], [1e20, 3.], [-5., 5e5],
])
def test_integer_valued_floats(torch, values):
    check(torch, np.array(values, dtype=np.float32))
    check(torch, np.array(values, dtype=np.float64))


@pytest.mark.parametrize("values", [
    [np.nan], [np.inf], [-np.inf], [np.nan, np.inf, -np.inf], [np.nan, 1.], [np.nan, 1.5],
    [np.inf, 1e-5], [-np.inf, 12345.678], [np.nan, 0.], [np.nan, -0.], [1., np.inf, 100.],
    [np.nan, 1e10, 1.], [0., 0., 0.], [np.inf, -np.inf, 2.25, -0.],
])
def test_nonfinite(torch, values):
    check(torch, np.array(values, dtype=np.float32))
    check(torch, np.array(values, dtype=np.float64))
    check(torch, np.array(values, dtype=np.float32).reshape(1, -1))


def test_nonfinite_2d(torch):
    a = randn(4, 5)
    a[0, 1] = np.nan
    a[2, 3] = np.inf
    a[3, 0] = -np.inf
    a[1, 1] = -0.0
    check(torch, a)
    check(torch, a * 1e6)
    check(torch, np.round(a))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_integers(torch, dtype):
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -10 ** 6), min(info.max, 10 ** 6)
    check(torch, RNG.integers(lo, hi, size=12, endpoint=True).astype(dtype))
    check(torch, RNG.integers(lo, hi, size=(3, 5), endpoint=True).astype(dtype))
    check(torch, np.array(7, dtype=dtype))
    check(torch, np.array([info.min, info.max], dtype=dtype))


def test_int64_extremes(torch):
    check(torch, np.array([-2 ** 63, 2 ** 63 - 1, 0], dtype=np.int64))


def test_bools(torch):
    check(torch, np.array([True, False, True]))
    check(torch, np.array(True))
    check(torch, np.array([[True], [False]]))
    check(torch, RNG.random(60) > 0.5)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision(torch, dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    check(torch, randn(6, dtype=np.float32), dtype=dtype)
    check(torch, randn(3, 3, scale=1e4, dtype=np.float32), dtype=dtype)
    check(torch, np.array([1., 2., 65504.], dtype=np.float32), dtype=dtype)
    check(torch, np.array([6e-5, 1.], dtype=np.float32), dtype=dtype)
    check(torch, np.array(2.5, dtype=np.float32), dtype=dtype)


def test_float16_from_numpy(torch):
    check(torch, randn(4, 2, dtype=np.float16))


# ---------------------------------------------------------------- 0-dim and empty

@pytest.mark.parametrize("value,dtype", [
    (3.0, "float32"), (3.25, "float32"), (-0.0, "float32"), (1e-7, "float32"), (1e9, "float64"),
    (np.nan, "float32"), (-np.inf, "float64"), (5, "int64"), (-5, "int32"), (200, "uint8"),
    (True, "bool"), (1 + 2j, "complex64"), (-1.5 - 0.25j, "complex128"), (2.0, "float16"),
])
def test_zero_dim(torch, value, dtype):
    check(torch, np.array(value, dtype=dtype))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0), (1, 0, 1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "complex64", "float16"])
def test_empty(torch, shape, dtype):
    check(torch, np.zeros(shape, dtype=dtype))


def test_empty_requires_grad(torch):
    check(torch, np.zeros((0,), dtype=np.float32), requires_grad=True)
    check(torch, np.zeros((0, 2), dtype=np.float64), requires_grad=True)


# ---------------------------------------------------------------- layout

@pytest.mark.parametrize("n", [1, 2, 10, 11, 12, 13, 20, 50, 99, 100, 500, 1000])
def test_1d_wrapping(torch, n):
    check(torch, randn(n))
    check(torch, np.arange(n, dtype=np.float32))
    check(torch, np.arange(n) * 1000)


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (3, 2), (1, 30), (30, 1), (4, 25), (2, 2, 2), (3, 1, 4),
                                   (2, 3, 4), (2, 2, 2, 2), (1, 2, 1, 3), (2, 3, 2, 4), (2, 1, 2, 1, 2)])
def test_multidim(torch, shape):
    check(torch, randn(*shape))
    check(torch, randn(*shape, scale=1e5, dtype=np.float64))
    check(torch, RNG.integers(-50, 50, size=shape))
    check(torch, RNG.random(shape) > 0.3)


@pytest.mark.parametrize("shape", [(1001,), (2000,), (5000,), (40, 40), (1001, 1), (1, 1001), (2, 600),
                                   (600, 2), (10, 10, 11), (7, 7, 7, 7), (3, 400), (4, 3, 100), (7, 200)])
def test_summarized(torch, shape):
    check(torch, randn(*shape))
    check(torch, RNG.integers(-10 ** 6, 10 ** 6, size=shape))
    a = randn(*shape, scale=100)
    a.reshape(-1)[500] = 1e12  # hidden by the summary: must not change the format
    check(torch, a)


def test_summarized_width_from_shown_only(torch):
    a = np.ones(2000, dtype=np.float32)
    a[1000] = 123456.5  # not shown
    check(torch, a)
    a[-1] = 0.5  # shown
    check(torch, a)


def test_exactly_threshold(torch):
    check(torch, randn(1000))
    check(torch, randn(10, 100))


# ---------------------------------------------------------------- complex

@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex(torch, dtype):
    check(torch, np.array([1 + 2j, 3 - 4j], dtype=dtype))
    check(torch, np.array([1.5 + 2j, -3 - 0.25j, 0j, -0.0 - 0.0j], dtype=dtype))
    check(torch, np.array([1e-6 + 1j, 1e6 - 2j], dtype=dtype))
    check(torch, np.array([complex(np.nan, 1), complex(1, np.inf), complex(2, -np.inf)], dtype=dtype))
    z = (randn(3, 4, dtype=np.float64) + 1j * randn(3, 4, dtype=np.float64) * 100).astype(dtype)
    check(torch, z)
    check(torch, (randn(30, dtype=np.float64) + 1j * randn(30, dtype=np.float64)).astype(dtype))
    check(torch, (randn(1200, dtype=np.float64) + 1j * randn(1200, dtype=np.float64)).astype(dtype))
    check(torch, np.array([1 + 2j, 3 + 10j, -100 - 5j], dtype=dtype))


def test_complex_requires_grad(torch):
    check(torch, np.array([1 + 2j, 3 - 4j], dtype=np.complex64), requires_grad=True)


# ---------------------------------------------------------------- dtype suffix and default dtype

def test_default_dtype_float64(torch):
    pt.set_default_dtype(pt.float64)
    torch.set_default_dtype(torch.float64)
    check(torch, randn(3, dtype=np.float64))
    check(torch, randn(3, dtype=np.float32))
    check(torch, np.array([1 + 1j], dtype=np.complex128))
    check(torch, np.array([1 + 1j], dtype=np.complex64))
    check(torch, np.zeros(0, dtype=np.float64))
    check(torch, np.zeros(0, dtype=np.float32))
    check(torch, np.zeros(0, dtype=np.complex128))


# ---------------------------------------------------------------- autograd suffixes

@pytest.mark.parametrize("op", [
    lambda x: x * 2, lambda x: x + 1, lambda x: x.sum(), lambda x: x.mean(), lambda x: x.exp(),
    lambda x: -x, lambda x: x / 3, lambda x: x.clone(), lambda x: x.unsqueeze(0),
])
def test_grad_fn(torch, op):
    check(torch, randn(4), requires_grad=True, op=op)
    check(torch, randn(2, 3, dtype=np.float64), requires_grad=True, op=op)


def test_requires_grad_leaf(torch):
    check(torch, randn(5), requires_grad=True)
    check(torch, np.array(2.0, dtype=np.float32), requires_grad=True)
    check(torch, randn(3, 3, dtype=np.float64), requires_grad=True)
    check(torch, randn(2000), requires_grad=True)
    check(torch, randn(2, 3), requires_grad=True, op=lambda x: x.detach())


@pytest.mark.parametrize("n", [5, 6, 7, 8, 9, 10, 11, 12, 16, 17, 18])
def test_suffix_wrapping(torch, n):
    # the last line's length decides whether each suffix goes on a new line
    check(torch, randn(n, dtype=np.float64), requires_grad=True)
    check(torch, randn(n, dtype=np.float64), requires_grad=True, op=lambda x: x * 2)
    check(torch, randn(n, dtype=np.float16), requires_grad=True, op=lambda x: x * 2)
    check(torch, randn(2, n, dtype=np.float64), requires_grad=True, op=lambda x: x * 2)
    check(torch, np.zeros((0, n), dtype=np.float64), requires_grad=True)


def test_suffix_wrapping_narrow(torch):
    both_options(torch, linewidth=30)
    check(torch, randn(3, dtype=np.float64), requires_grad=True, op=lambda x: x * 2)
    check(torch, np.array(1.5), requires_grad=True, op=lambda x: x * 2)


# ---------------------------------------------------------------- print options

@pytest.mark.parametrize("kw", [
    dict(precision=2), dict(precision=0), dict(precision=8), dict(precision=1, sci_mode=True),
    dict(threshold=5), dict(threshold=0), dict(threshold=5, edgeitems=1), dict(threshold=5, edgeitems=0),
    dict(edgeitems=0), dict(edgeitems=5, threshold=10), dict(linewidth=40), dict(linewidth=200),
    dict(linewidth=5), dict(profile="short"), dict(profile="full"), dict(profile="default"),
    dict(profile="short", precision=6), dict(sci_mode=True), dict(sci_mode=False),
])
def test_printoptions(torch, kw):
    both_options(torch, **kw)
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    check(torch, randn(8))
    check(torch, randn(5, 7, scale=1000))
    check(torch, randn(1500, scale=1e-5, dtype=np.float64))
    check(torch, randn(3, 4, 5))
    check(torch, randn(20, 60))
    check(torch, np.arange(30))
    check(torch, np.array([1., 2., 100.]))
    check(torch, np.array([0., np.nan, -0.]))
    check(torch, np.array(3.14159))
    check(torch, np.array([1 + 2j, 1e-5 - 3j]))
    check(torch, randn(6), requires_grad=True, op=lambda x: x * 2)
    check(torch, np.zeros((0, 2)))


def test_set_printoptions_resets_sci_mode(torch):
    both_options(torch, sci_mode=True)
    both_options(torch, precision=3)  # leaves out sci_mode: back to automatic
    assert _tensor_str.get_printoptions()["sci_mode"] is None
    check(torch, randn(5))


def test_printoptions_context_manager(torch):
    with _tensor_str.printoptions(precision=2, sci_mode=False):
        assert repr(pt.tensor([1.23456, 1e-9])) == "tensor([1.23, 0.00])"
        with torch._tensor_str.printoptions(precision=2, sci_mode=False):
            check(torch, randn(4, scale=1e-9))
    assert _tensor_str.get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3,
                                              "linewidth": 80, "sci_mode": None}


def test_tensor_contents():
    t = pt.tensor([1., 2.], requires_grad=True)
    assert _tensor_str._str(t, tensor_contents="[...]") == "tensor([...], requires_grad=True)"


@pytest.mark.skipif(not pt.cuda.is_available(), reason="no GPU")
def test_cuda_device_suffix():
    assert repr(pt.tensor([1., 2.], device="cuda")) == "tensor([1., 2.], device='cuda:0')"
    assert repr(pt.tensor([1, 2], device="cuda", dtype=pt.int32)) == \
        "tensor([1, 2], device='cuda:0', dtype=torch.int32)"


# ---------------------------------------------------------------- randomized comparisons

def _random_array(rng):
    ndim = rng.integers(0, 5)
    shape = tuple(rng.integers(1, 6, size=ndim)) if rng.random() > 0.1 else tuple(rng.integers(1, 60, size=ndim))
    kind = rng.integers(0, 4)
    if kind == 0:  # floats of a random magnitude, with special values sprinkled in
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-12, 14)
        if rng.random() < 0.3:
            a = np.round(a)
        if a.size and rng.random() < 0.4:
            flat = a.reshape(-1)
            for _ in range(rng.integers(1, 4)):
                flat[rng.integers(0, flat.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0])
        with np.errstate(over="ignore"):  # float16 overflows to inf: fine, inf is a case too
            return a.astype(rng.choice(["float32", "float64", "float16"]))
    if kind == 1:
        return rng.integers(-10 ** rng.integers(1, 12), 10 ** rng.integers(1, 12), size=shape).astype(
            rng.choice(["int64", "int32"]))
    if kind == 2:
        return rng.random(shape) > 0.5
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 8)
            + 1j * rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 8)).astype(
        rng.choice(["complex64", "complex128"]))


def test_random_arrays(torch):
    rng = np.random.default_rng(2024)
    for _ in range(400):
        a = _random_array(rng)
        if a.dtype.kind == "f" and a.dtype != np.float16 and rng.random() < 0.3:
            check(torch, a, requires_grad=True, op=lambda x: x * 2)
        else:
            check(torch, a)


if given is not None:
    @settings(max_examples=150, deadline=None)
    @given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=6),
                      elements=st.floats(allow_nan=True, allow_infinity=True, width=64)))
    def test_hypothesis_float64(a):
        if _real_torch is None:
            pytest.skip("torch not installed")
        check(_real_torch, a)

    @settings(max_examples=100, deadline=None)
    @given(hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=2, max_side=8),
                      elements=st.floats(min_value=-1e6, max_value=1e6, width=32)),
           st.integers(0, 6))
    def test_hypothesis_float32_precision(a, precision):
        if _real_torch is None:
            pytest.skip("torch not installed")
        both_options(_real_torch, precision=precision)
        check(_real_torch, a)
