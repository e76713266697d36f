"""Fuzzer round 7 (seed 7100000): float16/bfloat16 losses computed and reduced as PyTorch's CPU kernels do.

PyTorch adds a half-precision loss up in float32 and rounds once (the reductions of one-node losses added up
in the half type here), and its kernels for huber (float16), smooth_l1 (bfloat16), binary_cross_entropy and
log_sigmoid (both) compute each element in float32 and round once, where numpy rounds every step."""
import numpy as np
import pytest

import pedatorch as pt

torch = pytest.importorskip("torch")

LOSSES = ["huber_loss", "smooth_l1_loss", "mse_loss", "soft_margin_loss", "binary_cross_entropy",
          "binary_cross_entropy_with_logits", "multilabel_soft_margin_loss"]


def _inputs(name, rng):
    a, b = rng.standard_normal((4, 6)) * 2, rng.standard_normal((4, 6)) * 2
    if name == "binary_cross_entropy":
        a, b = 1 / (1 + np.exp(-a)), (b > 0).astype(float)
    if name == "soft_margin_loss":
        b = np.sign(b)
    if name == "multilabel_soft_margin_loss":
        b = (b > 0).astype(float)
    return a, b


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", LOSSES)
def test_half_precision_losses_are_pytorchs_bits(name, dtype):
    rng = np.random.default_rng(0)
    for _ in range(10):
        a, b = _inputs(name, rng)
        for reduction in ("none", "sum", "mean"):
            def run(lib):
                x, y = lib.tensor(a, dtype=getattr(lib, dtype)), lib.tensor(b, dtype=getattr(lib, dtype))
                return getattr(lib.nn.functional, name)(x, y, reduction=reduction).float().numpy()
            np.testing.assert_array_equal(run(pt), run(torch), err_msg=f"{name} {dtype} {reduction}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_logsigmoid_is_pytorchs_bits(dtype):
    a = np.random.default_rng(1).standard_normal(64) * 4
    got = pt.nn.functional.logsigmoid(pt.tensor(a, dtype=getattr(pt, dtype))).float().numpy()
    want = torch.nn.functional.logsigmoid(torch.tensor(a, dtype=getattr(torch, dtype))).float().numpy()
    np.testing.assert_array_equal(got, want)


def test_a_bfloat16_huber_sum_feeding_cos():   # the fuzzer's program: cos of a sum one ulp off
    x0 = np.array([[0.50390625, 1.0703125, -1.4140625], [-1.1328125, -0.23046875, 0.9140625]])
    x1 = np.array([[-1.0390625, 1.2578125, -0.3359375], [-0.45703125, 0.84375, 0.6328125]])
    def run(lib):
        F = lib.nn.functional
        y = F.huber_loss(lib.tensor(x0, dtype=lib.bfloat16), lib.tensor(x1, dtype=lib.bfloat16), reduction="sum")
        return float(lib.cos(y).float())
    assert run(pt) == run(torch)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_cpu_kernels_without_half_precision_refuse_it(dtype):
    """multi_margin_loss, multilabel_margin_loss, pdist and avg_pool3d have no float16/bfloat16 CPU kernel in
    PyTorch: the same NotImplementedError here (they accepted it)."""
    calls = [lambda lib, x: lib.nn.functional.multi_margin_loss(x, lib.tensor([1, 2])),
             lambda lib, x: lib.nn.functional.multilabel_margin_loss(x, lib.tensor([[1, -1, 0], [2, -1, 0]])),
             lambda lib, x: lib.nn.functional.pdist(x),
             lambda lib, x: lib.nn.functional.avg_pool3d(x.reshape(1, 1, 1, 2, 3), 1),
             lambda lib, x: lib.nn.functional.local_response_norm(x.reshape(1, 2, 3, 1), 2)]
    for call in calls:
        errors = []
        for lib in (pt, torch):
            with pytest.raises(NotImplementedError) as e:
                call(lib, lib.ones(2, 3, dtype=getattr(lib, dtype)))
            errors.append(str(e.value))
        assert errors[0] == errors[1]


def test_prod_gradient_with_two_zeros_under_create_graph():
    """With create_graph PyTorch takes the zero-safe formula even for two zeros, so a NaN elsewhere spreads
    (without it, the shortcut: all zeros)."""
    from torch_compare import same
    for create_graph in (False, True):
        def f(lib):
            x = lib.tensor([1.0, float("nan"), 0.0, 0.0], dtype=lib.float64, requires_grad=True)
            g, = lib.autograd.grad(x.prod() * 0.55, x, create_graph=create_graph)
            return g
        same(f, pt, torch)


def test_one_element_hardtanh_keeps_its_inputs_stride():
    """hardtanh writes into empty_like(input): a strided one-element input's stride survives (it shows in an
    expand of the result)."""
    for lib_pair in [(pt, torch)]:
        got, want = (lib.nn.functional.hardtanh(lib.tensor([1.0, 2.0])[::2]) for lib in lib_pair)
        assert got.stride() == want.stride() == (2,)
        assert got.expand(3, 1).stride() == want.expand(3, 1).stride()


@pytest.mark.parametrize("fn,name", [("log_softmax", "LogSoftmaxBackwardDataBackward0"),
                                     ("softmax", "SoftmaxBackwardDataBackward0")])
def test_softmax_backward_is_one_node_as_in_pytorch(fn, name):
    """softmax/log_softmax's backward is one op (PyTorch's _softmax_backward_data): its node shows under
    create_graph, and its double backward follows PyTorch's formulas (gradgradcheck)."""
    for lib in (pt, torch):
        x = lib.randn(3, 4, dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad((getattr(x, fn)(-1) * lib.randn(3, 4, dtype=lib.float64)).sum(), x,
                               create_graph=True)
        assert type(g.grad_fn).__name__ == name
    x = pt.randn(3, 5, dtype=pt.float64, requires_grad=True)
    assert pt.autograd.gradgradcheck(lambda t: getattr(t, fn)(-1) * t, (x,))
    assert pt.autograd.gradgradcheck(lambda t: getattr(t, fn)(0), (pt.randn((), dtype=pt.float64, requires_grad=True),))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_softmax_backward_rounds_once(dtype):
    """Computed in float32 and rounded once, as PyTorch's kernel: the same bits for a given forward output."""
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((5, 33)), rng.standard_normal((5, 33))
    def run(lib):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = x.softmax(-1)
        g, = lib.autograd.grad((y * lib.tensor(w, dtype=getattr(lib, dtype))).sum(), x)
        return y.detach().float().numpy(), g.float().numpy()
    (y1, g1), (y2, g2) = run(pt), run(torch)
    if np.array_equal(y1, y2):   # (the forward's exp may differ from PyTorch's in the last bit)
        np.testing.assert_array_equal(g1, g2)
    np.testing.assert_allclose(g1, g2, rtol=1e-2, atol=1e-3)


def test_ndtr_is_pytorchs_composite():
    """special.ndtr is (1 + erf(x / sqrt 2)) / 2 made of ops, as in PyTorch: the same graph, each step rounded,
    and x itself not saved, so changing x in place afterwards is no error (the fuzzer's program)."""
    from torch_compare import same
    names = []
    for lib in (pt, torch):
        y = lib.special.ndtr(lib.tensor([0.5, -1.0], requires_grad=True))
        n, chain = y.grad_fn, []
        while n is not None:
            chain.append(type(n).__name__)
            nxt = [f for f, _ in n.next_functions if f is not None]
            n = nxt[0] if nxt else None
        names.append(chain)
    assert names[0] == names[1]
    a = np.linspace(-6, 6, 61)
    for dtype in ("float16", "bfloat16"):
        def grad(lib):
            x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
            return lib.autograd.grad(lib.special.ndtr(x).sum(), x)[0]
        same(grad, pt, torch)

    def inplace_after(lib):
        x0 = lib.tensor([[4.36, -1.72, 1.12]], dtype=lib.float64, requires_grad=True)
        y0 = lib.nn.functional.hardtanh(x0, max_val=1.0)
        y1 = lib.special.ndtr(y0)
        y0.clamp_(-0.5, 1.0)
        return lib.autograd.grad((y1 * 1.5).sum(), x0)[0]
    same(inplace_after, pt, torch)
    assert pt.autograd.gradgradcheck(pt.special.ndtr, (pt.randn(5, dtype=pt.float64, requires_grad=True),))


def test_ldexp_checks_broadcasting_first():
    from torch_compare import same
    same(lambda lib: lib.ldexp(lib.zeros(2, 0, requires_grad=True), lib.ones(2, 3, dtype=lib.bool)), pt, torch)
