"""Tensors: creation, dtypes and promotion, devices, memory layout and views, conversions."""
import itertools

import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def same_dtype(a, b):
    return str(a) == str(b)


# ---------------------------------------------------------------- creation and dtype inference

@pytest.mark.parametrize("data", [1, 1.5, True, [1, 2], [1., 2], [True, False], [[1, 2], [3, 4]], [],
                                  [[1.5]], 3 + 4j])
def test_tensor_dtype_inference(torch, data):
    ours, theirs = pt.tensor(data), torch.tensor(data)
    assert same_dtype(ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist()


def test_numpy_array_keeps_dtype(torch):
    for dt in ["float64", "int32", "uint8", "bool"]:
        a = np.zeros(3, dtype=dt)
        assert same_dtype(pt.tensor(a).dtype, torch.tensor(a).dtype)
        assert same_dtype(pt.as_tensor(a).dtype, torch.as_tensor(a).dtype)


def test_ragged_and_bad_data(torch):
    for lib in (pt, torch):
        with pytest.raises(ValueError):
            lib.tensor([[1, 2], [3]])
        with pytest.raises(TypeError):
            lib.tensor("abc")


@pytest.mark.parametrize("fn", [
    lambda lib: lib.zeros(2, 3), lambda lib: lib.ones((2, 3), dtype=lib.int32), lambda lib: lib.full((2,), 7),
    lambda lib: lib.full((2,), 7.5), lambda lib: lib.full((2,), True), lambda lib: lib.arange(5),
    lambda lib: lib.arange(1, 2.5, 0.5), lambda lib: lib.arange(0, 1, 0.1), lambda lib: lib.arange(10, 0, -3),
    lambda lib: lib.linspace(0, 1, 5), lambda lib: lib.linspace(-3.3, 7.1, 11), lambda lib: lib.linspace(0, 1, 1),
    lambda lib: lib.logspace(0, 3, 4), lambda lib: lib.eye(3), lambda lib: lib.eye(2, 4, dtype=lib.int64),
    lambda lib: lib.zeros_like(lib.ones(2, dtype=lib.float64)), lambda lib: lib.ones_like(lib.ones(2, 2)),
    lambda lib: lib.full_like(lib.ones(2), 3), lambda lib: lib.empty(2, 2).shape,
    lambda lib: lib.ones(2).new_zeros(3), lambda lib: lib.ones(2, dtype=lib.int32).new_ones((2, 2)),
    lambda lib: lib.ones(2).new_full((2,), 4), lambda lib: lib.ones(2).new_tensor([1, 2]),
    lambda lib: lib.tensor([]), lambda lib: lib.zeros(0, 3),
])
def test_factories(torch, fn):
    ours, theirs = fn(pt), fn(torch)
    if isinstance(theirs, torch.Tensor):
        assert same_dtype(ours.dtype, theirs.dtype)
        assert_close(ours, theirs, rtol=0, atol=0, check_dtype=False)
    else:
        assert tuple(ours) == tuple(theirs)


def test_factory_errors(torch):
    for lib in (pt, torch):
        with pytest.raises(RuntimeError):
            lib.zeros(-1)
        with pytest.raises(RuntimeError):
            lib.arange(0, 10, 0)


def test_from_numpy_shares_memory(torch):
    a = np.arange(6.0).reshape(2, 3)
    t = pt.from_numpy(a)
    a[0, 0] = 100
    assert t.tolist()[0][0] == 100
    t.add_(1)
    assert a[0, 0] == 101
    assert t.numpy() is a or np.shares_memory(t.numpy(), a)
    with pytest.raises(ValueError):
        pt.from_numpy(a[:, ::-1])
    with pytest.raises(TypeError):
        pt.from_numpy(np.array(["a"]))


def test_dlpack_roundtrip(torch):
    t = pt.arange(6.0).view(2, 3)
    theirs = torch.from_dlpack(t)
    theirs[0, 0] = 42
    assert t.tolist()[0][0] == 42
    back = pt.from_dlpack(torch.ones(3))
    assert back.tolist() == [1., 1., 1.]
    a = np.from_dlpack(t)
    assert np.shares_memory(a, t.numpy())


# ---------------------------------------------------------------- promotion

def _sample(lib, dt, zero_dim):
    d = getattr(lib, dt)
    return lib.ones((), dtype=d) if zero_dim else lib.ones(2, dtype=d)


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promote_types_matches_torch(torch, a, b):
    assert same_dtype(pt.promote_types(getattr(pt, a), getattr(pt, b)),
                      torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("a,b", list(itertools.product(["float32", "float64", "int64", "int32", "uint8", "bool",
                                                          "float16"], repeat=2)))
@pytest.mark.parametrize("zero_dim", [False, True])
def test_result_type_tensor_and_zero_dim(torch, a, b, zero_dim):
    ours = pt.result_type(_sample(pt, a, False), _sample(pt, b, zero_dim))
    theirs = torch.result_type(_sample(torch, a, False), _sample(torch, b, zero_dim))
    assert same_dtype(ours, theirs)
    # and the ops themselves produce that dtype
    x, y = _sample(pt, a, False), _sample(pt, b, zero_dim)
    if not (a == "bool" and b == "bool"):
        assert same_dtype((x + y).dtype, (_sample(torch, a, False) + _sample(torch, b, zero_dim)).dtype)
        assert same_dtype((x * y).dtype, (_sample(torch, a, False) * _sample(torch, b, zero_dim)).dtype)
    assert same_dtype((x / y).dtype, (_sample(torch, a, False) / _sample(torch, b, zero_dim)).dtype)


@pytest.mark.parametrize("dt", ["float32", "float64", "int64", "int32", "uint8", "bool", "float16"])
@pytest.mark.parametrize("scalar", [2, 1.5, True])
def test_result_type_with_python_scalars(torch, dt, scalar):
    x, y = _sample(pt, dt, False), _sample(torch, dt, False)
    assert same_dtype(pt.result_type(x, scalar), torch.result_type(y, scalar))
    assert same_dtype((x * scalar).dtype, (y * scalar).dtype)
    assert same_dtype((x + scalar).dtype, (y + scalar).dtype)
    assert same_dtype((x / scalar).dtype, (y / scalar).dtype)


def test_int_ops_promote_to_default_float(torch):
    for fn in (lambda lib: lib.tensor([1, 2]).sin(), lambda lib: lib.tensor([1, 4]).sqrt(),
               lambda lib: lib.tensor([1, 2]) / 2, lambda lib: lib.tensor([1, 2]) + 1.5,
               lambda lib: lib.tensor([True]).exp()):
        ours, theirs = fn(pt), fn(torch)
        assert same_dtype(ours.dtype, theirs.dtype)
        assert_close(ours, theirs, check_dtype=False)


def test_bool_arithmetic_errors(torch):
    for fn in (lambda lib: lib.tensor([True]) - lib.tensor([False]), lambda lib: -lib.tensor([True])):
        for lib in (pt, torch):
            with pytest.raises(RuntimeError):
                fn(lib)


def test_dtype_conversions(torch):
    for name in ["float", "double", "half", "long", "int", "short", "char", "byte", "bool"]:
        ours = getattr(pt.tensor([1.7, -2.2, 0.0]), name)()
        theirs = getattr(torch.tensor([1.7, -2.2, 0.0]), name)()
        assert same_dtype(ours.dtype, theirs.dtype)
        assert ours.tolist() == pytest.approx(theirs.tolist(), rel=1e-3)
    x = pt.ones(2)
    assert x.to(pt.float32) is x and x.float() is x
    assert x.to(pt.float64).dtype is pt.float64
    assert x.to("cpu") is x and x.cpu() is x
    assert x.type() == "torch.FloatTensor" and x.double().type() == "torch.DoubleTensor"
    assert x.to(pt.ones(1, dtype=pt.int32)).dtype is pt.int32


def test_to_is_differentiable(torch):
    def run(lib):
        x = lib.tensor([1., 2.], requires_grad=True)
        y = x.to(lib.float64) * 3
        y.sum().backward()
        return y.grad_fn.next_functions[0][0].name(), x.grad.dtype, x.grad.tolist()
    ours, theirs = run(pt), run(torch)
    assert ours[0] == theirs[0] and same_dtype(ours[1], theirs[1]) and ours[2] == theirs[2]


def test_dtype_objects(torch):
    assert repr(pt.float32) == repr(torch.float32) == "torch.float32"
    assert pt.float is pt.float32 and pt.long is pt.int64 and pt.double is pt.float64
    assert pt.float32.is_floating_point and not pt.int64.is_floating_point
    assert pt.float64.itemsize == 8
    assert pt.get_default_dtype() is pt.float32
    assert pt.finfo(pt.float32).eps == torch.finfo(torch.float32).eps
    assert pt.iinfo(pt.int8).max == torch.iinfo(torch.int8).max


def test_set_default_dtype():
    pt.set_default_dtype(pt.float64)
    try:
        assert pt.tensor([1.5]).dtype is pt.float64
        assert pt.zeros(2).dtype is pt.float64
        assert (pt.tensor([1]) * 0.5).dtype is pt.float64
    finally:
        pt.set_default_dtype(pt.float32)
    assert pt.tensor([1.5]).dtype is pt.float32


# ---------------------------------------------------------------- devices

def test_device_objects(torch):
    for spec in ["cpu", "cuda", "cuda:1"]:
        assert repr(pt.device(spec)) == repr(torch.device(spec))
        assert str(pt.device(spec)) == str(torch.device(spec))
    assert pt.device("cuda", 0) == pt.device("cuda:0")
    assert pt.ones(2).device == pt.device("cpu") and pt.ones(2).device == "cpu"
    assert pt.ones(2).is_cpu and not pt.ones(2).is_cuda
    with pytest.raises(RuntimeError):
        pt.device("tpu")


def test_cuda_without_gpu_raises_like_torch(torch):
    if pt.cuda.is_available():
        pytest.skip("a GPU is present")
    assert pt.cuda.is_available() is False and pt.cuda.device_count() == 0
    errs = []
    for lib in (pt, torch):
        if lib is torch and torch.cuda.is_available():
            pytest.skip("torch sees a GPU")
        with pytest.raises(Exception) as info:
            lib.ones(2).cuda()
        errs.append(info.value)
    assert type(errs[0]) is type(errs[1]) and str(errs[0]) == str(errs[1])
    with pytest.raises(AssertionError):
        pt.zeros(2, device="cuda")


# ---------------------------------------------------------------- memory layout and views

VIEW_OPS = {
    "view": lambda x: x.view(3, 4),
    "view_-1": lambda x: x.view(-1),
    "reshape_view": lambda x: x.reshape(2, 6),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.mT,
    "transpose": lambda x: x.transpose(0, 1),
    "permute": lambda x: x.unsqueeze(0).permute(2, 0, 1),
    "expand": lambda x: x.unsqueeze(0).expand(2, 4, 3),
    "expand_as": lambda x: x[:1].expand_as(x) if hasattr(x, "__getitem__") and False else x.narrow(0, 0, 1).expand(4, 3),
    "squeeze": lambda x: x.unsqueeze(1).squeeze(),
    "squeeze_dim": lambda x: x.unsqueeze(1).squeeze(1),
    "unsqueeze0": lambda x: x.unsqueeze(0),
    "unsqueeze1": lambda x: x.unsqueeze(1),
    "unsqueeze-1": lambda x: x.unsqueeze(-1),
    "t_unsqueeze": lambda x: x.t().unsqueeze(1),
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(0, (2, 2)),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "select": lambda x: x.select(1, 2),
    "unbind": lambda x: x.unbind(1)[1],
    "split": lambda x: x.split(2)[1],
    "split_sizes": lambda x: x.split([1, 3])[1],
    "chunk": lambda x: x.chunk(3, 1)[2],
    "diagonal": lambda x: x.diagonal(),
    "diagonal_off": lambda x: x.diagonal(1),
    "diagonal_neg": lambda x: x.diagonal(-1),
    "as_strided": lambda x: x.as_strided((2, 2), (1, 3), 1),
    "detach": lambda x: x.detach(),
    "movedim": lambda x: x.unsqueeze(0).movedim(0, 2),
    "swapaxes": lambda x: x.swapaxes(0, 1),
}


@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_views_share_memory_like_torch(torch, name):
    fn = VIEW_OPS[name]
    x_ours, x_theirs = pt.arange(12.).view(4, 3), torch.arange(12.).view(4, 3)
    v_ours, v_theirs = fn(x_ours), fn(x_theirs)
    assert tuple(v_ours.shape) == tuple(v_theirs.shape)
    assert v_ours.stride() == v_theirs.stride(), (v_ours.stride(), v_theirs.stride())
    assert v_ours.storage_offset() == v_theirs.storage_offset()
    assert v_ours.is_contiguous() == v_theirs.is_contiguous()
    assert v_ours.untyped_storage().data_ptr() == x_ours.untyped_storage().data_ptr()
    assert v_ours.tolist() == v_theirs.tolist()
    # a write through the base shows in the view
    with pt.no_grad():
        x_ours.add_(1)
    with torch.no_grad():
        x_theirs.add_(1)
    assert v_ours.tolist() == v_theirs.tolist()
    assert v_ours._version == v_theirs._version


def test_view_grad_fn_names(torch):
    for name, fn in VIEW_OPS.items():
        if name in ("detach",):
            continue
        a, b = pt.ones(4, 3, requires_grad=True), torch.ones(4, 3, requires_grad=True)
        a2, b2 = a * 1, b * 1
        ours, theirs = fn(a2).grad_fn.name(), fn(b2).grad_fn.name()
        assert ours == theirs, name


@pytest.mark.parametrize("name", [n for n in VIEW_OPS if n != "detach"])
def test_view_gradients(torch, name):
    fn = VIEW_OPS[name]
    w = np.linspace(-1, 1, 200)

    def run(lib):
        x = lib.tensor(np.arange(12.).reshape(4, 3), requires_grad=True)
        v = fn(x * 1)
        weights = lib.tensor(w[:v.numel()].reshape(tuple(v.shape)), dtype=lib.float32)
        (v * weights).sum().backward()
        return x.grad
    assert_close(run(pt), run(torch))
    x = pt.tensor(np.arange(12.).reshape(4, 3), dtype=pt.float64, requires_grad=True)
    assert pt.autograd.gradcheck(fn, (x,))


def test_view_incompatible_raises(torch):
    for lib in (pt, torch):
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            lib.arange(6.).view(2, 3).t().view(-1)
        with pytest.raises(RuntimeError, match="invalid for input of size"):
            lib.arange(6.).view(4, 2)


def test_reshape_copies_only_when_needed(torch):
    x = pt.arange(6.).view(2, 3)
    assert x.reshape(3, 2).data_ptr() == x.data_ptr()
    y = x.t().reshape(-1)
    assert y.data_ptr() != x.data_ptr()
    assert y.tolist() == torch.arange(6.).view(2, 3).t().reshape(-1).tolist()
    a = pt.ones(2, 3, requires_grad=True)
    assert a.t().reshape(-1).grad_fn.name() == torch.ones(2, 3, requires_grad=True).t().reshape(-1).grad_fn.name()


def test_contiguous_and_clone(torch):
    x = pt.arange(6.).view(2, 3)
    assert x.contiguous() is x
    c = x.t().contiguous()
    assert c.is_contiguous() and c.stride() == (2, 1) and c.data_ptr() != x.data_ptr()
    k = x.clone()
    assert k.data_ptr() != x.data_ptr() and k.tolist() == x.tolist()
    a = pt.ones(2, requires_grad=True)
    assert a.clone().grad_fn.name() == "CloneBackward0"
    assert a.t().contiguous() is not None


def test_shape_accessors(torch):
    for lib in (pt, torch):
        x = lib.zeros(2, 3, 4)
        assert x.shape == (2, 3, 4) and x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
        assert x.dim() == 3 and x.ndim == 3 and x.numel() == 24 and len(x) == 2
        assert x.element_size() == 4 and x.nbytes == 96
    assert repr(pt.zeros(2, 3).shape) == repr(torch.zeros(2, 3).shape) == "torch.Size([2, 3])"
    assert pt.zeros(2, 3).shape.numel() == 6
    for lib in (pt, torch):
        with pytest.raises(IndexError):
            lib.zeros(2, 3).size(2)
        with pytest.raises(TypeError):
            len(lib.tensor(1.))


def test_item_tolist_bool(torch):
    for lib in (pt, torch):
        assert lib.tensor(3.5).item() == 3.5 and isinstance(lib.tensor(3).item(), int)
        assert lib.tensor([[1, 2]]).tolist() == [[1, 2]]
        assert float(lib.tensor([2.5])) == 2.5 and int(lib.tensor(7)) == 7
        with pytest.raises(RuntimeError):
            lib.ones(2).item()
        with pytest.raises(RuntimeError):
            bool(lib.ones(2))
        assert [t.tolist() for t in lib.tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]
        assert np.asarray(lib.tensor([1., 2.])).tolist() == [1., 2.]


def test_storage_sharing_checks(torch):
    x = pt.arange(6.).view(2, 3)
    y = x[0] if hasattr(pt.Tensor, "__getitem__") else x.select(0, 0)
    assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert x.untyped_storage().nbytes() == 24
    assert x.clone().untyped_storage().data_ptr() != x.untyped_storage().data_ptr()


def test_unfold_and_scatter_views(torch):
    def run(lib):
        x = lib.arange(10.).view(2, 5)
        u = x.unfold(1, 3, 2)
        a = lib.arange(10., requires_grad=True)
        (a.unfold(0, 4, 3) * lib.arange(12.).view(3, 4)).sum().backward()
        z = lib.zeros(3, 3)
        w = lib.zeros(3, 3)
        w.fill_diagonal_(5)
        return (tuple(u.shape), u.stride(), u.tolist(), a.grad.tolist(), u.data_ptr() == x.data_ptr(),
                lib.select_scatter(z, lib.ones(3), 0, 1).tolist(), lib.diagonal_scatter(z, lib.ones(3)).tolist(),
                lib.slice_scatter(lib.zeros(4, 2), lib.ones(2, 2), 0, 1, 3).tolist(), w.tolist(),
                [t.shape[0] for t in x.split_with_sizes([1, 1])])
    assert run(pt) == run(torch)
    x = pt.tensor(np.arange(7.), requires_grad=True)
    assert pt.autograd.gradcheck(lambda t: t.unfold(0, 3, 2), (x,))
    assert pt.autograd.gradgradcheck(lambda t: t.unfold(0, 3, 2), (x,))


def test_bfloat16_via_ml_dtypes(torch):
    pytest.importorskip("ml_dtypes")

    def run(lib):
        y = lib.tensor([1.5, 2.0, -3.25], dtype=lib.bfloat16, requires_grad=True)
        z = (y * y).sum()
        z.backward()
        return repr(y.detach()), repr(z.detach()), repr(y.grad), repr(lib.ones(2, dtype=lib.bfloat16).sin()), \
            str((y.detach() + 1.5).dtype), str(y.float().dtype)
    assert run(pt) == run(torch)


def test_legacy_typed_constructors(torch):
    for name in ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "ByteTensor", "BoolTensor"]:
        ours, theirs = getattr(pt, name)([1, 0, 2]), getattr(torch, name)([1, 0, 2])
        assert repr(ours) == repr(theirs)
        assert isinstance(ours, getattr(pt, name)) and not isinstance(ours.double() if name != "DoubleTensor"
                                                                      else ours.float(), getattr(pt, name))
        assert tuple(getattr(pt, name)(2, 3).shape) == (2, 3)
    assert pt.ones(2).type(pt.DoubleTensor).dtype is pt.float64
    assert pt.ones(2).type("torch.LongTensor").dtype is pt.int64
    assert repr(pt.Tensor([[1, 2], [3, 4]])) == repr(torch.Tensor([[1, 2], [3, 4]]))
