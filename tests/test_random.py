"""Random sampling: the generator (seeding, state), every sampler's dtype/shape/range/statistics, and
bit-for-bit equality with PyTorch's CPU streams after the same ``manual_seed``."""
import pickle
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch._random import _init_genrand

SEEDS = (0, 1, 42, 2 ** 40 + 7)


def arr(t):
    return np.asarray(t._data)


# ====================================================================== the generator

def test_mt19937_seeding_is_init_genrand():
    # the reference values of mt19937 seeded with 5489 (the C++ standard's default seed)
    g = pt.Generator().manual_seed(5489)
    first = g._random(1)[0]
    assert first == 3499211612
    g.manual_seed(5489)
    assert int(g._random(10000)[-1]) == 4123659995     # std::mt19937's 10000th output
    assert _init_genrand(1)[1] == 1812433254


def test_generator_api():
    g = pt.Generator()
    assert g.device == pt.device("cpu")
    assert g.initial_seed() == 67280421310721        # PyTorch's default seed
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    assert g.manual_seed(-1).initial_seed() == 2 ** 64 - 1
    assert g.manual_seed(2 ** 64 - 1).initial_seed() == 2 ** 64 - 1
    with pytest.raises(ValueError, match="Overflow"):
        g.manual_seed(2 ** 64)
    with pytest.raises(RuntimeError, match="manual_seed expected a long, but got float"):
        g.manual_seed(1.5)
    s = g.seed()
    assert isinstance(s, int) and 0 <= s < 2 ** 64 and g.initial_seed() == s
    assert pt.manual_seed(7) is pt.default_generator and pt.initial_seed() == 7
    assert pt.manual_seed(7.9).initial_seed() == 7   # the module function takes int(seed)
    assert isinstance(pt.seed(), int)
    assert pt.Generator("cpu").device.type == "cpu"


def test_seeding_reproducible():
    for f in (lambda: pt.rand(5), lambda: pt.randn(50), lambda: pt.randint(0, 100, (20,)),
              lambda: pt.randperm(30), lambda: pt.empty(10).exponential_(), lambda: pt.randn(3)):
        pt.manual_seed(123)
        a = arr(f())
        pt.manual_seed(123)
        b = arr(f())
        np.testing.assert_array_equal(a, b)
    pt.manual_seed(1)
    a = arr(pt.rand(10))
    pt.manual_seed(2)
    assert not np.array_equal(a, arr(pt.rand(10)))
    pt.manual_seed(1)
    b = arr(pt.rand(10))
    assert not np.array_equal(b, arr(pt.rand(10)))       # the stream moves on


def test_generators_are_independent():
    g1 = pt.Generator().manual_seed(5)
    g2 = pt.Generator().manual_seed(5)
    pt.manual_seed(0)
    d1 = arr(pt.rand(4))
    a = arr(pt.rand(6, generator=g1))
    pt.manual_seed(0)
    pt.rand(100, generator=g2)                           # drawing from g2 touches neither g1 nor the default
    np.testing.assert_array_equal(arr(pt.rand(4)), d1)
    g2.manual_seed(5)
    np.testing.assert_array_equal(arr(pt.rand(6, generator=g2)), a)
    for fn in (lambda g: pt.randn(20, generator=g), lambda g: pt.randint(3, (4,), generator=g),
               lambda g: pt.empty(5).normal_(generator=g), lambda g: pt.empty(5).uniform_(generator=g),
               lambda g: pt.multinomial(pt.ones(4), 2, generator=g), lambda g: pt.bernoulli(pt.full((3,), 0.5), generator=g),
               lambda g: pt.randperm(5, generator=g), lambda g: pt.normal(0., 1., (3,), generator=g),
               lambda g: pt.poisson(pt.ones(3), generator=g)):
        x = pt.Generator().manual_seed(9)
        y = pt.Generator().manual_seed(9)
        np.testing.assert_array_equal(arr(fn(x)), arr(fn(y)))
    with pytest.raises(TypeError):
        pt.rand(2, generator=5)


def test_state_round_trip():
    g = pt.Generator().manual_seed(11)
    s = g.get_state()
    assert s.dtype == pt.uint8 and tuple(s.shape) == (5056,)
    a = arr(pt.rand(700, generator=g))                   # crosses a twist of the 624-word state
    g.set_state(s)
    np.testing.assert_array_equal(arr(pt.rand(700, generator=g)), a)
    # the spare Box-Muller normal is part of the state
    pt.randn(1, generator=g)
    s = g.get_state()
    b = arr(pt.randn(3, generator=g))
    assert g.set_state(s) is g
    np.testing.assert_array_equal(arr(pt.randn(3, generator=g)), b)
    # the module functions and the default generator
    pt.manual_seed(3)
    st = pt.get_rng_state()
    x = arr(pt.randn(20))
    pt.set_rng_state(st)
    np.testing.assert_array_equal(arr(pt.randn(20)), x)
    g2 = pickle.loads(pickle.dumps(g))
    np.testing.assert_array_equal(arr(pt.rand(5, generator=g2)), arr(pt.rand(5, generator=g)))


def test_state_errors():
    g = pt.Generator()
    with pytest.raises(TypeError, match="ByteTensor"):
        g.set_state(pt.zeros(5056))
    with pytest.raises(RuntimeError, match="size 5056"):
        g.set_state(pt.zeros(10, dtype=pt.uint8))
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        g.set_state(pt.zeros(5056, dtype=pt.uint8))
    s = g.get_state()
    a = arr(pt.rand(3, generator=g))
    with pytest.raises(RuntimeError):
        g.set_state(pt.zeros(5056, dtype=pt.uint8))
    g.set_state(s)                                       # a refused state left it usable
    np.testing.assert_array_equal(arr(pt.rand(3, generator=g)), a)


# ====================================================================== dtypes, shapes, ranges

def test_factory_dtypes_and_shapes():
    assert pt.rand(2, 3).dtype == pt.float32 and tuple(pt.rand(2, 3).shape) == (2, 3)
    assert tuple(pt.rand((4, 1)).shape) == (4, 1) and tuple(pt.randn([2]).shape) == (2,)
    assert pt.randn(3, dtype=pt.float64).dtype == pt.float64
    assert pt.rand(3, dtype=pt.float16).dtype == pt.float16
    assert pt.randn(3, dtype=pt.complex64).dtype == pt.complex64
    assert pt.randint(5, (3,)).dtype == pt.int64 and pt.randint(0, 5, (3,), dtype=pt.int32).dtype == pt.int32
    assert pt.randperm(4).dtype == pt.int64
    assert pt.rand(0).numel() == 0 and tuple(pt.randn(2, 0).shape) == (2, 0)
    old = pt.get_default_dtype()
    try:
        pt.set_default_dtype(pt.float64)
        assert pt.rand(2).dtype == pt.float64 and pt.randn(2).dtype == pt.float64
        assert pt.normal(0., 1., (2,)).dtype == pt.float64
    finally:
        pt.set_default_dtype(old)
    x = pt.rand(3, requires_grad=True)
    assert x.requires_grad and x.is_leaf
    like = pt.zeros(2, 3, dtype=pt.float64)
    for f in (pt.rand_like, pt.randn_like):
        y = f(like)
        assert y.dtype == pt.float64 and tuple(y.shape) == (2, 3)
    assert pt.randint_like(like, 5).dtype == pt.float64
    assert pt.rand_like(like, dtype=pt.float32).dtype == pt.float32
    out = pt.zeros(5)
    r = pt.rand(5, out=out)
    assert r is out and arr(out).max() < 1 and arr(out).min() >= 0


def test_ranges():
    pt.manual_seed(0)
    u = arr(pt.rand(10000))
    assert u.min() >= 0 and u.max() < 1
    u = arr(pt.empty(10000).uniform_(-3, -2))
    assert u.min() >= -3 and u.max() < -2
    i = arr(pt.randint(-4, 7, (10000,)))
    assert i.min() == -4 and i.max() == 6
    i = arr(pt.randint(3, (1000,)))
    assert set(np.unique(i)) == {0, 1, 2}
    p = arr(pt.randperm(100))
    np.testing.assert_array_equal(np.sort(p), np.arange(100))
    assert arr(pt.randperm(0)).shape == (0,) and arr(pt.randperm(1)).tolist() == [0]
    b = arr(pt.bernoulli(pt.full((1000,), 0.5)))
    assert set(np.unique(b)) <= {0.0, 1.0}
    assert arr(pt.bernoulli(pt.zeros(50))).sum() == 0 and arr(pt.bernoulli(pt.ones(50))).sum() == 50
    m = arr(pt.multinomial(pt.rand(3, 10), 10))
    assert m.shape == (3, 10) and all(len(set(row)) == 10 for row in m)
    assert arr(pt.multinomial(pt.tensor([0., 0., 1.]), 4, replacement=True)).tolist() == [2, 2, 2, 2]
    assert arr(pt.multinomial(pt.tensor([0., 5., 0.]), 1)).tolist() == [1]
    assert arr(pt.empty(1000, dtype=pt.uint8).random_()).max() <= 255
    assert set(np.unique(arr(pt.empty(200, dtype=pt.bool).random_()))) == {False, True}
    r = arr(pt.empty(1000).random_())
    assert r.min() >= 0 and r.max() <= 2 ** 24 and np.all(r == np.round(r))
    g = arr(pt.empty(1000, dtype=pt.int64).geometric_(0.5))
    assert g.min() >= 1
    assert arr(pt.empty(1000).exponential_()).min() > 0
    assert arr(pt.empty(1000).log_normal_()).min() > 0
    assert arr(pt.poisson(pt.zeros(5))).tolist() == [0] * 5
    assert np.all(arr(pt.empty(7).uniform_(2, 2)) == 2)


def test_statistics():
    pt.manual_seed(2024)
    n = 200000
    x = arr(pt.randn(n))
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
    x = arr(pt.randn(7, dtype=pt.float64))           # the scalar path
    assert np.isfinite(x).all()
    xs = np.concatenate([arr(pt.randn(5)) for _ in range(4000)])
    assert abs(xs.mean()) < 0.03 and abs(xs.std() - 1) < 0.03
    x = arr(pt.empty(n).normal_(3, 0.5))
    assert abs(x.mean() - 3) < 0.01 and abs(x.std() - 0.5) < 0.01
    x = arr(pt.normal(pt.full((n,), -2.), pt.full((n,), 2.)))
    assert abs(x.mean() + 2) < 0.03 and abs(x.std() - 2) < 0.03
    u = arr(pt.rand(n, dtype=pt.float64))
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.01
    e = arr(pt.empty(n).exponential_(4.0))
    assert abs(e.mean() - 0.25) < 0.01
    g = arr(pt.empty(n).geometric_(0.2))
    assert abs(g.mean() - 5) < 0.1
    c = arr(pt.empty(n).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1) < 0.05
    ln = arr(pt.empty(n, dtype=pt.float64).log_normal_(0.0, 0.25))
    assert abs(np.log(ln).mean()) < 0.01 and abs(np.log(ln).std() - 0.25) < 0.01
    b = arr(pt.empty(n).bernoulli_(0.3))
    assert abs(b.mean() - 0.3) < 0.01
    b = arr(pt.bernoulli(pt.full((n,), 0.8)))
    assert abs(b.mean() - 0.8) < 0.01
    for lam in (2.5, 40.0):
        p = arr(pt.poisson(pt.full((20000,), lam)))
        assert abs(p.mean() - lam) < 0.05 * lam and abs(p.var() - lam) < 0.1 * lam
    w = pt.tensor([1., 2., 3., 4.])
    m = arr(pt.multinomial(w, 40000, replacement=True))
    np.testing.assert_allclose(np.bincount(m, minlength=4) / 40000, [0.1, 0.2, 0.3, 0.4], atol=0.01)
    first = np.array([arr(pt.multinomial(w, 2))[0] for _ in range(4000)])
    np.testing.assert_allclose(np.bincount(first, minlength=4) / 4000, [0.1, 0.2, 0.3, 0.4], atol=0.03)
    ri = arr(pt.randint(0, 10, (n,)))
    np.testing.assert_allclose(np.bincount(ri) / n, 0.1, atol=0.005)
    z = arr(pt.randn(n, dtype=pt.complex64))
    assert abs(z.real.var() - 0.5) < 0.01 and abs(z.imag.var() - 0.5) < 0.01


# ====================================================================== in-place semantics and errors

def test_inplace_semantics():
    x = pt.zeros(4, 5)
    v = x._version
    assert x.normal_() is x and x._version == v + 1
    for m, args in (("uniform_", (-1, 1)), ("random_", (0, 3)), ("bernoulli_", (0.5,)), ("exponential_", ()),
                    ("geometric_", (0.5,)), ("log_normal_", ()), ("cauchy_", ())):
        assert getattr(x, m)(*args) is x
    w = pt.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        w.normal_()
    with pytest.raises(RuntimeError, match="a leaf Variable"):
        w.uniform_()
    with pt.no_grad():
        w.normal_()
        w.uniform_(-1, 1)
    assert w.requires_grad and w.is_leaf
    base = pt.zeros(6, 4)
    view = base.t()
    view.uniform_()
    assert (arr(base) > 0).sum() > 20                    # written through the view


def test_errors():
    with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range, but found from=3 > to=2"):
        pt.empty(3).uniform_(3, 2)
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        pt.empty(3).normal_(0, -1)
    with pytest.raises(RuntimeError, match="normal expects all elements of std >= 0.0"):
        pt.normal(pt.zeros(3), pt.tensor([1., -1., 1.]))
    with pytest.raises(RuntimeError, match=r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"):
        pt.empty(3).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="Expected p_in >= 0 && p_in <= 1"):
        pt.bernoulli(pt.tensor([0.5, 2.0]))
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0, but found lambda=0"):
        pt.empty(3).exponential_(0)
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\), but got p=1"):
        pt.empty(3).geometric_(1)
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=5"):
        pt.randint(5, 5, (3,))
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for unsigned char"):
        pt.randint(0, 300, (3,), dtype=pt.uint8)
    with pytest.raises(NotImplementedError, match="\"normal_kernel_cpu\" not implemented for 'Long'"):
        pt.randn(3, dtype=pt.int64)
    with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
        pt.empty(3, dtype=pt.int64).uniform_()
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        pt.multinomial(pt.ones(2, 2, 2), 1)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        pt.multinomial(pt.ones(3), 4)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        pt.multinomial(pt.zeros(3), 2, replacement=True)
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        pt.poisson(pt.tensor([-1.]))
    with pytest.raises(RuntimeError, match="negative dimension"):
        pt.randperm(-1)
    with pytest.raises(TypeError, match="normal\\(\\) received an invalid combination"):
        pt.normal(2., 3.)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="out of bounds"):
            pt.empty(3).random_(0, 2 ** 30)


def test_normal_autograd():
    m = pt.zeros(3, requires_grad=True)
    s = pt.ones(3, requires_grad=True)
    for y, name in ((pt.normal(m, s), "NormalBackward3"), (pt.normal(m, 1.), "NormalBackward1"),
                    (pt.normal(0., s), "NormalBackward2")):
        assert type(y.grad_fn).__name__ == name
    pt.normal(m, s).sum().backward()
    np.testing.assert_array_equal(arr(m.grad), 0)
    np.testing.assert_array_equal(arr(s.grad), 0)
    assert type(pt.bernoulli(m.sigmoid()).grad_fn).__name__ == "BernoulliBackward0"


# ====================================================================== bit-for-bit equality with PyTorch

EXACT = {
    "rand": lambda T: T.rand(3),
    "rand 2d": lambda T: T.rand(300, 7),
    "rand float64": lambda T: T.rand(57, dtype=T.float64),
    "rand float16": lambda T: T.rand(3000, dtype=T.float16),
    "rand bfloat16": lambda T: T.rand(3000, dtype=T.bfloat16),
    "rand complex64": lambda T: T.rand(33, dtype=T.complex64),
    "randn small": lambda T: T.randn(3),
    "randn sequence (spare normal)": lambda T: T.cat([T.randn(3), T.randn(1), T.randn(20), T.randn(2, 2).reshape(-1),
                                                      T.rand(3), T.randn(1)]),
    "randn 16": lambda T: T.randn(16),
    "randn 17": lambda T: T.randn(17),
    "randn large": lambda T: T.randn(300, 33),
    "randn float64 small": lambda T: T.randn(7, dtype=T.float64),
    "randn float64 large": lambda T: T.randn(100, dtype=T.float64),
    "randn complex64": lambda T: T.randn(40, dtype=T.complex64),
    "randn complex128 small": lambda T: T.randn(5, dtype=T.complex128),
    "randn float16 (multiple of 16)": lambda T: T.randn(64, dtype=T.float16),
    "randn float16 small": lambda T: T.randn(9, dtype=T.float16),
    "normal_ mean std": lambda T: T.empty(100).normal_(1.5, 0.3),
    "normal_ float64 mean std": lambda T: T.empty(100, dtype=T.float64).normal_(-2., 3.7),
    "normal_ small mean std": lambda T: T.empty(5).normal_(1e3, 7.5),
    "normal_ transposed (scalar path)": lambda T: T.empty(8, 5).t().normal_(0.5, 2.),
    "normal_ complex": lambda T: T.empty(10, dtype=T.complex128).normal_(0, 2),
    "normal size": lambda T: T.normal(2., 3., (50,)),
    "normal size small": lambda T: T.normal(2., 3., size=(5,)),
    "normal tensor tensor": lambda T: T.normal(T.arange(20.).reshape(4, 5), T.arange(5.) / 3),
    "normal tensor float": lambda T: T.normal(T.arange(20.), 2.5),
    "normal float tensor": lambda T: T.normal(1.5, T.arange(20.) / 4),
    "uniform_": lambda T: T.empty(300).uniform_(-2.3, 1.7),
    "uniform_ float64": lambda T: T.empty(300, dtype=T.float64).uniform_(-2.3, 1.7),
    "uniform_ rounding to 'to'": lambda T: T.empty(3000).uniform_(1e6, 1e6 + 1),
    "uniform_ strided": lambda T: T.empty(6, 8)[:, ::2].uniform_(),
    "uniform_ transposed": lambda T: T.empty(5, 9, dtype=T.float64).t().uniform_(-1, 5),
    "uniform_ complex": lambda T: T.empty(10, dtype=T.complex64).uniform_(-1, 1),
    "randint": lambda T: T.randint(3, 17, (100,)),
    "randint high only": lambda T: T.randint(10, (4, 5)),
    "randint size kw": lambda T: T.randint(low=2, high=9, size=(7,)),
    "randint wide range": lambda T: T.randint(-5, 2 ** 40, (100,)),
    "randint 2**28": lambda T: T.randint(0, 2 ** 28, (50,), dtype=T.int32),
    "randint 2**28 - 1": lambda T: T.randint(0, 2 ** 28 - 1, (50,), dtype=T.int32),
    "randint int32": lambda T: T.randint(-100, 100, (100,), dtype=T.int32),
    "randint float32": lambda T: T.randint(0, 10, (100,), dtype=T.float32),
    "randint bool": lambda T: T.randint(0, 2, (100,), dtype=T.bool),
    "randint uint8": lambda T: T.randint(0, 256, (100,), dtype=T.uint8),
    "random_ float32": lambda T: T.empty(100).random_(),
    "random_ float64": lambda T: T.empty(100, dtype=T.float64).random_(),
    "random_ int64": lambda T: T.empty(100, dtype=T.int64).random_(),
    "random_ int8": lambda T: T.empty(100, dtype=T.int8).random_(),
    "random_ float16": lambda T: T.empty(100, dtype=T.float16).random_(),
    "random_ bfloat16": lambda T: T.empty(100, dtype=T.bfloat16).random_(),
    "random_(to)": lambda T: T.empty(100, dtype=T.int16).random_(5),
    "random_(from, None) int32": lambda T: T.empty(50, dtype=T.int32).random_(3, None),
    "random_(from, None) float32": lambda T: T.empty(50).random_(3, None),
    "random_(from, None) uint8": lambda T: T.empty(50, dtype=T.uint8).random_(3, None),
    "random_ full 64 bits": lambda T: T.empty(100, dtype=T.int64).random_(-2 ** 63, None),
    "random_ float32 2**28 - 1": lambda T: T.empty(50).random_(0, 2 ** 28 - 1),
    "randperm": lambda T: T.randperm(10),
    "randperm 1000": lambda T: T.randperm(1000),
    "randperm float32": lambda T: T.randperm(50, dtype=T.float32),
    "bernoulli_(p)": lambda T: T.empty(200).bernoulli_(0.3),
    "bernoulli_(tensor p)": lambda T: T.empty(3, 200).bernoulli_(T.linspace(0, 1, 200)),
    "bernoulli_(float64 p) int64": lambda T: T.empty(200, dtype=T.int64).bernoulli_(T.linspace(0, 1, 200,
                                                                                                dtype=T.float64)),
    "bernoulli_ transposed": lambda T: T.empty(7, 3).t().bernoulli_(T.linspace(0, 1, 21).reshape(3, 7)),
    "bernoulli(input)": lambda T: T.bernoulli(T.linspace(0, 1, 300)),
    "bernoulli(input, p)": lambda T: T.bernoulli(T.zeros(300), 0.2),
    "Tensor.bernoulli()": lambda T: T.linspace(0, 1, 30).bernoulli(),
    "exponential_": lambda T: T.empty(300).exponential_(1.7),
    "exponential_ float64": lambda T: T.empty(300, dtype=T.float64).exponential_(),
    "exponential_ transposed": lambda T: T.empty(7, 3).t().exponential_(),
    "geometric_": lambda T: T.empty(300).geometric_(0.3),
    "geometric_ int64": lambda T: T.empty(300, dtype=T.int64).geometric_(0.05),
    "log_normal_": lambda T: T.empty(300).log_normal_(),
    "log_normal_ float64": lambda T: T.empty(301, dtype=T.float64).log_normal_(0.3, 0.5),
    "cauchy_": lambda T: T.empty(300).cauchy_(),
    "cauchy_ float64": lambda T: T.empty(300, dtype=T.float64).cauchy_(0.5, 2.0),
    "multinomial with replacement": lambda T: T.multinomial(T.arange(1., 8.), 30, replacement=True),
    "multinomial with replacement 2d": lambda T: T.multinomial(T.arange(1., 22.).reshape(3, 7), 30, True),
    "multinomial without replacement": lambda T: T.multinomial(T.arange(1., 22.).reshape(3, 7), 5),
    "multinomial one sample": lambda T: T.multinomial(T.arange(1., 8.), 1),
    "multinomial float64 all": lambda T: T.multinomial(T.arange(1., 101., dtype=T.float64), 100),
    "Tensor.multinomial": lambda T: T.arange(1., 8.).multinomial(3),
    "poisson": lambda T: T.poisson(T.tensor([0.5, 3.0, 12.0, 50.0, 0.0, 9.99, 100., 1000.])),
    "poisson many": lambda T: T.cat([T.poisson(T.arange(60.) / 2), T.rand(2)]),
    "rand_like": lambda T: T.rand_like(T.zeros(4, 5, dtype=T.float64)),
    "randn_like": lambda T: T.randn_like(T.zeros(4, 5)),
    "randint_like": lambda T: T.randint_like(T.zeros(4, 5), 3, 9),
    "randint_like high": lambda T: T.randint_like(T.zeros(4, 5), 9),
    "own generator": lambda T: T.randn(50, generator=T.Generator().manual_seed(9)),
    "empty results": lambda T: T.cat([T.randn(0), T.rand(0), T.randperm(0).float(), T.randperm(1).float(),
                                      T.randperm(2).float(), T.rand(1)]),
    "state bytes": lambda T: T.get_rng_state(),
    "state bytes with spare normal": lambda T: (T.randn(1), T.get_rng_state())[1],
    "state bytes after a twist": lambda T: (T.rand(1000), T.get_rng_state())[1],
}


def _same(a, b):
    a = np.asarray(a._data)
    b = b.numpy()
    return a.shape == b.shape and str(a.dtype) == str(b.dtype) and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("name", list(EXACT))
def test_matches_pytorch_exactly(torch, name):
    fn = EXACT[name]
    for s in SEEDS:
        torch.manual_seed(s)
        pt.manual_seed(s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = fn(torch)
            ours = fn(pt)
        if theirs.dtype == torch.bfloat16:
            theirs, ours = theirs.float(), ours.float()
        assert _same(ours, theirs), f"seed {s}: {arr(ours).ravel()[:4]} vs {theirs.reshape(-1)[:4]}"


def test_normal_paths_many_sizes_match_pytorch(torch):
    """The float32 vectorised normal (replayed AVX2 code) and the float64 one, over sizes and parameters."""
    for s in range(24):
        n = (16, 17, 31, 100, 1000, 4099)[s % 6]
        mean, std = ((0, 1), (0.5, 2.0), (-3.0, 0.01), (1e3, 7.5))[s % 4]
        torch.manual_seed(s)
        pt.manual_seed(s)
        for dt, tdt in ((pt.float32, torch.float32), (pt.float64, torch.float64)):
            a = arr(pt.empty(n, dtype=dt).normal_(mean, std))
            b = torch.empty(n, dtype=tdt).normal_(mean, std).numpy()
            np.testing.assert_array_equal(a, b)


def test_state_moves_between_libraries(torch):
    torch.manual_seed(77)
    torch.randn(3)                                       # leaves a spare normal in the state
    st = torch.get_rng_state()
    pt.set_rng_state(pt.tensor(st.numpy()))
    np.testing.assert_array_equal(arr(pt.randn(5)), torch.randn(5).numpy())
    np.testing.assert_array_equal(arr(pt.rand(700)), torch.rand(700).numpy())
    np.testing.assert_array_equal(arr(pt.get_rng_state()), torch.get_rng_state().numpy())
    g = torch.Generator().manual_seed(5)
    ours = pt.Generator().set_state(pt.tensor(g.get_state().numpy()))
    np.testing.assert_array_equal(arr(pt.randint(0, 9, (10,), generator=ours)),
                                  torch.randint(0, 9, (10,), generator=g).numpy())
    assert ours.initial_seed() == g.initial_seed() == 5
    tg = torch.Generator()
    tg.set_state(torch.from_numpy(arr(pt.Generator().manual_seed(12).get_state()).copy()))
    np.testing.assert_array_equal(torch.rand(4, generator=tg).numpy(),
                                  arr(pt.rand(4, generator=pt.Generator().manual_seed(12))))


def test_fresh_generator_matches_pytorch(torch):
    np.testing.assert_array_equal(arr(pt.rand(5, generator=pt.Generator())),
                                  torch.rand(5, generator=torch.Generator()).numpy())


# ====================================================================== big tensors (made in pieces)

BIG = 1_000_003          # > 10**6, not a multiple of 16 (normal_'s redrawn tail) nor of the piece size

BIG_EXACT = {
    "rand": lambda T: T.rand(BIG),
    "rand float64": lambda T: T.rand(BIG, dtype=T.float64),
    "randn": lambda T: T.randn(BIG),
    "normal_ mean std": lambda T: T.empty(BIG).normal_(0.5, 0.01),
    "normal_ std 1": lambda T: T.empty(1000, 1024).normal_(-2.0, 1.0),
    "normal_ float16": lambda T: T.empty(BIG - 3, dtype=T.float16).normal_(),
    "uniform_": lambda T: T.empty(BIG).uniform_(-0.02, 0.02),
    "uniform_ float64": lambda T: T.empty(BIG, dtype=T.float64).uniform_(-3.0, 7.0),
    "uniform_ transposed": lambda T: T.empty(1001, 1000).t().uniform_(-1, 1),
    "randint": lambda T: T.randint(-50, 1000, (BIG,)),
    "randint wide": lambda T: T.randint(0, 2 ** 40, (BIG,)),
    "random_ int32": lambda T: T.empty(BIG, dtype=T.int32).random_(),
    "bernoulli_(p)": lambda T: T.empty(BIG).bernoulli_(0.3),
    "bernoulli_(tensor p)": lambda T: T.empty(BIG).bernoulli_(T.full((BIG,), 0.7)),
    "exponential_": lambda T: T.empty(BIG).exponential_(2.0),
}


@pytest.mark.parametrize("name", list(BIG_EXACT))
def test_big_tensors_match_pytorch_and_leave_its_state(torch, name):
    torch.manual_seed(3)
    pt.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = BIG_EXACT[name](torch)
        ours = BIG_EXACT[name](pt)
    if theirs.dtype == torch.float16:
        theirs, ours = theirs.float(), ours.float()
    assert _same(ours, theirs), name
    # the generator has moved exactly as far as PyTorch's
    np.testing.assert_array_equal(arr(pt.rand(3)), torch.rand(3).numpy())
    np.testing.assert_array_equal(arr(pt.get_rng_state()), torch.get_rng_state().numpy())


def test_big_normal_with_own_generator_and_state_round_trip(torch):
    g, tg = pt.Generator().manual_seed(11), torch.Generator().manual_seed(11)
    st = g.get_state()
    a = arr(pt.empty(1 << 20).normal_(generator=g))
    np.testing.assert_array_equal(a, torch.empty(1 << 20).normal_(generator=tg).numpy())
    np.testing.assert_array_equal(arr(pt.randn(5, generator=g)), torch.randn(5, generator=tg).numpy())
    g.set_state(st)                                      # replaying from a saved state gives the same numbers
    np.testing.assert_array_equal(arr(pt.empty(1 << 20).normal_(generator=g)), a)
