"""Random numbers on every device: CUDA tensors draw on their device, from the device's own generator
(``pedatorch.cuda._generator``: cupy's ``default_rng``; the stand-in's numpy Generator in CI), seeded by
``pedatorch.cuda.manual_seed`` and by ``pedatorch.manual_seed``; the CPU's mt19937 stream is untouched by
them. Checked here: device, dtype and shape of every sampler, reproducibility under the seeds, the CPU stream,
and statistics (the distributions are right, even though the numbers differ from the CPU's)."""
import math

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.backend import backend_of, to_host


def _on(t, device):
    """``t`` is a tensor on ``device`` whose values are held by that device's backend."""
    assert t.device.type == device, t.device
    assert backend_of(t._data).device_type == device
    return True


def _np(t):
    return np.asarray(to_host(t.detach()._data))


@pytest.fixture
def no_cpu_draws(device, monkeypatch):
    """On CUDA, the CPU generator must not be drawn from (the numbers are made on the device)."""
    if device == "cuda":
        def refuse(*args, **kwargs):
            raise AssertionError("a CUDA random op drew from the CPU generator")
        for name in ("_random", "_random64", "_normal_doubles", "_double_stream"):
            monkeypatch.setattr(pt.default_generator, name, refuse)


# ---------------------------------------------------------------- factories and in-place fills

FACTORIES = {
    "rand": lambda d, dt: pt.rand(3, 5, device=d, dtype=dt),
    "randn": lambda d, dt: pt.randn(3, 5, device=d, dtype=dt),
    "normal": lambda d, dt: pt.normal(2.0, 3.0, (3, 5), device=d, dtype=dt),
    "rand_like": lambda d, dt: pt.rand_like(pt.zeros(3, 5, device=d, dtype=dt)),
    "randn_like": lambda d, dt: pt.randn_like(pt.zeros(3, 5, device=d, dtype=dt)),
    "uniform_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).uniform_(-2, 5),
    "normal_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).normal_(1, 2),
    "exponential_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).exponential_(2.0),
    "log_normal_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).log_normal_(0.0, 0.5),
    "cauchy_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).cauchy_(),
    "geometric_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).geometric_(0.3),
    "bernoulli_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).bernoulli_(0.3),
    "random_": lambda d, dt: pt.empty(3, 5, device=d, dtype=dt).random_(0, 10),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_float_samplers_device_dtype_shape(device, name, dtype, no_cpu_draws):
    dt = getattr(pt, dtype)
    t = FACTORIES[name](device, dt)
    assert _on(t, device) and t.dtype == dt and t.shape == (3, 5)
    assert np.isfinite(_np(t)).all() or name == "cauchy_"


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float32"])
def test_integer_samplers(device, dtype, no_cpu_draws):
    dt = getattr(pt, dtype)
    hi = 2 if dtype == "bool" else 7
    t = pt.randint(0, hi, (400,), device=device, dtype=dt)
    assert _on(t, device) and t.dtype == dt and t.shape == (400,)
    v = _np(t).astype(np.int64)
    assert v.min() == 0 and v.max() == hi - 1
    t = pt.randint(-3, 4, (400,), device=device) if dtype != "uint8" and dtype != "bool" else t
    assert set(np.unique(_np(t)).tolist()) <= set(range(-3, 7))
    r = pt.empty(300, dtype=dt, device=device).random_()
    assert _on(r, device) and _np(r).min() >= 0
    w = pt.empty(200, dtype=pt.int64, device=device).random_(-2 ** 63, None)     # the full 64-bit range
    assert _on(w, device) and (_np(w) < 0).any() and (_np(w) > 0).any()


def test_ranges_wider_than_int64(device):
    # [-2**63, 2**62): a range of 1.5 * 2**63 values, wider than an int64 can say
    w = _np(pt.empty(20000, dtype=pt.int64, device=device).random_(-2 ** 63, 2 ** 62))
    assert w.max() < 2 ** 62 and w.min() < -2 ** 62
    if device == "cuda":       # (PyTorch's CPU kernel takes random64() % range, biased here: pedatorch's CPU too)
        assert abs((w >= 0).mean() - 1 / 3) < 0.02


def test_randint_like_and_randperm(device, no_cpu_draws):
    t = pt.randint_like(pt.zeros(4, 6, device=device), 3, 9)
    assert _on(t, device) and t.dtype == pt.float32 and t.shape == (4, 6)
    assert ((_np(t) >= 3) & (_np(t) < 9)).all()
    for n, dt in ((0, pt.int64), (1, pt.int64), (50, pt.int64), (20, pt.int32), (10, pt.float32)):
        p = pt.randperm(n, device=device, dtype=dt)
        assert _on(p, device) and p.dtype == dt and p.shape == (n,)
        assert sorted(_np(p).astype(np.int64).tolist()) == list(range(n))


def test_complex_and_half(device, no_cpu_draws):
    c = pt.randn(2000, dtype=pt.complex64, device=device)
    assert _on(c, device) and c.dtype == pt.complex64
    v = _np(c)
    assert abs(v.real.var() - 0.5) < 0.08 and abs(v.imag.var() - 0.5) < 0.08     # E|z|^2 = 1, split in two
    h = pt.rand(1000, dtype=pt.float16, device=device)
    assert _on(h, device) and h.dtype == pt.float16 and (_np(h) < 1).all() and (_np(h) >= 0).all()


# ---------------------------------------------------------------- tensor-argument samplers

def test_bernoulli_multinomial_poisson(device, no_cpu_draws):
    p = pt.tensor([0.1, 0.5, 0.9], device=device).expand(4000, 3).contiguous()
    b = pt.bernoulli(p)
    assert _on(b, device) and b.dtype == pt.float32 and b.shape == (4000, 3)
    np.testing.assert_allclose(_np(b).mean(0), [0.1, 0.5, 0.9], atol=0.04)
    b2 = pt.bernoulli(p, 0.25)
    assert _on(b2, device) and abs(_np(b2).mean() - 0.25) < 0.03
    x = pt.zeros(4000, 3, device=device).bernoulli_(pt.tensor([0.2, 0.6, 1.0], device=device))
    np.testing.assert_allclose(_np(x).mean(0), [0.2, 0.6, 1.0], atol=0.04)

    w = pt.tensor([[1.0, 2.0, 7.0, 0.0], [0.0, 0.0, 1.0, 1.0]], device=device)
    m = pt.multinomial(w, 5000, replacement=True)
    assert _on(m, device) and m.dtype == pt.int64 and m.shape == (2, 5000)
    np.testing.assert_allclose(np.bincount(_np(m)[0], minlength=4) / 5000, [0.1, 0.2, 0.7, 0.0], atol=0.03)
    np.testing.assert_allclose(np.bincount(_np(m)[1], minlength=4) / 5000, [0.0, 0.0, 0.5, 0.5], atol=0.03)
    m = pt.multinomial(w, 2)                                # without replacement: distinct, non-zero weights
    assert _on(m, device) and m.shape == (2, 2)
    rows = _np(m)
    assert all(len(set(r)) == 2 for r in rows) and set(rows[1]) == {2, 3}
    m1 = pt.multinomial(w[0], 1)
    assert _on(m1, device) and m1.shape == (1,) and int(_np(m1)[0]) in (0, 1, 2)
    first = np.bincount(_np(pt.multinomial(w[0].expand(3000, 4).contiguous(), 1))[:, 0], minlength=4) / 3000
    np.testing.assert_allclose(first, [0.1, 0.2, 0.7, 0.0], atol=0.03)
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        pt.multinomial(pt.zeros(3, device=device), 1)
    with pytest.raises(RuntimeError, match="inf"):
        pt.multinomial(pt.tensor([1.0, -1.0], device=device), 1)
    with pytest.raises(RuntimeError, match="entry < 0"):
        pt.multinomial(pt.tensor([1.0, -1.0], device=device), 3, True)
    with pytest.raises(RuntimeError, match="infinity or NaN"):
        pt.multinomial(pt.tensor([1.0, np.inf], device=device), 3, True)
    with pytest.raises(RuntimeError, match="entry < 0"):   # (PyTorch tests p >= 0 first: NaN fails it)
        pt.multinomial(pt.tensor([1.0, np.nan], device=device), 3, True)

    rate = pt.tensor([0.0, 1.0, 4.0, 30.0], device=device).expand(3000, 4).contiguous()
    k = pt.poisson(rate)
    assert _on(k, device) and k.dtype == pt.float32 and k.shape == (3000, 4)
    np.testing.assert_allclose(_np(k).mean(0), [0.0, 1.0, 4.0, 30.0], rtol=0.05, atol=0.05)
    with pytest.raises(RuntimeError, match="non-negative"):
        pt.poisson(pt.tensor([-1.0], device=device))


def test_normal_overloads_and_gradients(device, no_cpu_draws):
    mean = pt.full((2000,), 3.0, device=device, requires_grad=True)
    std = pt.full((2000,), 0.5, device=device, requires_grad=True)
    for out in (pt.normal(mean, std), pt.normal(mean, 0.5), pt.normal(3.0, std)):
        assert _on(out, device) and out.shape == (2000,)
        v = _np(out)
        assert abs(v.mean() - 3.0) < 0.05 and abs(v.std() - 0.5) < 0.05
        out.sum().backward()
    for g in (mean.grad, std.grad):
        assert _on(g, device) and (_np(g) == 0).all()
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        pt.normal(mean.detach(), -pt.ones(2000, device=device))

    p = pt.full((50,), 0.5, device=device, requires_grad=True)
    b = pt.bernoulli(p)
    assert _on(b, device)
    b.sum().backward()
    assert _on(p.grad, device) and (_np(p.grad) == 0).all()


def test_dropout_on_the_device(device, no_cpu_draws):
    x = pt.ones(4000, device=device, requires_grad=True)
    y = pt.nn.functional.dropout(x, 0.25, training=True)
    assert _on(y, device)
    v = _np(y)
    assert set(np.unique(v).tolist()) <= {0.0, float(np.float32(1 / 0.75))} and abs((v == 0).mean() - 0.25) < 0.03
    y.sum().backward()
    assert _on(x.grad, device)
    np.testing.assert_allclose(_np(x.grad), v)


# ---------------------------------------------------------------- statistics

def test_statistics(device):
    n = 20000
    u = _np(pt.empty(n, device=device).uniform_(2, 4))
    assert (u >= 2).all() and (u < 4).all() and abs(u.mean() - 3) < 0.02 and abs(u.var() - 4 / 12) < 0.02
    z = _np(pt.randn(n, device=device, dtype=pt.float64))
    assert abs(z.mean()) < 0.03 and abs(z.std() - 1) < 0.03
    e = _np(pt.empty(n, device=device).exponential_(2.0))
    assert (e >= 0).all() and abs(e.mean() - 0.5) < 0.02
    g = _np(pt.empty(n, device=device).geometric_(0.25))
    assert g.min() >= 1 and abs(g.mean() - 4) < 0.15
    ln = _np(pt.empty(n, device=device).log_normal_(0.0, 0.5))
    assert abs(np.log(ln).mean()) < 0.02 and abs(np.log(ln).std() - 0.5) < 0.02
    c = _np(pt.empty(n, device=device).cauchy_(1.0, 2.0))
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.percentile(c, 75) - 3.0) < 0.2
    r = _np(pt.randint(3, 13, (n,), device=device))
    np.testing.assert_allclose(np.bincount(r - 3, minlength=10) / n, np.full(10, 0.1), atol=0.01)


# ---------------------------------------------------------------- seeds and generators

@pytest.mark.parametrize("make", ["rand", "randn", "randint", "randperm", "normal_", "bernoulli_", "multinomial"])
def test_manual_seed_reproduces(device, make):
    f = {"rand": lambda: pt.rand(6, device=device),
         "randn": lambda: pt.randn(6, device=device),
         "randint": lambda: pt.randint(0, 1000, (6,), device=device),
         "randperm": lambda: pt.randperm(30, device=device),
         "normal_": lambda: pt.empty(6, device=device).normal_(),
         "bernoulli_": lambda: pt.empty(40, device=device).bernoulli_(0.5),
         "multinomial": lambda: pt.multinomial(pt.ones(20, device=device), 10)}[make]
    pt.manual_seed(123)
    a, b = _np(f()), _np(f())
    pt.manual_seed(123)
    c, d = _np(f()), _np(f())
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(b, d)
    assert not np.array_equal(a, b)
    pt.manual_seed(124)
    assert not np.array_equal(_np(f()), a)


def test_cuda_seeds(device):
    if device == "cpu":
        return
    pt.cuda.manual_seed(5)
    a = _np(pt.rand(8, device="cuda"))
    pt.cuda.manual_seed_all(5)
    b = _np(pt.rand(8, device="cuda"))
    np.testing.assert_array_equal(a, b)
    assert pt.cuda.initial_seed() == 5
    pt.manual_seed(6)                                   # seeds CUDA too, as PyTorch's
    assert pt.cuda.initial_seed() == 6
    c = _np(pt.rand(8, device="cuda"))
    pt.cuda.manual_seed(6)
    np.testing.assert_array_equal(_np(pt.rand(8, device="cuda")), c)


def test_cpu_stream_is_untouched_by_cuda_draws(device):
    pt.manual_seed(0)
    a = pt.rand(5).numpy().copy()
    n = pt.randn(20).numpy().copy()
    pt.manual_seed(0)
    state = pt.get_rng_state()
    for _ in range(3):
        pt.randn(7, device=device) if device == "cuda" else None
        pt.empty(4, device=device).uniform_() if device == "cuda" else None
    assert (pt.get_rng_state().numpy() == state.numpy()).all()
    np.testing.assert_array_equal(pt.rand(5).numpy(), a)
    np.testing.assert_array_equal(pt.randn(20).numpy(), n)


def test_cpu_stream_matches_pytorch(torch):
    torch.manual_seed(42)
    pt.manual_seed(42)
    np.testing.assert_array_equal(pt.rand(33).numpy(), torch.rand(33).numpy())
    np.testing.assert_array_equal(pt.randn(37).numpy(), torch.randn(37).numpy())
    np.testing.assert_array_equal(pt.randperm(20).numpy(), torch.randperm(20).numpy())
    np.testing.assert_array_equal(pt.randint(0, 9, (11,)).numpy(), torch.randint(0, 9, (11,)).numpy())


def test_device_generator_objects(device):
    if device == "cpu":
        g = pt.Generator()
        assert g.device.type == "cpu"
        return
    g = pt.Generator(device="cuda")
    assert g.device.type == "cuda" and g.device.index == 0
    g.manual_seed(9)
    assert g.initial_seed() == 9
    a = _np(pt.rand(6, device="cuda", generator=g))
    pt.manual_seed(9)                                  # the default generators do not touch g
    g.manual_seed(9)
    pt.rand(6, device="cuda")
    np.testing.assert_array_equal(_np(pt.rand(6, device="cuda", generator=g)), a)
    g.manual_seed(9)
    np.testing.assert_array_equal(_np(pt.empty(6, device="cuda").uniform_(generator=g)), a)
    assert _on(pt.randperm(5, device="cuda", generator=g), "cuda")
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"):
        pt.rand(2, generator=g)
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
        pt.rand(2, device="cuda", generator=pt.Generator())
    state = g.get_state()
    assert state.dtype == pt.uint8 and state.device.type == "cpu"
    a = _np(pt.randn(7, device="cuda", generator=g))
    g.set_state(state)
    np.testing.assert_array_equal(_np(pt.randn(7, device="cuda", generator=g)), a)
    import pickle
    g.set_state(state)
    g2 = pickle.loads(pickle.dumps(g))
    assert g2.device == g.device and g2.initial_seed() == 9
    np.testing.assert_array_equal(_np(pt.randn(7, device="cuda", generator=g2)), a)


def test_cuda_rng_state_round_trip(device):
    if device == "cpu":
        return
    pt.manual_seed(3)
    pt.rand(5, device="cuda")
    state = pt.cuda.get_rng_state()
    assert state.dtype == pt.uint8 and state.device.type == "cpu"
    a = _np(pt.rand(9, device="cuda"))
    pt.cuda.set_rng_state(state)
    np.testing.assert_array_equal(_np(pt.rand(9, device="cuda")), a)
    states = pt.cuda.get_rng_state_all()
    b = _np(pt.randn(4, device="cuda"))
    pt.cuda.set_rng_state_all(states)
    np.testing.assert_array_equal(_np(pt.randn(4, device="cuda")), b)
    with pytest.raises(RuntimeError, match="wrong size"):
        pt.cuda.set_rng_state(pt.zeros(3, dtype=pt.uint8))


def test_refusal_applies_on_the_device(device):
    from pedatorch._random import refusing
    with refusing("no randomness here"):
        with pytest.raises(RuntimeError, match="no randomness here"):
            pt.rand(2, device=device)
        with pytest.raises(RuntimeError, match="no randomness here"):
            pt.zeros(2, device=device).normal_()


# ---------------------------------------------------------------- distributions, nn.init, data

def test_distributions_sample_on_the_device(device, no_cpu_draws):
    D = pt.distributions
    loc = pt.zeros(3, device=device)
    one = pt.ones(3, device=device)
    dists = [D.Normal(loc, one), D.Uniform(loc, one), D.Bernoulli(probs=one * 0.3),
             D.Categorical(probs=pt.tensor([0.2, 0.8], device=device)),
             D.Gamma(one * 2, one), D.Beta(one, one * 2), D.Dirichlet(one), D.LogNormal(loc, one),
             D.Gumbel(loc, one), D.RelaxedBernoulli(pt.tensor(0.5, device=device), probs=one * 0.3),
             D.Multinomial(10, probs=one / 3),
             D.MultivariateNormal(loc, pt.eye(3, device=device) * 2),
             D.RelaxedOneHotCategorical(pt.tensor(0.5, device=device), probs=one / 3),
             D.LogisticNormal(pt.zeros(2, device=device), pt.ones(2, device=device)),
             D.Independent(D.Normal(pt.zeros(2, 3, device=device), pt.ones(2, 3, device=device)), 1)]
    for d in dists:
        s = d.sample((4,))
        assert _on(s, device), type(d).__name__
        assert s.shape == (4,) + d.batch_shape + d.event_shape
        assert _on(d.log_prob(s), device)


def test_gamma_rsample_statistics_and_gradient(device):
    conc = pt.tensor([0.5, 2.0, 9.0], device=device, requires_grad=True)
    s = pt.distributions.Gamma(conc, pt.ones(3, device=device)).rsample((4000,))
    assert _on(s, device) and (_np(s) > 0).all()
    np.testing.assert_allclose(_np(s).mean(0), [0.5, 2.0, 9.0], rtol=0.06)
    s.sum().backward()
    assert _on(conc.grad, device)
    np.testing.assert_allclose(_np(conc.grad), [4000] * 3, rtol=0.08)   # d E[x] / d alpha = 1 per sample
    # the implicit gradient is the same function on every device
    from pedatorch.distributions.gamma import _standard_gamma_grad
    a, x = np.array([0.5, 2.0, 30.0, 2e4]), np.array([0.3, 1.5, 31.0, 2.01e4])
    dev = pt.tensor(a, device=device)._data, pt.tensor(x, device=device)._data
    np.testing.assert_allclose(to_host(_standard_gamma_grad(*dev)), _standard_gamma_grad(a, x), rtol=1e-12)


def test_dirichlet_on_the_device(device):
    d = pt.distributions.Dirichlet(pt.tensor([1.0, 2.0, 3.0], device=device))
    s = d.sample((3000,))
    assert _on(s, device)
    np.testing.assert_allclose(_np(s).sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(_np(s).mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.02)


@pytest.mark.parametrize("init", ["uniform_", "normal_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
                                  "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_", "zeros_", "ones_",
                                  "constant_", "eye_", "dirac_"])
def test_nn_init_on_the_device(device, init, no_cpu_draws):
    f = getattr(pt.nn.init, init)
    shape = (4, 6, 3) if init == "dirac_" else (40, 60)
    w = pt.empty(*shape, device=device)
    args = {"constant_": (0.3,), "sparse_": (0.5,)}.get(init, ())
    with pt.no_grad():
        out = f(w, *args)
    assert out is w and _on(w, device) and w.shape == shape and np.isfinite(_np(w)).all()
    if init == "trunc_normal_":
        assert (_np(w) >= -2).all() and (_np(w) <= 2).all()
    if init == "orthogonal_":
        q = _np(w)
        np.testing.assert_allclose(q @ q.T, np.eye(40), atol=1e-4)


def test_dataloader_with_device_tensors(device):
    from pedatorch.utils.data import DataLoader, TensorDataset
    x = pt.arange(20.0, device=device).reshape(10, 2)
    y = pt.arange(10, device=device)
    pt.manual_seed(0)
    loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True, pin_memory=True)
    seen = []
    for xb, yb in loader:
        assert _on(xb, device) and _on(yb, device) and xb.shape[1] == 2
        np.testing.assert_array_equal(_np(xb)[:, 0], _np(yb) * 2.0)
        seen += _np(yb).tolist()
    assert sorted(seen) == list(range(10))
    # host batches moved with .to(device, non_blocking=True), the usual training loop
    for xb, yb in DataLoader(TensorDataset(pt.randn(6, 3), pt.arange(6)), batch_size=3, pin_memory=True):
        xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        assert _on(xb, device) and _on(yb, device)


def test_beta_rsample_gradient_on_the_device(device):
    a = pt.tensor([2.0, 5.0], device=device, requires_grad=True)
    b = pt.tensor([3.0, 1.0], device=device, requires_grad=True)
    s = pt.distributions.Beta(a, b).rsample((3000,))
    assert _on(s, device) and ((_np(s) > 0) & (_np(s) < 1)).all()
    np.testing.assert_allclose(_np(s).mean(0), [0.4, 5 / 6], atol=0.02)
    s.mean(0).sum().backward()
    assert _on(a.grad, device) and _on(b.grad, device)
    # d E[x] / d a = b / (a + b)^2, d E[x] / d b = -a / (a + b)^2
    np.testing.assert_allclose(_np(a.grad), [3 / 25, 1 / 36], atol=0.02)
    np.testing.assert_allclose(_np(b.grad), [-2 / 25, -5 / 36], atol=0.02)


def test_manual_seed_is_lazy_about_cuda():
    """pedatorch.manual_seed seeds CUDA too, without importing cupy or touching a driver (as PyTorch's)."""
    import subprocess
    import sys
    code = ("import sys, pedatorch; pedatorch.manual_seed(1); pedatorch.seed(); pedatorch.rand(3); "
            "print('cupy' in sys.modules, pedatorch.backend._cuda is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]
