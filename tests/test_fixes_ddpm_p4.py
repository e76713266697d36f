"""Fixes found while writing compat/56_ddpm_tiny.py (GroupNorm, interpolate, adaptive average pooling,
CrossMapLRN2d); each compared with PyTorch."""
import numpy as np
import pytest

import pedatorch
from conftest import error_of

torch = pytest.importorskip("torch")

LIBS = [pedatorch, torch]
DTYPES = ["float32", "float64", "float16", "bfloat16"]

_err = error_of


def _same(a, b, rtol=1e-5, atol=1e-6):
    """pedatorch tensor ``a`` and torch tensor ``b``: same shape, dtype, strides and values."""
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert a.stride() == b.stride()
    np.testing.assert_allclose(a.detach().double().numpy(), b.detach().double().numpy(), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- GroupNorm: messages and dtype checks

def test_group_norm_module_message_names_the_numbers():
    """nn.GroupNorm(4, 6): "num_channels (6) must be divisible by num_groups (4)"."""
    assert _err(lambda: pedatorch.nn.GroupNorm(4, 6)) == _err(lambda: torch.nn.GroupNorm(4, 6))


@pytest.mark.parametrize("xd", DTYPES)
@pytest.mark.parametrize("wd", [None] + DTYPES)
@pytest.mark.parametrize("bd", [None] + DTYPES)
def test_group_norm_mixed_dtypes(xd, wd, bd):
    """Parameters of another dtype than the input's (the first one given decides) take ATen's mixed path,
    only float32 parameters of a float16/bfloat16 input; otherwise each parameter must have the input's dtype."""
    def run(lib):
        x = lib.arange(24.).reshape(2, 4, 3).to(getattr(lib, xd))
        w = None if wd is None else lib.full((4,), 2.0, dtype=getattr(lib, wd))
        b = None if bd is None else lib.full((4,), 0.5, dtype=getattr(lib, bd))
        try:
            y = lib.nn.functional.group_norm(x, 2, w, b)
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            return type(e).__name__, str(e)
        return str(y.dtype).split(".")[-1], y.float().numpy().round(2).tolist()
    assert run(pedatorch) == run(torch)


@pytest.mark.parametrize("case", [
    lambda L: L.nn.functional.group_norm(L.ones(1, 4, 1), 4),    # one value per group: the list is printed
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3), 2, None, L.ones(3)),   # bias message: weight's shape
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3), 2, L.ones(4), L.ones(2, 2)),
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3, dtype=L.long), 2, L.ones(4)),   # mixed before kernel
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3, dtype=L.long), 2, L.ones(4, dtype=L.long), L.ones(4)),
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 0), 2, L.ones(4, dtype=L.float64)),
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3, dtype=L.complex64), 2, L.ones(4)),
    lambda L: L.nn.GroupNorm(2, 4)(L.ones(2, 4, 3, dtype=L.float64)),
    lambda L: L.nn.functional.batch_norm(L.ones(1, 4), None, None, training=True),   # a torch.Size there
])
def test_group_norm_error_order_and_words(case):
    assert _err(lambda: case(pedatorch)) == _err(lambda: case(torch))


# ---------------------------------------------------------------- interpolate: layouts, mode "area"

_X5 = np.random.default_rng(0).standard_normal((2, 3, 4, 5, 6)).astype(np.float32)


def _input(lib, nd, layout, dtype="float32"):
    x = lib.tensor(_X5[(0,) * (5 - nd)]).to(getattr(lib, dtype))
    if layout == "channels_last":
        x = x.contiguous(memory_format=lib.channels_last if nd == 4 else lib.channels_last_3d)
    elif layout == "transposed":
        x = x.transpose(1, 2)
    return x


@pytest.mark.parametrize("nd,mode,kw", [
    (4, "nearest", {}), (4, "nearest-exact", {}), (4, "bilinear", {}), (4, "bicubic", {}),
    (4, "bilinear", {"antialias": True}), (5, "nearest", {}), (5, "trilinear", {}), (4, "area", {}),
    (5, "area", {}),
])
@pytest.mark.parametrize("size", [None, 1, 3])
def test_interpolate_keeps_channels_last_as_aten(nd, mode, kw, size):
    """The upsampling kernels give a channels-last input a channels-last result (nn.Upsample in a
    channels-last UNet); "area" is adaptive average pooling, whose 3-d CPU kernel gives a contiguous one."""
    def run(lib):
        x = _input(lib, nd, "channels_last").requires_grad_()
        args = {"scale_factor": 2} if size is None else {"size": size}
        y = lib.nn.functional.interpolate(x, mode=mode, **args, **kw)
        (y * y).sum().backward()
        return y, x.grad, y.grad_fn.name()
    (y, g, name), (y_t, g_t, name_t) = run(pedatorch), run(torch)
    _same(y, y_t)
    _same(g, g_t)
    assert name == name_t


def test_upsample_module_in_channels_last():
    def run(lib):
        x = _input(lib, 4, "channels_last", "uint8")
        y = lib.nn.Upsample(scale_factor=2, mode="nearest")(x)
        return y.is_contiguous(memory_format=lib.channels_last), y.stride()
    assert run(pedatorch) == run(torch)


@pytest.mark.parametrize("nd", [3, 4, 5])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last", "transposed"])
@pytest.mark.parametrize("size", [1, 2, 7, 0, -1])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "complex64"])
def test_interpolate_area_is_adaptive_avg_pool(nd, layout, size, dtype):
    """Mode "area" is PyTorch's adaptive_avg_pool1d/2d/3d: its mean shortcut for size 1 (complex too, an
    integer refused by mean()), its kernels' names, its checks, its layouts."""
    if nd == 3 and layout == "channels_last":
        pytest.skip("no channels-last 3-d tensor")

    def run(lib):
        x = _input(lib, nd, layout, dtype)
        try:
            y = lib.nn.functional.interpolate(x, size=size, mode="area")
        except Exception as e:  # noqa: BLE001 - the class and message are compared
            return type(e).__name__, str(e)
        fn = None if y.grad_fn is None else y.grad_fn.name()
        v = y.to(lib.complex128) if y.is_complex() else y.double()
        return tuple(y.shape), y.stride(), str(y.dtype).split(".")[-1], fn, v.numpy().round(2).tolist()
    assert run(pedatorch) == run(torch)


@pytest.mark.parametrize("case", [
    lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 0, 3, 4, 5), 2),   # the channels of a batch too
    lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(0, 3, 4, 5), 2),
    lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 3, 3, 4, 5), (-1, 2, -3)),   # "{-1, 2,-3}"
    lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(2, 0, 3, 4), 2),
    lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(2, 3, 3, 4), (-1, -2)),
    lambda L: L.nn.functional.adaptive_avg_pool2d(L.ones(2, 3, 3, 4, dtype=L.complex64), 2),
    lambda L: L.nn.functional.adaptive_avg_pool2d(
        L.ones(2, 3, 3, 4, dtype=L.int32).contiguous(memory_format=L.channels_last), 2),
    lambda L: L.nn.functional.adaptive_avg_pool3d(L.ones(2, 3, 3, 4, 5, dtype=L.complex64), 2),
])
def test_adaptive_avg_pool_checks(case):
    assert _err(lambda: case(pedatorch)) == _err(lambda: case(torch))


@pytest.mark.parametrize("nd,layout", [(3, "contiguous"), (3, "transposed"), (4, "channels_last"),
                                       (4, "transposed"), (5, "channels_last"), (5, "contiguous")])
@pytest.mark.parametrize("size", [1, 3])
def test_interpolate_area_gradcheck(nd, layout, size):
    """(gradcheck perturbs a contiguous input: the layout is made inside the function)"""
    x = _input(pedatorch, nd, "contiguous", "float64").requires_grad_()

    def area(t):
        if layout == "channels_last":
            t = t.contiguous(memory_format=pedatorch.channels_last if nd == 4 else pedatorch.channels_last_3d)
        elif layout == "transposed":
            t = t.transpose(1, 2).contiguous().transpose(1, 2)
        return pedatorch.nn.functional.interpolate(t, size=size, mode="area")
    assert pedatorch.autograd.gradcheck(area, (x,))


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_channels_last_upsampling_gradcheck(mode):
    x = _input(pedatorch, 4, "contiguous", "float64")[:1, :2].contiguous().requires_grad_()
    assert pedatorch.autograd.gradcheck(lambda t: pedatorch.nn.functional.interpolate(
        t.contiguous(memory_format=pedatorch.channels_last), scale_factor=2, mode=mode), (x,))


# ---------------------------------------------------------------- CrossMapLRN2d

@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7])
def test_cross_map_lrn2d_matches_pytorch(size):
    """The legacy layer: its running window never drops channel 0 and its backward is PyTorch's own formula
    (not the exact gradient of that forward, so no gradcheck: the gradient is compared with PyTorch's; for
    size 1 PyTorch's backward fails in narrow())."""
    def run(lib):
        x = lib.tensor(_X5[0, :, :, :2, :3].copy(), dtype=lib.float64).reshape(3, 4, 2, 3).requires_grad_()
        m = lib.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.0)
        y = m(x)
        g = _err(lambda: (y * lib.arange(4.)[:, None, None]).sum().backward())
        return repr(m), y.grad_fn.name(), y.detach(), g or x.grad
    r, r_t = run(pedatorch), run(torch)
    assert r[:2] == r_t[:2]
    _same(r[2], r_t[2], rtol=1e-12)
    if isinstance(r_t[3], tuple):
        assert r[3] == r_t[3]
    else:
        _same(r[3], r_t[3], rtol=1e-12)


@pytest.mark.parametrize("case", [
    lambda L: L.nn.CrossMapLRN2d(3)(L.ones(2, 3, 4)),
    lambda L: L.nn.CrossMapLRN2d(3)(L.ones(1, 0, 2, 2)),
    lambda L: L.nn.CrossMapLRN2d(3)(L.arange(24).reshape(1, 4, 3, 2)),
    lambda L: repr(L.nn.CrossMapLRN2d(3)),
    lambda L: L.nn.CrossMapLRN2d(3)(L.ones(0, 3, 2, 2)).shape,
])
def test_cross_map_lrn2d_edges(case):
    def run(lib):
        return _err(lambda: case(lib)) or str(case(lib)).replace("pedatorch", "torch")
    assert run(pedatorch) == run(torch)


# ---------------------------------------------------------------- pooling in float16 / bfloat16, gradient layouts

_X4 = (np.random.default_rng(1).standard_normal((2, 3, 9, 11)) * 4).astype(np.float32)

_HALF_POOLS = {
    "avg_pool2d": lambda F, x: F.avg_pool2d(x, 3, 2, 1),
    "avg_pool2d ceil": lambda F, x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "avg_pool1d": lambda F, x: F.avg_pool1d(x[0], 4, 3, 2),
    "adaptive_avg_pool2d": lambda F, x: F.adaptive_avg_pool2d(x, (4, 5)),
    "adaptive_avg_pool2d up": lambda F, x: F.adaptive_avg_pool2d(x, (13, 17)),
    "adaptive_avg_pool3d": lambda F, x: F.adaptive_avg_pool3d(x, (2, 4, 5)),
    "adaptive_avg_pool3d up": lambda F, x: F.adaptive_avg_pool3d(x, (4, 13, 17)),
    "interpolate area 3d": lambda F, x: F.interpolate(x[None], size=(2, 4, 5), mode="area"),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("name", list(_HALF_POOLS))
def test_half_pooling_rounds_as_aten(dtype, layout, name):
    """avg_pool2d sums and divides in float32 (it summed in the half type); adaptive_avg_pool2d sums in
    float32 and divides by kh then kw; adaptive_avg_pool3d works in the half type, every add rounded; their
    backwards add each output's share (divided by each window size in turn, rounded) in the order of the
    outputs, in the half type.  Bit for bit."""
    def run(lib):
        x = lib.tensor(_X4).to(getattr(lib, dtype))
        if layout == "channels_last":
            x = x.contiguous(memory_format=lib.channels_last)
        x.requires_grad_()
        y = _HALF_POOLS[name](lib.nn.functional, x)
        g = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)).astype(np.float32)).to(y.dtype)
        y.backward(g)
        return y.detach().float().numpy(), x.grad.float().numpy()
    (y, g), (y_t, g_t) = run(pedatorch), run(torch)
    np.testing.assert_array_equal(y, y_t)
    np.testing.assert_array_equal(g, g_t)


_LAYOUT_CASES = {   # name: (spatial dims, the op)
    "avg_pool2d": (2, lambda F, x: F.avg_pool2d(x, 3, 2, 1)),
    "adaptive_avg_pool2d": (2, lambda F, x: F.adaptive_avg_pool2d(x, (4, 5))),
    "max_pool2d": (2, lambda F, x: F.max_pool2d(x, 3, 1)),
    "adaptive_max_pool2d": (2, lambda F, x: F.adaptive_max_pool2d(x, (4, 5))),
    "lp_pool2d": (2, lambda F, x: F.lp_pool2d(x, 2, 2)),
    "nearest": (2, lambda F, x: F.interpolate(x, scale_factor=2)),
    "bilinear": (2, lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear")),
    "bilinear aa": (2, lambda F, x: F.interpolate(x, scale_factor=0.5, mode="bilinear", antialias=True)),
    "bicubic": (2, lambda F, x: F.interpolate(x, scale_factor=2, mode="bicubic")),
    "max_pool3d": (3, lambda F, x: F.max_pool3d(x, 2)),
    "avg_pool3d": (3, lambda F, x: F.avg_pool3d(x, 2)),
    "adaptive_avg_pool3d": (3, lambda F, x: F.adaptive_avg_pool3d(x, (2, 4, 5))),
    "nearest 3d": (3, lambda F, x: F.interpolate(x, scale_factor=2)),
    "trilinear": (3, lambda F, x: F.interpolate(x, scale_factor=2, mode="trilinear")),
}


def _channels_last_input(lib, dims, dtype="float32"):
    x = lib.tensor(_X4 if dims == 2 else _X4[None], dtype=getattr(lib, dtype))
    return x.contiguous(memory_format=lib.channels_last if dims == 2 else lib.channels_last_3d)


@pytest.mark.parametrize("name", list(_LAYOUT_CASES))
@pytest.mark.parametrize("grad_layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_pooling_and_upsampling_gradient_layouts(name, grad_layout, create_graph):
    """The input gradient of a channels-last input: ATen's 2-d poolings (and max_pool3d) give it the input's
    format, the 2-d nearest / bilinear and trilinear upsamplings the gradient's, the others contiguous."""
    dims, op = _LAYOUT_CASES[name]

    def grads(lib):
        x = _channels_last_input(lib, dims).requires_grad_()
        y = op(lib.nn.functional, x)
        g = lib.ones(tuple(y.shape))
        if grad_layout == "channels_last":
            g = g.contiguous(memory_format=lib.channels_last if dims == 2 else lib.channels_last_3d)
        gx, = lib.autograd.grad(y, x, g, create_graph=create_graph)
        return gx.stride(), gx.detach().double().numpy()
    (s, v), (s_t, v_t) = grads(pedatorch), grads(torch)
    assert s == s_t
    np.testing.assert_allclose(v, v_t, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["avg_pool2d", "adaptive_avg_pool2d", "max_pool2d", "adaptive_max_pool2d",
                                  "nearest", "bilinear"])
def test_channels_last_pooling_gradcheck(name):
    """The gradients in their new layouts are still the gradients (float64, twice differentiated)."""
    x = pedatorch.tensor(_X4[:1, :2, :6, :7], dtype=pedatorch.float64).requires_grad_()

    def fn(t):   # (gradcheck perturbs a contiguous input: the layout is made inside the function)
        return _LAYOUT_CASES[name][1](pedatorch.nn.functional, t.contiguous(memory_format=pedatorch.channels_last))
    assert pedatorch.autograd.gradcheck(fn, (x,))
    assert pedatorch.autograd.gradgradcheck(fn, (x,))
