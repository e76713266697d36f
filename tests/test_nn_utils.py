"""nn.utils: gradient clipping, parameters <-> vector, and nn.utils.rnn (padding / packing) against PyTorch."""
import math
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.nn import utils as U
from pedatorch.nn.utils import rnn as R
from conftest import assert_close, gradcheck, to_np


def _params(torch, shapes, dtypes=None, seed=0, scale=1.0, with_grad=None):
    """The same parameters (with the same .grad) in pedatorch and torch."""
    rng = np.random.default_rng(seed)
    ours, theirs = [], []
    for i, s in enumerate(shapes):
        dt = (dtypes or ["float32"] * len(shapes))[i]
        w = rng.standard_normal(s).astype(dt)
        g = (rng.standard_normal(s) * scale).astype(dt)
        a, b = pt.nn.Parameter(pt.tensor(w)), torch.nn.Parameter(torch.tensor(w))
        if with_grad is None or with_grad[i]:
            a.grad, b.grad = pt.tensor(g), torch.tensor(g)
        ours.append(a)
        theirs.append(b)
    return ours, theirs


def _close_grads(ours, theirs, rtol=1e-6):
    for a, b in zip(ours, theirs):
        if b.grad is None:
            assert a.grad is None
        else:
            assert_close(a.grad, b.grad, rtol=rtol, atol=1e-7)


SHAPES = [(3, 4), (5,), (2, 2, 3), ()]


# ------------------------------------------------------------------ clip_grad_norm_
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.0, 0.5, float("inf"), "inf", -float("inf"), 0])
@pytest.mark.parametrize("max_norm", [0.1, 1.0, 1e3])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_grad_norm(torch, norm_type, max_norm, dtype):
    ours, theirs = _params(torch, SHAPES, [dtype] * 4)
    na = U.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    nb = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert isinstance(na, pt.Tensor) and na.shape == () and na.grad_fn is None
    assert_close(na, nb, rtol=1e-6)
    _close_grads(ours, theirs)
    for p in ours:
        assert p.is_leaf and p.grad.grad_fn is None


def test_clip_grad_norm_coefficient(torch):
    """grad * min(max_norm / (total + 1e-6), 1): scaled down only."""
    p = pt.nn.Parameter(pt.zeros(2))
    p.grad = pt.tensor([3.0, 4.0])
    n = U.clip_grad_norm_(p, 1.0)
    assert n.item() == 5.0
    np.testing.assert_allclose(to_np(p.grad), np.array([3.0, 4.0], np.float32) * np.float32(1.0 / (5.0 + 1e-6)),
                               rtol=1e-7)
    p.grad = pt.tensor([3.0, 4.0])
    U.clip_grad_norm_([p], 10.0)
    assert p.grad.tolist() == [3.0, 4.0]


def test_clip_grad_norm_mixed_and_missing(torch):
    ours, theirs = _params(torch, [(3,), (4, 2), (2,)], ["float32", "float64", "float32"],
                           with_grad=[True, True, False])
    na, nb = U.clip_grad_norm_(iter(ours), 0.5), torch.nn.utils.clip_grad_norm_(iter(theirs), 0.5)
    assert_close(na, nb)
    _close_grads(ours, theirs)
    assert ours[0].grad.dtype == pt.float32 and ours[1].grad.dtype == pt.float64


@pytest.mark.parametrize("foreach", [None, True, False])
def test_clip_grad_norm_foreach_and_single_tensor(torch, foreach):
    ours, theirs = _params(torch, [(6, 3)], seed=3)
    na = U.clip_grad_norm_(ours[0], 0.3, foreach=foreach)
    nb = torch.nn.utils.clip_grad_norm_(theirs[0], 0.3, foreach=foreach)
    assert_close(na, nb)
    _close_grads(ours, theirs)


def test_clip_grad_norm_empty(torch):
    n = U.clip_grad_norm_([], 1.0)
    assert n.dtype == pt.float32 and n.item() == 0.0 and n.shape == ()
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient clipping will occur."):
        U.clip_grad_norm_((p for p in []), 1.0)
    # parameters with no grads at all
    p = pt.nn.Parameter(pt.ones(3))
    assert U.clip_grad_norm_([p], 1.0).item() == 0.0 and p.grad is None


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
def test_clip_grad_norm_nonfinite(torch, bad, norm_type):
    ours, theirs = _params(torch, [(3,), (2,)])
    ours[0].grad[1] = bad
    theirs[0].grad[1] = bad
    before = [p.grad.clone() for p in ours]
    with pytest.raises(RuntimeError) as e1:
        U.clip_grad_norm_(ours, 1.0, norm_type, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as e2:
        torch.nn.utils.clip_grad_norm_(theirs, 1.0, norm_type, error_if_nonfinite=True)
    assert str(e1.value) == str(e2.value)
    assert "is non-finite, so it cannot be clipped" in str(e1.value)
    for p, g in zip(ours, before):  # nothing was changed
        np.testing.assert_array_equal(to_np(p.grad), to_np(g))
    na = U.clip_grad_norm_(ours, 1.0, norm_type)
    nb = torch.nn.utils.clip_grad_norm_(theirs, 1.0, norm_type)
    assert_close(na, nb)
    _close_grads(ours, theirs)


def test_clip_grad_norm_deprecated(torch):
    ours, theirs = _params(torch, [(4,)])
    with pytest.warns(FutureWarning, match=r"`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                                           r"`torch.nn.utils.clip_grad_norm_`."):
        na = U.clip_grad_norm(ours, 0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nb = torch.nn.utils.clip_grad_norm(theirs, 0.1)
    assert_close(na, nb)
    _close_grads(ours, theirs)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_get_total_norm_and_clip_grads_with_norm(torch, norm_type):
    ours, theirs = _params(torch, SHAPES, seed=5)
    ta = U.get_total_norm([p.grad for p in ours], norm_type)
    tb = torch.nn.utils.get_total_norm([p.grad for p in theirs], norm_type)
    assert_close(ta, tb)
    assert U.clip_grads_with_norm_(ours, 0.7, ta) is None
    torch.nn.utils.clip_grads_with_norm_(theirs, 0.7, tb)
    _close_grads(ours, theirs)
    assert_close(U.get_total_norm(pt.tensor([3.0, -4.0])), torch.nn.utils.get_total_norm(torch.tensor([3.0, -4.0])))
    assert U.get_total_norm([]).item() == 0.0
    with pytest.raises(RuntimeError, match="non-finite"):
        U.get_total_norm([pt.tensor([float("nan")])], error_if_nonfinite=True)


def test_clip_grad_norm_under_grad_mode(torch):
    """Runs under no_grad even when the grads require grad (create_graph)."""
    x = pt.tensor([1.0, 2.0], requires_grad=True)
    (g,) = pt.autograd.grad((x ** 3).sum(), x, create_graph=True)
    p = pt.nn.Parameter(pt.zeros(2))
    p.grad = g
    n = U.clip_grad_norm_([p], 1.0)
    assert n.grad_fn is None and not n.requires_grad


# ------------------------------------------------------------------ clip_grad_value_
@pytest.mark.parametrize("clip", [0.1, 1, 5.0])
def test_clip_grad_value(torch, clip):
    ours, theirs = _params(torch, SHAPES, ["float32", "float64", "float32", "float64"], scale=2.0,
                           with_grad=[True, True, False, True])
    assert U.clip_grad_value_(ours, clip) is None
    torch.nn.utils.clip_grad_value_(theirs, clip)
    _close_grads(ours, theirs)
    ours, theirs = _params(torch, [(5,)], scale=3.0)
    U.clip_grad_value_(ours[0], clip, foreach=True)
    torch.nn.utils.clip_grad_value_(theirs[0], clip, foreach=True)
    _close_grads(ours, theirs)


def test_exports(torch):
    for name in ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
                 "parameters_to_vector", "vector_to_parameters", "rnn"]:
        assert hasattr(pt.nn.utils, name)
    assert pt.nn.utils.rnn.pad_sequence is R.pad_sequence
    assert set(R.__all__) == set(torch.nn.utils.rnn.__all__)
    import inspect
    for name in ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
                 "parameters_to_vector", "vector_to_parameters"]:
        assert str(inspect.signature(getattr(U, name))).replace("torch.", "") == \
            str(inspect.signature(getattr(torch.nn.utils, name))).replace("torch.", "") or \
            list(inspect.signature(getattr(U, name)).parameters) == \
            list(inspect.signature(getattr(torch.nn.utils, name)).parameters)
    for name in ["pad_sequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence", "unpad_sequence",
                 "unpack_sequence"]:
        ours = inspect.signature(getattr(R, name)).parameters
        theirs = inspect.signature(getattr(torch.nn.utils.rnn, name)).parameters
        assert list(ours) == list(theirs), name
        assert [p.default for p in ours.values()] == [p.default for p in theirs.values()], name


# ------------------------------------------------------------------ parameters <-> vector
def test_parameters_to_vector(torch):
    ours, theirs = _params(torch, [(2, 3), (4,), (1, 2, 2)])
    va, vb = U.parameters_to_vector(ours), torch.nn.utils.parameters_to_vector(theirs)
    assert_close(va, vb)
    assert va.grad_fn.name() == vb.grad_fn.name() == "CatBackward0"
    w = np.arange(va.numel(), dtype=np.float32)
    (va * pt.tensor(w)).sum().backward()
    (vb * torch.tensor(w)).sum().backward()
    for a, b in zip(ours, theirs):
        assert_close(a.grad, b.grad)
    assert_close(U.parameters_to_vector(iter([pt.ones(2, 2)])), torch.ones(4))


def test_vector_to_parameters(torch):
    ours, theirs = _params(torch, [(2, 3), (4,), ()])
    vec = np.linspace(-1, 1, 11).astype(np.float32)
    U.vector_to_parameters(pt.tensor(vec), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(vec), theirs)
    for a, b in zip(ours, theirs):
        assert_close(a, b)
        assert isinstance(a, pt.nn.Parameter) and a.requires_grad
    # the parameters now view the vector's memory
    v = pt.tensor(vec)
    U.vector_to_parameters(v, ours)
    v[0] = 42.0
    assert ours[0][0, 0].item() == 42.0


def test_vector_conversion_errors(torch):
    for bad in [[1.0, 2.0], 3, "v"]:
        with pytest.raises(TypeError) as e1:
            U.vector_to_parameters(bad, [pt.ones(2)])
        with pytest.raises(TypeError) as e2:
            torch.nn.utils.vector_to_parameters(bad, [torch.ones(2)])
        assert str(e1.value) == str(e2.value)
    with pytest.raises(AttributeError):
        U.parameters_to_vector([pt.ones(2), 3])
    with pytest.raises(AttributeError):
        U.vector_to_parameters(pt.ones(3), [1, 2])
    with pytest.raises(ValueError, match=r"torch.cat\(\): expected a non-empty list of Tensors"):
        U.parameters_to_vector([])


# ------------------------------------------------------------------ nn.utils.rnn
def _seqs(torch, lengths, trailing=(2,), dtype="float64", seed=0, requires_grad=True):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((n,) + trailing).astype(dtype) for n in lengths]
    return ([pt.tensor(a, requires_grad=requires_grad) for a in arrs],
            [torch.tensor(a, requires_grad=requires_grad) for a in arrs])


def _grads_match(torch, out_a, out_b, ins_a, ins_b, seed=1):
    w = np.random.default_rng(seed).standard_normal(tuple(out_b.shape))
    ga = pt.autograd.grad((out_a * pt.tensor(w, dtype=out_a.dtype)).sum(), ins_a, allow_unused=True,
                          retain_graph=True)
    gb = torch.autograd.grad((out_b * torch.tensor(w, dtype=out_b.dtype)).sum(), ins_b, allow_unused=True,
                             retain_graph=True)
    for a, b in zip(ga, gb):
        if a is None and b is not None and b.numel() == 0:
            continue  # pedatorch's cat gives no gradient (PyTorch: an empty one) to an empty input
        assert_close(a, b)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("lengths,trailing", [([3, 1, 4], (2,)), ([2, 2], ()), ([5], (2, 3)), ([0, 3, 1], (2,))])
def test_pad_sequence(torch, batch_first, padding_side, lengths, trailing):
    sa, sb = _seqs(torch, lengths, trailing)
    oa = R.pad_sequence(sa, batch_first, -1.5, padding_side)
    ob = torch.nn.utils.rnn.pad_sequence(sb, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    assert_close(oa, ob)
    assert oa.grad_fn.name() == ob.grad_fn.name() == "torch::autograd::CopySlices"
    _grads_match(torch, oa, ob, sa, sb)


def test_pad_sequence_dtypes_broadcast_and_tensor_input(torch):
    a = [pt.tensor([1, 2, 3]), pt.tensor([4])]
    b = [torch.tensor([1, 2, 3]), torch.tensor([4])]
    oa, ob = R.pad_sequence(a, padding_value=-1.5), torch.nn.utils.rnn.pad_sequence(b, padding_value=-1.5)
    assert_close(oa, ob)
    # mixed dtypes: the first sequence's dtype; trailing dims broadcast as copy_ does
    a = [pt.ones(2, 3), pt.full((3,), 2.0, dtype=pt.float64), pt.ones(1, 1) * 3]
    b = [torch.ones(2, 3), torch.full((3,), 2.0, dtype=torch.float64), torch.ones(1, 1) * 3]
    assert_close(R.pad_sequence(a, True), torch.nn.utils.rnn.pad_sequence(b, True))
    # a tensor is iterated along dim 0
    x = np.arange(6.0).reshape(2, 3)
    assert_close(R.pad_sequence(pt.tensor(x)), torch.nn.utils.rnn.pad_sequence(torch.tensor(x)))
    # gradients through the broadcast/cast copy
    sa, sb = _seqs(torch, [3, 2], (1,))
    fa, fb = pt.tensor(np.ones((4, 2)), requires_grad=True), torch.tensor(np.ones((4, 2)), requires_grad=True)
    oa = R.pad_sequence([fa] + sa, batch_first=True)
    ob = torch.nn.utils.rnn.pad_sequence([fb] + sb, batch_first=True)
    assert_close(oa, ob)
    _grads_match(torch, oa, ob, [fa] + sa, [fb] + sb)


@pytest.mark.parametrize("args,kw", [((5,), {}), (([],), {}), (([np.zeros(1)],), {"padding_side": "mid"}),
                                     (([np.zeros((3, 2)), np.zeros((2, 3))],), {}),
                                     (([np.zeros(2), np.zeros(())],), {}), (([np.zeros(()), np.zeros(())],), {})])
def test_pad_sequence_errors(torch, args, kw):
    def conv(lib):
        a = args[0]
        return (lib.tensor(v) for v in a) if isinstance(a, list) else a

    with pytest.raises(Exception) as e1:
        R.pad_sequence(list(conv(pt)) if isinstance(args[0], list) else args[0], **kw)
    with pytest.raises(Exception) as e2:
        torch.nn.utils.rnn.pad_sequence(list(conv(torch)) if isinstance(args[0], list) else args[0], **kw)
    assert type(e1.value) is type(e2.value)
    assert str(e1.value) == str(e2.value)


CASES = [([4, 2, 1], True), ([2, 4, 1], False), ([3, 3, 3], True), ([1, 3, 2, 3], False), ([1], True),
         ([2, 1, 2], False)]


@pytest.mark.parametrize("lengths,enforce_sorted", CASES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths_as", ["list", "tensor", "int32"])
def test_pack_pad_roundtrip(torch, lengths, enforce_sorted, batch_first, lengths_as):
    T, B = max(lengths) + 1, len(lengths)
    x = np.random.default_rng(7).standard_normal((B, T, 3) if batch_first else (T, B, 3))
    a, b = pt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    la = lengths if lengths_as == "list" else pt.tensor(lengths, dtype=pt.int32 if lengths_as == "int32" else None)
    lb = lengths if lengths_as == "list" else torch.tensor(lengths, dtype=torch.int32 if lengths_as == "int32"
                                                           else None)
    pa = R.pack_padded_sequence(a, la, batch_first=batch_first, enforce_sorted=enforce_sorted)
    pb = torch.nn.utils.rnn.pack_padded_sequence(b, lb, batch_first=batch_first, enforce_sorted=enforce_sorted)
    assert isinstance(pa, R.PackedSequence) and isinstance(pa, tuple) and pa._fields == pb._fields
    assert_close(pa.data, pb.data)
    assert pa.data.grad_fn.name() == pb.data.grad_fn.name() == "PackPaddedSequenceBackward0"
    assert pa.batch_sizes.dtype == pt.int64 and pa.batch_sizes.device.type == "cpu"
    assert pa.batch_sizes.tolist() == pb.batch_sizes.tolist()
    for f in ("sorted_indices", "unsorted_indices"):
        u, v = getattr(pa, f), getattr(pb, f)
        assert (u is None) == (v is None)
        if u is not None:
            assert u.dtype == pt.int64 and u.tolist() == v.tolist()
    assert str(pa) == str(pb)
    _grads_match(torch, pa.data, pb.data, [a], [b])

    for total, pad in [(None, 0.0), (T + 2, -3.0)]:
        oa, na = R.pad_packed_sequence(pa, batch_first=batch_first, padding_value=pad, total_length=total)
        ob, nb = torch.nn.utils.rnn.pad_packed_sequence(pb, batch_first=batch_first, padding_value=pad,
                                                        total_length=total)
        assert_close(oa, ob)
        assert na.dtype == pt.int64 and na.tolist() == nb.tolist() == lengths
        assert oa.grad_fn.name() == ob.grad_fn.name()
        _grads_match(torch, oa, ob, [a], [b])


def test_pack_int_data_and_trailing_dims(torch):
    x = np.arange(24).reshape(3, 2, 4)
    pa = R.pack_padded_sequence(pt.tensor(x), [3, 2])
    pb = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), [3, 2])
    assert str(pa) == str(pb)
    assert str(R.pad_packed_sequence(pa, padding_value=-1.7)) == \
        str(torch.nn.utils.rnn.pad_packed_sequence(pb, padding_value=-1.7))
    x = np.random.default_rng(0).standard_normal((4, 3, 2, 2)).astype(np.float32)
    pa = R.pack_padded_sequence(pt.tensor(x), [4, 2, 2])
    pb = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), [4, 2, 2])
    assert_close(pa.data, pb.data)
    assert_close(R.pad_packed_sequence(pa, True)[0], torch.nn.utils.rnn.pad_packed_sequence(pb, True)[0])


def test_pack_lengths_longer_than_input(torch):
    # PyTorch packs the steps the input has and keeps the batch_sizes the lengths describe
    x = np.arange(12.0).reshape(4, 3, 1)
    pa = R.pack_padded_sequence(pt.tensor(x), [5, 2, 1])
    pb = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), [5, 2, 1])
    assert str(pa) == str(pb)


@pytest.mark.parametrize("shape,lengths,kw", [
    ((4, 3, 2), [2, 4, 1], {}),
    ((4, 3, 2), [4, 2, 0], {}),
    ((4, 3, 2), [4, 0, 0], {"enforce_sorted": False}),
    ((4, 3, 2), [4, 2], {}),
    ((4, 3, 2), [4, 2, 1], {"batch_first": True}),
    ((4, 3, 2), "2d", {}),
    ((0, 3, 2), [1, 1, 1], {}),
    ((3, 4), [3, 3], {}),
])
def test_pack_padded_sequence_errors(torch, shape, lengths, kw):
    def call(lib, mod):
        ln = lib.tensor([[4, 2, 1]]) if lengths == "2d" else lengths
        return mod.pack_padded_sequence(lib.zeros(shape), ln, **kw)

    with pytest.raises(Exception) as e1:
        call(pt, R)
    with pytest.raises(Exception) as e2:
        call(torch, torch.nn.utils.rnn)
    assert type(e1.value) is type(e2.value)
    assert str(e1.value) == str(e2.value)
    if lengths == [2, 4, 1]:
        assert str(e1.value).startswith("`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                                        "True. You can pass `enforce_sorted=False`")


def test_pack_errors_1d_input(torch):
    for kw in [{}, {"batch_first": True}]:
        with pytest.raises(IndexError):
            R.pack_padded_sequence(pt.zeros(3), [3], **kw)


def test_pad_packed_total_length_error(torch):
    pa = R.pack_padded_sequence(pt.zeros(4, 2), [4, 1])
    pb = torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(4, 2), [4, 1])
    with pytest.raises(ValueError) as e1:
        R.pad_packed_sequence(pa, total_length=3)
    with pytest.raises(ValueError) as e2:
        torch.nn.utils.rnn.pad_packed_sequence(pb, total_length=3)
    assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("lengths,enforce_sorted", [([3, 2, 1], True), ([1, 4, 2], False), ([2, 2, 2], True)])
def test_pack_sequence_and_unpack(torch, lengths, enforce_sorted):
    sa, sb = _seqs(torch, lengths, (2,), seed=4)
    pa = R.pack_sequence(sa, enforce_sorted=enforce_sorted)
    pb = torch.nn.utils.rnn.pack_sequence(sb, enforce_sorted=enforce_sorted)
    assert str(pa) == str(pb)
    _grads_match(torch, pa.data, pb.data, sa, sb)
    ua, ub = R.unpack_sequence(pa), torch.nn.utils.rnn.unpack_sequence(pb)
    assert len(ua) == len(ub) == len(lengths)
    for u, v, s in zip(ua, ub, sa):
        assert_close(u, v)
        assert_close(u, s)
        assert u.grad_fn.name() == v.grad_fn.name() == "IndexBackward0"
    out_a, out_b = pt.cat([u.reshape(-1) for u in ua]), torch.cat([v.reshape(-1) for v in ub])
    _grads_match(torch, out_a, out_b, sa, sb)


def test_pack_sequence_unsorted_error(torch):
    sa, _ = _seqs(torch, [1, 3], (), requires_grad=False)
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        R.pack_sequence(sa)


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence(torch, batch_first):
    sa, sb = _seqs(torch, [3, 1, 4], (2,), seed=9)
    pa = R.pad_sequence(sa, batch_first=batch_first)
    pb = torch.nn.utils.rnn.pad_sequence(sb, batch_first=batch_first)
    la, lb = pt.tensor([3, 1, 4]), torch.tensor([3, 1, 4])
    ua = R.unpad_sequence(pa, la, batch_first=batch_first)
    ub = torch.nn.utils.rnn.unpad_sequence(pb, lb, batch_first=batch_first)
    assert tuple(pa.shape) == tuple(pb.shape)  # transposed in place when not batch_first, as in PyTorch
    for u, v in zip(ua, ub):
        assert_close(u, v)
    _grads_match(torch, pt.cat(ua), torch.cat(ub), sa, sb)


def test_unpad_sequence_leaf_error(torch):
    with pytest.raises(RuntimeError) as e1:
        R.unpad_sequence(pt.zeros(3, 2, requires_grad=True), pt.tensor([3, 1]))
    with pytest.raises(RuntimeError) as e2:
        torch.nn.utils.rnn.unpad_sequence(torch.zeros(3, 2, requires_grad=True), torch.tensor([3, 1]))
    assert str(e1.value) == str(e2.value)


def test_packed_sequence_object(torch):
    x = np.random.default_rng(2).standard_normal((3, 2, 2)).astype(np.float32)
    pa = R.pack_padded_sequence(pt.tensor(x), [1, 3], enforce_sorted=False)
    pb = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), [1, 3], enforce_sorted=False)
    data, batch_sizes, sorted_indices, unsorted_indices = pa
    assert data is pa.data and batch_sizes is pa.batch_sizes and pa[2] is sorted_indices
    assert pa.to(pt.float32) is pa and pb.to(torch.float32) is pb
    qa, qb = pa.to(pt.float64), pb.to(torch.float64)
    assert type(qa) is R.PackedSequence and qa.data.dtype == pt.float64
    assert qa.batch_sizes is pa.batch_sizes
    assert str(qa).replace("ToCopyBackward0", "") == str(qb).replace("ToCopyBackward0", "")
    assert pa.double().data.dtype == pt.float64 and pa.half().data.dtype == pt.float16
    assert pa.long().data.dtype == pt.int64 and pa.int().data.dtype == pt.int32
    assert pa.cpu() is pa and pa.is_cuda is False and pa.float() is pa
    # construction by hand, as the RNN modules and PyTorch's own code do
    p2 = R.PackedSequence(pa.data, pa.batch_sizes, pa.sorted_indices)
    assert p2.unsorted_indices.tolist() == pa.unsorted_indices.tolist()
    p3 = R.PackedSequence((pa.data, pa.batch_sizes))
    assert p3.sorted_indices is None and p3.unsorted_indices is None
    with pytest.raises(AssertionError, match="Expected data to be a list or tuple of length 2"):
        R.PackedSequence(pa.data)
    assert R.invert_permutation(None) is None
    perm = pt.tensor([2, 0, 3, 1])
    assert R.invert_permutation(perm).tolist() == torch.nn.utils.rnn.invert_permutation(
        torch.tensor([2, 0, 3, 1])).tolist()


# ------------------------------------------------------------------ gradcheck (float64, torch-free)
def test_gradcheck_pack_pad():
    x = np.random.default_rng(0).standard_normal((4, 3, 2))

    def f(t):
        return R.pack_padded_sequence(t, [4, 2, 1]).data

    def g(t):
        p = R.pack_padded_sequence(t, [2, 4, 3], batch_first=False, enforce_sorted=False)
        return R.pad_packed_sequence(p, batch_first=True, padding_value=1.0, total_length=5)[0]

    assert gradcheck(f, x)
    assert gradcheck(g, x)
    assert pt.autograd.gradgradcheck(f, (pt.tensor(x, requires_grad=True),))


def test_gradcheck_pad_unpad():
    rng = np.random.default_rng(1)
    a, b, c = rng.standard_normal((3, 2)), rng.standard_normal((1, 2)), rng.standard_normal((2, 2))
    assert gradcheck(lambda *s: R.pad_sequence(list(s), True, 0.5, "left"), a, b, c)
    assert gradcheck(lambda *s: R.pad_sequence(list(s)), a, b, c)
    assert gradcheck(lambda *s: pt.cat(R.unpack_sequence(R.pack_sequence(list(s), enforce_sorted=False))), a, b, c)
    assert gradcheck(lambda v: U.parameters_to_vector([v, v * 2]), a)


def test_math_sanity():
    assert math.isclose(U.clip_grad_norm_([], 1.0).item(), 0.0)
