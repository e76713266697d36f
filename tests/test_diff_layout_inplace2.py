"""Helper D, second campaign: result layouts of ops PyTorch allocates in a fixed way, the saved-tensor sets
(in-place writes after an op must fail or pass in backward exactly as in PyTorch), in-place ops that are
their op's own node, and gradients that a zero gradient must keep at zero. Compared with PyTorch."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")


def lib_of(x):
    return torch if isinstance(x, torch.Tensor) else pedatorch


def _make(lib, size, stride, dtype="float64"):
    base = lib.arange(96, dtype=getattr(lib, dtype)) / 7 - 3
    return lib.as_strided(base, size, stride)


# transposed, permuted with a size-1 dim, gapped (not dense)
LAYOUTS = [((2, 3), (1, 2)), ((3, 1, 2), (1, 6, 3)), ((3, 4), (1, 6)), ((2, 3, 4), (1, 2, 6))]


def _idx(x, *v):
    return lib_of(x).tensor(v, dtype=lib_of(x).int64)


def _ones(x, *shape):
    return lib_of(x).ones(*shape, dtype=x.dtype)


# ops whose result PyTorch allocates contiguous (structured kernels, contiguous clones, pow(Scalar, Tensor))
# or as clone() (preserve_format) of the input
OPS = {
    "index_add": lambda x: lib_of(x).index_add(x, 0, _idx(x, 0, 0), _ones(x, 2, *x.shape[1:])),
    "index_copy": lambda x: lib_of(x).index_copy(x, 0, _idx(x, 1), _ones(x, 1, *x.shape[1:])),
    "index_fill": lambda x: lib_of(x).index_fill(x, 0, _idx(x, 0), 1.5),
    "index_put": lambda x: lib_of(x).index_put(x, (_idx(x, 0),), lib_of(x).tensor(1.5, dtype=x.dtype)),
    "scatter": lambda x: lib_of(x).scatter(x, 0, lib_of(x).zeros((1,) * x.dim(), dtype=lib_of(x).int64), 1.5),
    "scatter_src": lambda x: lib_of(x).scatter(x, 0, lib_of(x).zeros((1,) * x.dim(), dtype=lib_of(x).int64),
                                               _ones(x, *(1,) * x.dim())),
    "scatter_add": lambda x: lib_of(x).scatter_add(x, 0, lib_of(x).zeros((1,) * x.dim(), dtype=lib_of(x).int64),
                                                   _ones(x, *(1,) * x.dim())),
    "scatter_reduce": lambda x: lib_of(x).scatter_reduce(
        x, 0, lib_of(x).zeros((1,) * x.dim(), dtype=lib_of(x).int64), _ones(x, *(1,) * x.dim()), "amax"),
    "masked_fill_0d_mask": lambda x: x.masked_fill(lib_of(x).tensor(True), 1.5),
    "masked_fill_bcast_mask": lambda x: x.masked_fill(lib_of(x).arange(x.shape[-1]) % 2 == 0, 1.5),
    "masked_scatter": lambda x: x.masked_scatter(x > 0, _ones(x, x.numel())),
    "put": lambda x: x.put(_idx(x, 1, 4), _ones(x, 2) * 9),
    "rpow": lambda x: 2.0 ** x,
    "pow_scalar_tensor": lambda x: lib_of(x).pow(1.5, x),
    "float_power_scalar_tensor": lambda x: lib_of(x).float_power(2, x),
    "roll": lambda x: lib_of(x).roll(x, 1, 0),
    "repeat": lambda x: x.repeat(*(1,) * x.dim()),
    "tile": lambda x: lib_of(x).tile(x, (1,) * x.dim()),
    "cumsum": lambda x: x.cumsum(0),
    "cumprod": lambda x: x.cumprod(0),
    "logcumsumexp": lambda x: x.logcumsumexp(0),
}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_fixed_layout_results(op, layout):
    p, t = OPS[op](_make(pedatorch, *layout)), OPS[op](_make(torch, *layout))
    assert (tuple(p.shape), p.stride()) == (tuple(t.shape), t.stride())
    np.testing.assert_allclose(p.numpy(), t.numpy(), rtol=1e-12)


def test_put_counts_flat_indices_in_c_order():
    # a transposed input: the flat index is the logical (row-major) one, whatever the memory order
    for lib in (pedatorch, torch):
        x = lib.tensor(np.arange(6.).reshape(3, 2)).t()
        assert lib.put(x, lib.tensor([1]), lib.tensor([9.], dtype=lib.float64)).tolist() == [[0, 9, 4], [1, 3, 5]]
        assert x.clone().put_(lib.tensor([1]), lib.tensor([9.], dtype=lib.float64)).tolist() == [[0, 9, 4], [1, 3, 5]]


def test_fuzz_scatter_add_then_split_strides():
    # fuzzer signature split|stride: scatter_add of a transposed input, then split
    def run(lib):
        x0 = lib.tensor(np.arange(16.).reshape(4, 4), dtype=lib.float32).transpose(-2, -1)
        x1 = lib.ones(2, 4, dtype=lib.float32, requires_grad=True)
        y0 = lib.scatter_add(x0, -2, lib.tensor([[1, 0, 0, 2], [3, 3, 0, 3]]), x1)
        return [s.stride() for s in lib.split(y0, 3, -1)]
    assert run(pedatorch) == run(torch)


# ---------------------------------------------------------------- the version counter: what each op saves

def _raises_in_backward(lib, make, write):
    """Build ``y = make(a, b)`` from non-leaf a, b; write in place into ``write`` ('out', 'a' or 'b');
    then backward. Returns whether it failed PyTorch's saved-tensor version check."""
    xa = lib.tensor([[0.3, 0.6, 0.45], [0.7, 0.2, 0.55]], dtype=lib.float64, requires_grad=True)
    xb = lib.tensor([[0.5, 0.4, 0.35], [0.3, 0.8, 0.6]], dtype=lib.float64, requires_grad=True)
    a, b = xa * 1, xb * 1
    y = make(a, b)
    with lib.no_grad():
        {"out": y, "a": a, "b": b, "none": None}[write] is not None and {"out": y, "a": a, "b": b}[write].add_(0)
    try:
        y.sum().backward()
    except RuntimeError as e:
        assert "modified by an inplace operation" in str(e)
        return True
    return False


SAVES = {
    "ldexp": lambda a, b: lib_of(a).ldexp(a, b),                     # saves other and result
    "sgn": lambda a, b: a.sgn(),                                     # saves self and result
    "angle": lambda a, b: a.angle(),                                 # saves self
    "take": lambda a, b: a.take(lib_of(a).tensor([0, 4])),           # saves self
    "cummax": lambda a, b: a.cummax(1)[0],                           # saves self
    "cummin": lambda a, b: a.cummin(0)[0],
    "index_add": lambda a, b: a.index_add(0, lib_of(a).tensor([1]), b[:1]),   # save source
    "index_copy": lambda a, b: a.index_copy(0, lib_of(a).tensor([1]), b[:1]),
    "put": lambda a, b: a.put(lib_of(a).tensor([1]), b[0, :1]),
    "index_add_": lambda a, b: a.index_add_(0, lib_of(a).tensor([1]), b[:1]),
    "put_": lambda a, b: a.put_(lib_of(a).tensor([1]), b[0, :1]),
    "hardtanh_": lambda a, b: lib_of(a).nn.functional.hardtanh_(a, 0.25, 0.5),   # saves the original self
    "lgamma_": lambda a, b: a.lgamma_(),                             # in place: the original self
    "digamma_": lambda a, b: a.digamma_(),
    "i0_": lambda a, b: a.i0_(),
    "polygamma_": lambda a, b: a.polygamma_(1),
    "mvlgamma_": lambda a, b: (a + 2).mvlgamma_(2),
    "copysign_": lambda a, b: a.copysign_(b),                        # self and result
    "copysign_scalar_": lambda a, b: a.copysign_(-1.0),
    "ldexp_": lambda a, b: a.ldexp_(b),
    "float_power_": lambda a, b: a.float_power_(2),
    "float_power_tensor_": lambda a, b: a.float_power_(b),
    "exp_after_ldexp": lambda a, b: lib_of(a).ldexp(a, b).exp_(),
    "clamp_after_ldexp": lambda a, b: lib_of(a).ldexp(a, b).clamp_(-0.5, 0.5),
    "sigmoid_after_sgn": lambda a, b: a.sgn().sigmoid_(),
    "mul_after_take": lambda a, b: a.take(lib_of(a).tensor([0])) + a.t().mul_(0.25).sum(),
}


@pytest.mark.parametrize("write", ["none", "out", "a", "b"])
@pytest.mark.parametrize("op", sorted(SAVES))
def test_saved_tensors_version_check(op, write):
    assert _raises_in_backward(pedatorch, SAVES[op], write) == _raises_in_backward(torch, SAVES[op], write)


@pytest.mark.parametrize("op", ["lgamma_", "digamma_", "i0_", "polygamma_", "copysign_", "copysign_scalar_",
                                "ldexp_", "float_power_", "float_power_tensor_", "hardtanh_"])
def test_inplace_op_is_its_own_node(op):
    def name(lib):
        xa = lib.tensor([0.3, 0.6], dtype=lib.float64, requires_grad=True)
        return SAVES[op](xa * 1, lib.tensor([0.5, -0.4], dtype=lib.float64) * 1).grad_fn.name()
    assert name(pedatorch) == name(torch)


@pytest.mark.parametrize("op", ["lgamma_", "digamma_", "i0_", "copysign_", "ldexp_"])
def test_inplace_op_gradients(op):
    xa = np.array([[0.3, 0.6, 0.45], [0.7, 0.2, 0.55]])
    xb = np.array([[0.5, -0.4, 0.35], [0.3, 0.8, -0.6]])
    grads = []
    for lib in (pedatorch, torch):
        a = lib.tensor(xa, requires_grad=True)
        b = lib.tensor(xb, requires_grad=True)
        SAVES[op](a * 1, b * 1).sum().backward()
        grads.append([None if g is None else g.numpy() for g in (a.grad, b.grad)])
    for p, t in zip(*grads):
        assert (p is None) == (t is None)
        if p is not None:
            np.testing.assert_allclose(p, t, rtol=1e-7)
    a = pedatorch.tensor(xa, requires_grad=True)
    b = pedatorch.tensor(xb, requires_grad=True)
    assert gradcheck(lambda a, b: SAVES[op](a * 1, b * 1), (a, b))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("op", ["lgamma_", "ldexp_", "float_power_", "copysign_"])
def test_inplace_op_dtype_errors(op, dtype):
    def run(lib):
        x = lib.tensor([1, 2]).to(getattr(lib, dtype))
        try:
            return SAVES[op](x, lib.tensor([1, 2]) if op == "ldexp_" else lib.tensor([-1.0, 1.0])).dtype
        except RuntimeError as e:
            return str(e)
    assert str(run(pedatorch)) == str(run(torch))


def test_version_error_names_bfloat16_and_complex_types():
    def message(lib, dtype):
        a = lib.ones(2, dtype=getattr(lib, dtype), requires_grad=True) * 2
        y = a * a
        a.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().abs().backward()
        return str(e.value)
    for dtype in ("bfloat16", "complex128", "float16"):
        assert message(pedatorch, dtype) == message(torch, dtype)


def test_fuzz_clamp_after_ldexp_bfloat16_message():
    def message(lib):
        x0 = lib.tensor([-1.390625], dtype=lib.bfloat16, requires_grad=True)
        x1 = lib.tensor([1.5, -0.26953125], dtype=lib.bfloat16)
        y1 = lib.ldexp(x0, x1).clamp_(-0.5, 0.5)
        with pytest.raises(RuntimeError) as e:
            y1.sum().backward()
        return str(e.value)
    assert message(pedatorch) == message(torch)


def test_ldexp_gradients():
    a = pedatorch.tensor([0.3, -1.2, 2.0], dtype=pedatorch.float64, requires_grad=True)
    e = pedatorch.tensor([1.0, -0.5, 2.5], dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(pedatorch.ldexp, (a, e))
    assert gradgradcheck(pedatorch.ldexp, (a, e))
    assert gradgradcheck(lambda a: pedatorch.ldexp(a, pedatorch.tensor([1, -2, 3])), (a,))


# ---------------------------------------------------------------- zero gradients stay zero

@pytest.mark.parametrize("op", ["xlogy", "xlog1py"])
@pytest.mark.parametrize("grad", ["ones", "zeros", "mixed"])
def test_xlogy_gradient_of_zero_grad(op, grad):
    xs = np.array([0., 0., 0., 0.5, 0.5, -1., 2., 0.5])
    ys = np.array([-2., -1., 0.5, -1., -3., 0., np.nan, 0.])
    g = {"ones": np.ones(8), "zeros": np.zeros(8), "mixed": np.array([0, 1, np.inf, 0, 2, -1, 1, 0.])}[grad]
    out = []
    for lib in (pedatorch, torch):
        x = lib.tensor(xs, requires_grad=True)
        y = lib.tensor(ys, requires_grad=True)
        gx, gy = lib.autograd.grad(getattr(lib.special, op)(x, y), [x, y], lib.tensor(g))
        out.append((gx.detach().numpy(), gy.detach().numpy()))
    for p, t in zip(*out):
        np.testing.assert_allclose(p, t, equal_nan=True)


@pytest.mark.parametrize("op", ["xlogy", "xlog1py"])
def test_xlogy_gradgradcheck(op):
    x = pedatorch.tensor([0.3, 1.2, 2.0], dtype=pedatorch.float64, requires_grad=True)
    y = pedatorch.tensor([0.5, 1.5, 0.25], dtype=pedatorch.float64, requires_grad=True)
    f = getattr(pedatorch.special, op)
    assert gradcheck(f, (x, y))
    assert gradgradcheck(f, (x, y))


def test_fuzz_copy_over_xlog1py():
    # fuzzer signature copy_|grad_value: copy_ sends a zero gradient into xlog1py at y < -1
    def run(lib):
        x0 = lib.tensor([[[-0.11], [0.26]]], dtype=lib.float64, requires_grad=True)
        x1 = lib.tensor(-1.05, dtype=lib.float64, requires_grad=True)
        y1 = lib.special.xlog1py(x0, x1).copy_(lib.tensor([[[-0.67], [-0.13]]], dtype=lib.float64))
        g = lib.autograd.grad((y1 * 1.5).sum(), [x0, x1], create_graph=True)
        return [(v.detach().numpy().tolist(), type(v.grad_fn).__name__) for v in g]
    assert run(pedatorch) == run(torch)


def test_sum_to_size_of_0d_target_is_a_full_sum():
    for lib in (pedatorch, torch):
        x = lib.ones(1, 2, 1, requires_grad=True)
        assert x.sum_to_size(()).grad_fn.name() == "SumBackward0"
        assert x.sum_to_size(1).grad_fn.name() == "ViewBackward0"
    assert pedatorch.ones(2, dtype=pedatorch.int32).sum_to_size(()).dtype == pedatorch.int64


@pytest.mark.parametrize("inplace", [False, True])
def test_relu_double_backward_sends_zeros_to_its_result(inplace):
    # PyTorch's threshold_backward double backward: zeros_like(grad) for the result, which 0 * NaN upstream
    # turns into NaN (fuzzer signatures relu_|grad2_value, F_relu_inplace|grad2_value)
    def run(lib):
        x1 = lib.tensor([-2.1, -0.4, 1.1, 0.02], requires_grad=True)
        y1 = lib.mul(lib.full((4,), float("nan")), x1)
        lib.nn.functional.relu(y1, inplace=inplace) if inplace else None
        out = y1 if inplace else lib.relu(y1)
        g, = lib.autograd.grad((out * lib.tensor([0.35, 0.61, 0.55, 1.93])).sum(), [x1], create_graph=True)
        (g * lib.tensor([-1.76, -0.28, -0.11, -0.46])).sum().backward()
        return x1.grad.numpy()
    np.testing.assert_array_equal(run(pedatorch), run(torch))
    x = pedatorch.tensor([-1.0, 0.5, 2.0], dtype=pedatorch.float64, requires_grad=True)
    assert gradgradcheck(lambda t: (t * 1.5).relu(), (x,))


# ---------------------------------------------------------------- convolutions and rrelu

def _permuted(lib, values, order):
    """A tensor with ``values``' shape whose memory holds the dims in ``order`` (slowest first)."""
    return lib.tensor(values.transpose(order).tolist(), dtype=lib.float64).permute(*np.argsort(order).tolist())


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("x_shape", [(1, 1, 3), (2, 3, 4), (1, 3, 1), (1, 2, 2)], ids=str)
def test_conv1d_result_strides(x_shape, transposed):
    # ATen runs a 1-d convolution as a 2-d one on input.contiguous().unsqueeze(2) and weight.unsqueeze(2):
    # an ambiguous size-1 layout, or a channels-last-like weight, gives a channels-last result
    rng = np.random.default_rng(0)
    c = x_shape[1]
    for w_shape in ([(c, 2, 1), (c, 1, 2)] if transposed else [(2, c, 1), (3, c, 2)]):
        if w_shape[2] > x_shape[2]:
            continue
        x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
        for xo in [(0, 1, 2), (0, 2, 1), (2, 1, 0)]:
            for wo in [(0, 1, 2), (0, 2, 1), (1, 0, 2)]:
                strides = []
                for lib in (pedatorch, torch):
                    f = lib.nn.functional.conv_transpose1d if transposed else lib.nn.functional.conv1d
                    strides.append(f(_permuted(lib, x, xo), _permuted(lib, w, wo)).stride())
                assert strides[0] == strides[1], (xo, wo)


def test_fuzz_conv1d_then_expand_strides():
    # fuzzer signature expand|stride: a (1, 1, 3) input with a transposed stride and a sliced weight
    def run(lib):
        x0 = lib.tensor([[[-0.5], [0.0], [2.0]]], dtype=lib.float32).transpose(-2, -1)
        x1 = lib.tensor([[[-0.24]], [[0.17]], [[0.21]]], dtype=lib.float32)[1:]
        y0 = lib.nn.functional.conv1d(x0, x1, lib.tensor([-2.1, -1.6], requires_grad=True))
        return y0.stride(), y0.expand((1, -1, 3)).stride()
    assert run(pedatorch) == run(torch)


@pytest.mark.parametrize("training", [False, True])
def test_rrelu_result_is_contiguous(training):
    for layout in [((2, 3), (1, 2)), ((3, 1, 2), (1, 6, 3))]:
        p = pedatorch.nn.functional.rrelu(_make(pedatorch, *layout), training=training)
        t = torch.nn.functional.rrelu(_make(torch, *layout), training=training)
        assert p.stride() == t.stride()


@pytest.mark.parametrize("op", ["copy_", "iadd"])
def test_max_pool1d_without_grad_is_no_view(op):
    # fuzzer signatures copy_|grad_fn and iadd|grad_fn: PyTorch's max_pool1d_impl (input needs no gradient)
    # makes a new tensor, so an in-place write into it records CopyBackwards / AddBackward0
    def run(lib):
        x0 = lib.tensor([[[1.0, -1.5, 0.5, 2.0]]]).transpose(1, 2).contiguous().transpose(1, 2)
        y0 = lib.nn.functional.max_pool1d(x0, 2)
        x1 = lib.tensor(0.3, requires_grad=True)
        y1 = y0.copy_(x1) if op == "copy_" else y0.add_(x1)
        g, = lib.autograd.grad((y1 * 2).sum(), [x1])
        return y0.stride(), y1.grad_fn.name(), g.item()
    assert run(pedatorch) == run(torch)
    with pedatorch.inference_mode():
        assert pedatorch.nn.functional.max_pool1d(pedatorch.ones(1, 1, 4), 2).is_inference()


@pytest.mark.parametrize("layout", [((3, 4), (1, 3)), ((3, 4), (8, 2)), ((3, 4), (0, 1)), ((4, 1), (1, 4)),
                                    ((1, 1), (2, 2)), ((3, 1, 2), (1, 7, 3)), ((2, 3, 4), (1, 2, 6))], ids=str)
@pytest.mark.parametrize("op", ["hardtanh", "relu6"])
def test_hardtanh_result_preserves_layout(op, layout):
    # ATen's hardtanh writes into empty_like(self): size-1 dims keep their strides (fuzzer split|stride1)
    p = getattr(pedatorch.nn.functional, op)(pedatorch.as_strided(pedatorch.arange(96.) / 7 - 3, *layout))
    t = getattr(torch.nn.functional, op)(torch.as_strided(torch.arange(96.) / 7 - 3, *layout))
    assert p.stride() == t.stride()
    np.testing.assert_array_equal(p.numpy(), t.numpy())
