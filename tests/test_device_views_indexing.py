"""Views, indexing, in-place ops, factories and autograd on every device: the values on "cuda" (a GPU, or the
stand-in backend where there is none) equal the CPU's, results and gradients stay on the device, views keep
PyTorch's strides there, and in-place writes bump version counters as on the CPU."""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch.backend import to_host


def _host(t):
    return to_host(t.detach()._data)


def _same(got, want, device):
    """``got`` (computed on ``device``) lies there and holds ``want``'s values, dtype, shape and strides."""
    assert got.device.type == device, f"result on {got.device}, not {device}"
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape)
    assert got.stride() == want.stride(), f"strides {got.stride()} != {want.stride()}"
    np.testing.assert_array_equal(_host(got), _host(want))


def _run_both(fn, arrays, device, grad=True):
    """``fn`` on CPU tensors and on ``device`` tensors made from ``arrays``: results (and, when ``grad``,
    the inputs' gradients of ``(out * weights).sum()``) compared."""
    cpu = [pt.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    dev = [pt.tensor(a, device=device, requires_grad=grad and a.dtype.kind == "f") for a in arrays]
    want, got = fn(*cpu), fn(*dev)
    wants, gots = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for w, g in zip(wants, gots):
        _same(g, w, device)
    if grad and any(w.requires_grad for w in wants):
        rng = np.random.default_rng(1)
        ws = [rng.standard_normal(w.shape) for w in wants]
        sum(((w * pt.tensor(v)).sum() for w, v in zip(wants, ws) if w.requires_grad), pt.tensor(0.)).backward()
        sum(((g * pt.tensor(v, device=device)).sum() for g, v in zip(gots, ws) if g.requires_grad),
            pt.tensor(0., device=device)).backward()
        for c, d in zip(cpu, dev):
            if c.requires_grad and c.grad is not None:
                assert d.grad is not None and d.grad.device.type == device
                np.testing.assert_allclose(_host(d.grad), _host(c.grad), rtol=1e-12, atol=1e-12)
    return got


RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((2, 3, 4))

VIEWS = {
    "t": lambda x: x.t(),
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.unsqueeze(0).permute(2, 0, 1),
    "expand": lambda x: x[:, :1].expand(3, 5),
    "view": lambda x: x.view(2, 6),
    "view_size1": lambda x: x.t().unsqueeze(1).view(4, 3),
    "reshape_copy": lambda x: x.t().reshape(-1),
    "squeeze": lambda x: x.unsqueeze(1).squeeze(1),
    "slice": lambda x: x[1:, ::2],
    "select": lambda x: x[1],
    "narrow": lambda x: x.narrow(1, 1, 2),
    "diagonal": lambda x: x.diagonal(),
    "unfold": lambda x: x.unfold(1, 2, 1),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 2), 1),
    "unflatten": lambda x: x.unflatten(1, (2, 2)),
    "split": lambda x: x.split(2, 1),
    "movedim": lambda x: x.movedim(0, 1),
    "contiguous": lambda x: x.t().contiguous(),
    "clone_cl": lambda x: x.reshape(1, 3, 2, 2).clone(memory_format=pt.channels_last),
}


@pytest.mark.parametrize("op", sorted(VIEWS))
def test_views_keep_strides_and_device(device, op):
    _run_both(VIEWS[op], [A], device)


def test_views_share_memory_on_the_device(device):
    x = pt.tensor(A, device=device)
    v = x.t()[1:]
    assert v._base is x and v.device.type == device
    v[0, 0] = 100.
    assert float(x[0, 1]) == 100.


INDEX = {
    "int_list": lambda x: x[[0, 2]],
    "tensor": lambda x: x[pt.tensor([2, 0, 2], device=x.device)],
    "mask": lambda x: x[x > 0],
    "mask_cpu_list": lambda x: x[[True, False, True]],
    "two_arrays": lambda x: x[[0, 1], [3, 2]],
    "apart": lambda x: x.unsqueeze(1)[[0, 2], :, [1, 1]],
    "mixed": lambda x: x[1:, [0, 3]],
    "none_ellipsis": lambda x: x[None, ..., 1],
    "bool_scalar": lambda x: x[True],
    "int_tensor0": lambda x: x[pt.tensor(1, device=x.device)],
    "index_select": lambda x: x.index_select(1, pt.tensor([3, 0, 3], device=x.device)),
    "gather": lambda x: x.gather(1, pt.tensor([[0, 1], [2, 3], [3, 3]], device=x.device)),
    "take": lambda x: x.take(pt.tensor([0, 11, 5], device=x.device)),
    "take_along_dim": lambda x: pt.take_along_dim(x, x.argsort(1), 1),
    "masked_select": lambda x: x.masked_select(x < 0.5),
    "nonzero": lambda x: (x > 0).nonzero(),
    "nonzero_tuple": lambda x: (x > 0).nonzero(as_tuple=True),
    "argwhere": lambda x: pt.argwhere(x > 0),
}


@pytest.mark.parametrize("op", sorted(INDEX))
def test_getitem_and_index_ops(device, op):
    _run_both(INDEX[op], [A], device)


WRITES = {
    "index_put": lambda x, v: x.index_put((pt.tensor([0, 0, 2], device=x.device),), v, accumulate=True),
    "index_add": lambda x, v: x.index_add(0, pt.tensor([0, 2, 0], device=x.device), v, alpha=2),
    "index_copy": lambda x, v: x.index_copy(0, pt.tensor([2, 0, 1], device=x.device), v),
    "index_fill": lambda x, v: x.index_fill(1, pt.tensor([1, 3], device=x.device), -1.5),
    "index_fill_tensor": lambda x, v: x.index_fill(1, pt.tensor([1, 1], device=x.device), v[0, 0]),
    "scatter": lambda x, v: x.scatter(1, pt.tensor([[0, 1], [2, 3], [1, 0]], device=x.device), v),
    "scatter_value": lambda x, v: x.scatter(1, pt.tensor([[0], [2], [1]], device=x.device), 7.),
    "scatter_add": lambda x, v: x.scatter_add(0, pt.tensor([[0, 1, 0, 1], [0, 0, 0, 0]], device=x.device), v),
    "scatter_sum": lambda x, v: x.scatter_reduce(0, pt.tensor([[0, 1, 0, 1]], device=x.device), v, "sum"),
    "scatter_mean": lambda x, v: x.scatter_reduce(0, pt.tensor([[0, 1, 0, 1]], device=x.device), v, "mean",
                                                  include_self=False),
    "scatter_prod": lambda x, v: x.scatter_reduce(0, pt.tensor([[0, 1, 0, 1]], device=x.device), v, "prod"),
    "scatter_amax": lambda x, v: x.scatter_reduce(0, pt.tensor([[0, 1, 0, 1]], device=x.device), v, "amax"),
    "scatter_amin": lambda x, v: x.scatter_reduce(0, pt.tensor([[2, 1, 0, 1]], device=x.device), v, "amin",
                                                  include_self=False),
    "masked_fill": lambda x, v: x.masked_fill(v > 0, 3.),
    "masked_fill_tensor": lambda x, v: x.masked_fill(v > 0, v[1, 1]),
    "masked_scatter": lambda x, v: x.masked_scatter(v > 0, v * 10),
    "put": lambda x, v: x.put(pt.tensor([0, 5, 5], device=x.device), v[0, :3], accumulate=True),
    "put_replace": lambda x, v: x.put(pt.tensor([0, 5, 7], device=x.device), v[0, :3]),
}


@pytest.mark.parametrize("op", sorted(WRITES))
def test_index_writes(device, op):
    # (src as large as the index: PyTorch's scatter gradients have the index's shape)
    v = RNG.standard_normal((3, 4))
    if op.startswith("scatter") and op != "scatter_value":
        shape = {"scatter": (3, 2), "scatter_add": (2, 4)}.get(op, (1, 4))
        v = v[:shape[0], :shape[1]].copy()
    _run_both(WRITES[op], [A, v], device)


def test_setitem(device):
    def fn(x, v):
        y = x * 1
        y[0] = 5.                                  # a number
        y[1, [0, 2]] = v[0, :2]                    # advanced, a tensor
        y[y > 2] = 0.                              # a mask
        y[:, 3] = v[:, 0]                          # a view, copy_
        y[pt.tensor([2], device=x.device), 1:] = pt.tensor(9., dtype=pt.float64)   # a CPU 0-dim value joins
        return y
    _run_both(fn, [A, RNG.standard_normal((3, 4))], device)


def test_setitem_out_of_bounds_and_mixed_devices(device):
    x = pt.zeros(3, device=device)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[[5]] = 1.
    if device == "cuda":
        with pytest.raises(RuntimeError, match="indices should be either on cpu or on the same device"):
            pt.zeros(3)[pt.tensor([1], device="cuda")]


def test_inplace_ops_and_versions(device):
    x = pt.tensor(A, device=device)
    v0 = x._version
    x.add_(1.)
    x.mul_(pt.tensor(2., device=device))
    assert x._version == v0 + 2 and x.device.type == device
    x.zero_()
    assert x._version == v0 + 3 and not _host(x).any()
    x.fill_(pt.tensor(4.))                         # a CPU 0-dim tensor fills a device tensor
    assert x.device.type == device and (_host(x) == 4).all()
    y = pt.tensor(B, device=device)
    y.transpose_(0, 2)
    assert y.shape == (4, 3, 2) and y.device.type == device
    y.copy_(pt.tensor(B).transpose(0, 2))          # copy_ from the CPU
    np.testing.assert_array_equal(_host(y), B.transpose(2, 1, 0))


def test_inplace_on_views_copy_slices(device):
    def fn(x, w):
        y = x * 1
        y[1:].mul_(w[1:])                           # CopySlices on the base
        y.diagonal().add_(1.)
        y.t()[0].clamp_(-0.5, 0.5)
        return y
    _run_both(fn, [A, RNG.standard_normal((3, 4))], device)


def test_expanded_views_refuse_writes(device):
    x = pt.ones(3, device=device).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x.add_(1.)


def test_saved_tensor_version_check(device):
    x = pt.tensor(A, device=device, requires_grad=True)
    y = x * 1
    z = y.sin()
    y.add_(1.)
    name = "torch.cuda.DoubleTensor" if device == "cuda" else "torch.DoubleTensor"
    with pytest.raises(RuntimeError, match=f"modified by an inplace operation: \\[{name} \\[3, 4\\]\\]"):
        z.sum().backward()


MANIP = {
    "flip": lambda x: x.flip(0, 1),
    "roll": lambda x: x.roll((1, -2), (0, 1)),
    "roll_flat": lambda x: x.roll(5),
    "rot90": lambda x: x.rot90(1, (0, 1)),
    "tile": lambda x: x.tile((2, 1, 1)),
    "repeat": lambda x: x.repeat(2, 1),
    "repeat_interleave": lambda x: x.repeat_interleave(pt.tensor([1, 0, 2], device=x.device), dim=0),
    "tril": lambda x: x.tril(1),
    "triu": lambda x: x.triu(-1),
    "diag": lambda x: x[0].diag(1),
    "diag_embed": lambda x: pt.diag_embed(x),
    "trace": lambda x: x.trace(),
    "pad_constant": lambda x: pt.nn.functional.pad(x, (1, 2, 0, 1), value=-1.),
    "pad_reflect": lambda x: pt.nn.functional.pad(x.unsqueeze(0), (2, 1), mode="reflect"),
    "pad_replicate": lambda x: pt.nn.functional.pad(x.unsqueeze(0), (1, 3), mode="replicate"),
    "pad_circular": lambda x: pt.nn.functional.pad(x.unsqueeze(0), (1, 1), mode="circular"),
    "block_diag": lambda x: pt.block_diag(x, x[0], x[0, 0]),
    "cross": lambda x: pt.linalg.cross(x[:, :3], x[:, 1:]),
    "combinations": lambda x: pt.combinations(x[0], 2),
    "cartesian_prod": lambda x: pt.cartesian_prod(x[0, :2], x[1]),
    "kron": lambda x: pt.kron(x[:2, :2], x[1:, 2:]),
    "meshgrid": lambda x: pt.meshgrid(x[0], x[1, :2], indexing="xy"),
}


@pytest.mark.parametrize("op", sorted(MANIP))
def test_manip_ops(device, op):
    _run_both(MANIP[op], [A], device)


FACTORIES = {
    "zeros": lambda d: pt.zeros(2, 3, device=d),
    "ones_int": lambda d: pt.ones(4, dtype=pt.int32, device=d),
    "empty": lambda d: pt.empty(3, device=d),
    "full": lambda d: pt.full((2, 2), 3, device=d),
    "full_bool": lambda d: pt.full((2,), True, device=d),
    "arange": lambda d: pt.arange(1, 10, 3, device=d),
    "arange_float": lambda d: pt.arange(0., 1., 0.1, device=d),
    "range": lambda d: pt.range(0, 2, 0.5, device=d),
    "linspace": lambda d: pt.linspace(-1, 1, 7, device=d),
    "linspace_int": lambda d: pt.linspace(0, 10, 4, dtype=pt.int64, device=d),
    "logspace": lambda d: pt.logspace(0, 3, 4, device=d),
    "eye": lambda d: pt.eye(3, 2, device=d),
    "empty_strided": lambda d: pt.empty_strided((2, 3), (1, 2), device=d),
    "scalar_tensor": lambda d: pt.scalar_tensor(2.5, device=d),
    "tensor": lambda d: pt.tensor([[1, 2], [3, 4]], device=d),
    "tensor_of_array": lambda d: pt.tensor(A, dtype=pt.float32, device=d),
    "tril_indices": lambda d: pt.tril_indices(3, 4, 1, device=d),
    "triu_indices": lambda d: pt.triu_indices(4, 3, device=d),
    "zeros_like_cl": lambda d: pt.zeros_like(pt.ones(1, 2, 3, 3, device=d).contiguous(
        memory_format=pt.channels_last)),
    "ones_like_t": lambda d: pt.ones_like(pt.ones(2, 3, device=d).t()),
    "full_like": lambda d: pt.full_like(pt.ones(2, 3, device=d), 7),
    "empty_like": lambda d: pt.empty_like(pt.ones(2, 3, device=d)),
    "new_zeros": lambda d: pt.ones(1, device=d).new_zeros(2, 2),
    "new_full": lambda d: pt.ones(1, device=d).new_full((2,), 1.5),
    "new_tensor": lambda d: pt.ones(1, device=d).new_tensor([1., 2.]),
    "new_empty_strided": lambda d: pt.ones(1, device=d).new_empty_strided((2, 2), (1, 2)),
}


@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_factories_on_the_device(device, factory):
    want = FACTORIES[factory]("cpu")
    got = FACTORIES[factory](device)
    _same(got, want, device)


def test_factories_allocate_on_the_device_directly(device, monkeypatch):
    """zeros/ones/full/arange/eye/empty_strided never build a host array that is copied over afterwards."""
    if device == "cpu":
        return
    from pedatorch import _device
    calls = []
    real = _device.to_device_array

    def spy(arr, dev):
        calls.append(type(arr).__name__ if isinstance(arr, np.ndarray) else "device array")   # (cupy's is ndarray too)
        return real(arr, dev)
    monkeypatch.setattr("pedatorch.ops.creation.to_device_array", spy)
    for make in ("zeros", "ones_int", "full", "arange", "eye", "empty_strided", "zeros_like_cl", "full_like"):
        FACTORIES[make](device)
    assert "ndarray" not in calls


def test_moving_tensors(device):
    x = pt.tensor(A, requires_grad=True)
    y = x.to(device)
    assert y.device.type == device and (device == "cpu" or y.grad_fn.name() == "ToCopyBackward0")
    z = y.t().to("cpu") if device != "cpu" else y.t()
    assert z.stride() == (1, 4)                     # preserve_format keeps the view's strides
    (y.to(pt.float32) * 2).sum().backward()
    assert x.grad.device.type == "cpu"
    np.testing.assert_array_equal(x.grad.numpy(), np.full(A.shape, 2.))
    if device == "cuda":
        c = pt.tensor(A).cuda()
        assert c.is_cuda and c.cpu().device.type == "cpu" and c.cuda() is c
        np.testing.assert_array_equal(c.cpu().numpy(), A)
        assert c.tolist() == A.tolist() and pt.tensor(2., device="cuda").item() == 2.


def test_autograd_on_the_device(device):
    x = pt.tensor(A, device=device, requires_grad=True)
    w = pt.tensor(RNG.standard_normal((4, 2)), device=device, requires_grad=True)
    y = (x @ w).relu().sum()
    y.backward()
    assert x.grad.device.type == device and w.grad.device.type == device
    assert x.grad.stride() == x.stride()
    g1 = _host(x.grad).copy()
    (x @ w).relu().sum().backward()                # accumulates into .grad, on the device
    np.testing.assert_allclose(_host(x.grad), 2 * g1)
    # create_graph: a gradient penalty stays on the device
    x.grad = None
    (gx,) = pt.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert gx.device.type == device and gx.requires_grad
    gx.sum().backward()
    np.testing.assert_allclose(_host(x.grad), 6 * A, rtol=1e-12)
    # a leaf with a transposed layout gets its gradient in that layout (the contract)
    t = pt.tensor(A.T.copy(), device=device).t().detach().requires_grad_()
    (t * 2).sum().backward()
    assert t.grad.stride() == t.stride() and t.grad.device.type == device


def test_hooks_and_retain_grad_on_the_device(device):
    x = pt.tensor(A, device=device, requires_grad=True)
    y = x * 2
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.device.type))
    y.sum().backward()
    assert seen == [device] and y.grad.device.type == device


def test_missing_output_gradients_are_zeros_on_the_device(device):
    """A multi-output node whose other outputs got no gradient: the engine's zeros are made on the device."""
    x = pt.tensor(A, device=device, requires_grad=True)
    a, b = x.split(2, 1)
    (a * 2).sum().backward()
    assert x.grad.device.type == device
    np.testing.assert_array_equal(_host(x.grad), np.concatenate([np.full((3, 2), 2.), np.zeros((3, 2))], 1))
    v, i = x.max(1)
    v.sum().backward()
    assert x.grad.device.type == device


def test_overlapping_write_error_and_steal_on_the_device(device):
    from pedatorch.backend import writeable
    x = pt.tensor(A, device=device)
    assert writeable(x._data) and not writeable(x[:, :1].expand(3, 4)._data)
    w = pt.tensor(A, device=device, requires_grad=True)
    (w * 3).sum().backward()                       # the engine's gradient becomes .grad (on the device)
    assert w.grad.device.type == device and w.grad.stride() == w.stride()
