"""pedatorch.fft (and torch.stft/istft) against PyTorch: values, dtypes, shapes, strides, grad_fn chains,
gradients and errors; and against finite differences (gradcheck / gradgradcheck, independent of torch)."""
import warnings

import numpy as np
import pytest

import pedatorch as pt
import pedatorch.fft  # noqa: F401  (the import form under test)
from pedatorch.autograd import gradcheck, gradgradcheck

ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_DIM = ["fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn", "hfft2", "ihfft2", "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


def chain(y):
    """The grad_fn graph below y as nested names: FftR2CBackward0(ConstantPadNdBackward0(AccumulateGrad))."""
    def walk(g):
        if g is None:
            return ""
        below = [walk(n) for n, _ in g.next_functions if n is not None]
        return type(g).__name__ + ("(" + ",".join(below) + ")" if below else "")
    return walk(y.grad_fn)


def _values(t):
    t = t.detach()
    if not t.is_complex():
        return t.double().numpy()   # (torch has no numpy() for bfloat16)
    return t.resolve_conj().numpy()


def _array(rng, shape, dtype):
    if dtype == "int64":
        return rng.integers(-5, 5, shape)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _run(lib, fn, arrays, grad):
    xs = [lib.tensor(a, requires_grad=grad and a.dtype.kind in "fc") for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(lib, *xs), xs
        except Exception as e:   # noqa: BLE001 (the class and message are compared)
            return (type(e).__name__, str(e)), xs


def check_same(torch, fn, arrays, grad=True, strides=True, seed=0):
    """fn(pedatorch, *tensors) and fn(torch, *tensors) agree: the same exception class and message, or the
    same shape, dtype, values, strides, grad_fn chain, and gradients for one random output gradient."""
    (ya, xa), (yb, xb) = _run(pt, fn, arrays, grad), _run(torch, fn, arrays, grad)
    if isinstance(yb, tuple) or isinstance(ya, tuple):
        assert ya == yb
        return
    assert tuple(ya.shape) == tuple(yb.shape)
    assert str(ya.dtype) == str(yb.dtype)
    single = any(a.dtype in (np.float32, np.complex64) for a in arrays) or ya.dtype in (pt.float32, pt.complex64)
    tol = 2e-5 if single else 1e-10
    np.testing.assert_allclose(_values(ya), _values(yb), rtol=tol, atol=tol)
    if strides:
        assert ya.stride() == yb.stride()
    assert chain(ya) == chain(yb)
    if yb.requires_grad:
        rng = np.random.default_rng(seed)
        g = _array(rng, tuple(yb.shape), str(yb.dtype).split(".")[-1])
        ya.backward(pt.tensor(g))
        yb.backward(torch.tensor(g))
        for p, q in zip(xa, xb):
            if q.grad is not None:
                assert str(p.grad.dtype) == str(q.grad.dtype)
                np.testing.assert_allclose(_values(p.grad), _values(q.grad), rtol=tol, atol=tol)


# ---------------------------------------------------------------- the module

def test_import_forms():
    import importlib
    mod = importlib.import_module("pedatorch.fft")
    assert pt.fft is mod
    from pedatorch.fft import fft, rfftfreq  # noqa: F401
    assert fft is mod.fft
    # (one implementation; the namespace's is wrapped for __torch_function__)
    assert pt.stft.__wrapped__ is pt.Tensor.stft and pt.istft.__wrapped__ is pt.Tensor.istft
    assert not hasattr(pt.Tensor, "fft")   # (torch has no Tensor.fft method either)


def test_namespace_matches_torch(torch):
    public = {n for n in dir(torch.fft) if not n.startswith("_") and callable(getattr(torch.fft, n))} - {"Tensor"}
    assert public <= set(dir(pt.fft))


# ---------------------------------------------------------------- transforms against torch

ONE_DIM_KW = [{}, {"n": 3}, {"n": 9}, {"dim": 0}, {"norm": "ortho"}, {"norm": "forward"},
              {"n": 8, "norm": "forward", "dim": 0}, {"n": 1}]


@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_against_torch(torch, name):
    rng = np.random.default_rng(1)
    for shape, dtypes in [((6,), ["float32", "complex128", "int64"]), ((4, 5), ["float64", "complex64"])]:
        for dtype in dtypes:
            a = _array(rng, shape, dtype)
            for kw in ONE_DIM_KW:
                check_same(torch, lambda lib, x: getattr(lib.fft, name)(x, **kw), [a])


def _n_dim_kwargs(ndim):
    kws = [{}, {"norm": "ortho"}, {"norm": "forward"}, {"dim": (0,)}, {"s": (3,)}, {"s": (7,)}, {"dim": 0}, {"s": 4}]
    if ndim >= 2:
        kws += [{"s": (3, 8)}, {"dim": (1, 0)}, {"s": (5, -1), "dim": (1, 0)}, {"dim": (-1, 0), "norm": "ortho"}]
    if ndim >= 3:
        kws += [{"dim": (0, 2)}, {"s": (2, 3, 4)}, {"dim": (2, 0, 1), "norm": "forward"}]
    return kws


@pytest.mark.parametrize("name", N_DIM)
def test_n_dim_against_torch(torch, name):
    rng = np.random.default_rng(2)
    for shape, dtypes in [((5,), ["float64"]), ((4, 5), ["float32", "complex128"]),
                          ((3, 4, 5), ["complex64" if name not in REAL_ONLY else "float64"])]:
        for dtype in dtypes:
            a = _array(rng, shape, dtype)
            for kw in _n_dim_kwargs(len(shape)):
                check_same(torch, lambda lib, x: getattr(lib.fft, name)(x, **kw), [a])
    check_same(torch, lambda lib, x: getattr(lib.fft, name)(x), [_array(rng, (4, 5), "int64")])


@pytest.mark.parametrize("name", ["fft", "rfft", "fft2", "fftn", "rfftn", "irfftn", "hfftn", "ihfftn", "ifft2"])
def test_strides_of_permuted_input_against_torch(torch, name):
    """ATen's kernel orders the batch dims by the input's strides: a permuted input gives permuted strides."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 5))
    for real in (True, False):
        if name in REAL_ONLY and not real:
            continue
        arr = a if real else a + 1j * a

        def fn(lib, x, kw):
            return getattr(lib.fft, name)(x.permute(2, 0, 1), **kw)
        for kw in ([{}, {"dim": 0}, {"dim": 1}] if name in ONE_DIM else [{}, {"dim": (0, 2)}, {"dim": (2, 0)},
                                                                         {"dim": (1,)}]):
            check_same(torch, lambda lib, x: fn(lib, x, kw), [arr])


def test_numpy_argument_names(torch):
    a = np.arange(12.).reshape(3, 4)
    check_same(torch, lambda lib, x: lib.fft.fft(x, axis=0), [a])
    check_same(torch, lambda lib, x: lib.fft.rfftn(x, axis=(0,)), [a])
    check_same(torch, lambda lib, x: lib.fft.fftshift(x, axis=0), [a])
    check_same(torch, lambda lib, x: lib.gradient(x, axis=0)[0], [a])


def test_ifft_of_a_real_input_is_a_conjugate(torch):
    x = pt.tensor([1., 2., 3., 4.], requires_grad=True)
    assert type(pt.fft.ifft(x).grad_fn).__name__ == "ConjBackward0"
    assert type(pt.fft.ihfft(x).grad_fn).__name__ == "ConjBackward0"
    assert type(pt.fft.ihfft2(x.view(2, 2)).grad_fn).__name__ == "FftC2CBackward0"


def test_round_trips():
    rng = np.random.default_rng(4)
    x = pt.tensor(rng.standard_normal((4, 6)))
    z = pt.tensor(rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6)))
    for norm in (None, "backward", "ortho", "forward"):
        np.testing.assert_allclose(pt.fft.ifft(pt.fft.fft(z, norm=norm), norm=norm).numpy(), z.numpy(), atol=1e-12)
        np.testing.assert_allclose(pt.fft.irfft(pt.fft.rfft(x, norm=norm), n=6, norm=norm).numpy(), x.numpy(),
                                   atol=1e-12)
        np.testing.assert_allclose(pt.fft.hfft(pt.fft.ihfft(x, norm=norm), n=6, norm=norm).numpy(), x.numpy(),
                                   atol=1e-12)
        np.testing.assert_allclose(pt.fft.irfftn(pt.fft.rfftn(x, norm=norm), s=x.shape, norm=norm).numpy(),
                                   x.numpy(), atol=1e-12)
        np.testing.assert_allclose(pt.fft.hfftn(pt.fft.ihfftn(x, norm=norm), s=x.shape, norm=norm).numpy(),
                                   x.numpy(), atol=1e-12)
    # ortho: the transform keeps the norm (Parseval)
    assert abs(pt.fft.fftn(z, norm="ortho").abs().pow(2).sum().item() - z.abs().pow(2).sum().item()) < 1e-10


def test_agrees_with_numpy():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 8))
    np.testing.assert_allclose(pt.fft.fft(pt.tensor(a)).numpy(), np.fft.fft(a), atol=1e-12)
    np.testing.assert_allclose(pt.fft.rfft2(pt.tensor(a)).numpy(), np.fft.rfft2(a), atol=1e-12)
    np.testing.assert_allclose(pt.fft.hfft(pt.tensor(a + 1j)).numpy(), np.fft.hfft(a + 1j), atol=1e-12)


# ---------------------------------------------------------------- dtypes and errors against torch

ERROR_CASES = {
    "norm": lambda L, x, z: L.fft.fft(x, norm="bad"),
    "norm n-dim": lambda L, x, z: L.fft.rfftn(x, norm="xx"),
    "n 0": lambda L, x, z: L.fft.fft(x, n=0),
    "n -1": lambda L, x, z: L.fft.rfft(x, n=-1),
    "irfft n 0": lambda L, x, z: L.fft.irfft(z, n=0),
    "irfft of length 1": lambda L, x, z: L.fft.irfft(z[:, :1]),
    "hfft of length 1": lambda L, x, z: L.fft.hfft(z[:, :1]),
    "dim": lambda L, x, z: L.fft.fft(x, dim=2),
    "dim -3": lambda L, x, z: L.fft.ifft(z, dim=-3),
    "dims": lambda L, x, z: L.fft.fftn(x, dim=(0, 2)),
    "repeated dims": lambda L, x, z: L.fft.fftn(x, dim=(1, -1)),
    "s and dim lengths": lambda L, x, z: L.fft.fftn(x, s=(3,), dim=(0, 1)),
    "s too long": lambda L, x, z: L.fft.ifftn(x, s=(3, 3, 3)),
    "s 0": lambda L, x, z: L.fft.fftn(x, s=(0, 3)),
    "s -2": lambda L, x, z: L.fft.fftn(x, s=(-2, 3)),
    "irfftn s 0": lambda L, x, z: L.fft.irfftn(z, s=(3, 0)),
    "float16": lambda L, x, z: L.fft.fft(x.half()),
    "bfloat16": lambda L, x, z: L.fft.fft(x.bfloat16()),
    "float16 rfft": lambda L, x, z: L.fft.rfft(x.half()),
    "float16 irfft": lambda L, x, z: L.fft.irfft(x.half()),
    "float16 fftn": lambda L, x, z: L.fft.fftn(x.half()),
    "bfloat16 hfft2": lambda L, x, z: L.fft.hfft2(x.bfloat16()),
    "0-dim": lambda L, x, z: L.fft.fft(x[0, 0]),
    "0-dim fftn": lambda L, x, z: L.fft.fftn(x[0, 0]),
    "0-dim rfftn": lambda L, x, z: L.fft.rfftn(x[0, 0]),
    "0-dim irfftn": lambda L, x, z: L.fft.irfftn(x[0, 0]),
    "0-dim hfftn": lambda L, x, z: L.fft.hfftn(x[0, 0]),
    "0-dim ihfftn": lambda L, x, z: L.fft.ihfftn(x[0, 0]),
    "0-dim dim": lambda L, x, z: L.fft.fftn(x[0, 0], dim=(0,)),
    "empty signal": lambda L, x, z: L.fft.fft(x[:, :0]),
    "fftn no dims": lambda L, x, z: L.fft.fftn(x, dim=()),
    "rfftn no dims": lambda L, x, z: L.fft.rfftn(x, dim=()),
    "irfftn no dims": lambda L, x, z: L.fft.irfftn(z, dim=()),
    "rfft complex": lambda L, x, z: L.fft.rfft(z),
    "rfft2 complex": lambda L, x, z: L.fft.rfft2(z),
    "ihfft complex": lambda L, x, z: L.fft.ihfft(z),
    "ihfftn complex": lambda L, x, z: L.fft.ihfftn(z),
    "fft2 of 1-D": lambda L, x, z: L.fft.fft2(x[0]),
    "bool": lambda L, x, z: L.fft.fft(x > 0),
    "int rfft2": lambda L, x, z: L.fft.rfft2((x * 3).long()),
    "int irfft": lambda L, x, z: L.fft.irfft((x * 3).int()),
    "out": lambda L, x, z: L.fft.fft(x, out=z.new_empty(0)),
    "out complex128": lambda L, x, z: L.fft.fft(x, out=L.empty(0, dtype=L.complex128)),
    "out real": lambda L, x, z: L.fft.fft(x, out=x.new_empty(0)),
    "out c2c real": lambda L, x, z: L.fft.fft(z, out=x.new_empty(0)),
    "out n-dim real": lambda L, x, z: L.fft.fft2(z, out=x.new_empty(0)),
    "irfft out complex": lambda L, x, z: L.fft.irfft(z, out=z.new_empty(0)),
    "irfftn out": lambda L, x, z: L.fft.irfftn(z, out=x.new_empty(0)),
    "hfft out": lambda L, x, z: L.fft.hfft(z, out=x.new_empty(0)),
    "ihfft2 out": lambda L, x, z: L.fft.ihfft2(x, out=z.new_empty(0)),
    "rfft out": lambda L, x, z: L.fft.rfft(x, out=z.new_empty(0)),
    "ifft out": lambda L, x, z: L.fft.ifft(x, out=z.new_empty(0)),
    "ifft out complex128": lambda L, x, z: L.fft.ifft(x, out=L.empty(0, dtype=L.complex128)),
    "ihfft out complex128": lambda L, x, z: L.fft.ihfft(x, out=L.empty(0, dtype=L.complex128)),
    "n float": lambda L, x, z: L.fft.fft(x, n=3.0),
    "dim tuple": lambda L, x, z: L.fft.fft(x, dim=(0,)),
    "not a tensor": lambda L, x, z: L.fft.fft([1., 2.]),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_errors_and_dtypes_against_torch(torch, case):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    z = (rng.standard_normal((4, 6)) + 1j * rng.standard_normal((4, 6))).astype(np.complex64)
    check_same(torch, ERROR_CASES[case], [x, z], grad=False)


def test_out_refuses_grad(torch):
    for lib in (pt, torch):
        x = lib.ones(4, requires_grad=True)
        with pytest.raises(RuntimeError, match=r"^_fft_r2c\(\): functions with out=\.\.\. arguments don't support"):
            lib.fft.fft(x, out=lib.empty(0, dtype=lib.complex64))
        with pytest.raises(RuntimeError, match=r"^_fft_c2r\(\): functions with out="):
            lib.fft.irfft(x, out=lib.empty(0))
    out = pt.empty(0, dtype=pt.complex64)
    r = pt.fft.fft(pt.ones(4), out=out)
    assert r is out and out.shape == (4,) and out[0].item() == 4
    # PyTorch 2.13's ihfftn over one dim with out= passes conj_physical_out its arguments swapped (out stays
    # empty); pedatorch writes the result
    x = pt.arange(8.).reshape(2, 4)
    out = pt.empty(0, dtype=pt.complex64)
    assert pt.fft.ihfftn(x, dim=1, out=out) is out
    np.testing.assert_allclose(out.numpy(), pt.fft.ihfft(x).numpy())


# ---------------------------------------------------------------- gradients by finite differences

@pytest.mark.parametrize("name", ONE_DIM + N_DIM)
def test_gradcheck(name):
    rng = np.random.default_rng(7)
    inputs = [pt.tensor(rng.standard_normal((3, 4)), requires_grad=True)]
    if name not in REAL_ONLY:
        inputs.append(pt.tensor(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)), requires_grad=True))
    fn = getattr(pt.fft, name)
    for x in inputs:
        for kw in ({}, {"norm": "ortho"}, {"norm": "forward"}):
            assert gradcheck(lambda t: fn(t, **kw), (x,))
        for kw in ({"n": 5} if name in ONE_DIM else {"s": (2, 5)},):
            assert gradcheck(lambda t: fn(t, **kw), (x,))


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfft", "ihfft", "fft2", "irfftn", "hfftn", "ihfftn"])
def test_gradgradcheck(name):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 4))
    if name not in REAL_ONLY:
        x = x + 1j * rng.standard_normal((3, 4))
    x = pt.tensor(x, requires_grad=True)
    fn = getattr(pt.fft, name)
    assert gradgradcheck(lambda t: fn(t, norm="ortho"), (x,))
    assert gradgradcheck(lambda t: fn(t), (x,))


def test_second_order_against_torch(torch):
    """A Hessian-vector product through rfft and irfft: |rfft(x)|^2 then its gradient differentiated again."""
    rng = np.random.default_rng(9)
    a, v = rng.standard_normal(6), rng.standard_normal(6)
    results = []
    for lib in (pt, torch):
        x = lib.tensor(a, requires_grad=True)
        y = lib.fft.irfft(lib.fft.rfft(x * x) * 1j, n=6).sum() + lib.fft.rfft(x).abs().pow(2).sum()
        g, = lib.autograd.grad(y, x, create_graph=True)
        hv, = lib.autograd.grad((g * lib.tensor(v)).sum(), x)
        results.append((g.detach().numpy(), hv.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], atol=1e-10)
    np.testing.assert_allclose(results[0][1], results[1][1], atol=1e-10)


# ---------------------------------------------------------------- fftfreq, rfftfreq, fftshift, ifftshift

FREQ_CASES = {
    "fftfreq": lambda lib: lib.fft.fftfreq(5),
    "fftfreq even": lambda lib: lib.fft.fftfreq(8, d=0.1),
    "fftfreq float64": lambda lib: lib.fft.fftfreq(7, 0.3, dtype=lib.float64),
    "fftfreq float16": lambda lib: lib.fft.fftfreq(9, dtype=lib.float16),
    "fftfreq 1": lambda lib: lib.fft.fftfreq(1),
    "fftfreq 0": lambda lib: lib.fft.fftfreq(0),
    "fftfreq -1": lambda lib: lib.fft.fftfreq(-1),
    "fftfreq int": lambda lib: lib.fft.fftfreq(5, dtype=lib.int64),
    "fftfreq complex": lambda lib: lib.fft.fftfreq(5, dtype=lib.complex64),
    "fftfreq requires_grad": lambda lib: lib.fft.fftfreq(5, requires_grad=True),
    "fftfreq out": lambda lib: lib.fft.fftfreq(5, out=lib.empty(5, dtype=lib.float64)),
    "rfftfreq": lambda lib: lib.fft.rfftfreq(5),
    "rfftfreq even": lambda lib: lib.fft.rfftfreq(6, 2.0, dtype=lib.float64),
    "rfftfreq 1": lambda lib: lib.fft.rfftfreq(1),
    "rfftfreq int": lambda lib: lib.fft.rfftfreq(4, dtype=lib.int32),
    "fftshift": lambda lib: lib.fft.fftshift(lib.arange(10).reshape(2, 5)),
    "fftshift dim": lambda lib: lib.fft.fftshift(lib.arange(6).reshape(2, 3), dim=1),
    "fftshift dims": lambda lib: lib.fft.fftshift(lib.arange(24).reshape(2, 3, 4), dim=(0, -1)),
    "ifftshift": lambda lib: lib.fft.ifftshift(lib.arange(5)),
    "ifftshift 2-D": lambda lib: lib.fft.ifftshift(lib.arange(12).reshape(3, 4)),
    "round trip": lambda lib: lib.fft.ifftshift(lib.fft.fftshift(lib.arange(7))),
    "freq shift": lambda lib: lib.fft.fftshift(lib.fft.fftfreq(6)),
    "fftfreq d 0": lambda lib: lib.fft.fftfreq(4, d=0),
    "rfftfreq d 0": lambda lib: lib.fft.rfftfreq(4, d=0.0),
    "rfftfreq 0": lambda lib: lib.fft.rfftfreq(0),
    "rfftfreq -1": lambda lib: lib.fft.rfftfreq(-1),
    "rfftfreq -4": lambda lib: lib.fft.rfftfreq(-4),
    "fftfreq negative d": lambda lib: lib.fft.fftfreq(3, d=-2),
    "fftfreq bfloat16": lambda lib: lib.fft.fftfreq(4, dtype=lib.bfloat16),
    "fftfreq long": lambda lib: lib.fft.fftfreq(100001)[-3:],
    "fftfreq float n": lambda lib: lib.fft.fftfreq(3.0),
    "norm not a string": lambda lib: lib.fft.fft(lib.ones(3), norm=1),
    "fftshift no dims": lambda lib: lib.fft.fftshift(lib.arange(6), dim=()),
    "fftshift 0-dim": lambda lib: lib.fft.fftshift(lib.tensor(1.)),
    "fftshift bad dim": lambda lib: lib.fft.fftshift(lib.arange(3), dim=1),
}


@pytest.mark.parametrize("case", list(FREQ_CASES))
def test_freq_and_shift_against_torch(torch, case):
    fn = FREQ_CASES[case]
    check_same(torch, lambda lib: fn(lib), [], grad=False)
    if case == "fftfreq requires_grad":
        assert pt.fft.fftfreq(5, requires_grad=True).requires_grad


def test_fftshift_is_a_differentiable_roll(torch):
    a = np.arange(12.).reshape(3, 4)
    check_same(torch, lambda lib, x: lib.fft.fftshift(x * 1) * lib.arange(12.).reshape(3, 4), [a])
    check_same(torch, lambda lib, x: lib.fft.ifftshift(x, dim=0) * lib.arange(12.).reshape(3, 4), [a])
    x = pt.tensor(a, requires_grad=True)
    assert gradcheck(lambda t: pt.fft.fftshift(t, dim=1), (x,))


# ---------------------------------------------------------------- stft / istft

def _stft_cases():
    x1 = np.random.default_rng(10).standard_normal(40)
    x2 = np.random.default_rng(11).standard_normal((3, 40))
    xc = x1 + 1j * np.random.default_rng(12).standard_normal(40)
    w8, w6 = np.hanning(8), np.hanning(6)
    kws = [dict(return_complex=True), dict(return_complex=True, center=False), dict(return_complex=True, hop_length=3),
           dict(return_complex=True, normalized=True), dict(return_complex=True, onesided=False),
           dict(return_complex=False), dict(return_complex=True, pad_mode="constant"),
           dict(return_complex=True, pad_mode="replicate", hop_length=5), dict(return_complex=True, hop_length=0),
           dict(return_complex=True, onesided=True), dict()]
    for inp, label in ((x1, "1-D"), (x2, "2-D"), (x1.astype(np.float32), "float32"), (xc, "complex")):
        for kw in kws:
            yield f"stft {label} {kw}", (lambda lib, x, kw=kw: lib.stft(x, 8, **kw)), [inp]
            yield f"stft window {label} {kw}", (lambda lib, x, w, kw=kw: x.stft(8, window=w, **kw)), [inp, w8]
        yield f"stft short window {label}", (lambda lib, x, w: lib.stft(x, 8, win_length=6, window=w,
                                                                         return_complex=True)), [inp, w6]
        yield f"stft aligned {label}", (lambda lib, x, w: lib.stft(x, 8, hop_length=2, win_length=6, window=w,
                                                                   return_complex=True, center=False,
                                                                   align_to_window=True)), [inp, w6]
    yield "stft n_fft 0", (lambda lib, x: lib.stft(x, 0, return_complex=True)), [x1]
    yield "stft n_fft too long", (lambda lib, x: lib.stft(x, 100, return_complex=True)), [x1]
    yield "stft win_length", (lambda lib, x: lib.stft(x, 8, win_length=9, return_complex=True)), [x1]
    yield "stft window size", (lambda lib, x, w: lib.stft(x, 8, window=w, return_complex=True)), [x1, w6]
    yield "stft 3-D", (lambda lib, x: lib.stft(x, 8, return_complex=True, center=False)), [x2[None]]
    yield "stft int", (lambda lib, x: lib.stft(x.long(), 8, return_complex=True, center=False)), [x1]
    yield "stft align and center", (lambda lib, x: lib.stft(x, 8, return_complex=True, align_to_window=True)), [x1]
    yield "stft complex window", (lambda lib, x, w: lib.stft(x, 8, window=w, center=False)), [x1, w8 + 1j]

    for kw in [dict(), dict(hop_length=2), dict(win_length=6, hop_length=3), dict(center=False), dict(normalized=True),
               dict(length=30), dict(length=50), dict(onesided=False)]:
        for inp, label in ((x1, "1-D"), (x2, "2-D"), (xc, "complex")):
            def roundtrip(lib, x, w, kw=kw):
                wl = kw.get("win_length", 8)
                win = w if wl == 8 else lib.tensor(w6)
                skw = {k: v for k, v in kw.items() if k in ("hop_length", "win_length", "center", "normalized",
                                                            "onesided")}
                ikw = dict(kw)
                if x.is_complex():
                    skw["onesided"] = ikw["onesided"] = False
                    ikw["return_complex"] = True
                return lib.istft(lib.stft(x, 8, window=win, return_complex=True, **skw), 8, window=win, **ikw)
            yield f"istft {label} {kw}", roundtrip, [inp, w8]
    ones = np.ones((5, 3)) + 0j
    yield "istft of a real tensor", (lambda lib, x: lib.istft(x, 8)), [np.ones((5, 5))]
    yield "istft frequencies", (lambda lib, x: lib.istft(x, 8)), [np.ones((4, 5)) + 0j]
    yield "istft zero window", (lambda lib, x: lib.istft(x, 8, window=lib.zeros(8))), [ones]
    yield "istft empty", (lambda lib, x: lib.istft(x, 8)), [np.zeros((5, 0)) + 0j]
    yield "istft 1-D", (lambda lib, x: lib.istft(x, 8)), [np.ones(5) + 0j]
    yield "istft 4-D", (lambda lib, x: lib.istft(x, 8)), [np.ones((2, 2, 5, 3)) + 0j]
    yield "istft window shape", (lambda lib, x: lib.istft(x, 8, window=lib.ones(7))), [ones]
    yield "istft hop", (lambda lib, x: lib.istft(x, 8, hop_length=9)), [ones]
    yield "istft win_length", (lambda lib, x: lib.istft(x, 8, win_length=9)), [ones]
    yield "istft onesided", (lambda lib, x: lib.istft(x, 8, onesided=True)), [np.ones((8, 3)) + 0j]
    yield "istft complex onesided", (lambda lib, x: lib.istft(x, 8, return_complex=True)), [ones]


STFT_CASES = {label: (fn, arrays) for label, fn, arrays in _stft_cases()}


@pytest.mark.parametrize("case", list(STFT_CASES))
def test_stft_istft_against_torch(torch, case):
    fn, arrays = STFT_CASES[case]
    check_same(torch, fn, arrays)


def test_stft_istft_gradcheck():
    rng = np.random.default_rng(13)
    x = pt.tensor(rng.standard_normal(20), requires_grad=True)
    w = pt.tensor(np.hanning(8), requires_grad=True)
    assert gradcheck(lambda t, win: pt.stft(t, 8, hop_length=3, window=win, return_complex=True), (x, w))
    s = pt.stft(x.detach(), 8, hop_length=2, window=w.detach(), return_complex=True).contiguous().requires_grad_()
    assert gradcheck(lambda t: pt.istft(t, 8, hop_length=2, window=w.detach()), (s,))


def test_stft_requires_return_complex_for_real_input():
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter be given for real inputs"):
        pt.stft(pt.ones(16), 8)


# ---------------------------------------------------------------- torch.signal.windows

WINDOWS = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


@pytest.mark.parametrize("name", WINDOWS)
def test_windows_against_torch(torch, name):
    extra = {"general_cosine": {"a": [0.5, 0.3, 0.2]}}.get(name, {})
    for M in (0, 1, 2, 5, 8):
        for kw in ({}, {"sym": False}, {"dtype": "float64"}, {"requires_grad": True}, {"dtype": "float16"},
                   {"dtype": "int64"}):
            def fn(lib, kw=kw):
                k = dict(kw, **extra)
                if "dtype" in k:
                    k["dtype"] = getattr(lib, k["dtype"])
                return getattr(lib.signal.windows, name)(M, **k)
            check_same(torch, fn, [], grad=False)
    check_same(torch, lambda lib: getattr(lib.signal.windows, name)(-1, **extra), [], grad=False)


WINDOW_ARGS = {
    "exponential center": lambda lib: lib.signal.windows.exponential(7, center=2.0, tau=3.0, sym=False),
    "exponential center sym": lambda lib: lib.signal.windows.exponential(7, center=2.0),
    "exponential tau": lambda lib: lib.signal.windows.exponential(7, tau=0),
    "gaussian std": lambda lib: lib.signal.windows.gaussian(9, std=2.5, sym=False),
    "gaussian bad std": lambda lib: lib.signal.windows.gaussian(9, std=-1),
    "kaiser beta": lambda lib: lib.signal.windows.kaiser(9, beta=4.0, sym=False, dtype=lib.float64),
    "kaiser bad beta": lambda lib: lib.signal.windows.kaiser(9, beta=-1.0),
    "general_hamming alpha": lambda lib: lib.signal.windows.general_hamming(6, alpha=0.6),
    "general_cosine empty": lambda lib: lib.signal.windows.general_cosine(6, a=[]),
    "general_cosine not a list": lambda lib: lib.signal.windows.general_cosine(6, a=3),
    "hann is hann_window": lambda lib: lib.signal.windows.hann(8, sym=False) - lib.hann_window(8),
}


@pytest.mark.parametrize("case", list(WINDOW_ARGS))
def test_window_arguments_against_torch(torch, case):
    check_same(torch, WINDOW_ARGS[case], [], grad=False)


# ---------------------------------------------------------------- torch.gradient

def _gradient_cases():
    rng = np.random.default_rng(14)
    a2, a1, ai = rng.standard_normal((4, 5)), rng.standard_normal(6), rng.integers(-5, 5, (4, 5))
    x5, x4 = np.cumsum(rng.random(5) + 0.1), np.cumsum(rng.random(4) + 0.1)
    yield "1-D", a1, lambda L, x: L.gradient(x)
    yield "2-D", a2, lambda L, x: L.gradient(x)
    yield "spacing", a2, lambda L, x: L.gradient(x, spacing=2.0)
    yield "dim", a2, lambda L, x: L.gradient(x, dim=1)
    yield "dims and spacings", a2, lambda L, x: L.gradient(x, dim=[1, 0], spacing=[0.5, 3])
    yield "edge_order 2", a2, lambda L, x: L.gradient(x, edge_order=2)
    yield "coordinates", a2, lambda L, x: L.gradient(x, spacing=(L.tensor(x4), L.tensor(x5)))
    yield "coordinates edge_order 2", a2, lambda L, x: L.gradient(x, spacing=[L.tensor(x5)], dim=1, edge_order=2)
    yield "int", ai, lambda L, x: L.gradient(x)
    yield "int edge_order 2", ai, lambda L, x: L.gradient(x, edge_order=2, spacing=2)
    yield "float32", a2.astype(np.float32), lambda L, x: L.gradient(x, spacing=0.5, edge_order=2)
    yield "complex", a2 + 1j * a2, lambda L, x: L.gradient(x)
    yield "scalar spacing, dim list", a2, lambda L, x: L.gradient(x, spacing=3, dim=[0, 1])
    yield "edge_order 3", a2, lambda L, x: L.gradient(x, edge_order=3)
    yield "spacing length", a2, lambda L, x: L.gradient(x, spacing=[1., 2., 3.])
    yield "spacing and dim lengths", a2, lambda L, x: L.gradient(x, spacing=[1., 2.], dim=0)
    yield "too short", a2[:, :2], lambda L, x: L.gradient(x, edge_order=2)
    yield "dim out of range", a2, lambda L, x: L.gradient(x, dim=2)
    yield "repeated dim", a2, lambda L, x: L.gradient(x, dim=(0, 0))
    yield "uint8", ai.astype(np.uint8), lambda L, x: L.gradient(x)
    yield "2-D coordinates", a2, lambda L, x: L.gradient(x, spacing=[L.ones(2, 5)], dim=0)


GRADIENT_CASES = {label: (arr, fn) for label, arr, fn in _gradient_cases()}


@pytest.mark.parametrize("case", list(GRADIENT_CASES))
def test_gradient_against_torch(torch, case):
    arr, fn = GRADIENT_CASES[case]
    check_same(torch, lambda lib, x: lib.stack(fn(lib, x)), [arr])   # (a tuple: stacked to compare at once)
    res = [fn(lib, lib.tensor(arr, requires_grad=arr.dtype.kind in "fc")) for lib in (pt, torch)] \
        if case not in ("edge_order 3", "spacing length", "spacing and dim lengths", "too short", "dim out of range",
                        "repeated dim", "uint8", "2-D coordinates") else None
    if res:   # each tensor of the tuple: its grad_fn chain
        assert [chain(t) for t in res[0]] == [chain(t) for t in res[1]]


def test_gradient_gradcheck():
    rng = np.random.default_rng(15)
    x = pt.tensor(rng.standard_normal((4, 5)), requires_grad=True)
    c = pt.tensor(np.cumsum(rng.random(5) + 0.1), requires_grad=True)
    assert gradcheck(lambda t: pt.gradient(t, edge_order=2), (x,))
    assert gradcheck(lambda t, s: pt.gradient(t, spacing=[s], dim=1, edge_order=2), (x, c))
    assert gradgradcheck(lambda t, s: pt.gradient(t, spacing=[s], dim=1), (x, c))


# ---------------------------------------------------------------- devices

def test_on_each_device(device):
    """Every family on the CPU and on CUDA (a GPU, or the stand-in backend): same values, the result and
    the gradient on the input's device."""
    rng = np.random.default_rng(16)
    a = rng.standard_normal((4, 6))
    names = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "rfftn", "irfftn", "hfftn", "ihfftn",
             "fftshift"]
    for name in names:
        outs = []
        for dev in ("cpu", device):
            x = pt.tensor(a, device=dev, requires_grad=True)
            y = getattr(pt.fft, name)(x)
            assert y.device.type == dev
            (y.abs() if y.is_complex() else y).sum().backward()
            assert x.grad.device.type == dev
            outs.append((y.detach().cpu().numpy(), x.grad.cpu().numpy()))
        np.testing.assert_allclose(outs[0][0], outs[1][0], atol=1e-10)
        np.testing.assert_allclose(outs[0][1], outs[1][1], atol=1e-10)
    assert pt.fft.fftfreq(5, device=device).device.type == device
    w = pt.hann_window(8, dtype=pt.float64, device=device)
    x = pt.tensor(a[0].repeat(4), device=device)
    s = pt.stft(x, 8, hop_length=2, window=w, return_complex=True)
    assert s.device.type == device
    np.testing.assert_allclose(pt.istft(s, 8, hop_length=2, window=w).cpu().numpy(), x.cpu().numpy(), atol=1e-10)
    assert pt.signal.windows.kaiser(5, device=device).device.type == device
    assert all(g.device.type == device for g in pt.gradient(pt.tensor(a, device=device)))


def test_autocast_on_the_cpu_against_torch(torch):
    """PyTorch's CPU autocast runs fft_fft ... fft_ihfft and stft in float32 (not hfft2/ihfft2/hfftn/ihfftn)."""
    rng = np.random.default_rng(17)
    a = rng.standard_normal((4, 8)).astype(np.float32)
    for name in ONE_DIM + N_DIM + ["fftshift"]:
        def fn(lib, x):
            with lib.autocast("cpu", dtype=lib.bfloat16):
                return getattr(lib.fft, name)(x.bfloat16())
        check_same(torch, fn, [a], grad=False)

    def spectrogram(lib, x):
        with lib.autocast("cpu", dtype=lib.float16):
            return lib.stft(x[0].half(), 4, window=lib.ones(4), return_complex=True)
    check_same(torch, spectrogram, [a])


def test_integers_compute_in_the_default_dtype(torch):
    for lib in (pt, torch):
        old = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            got = (lib.fft.fft(lib.arange(4)).dtype, lib.fft.irfft(lib.arange(4)).dtype,
                   lib.fft.fftfreq(4).dtype, lib.signal.windows.hann(4).dtype)
        finally:
            lib.set_default_dtype(old)
        assert [str(d).split(".")[-1] for d in got] == ["complex128", "float64", "float64", "float64"]
