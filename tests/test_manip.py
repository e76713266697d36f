"""Rearranging ops: flip, roll, rot90, repeat/tile/repeat_interleave, tril/triu, diag, trace, pad, kron,
meshgrid, cartesian_prod, combinations, block_diag, narrow_copy, cross.

Each case runs the same expression on pedatorch and on PyTorch and compares values, dtypes, grad_fn chains,
gradients and exception classes/messages; every differentiable op is also gradchecked in float64.
"""
import warnings

import numpy as np
import pytest

import pedatorch as pt
from pedatorch.ops.manip import pad as pt_pad
from conftest import assert_close, gradcheck

RNG = np.random.default_rng(0)
A34 = RNG.standard_normal((3, 4))
A234 = RNG.standard_normal((2, 3, 4))
A1345 = RNG.standard_normal((1, 3, 4, 5))
V4 = RNG.standard_normal(4)


def chain(t):
    out, f = [], t.grad_fn
    while f is not None and type(f).__name__ != "AccumulateGrad":
        out.append(type(f).__name__)
        f = f.next_functions[0][0] if f.next_functions else None
    return out


def _lib_pad(lib):
    if lib is pt:
        return pt_pad
    return lib.nn.functional.pad


def compare(torch, fn, *data, grad=True, check_chain=True):
    """fn(L, P, *tensors) on both libraries (P = pad): same values/dtype/grad_fn chain, same input gradients."""
    results = []
    for lib in (pt, torch):
        ts = [lib.tensor(np.array(d), requires_grad=grad and np.asarray(d).dtype.kind == "f") for d in data]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = fn(lib, _lib_pad(lib), *ts)
        results.append((ts, y))
    (pts, py), (tts, ty) = results
    pys, tys = (py, ty) if isinstance(ty, tuple) else ((py,), (ty,))
    assert len(pys) == len(tys)
    for a, b in zip(pys, tys):
        assert_close(a, b)
        if check_chain:
            assert chain(a) == chain(b)
    if grad and any(t.requires_grad for t in tys):
        pl = sum((a * pt.tensor(w)).sum() for a, w in zip(pys, _weights(tys)))
        tl = sum((b * torch.tensor(w)).sum() for b, w in zip(tys, _weights(tys)))
        pl.backward()
        tl.backward()
        for a, b in zip(pts, tts):
            if b.grad is not None:
                assert_close(a.grad, b.grad)
    return py, ty


def _weights(tys):
    rng = np.random.default_rng(5)
    return [rng.standard_normal(tuple(t.shape)) for t in tys]


def same_error(torch, fn, *data, match_message=True):
    errs = []
    for lib in (pt, torch):
        ts = [lib.tensor(np.array(d)) for d in data]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as info:
                fn(lib, _lib_pad(lib), *ts)
        errs.append(info.value)
    ours, theirs = errs
    assert type(ours) is type(theirs), (repr(ours), repr(theirs))
    if match_message:
        assert str(ours) == str(theirs)


CASES = {
    "flip0": (lambda L, P, x: L.flip(x, (0,)), [A34]),
    "flip01": (lambda L, P, x: L.flip(x, [0, -1]), [A234]),
    "flip_none": (lambda L, P, x: L.flip(x, ()), [A34]),
    "flip_method": (lambda L, P, x: x.flip(0, 1), [A34]),
    "flip_method_list": (lambda L, P, x: x.flip([2]), [A234]),
    "flip_0d": (lambda L, P, x: L.flip(x, (0,)), [np.array(3.0)]),
    "fliplr": (lambda L, P, x: L.fliplr(x), [A234]),
    "flipud": (lambda L, P, x: x.flipud(), [A34]),
    "roll": (lambda L, P, x: L.roll(x, 1, 0), [A34]),
    "roll_tuple": (lambda L, P, x: L.roll(x, (1, -2), (0, 1)), [A34]),
    "roll_flat": (lambda L, P, x: x.roll(5), [A34]),
    "roll_neg": (lambda L, P, x: L.roll(x, -5, 2), [A234]),
    "roll_0d": (lambda L, P, x: L.roll(x, 1), [np.array(3.0)]),
    "roll_empty": (lambda L, P, x: L.roll(x, 1, 0), [np.zeros((0, 3))]),
    "rot90_0": (lambda L, P, x: L.rot90(x, 0), [A34]),
    "rot90_1": (lambda L, P, x: L.rot90(x), [A34]),
    "rot90_2": (lambda L, P, x: L.rot90(x, 2), [A34]),
    "rot90_3": (lambda L, P, x: x.rot90(3), [A34]),
    "rot90_-1": (lambda L, P, x: L.rot90(x, -1), [A34]),
    "rot90_5_dims": (lambda L, P, x: L.rot90(x, 5, [2, 0]), [A234]),
    "rot90_dims10": (lambda L, P, x: L.rot90(x, 1, (1, 0)), [A34]),
    "repeat": (lambda L, P, x: x.repeat(2, 1), [A34]),
    "repeat_more_dims": (lambda L, P, x: x.repeat(2, 1, 3), [A34]),
    "repeat_tuple": (lambda L, P, x: x.repeat((2, 2)), [A34]),
    "repeat_zero": (lambda L, P, x: x.repeat([0, 1]), [A34]),
    "repeat_0d": (lambda L, P, x: x.repeat(3), [np.array(2.0)]),
    "repeat_0d_empty": (lambda L, P, x: x.repeat(()), [np.array(2.0)]),
    "tile": (lambda L, P, x: L.tile(x, (2,)), [A34]),
    "tile3": (lambda L, P, x: L.tile(x, (2, 1, 1)), [A34]),
    "tile_method": (lambda L, P, x: x.tile(2, 2), [A34]),
    "tile_empty": (lambda L, P, x: L.tile(x, ()), [A34]),
    "repeat_interleave": (lambda L, P, x: L.repeat_interleave(x, 2), [A34]),
    "repeat_interleave_1d": (lambda L, P, x: x.repeat_interleave(3), [V4]),
    "repeat_interleave_dim": (lambda L, P, x: L.repeat_interleave(x, 2, dim=0), [A34]),
    "repeat_interleave_dim1": (lambda L, P, x: L.repeat_interleave(x, 3, 1), [A234]),
    "repeat_interleave_t": (lambda L, P, x: L.repeat_interleave(x, L.tensor([1, 2, 0]), dim=0), [A34]),
    "repeat_interleave_t1": (lambda L, P, x: L.repeat_interleave(x, L.tensor([2]), dim=1), [A34]),
    "repeat_interleave_t0d": (lambda L, P, x: L.repeat_interleave(x, L.tensor(2), 0), [A34]),
    "repeat_interleave_tflat": (lambda L, P, x: x.repeat_interleave(L.tensor([2]), output_size=24), [A34]),
    "repeat_interleave_0d": (lambda L, P, x: L.repeat_interleave(x, 2), [np.array(3.0)]),
    "tril": (lambda L, P, x: L.tril(x), [A34]),
    "tril_k": (lambda L, P, x: L.tril(x, -1), [A234]),
    "triu": (lambda L, P, x: L.triu(x, 1), [A34]),
    "triu_big": (lambda L, P, x: x.triu(5), [A34]),
    "tril_": (lambda L, P, x: (x * 1).tril_(1), [A34]),
    "triu_": (lambda L, P, x: (x * 1).triu_(-1), [A234]),
    "diag1": (lambda L, P, x: L.diag(x), [V4]),
    "diag1_k": (lambda L, P, x: L.diag(x, 1), [V4]),
    "diag1_-k": (lambda L, P, x: x.diag(-2), [V4]),
    "diag2": (lambda L, P, x: L.diag(x), [A34]),
    "diag2_k": (lambda L, P, x: L.diag(x, 1), [A34]),
    "diag2_-k": (lambda L, P, x: L.diag(x, -1), [A34]),
    "diag2_far": (lambda L, P, x: L.diag(x, 5), [A34]),
    "diag_embed": (lambda L, P, x: L.diag_embed(x), [A34]),
    "diag_embed_k": (lambda L, P, x: L.diag_embed(x, 1), [V4]),
    "diag_embed_dims": (lambda L, P, x: x.diag_embed(-1, 0, 2), [A34]),
    "diag_embed_dims_rev": (lambda L, P, x: L.diag_embed(x, 2, 2, 0), [A234]),
    "diagflat": (lambda L, P, x: L.diagflat(x), [V4]),
    "diagflat_k": (lambda L, P, x: L.diagflat(x, -1), [V4]),
    "diagflat_2d": (lambda L, P, x: x.diagflat(2), [A34]),
    "diagflat_0d": (lambda L, P, x: L.diagflat(x), [np.array(3.0)]),
    "trace": (lambda L, P, x: L.trace(x), [A34]),
    "trace_tall": (lambda L, P, x: x.trace(), [A34.T.copy()]),
    "pad_c": (lambda L, P, x: P(x, (1, 2)), [A34]),
    "pad_c2": (lambda L, P, x: P(x, (1, 2, 0, 1)), [A34]),
    "pad_c_value": (lambda L, P, x: P(x, (1, 2), value=5.0), [A34]),
    "pad_c_mode": (lambda L, P, x: P(x, [1, 1], "constant", 2), [A34]),
    "pad_c_neg": (lambda L, P, x: P(x, (-1, 2)), [A34]),
    "pad_c_neg_all": (lambda L, P, x: P(x, (-4, 0)), [A34]),
    "pad_c_3": (lambda L, P, x: P(x, (1, 0, 2, 1, 0, 1)), [A234]),
    "pad_c_zero": (lambda L, P, x: P(x, (0, 0)), [A34]),
    "pad_c_empty": (lambda L, P, x: P(x, ()), [A34]),
    "constant_pad_nd": (lambda L, P, x: L.constant_pad_nd(x, (1, 1), 2.0), [A34]),
    "pad_reflect1": (lambda L, P, x: P(x, (1, 2), mode="reflect"), [A34]),
    "pad_reflect1_b": (lambda L, P, x: P(x, (3, 1), mode="reflect"), [A234]),
    "pad_reflect1_neg": (lambda L, P, x: P(x, (-1, 2), mode="reflect"), [A234]),
    "pad_reflect2": (lambda L, P, x: P(x, (1, 1, 2, 1), mode="reflect"), [A234]),
    "pad_reflect2_4d": (lambda L, P, x: P(x, (2, 3, 1, 2), mode="reflect"), [A1345]),
    "pad_reflect3": (lambda L, P, x: P(x, (1, 1, 1, 2, 0, 0), mode="reflect"), [A1345]),
    "pad_reflect_value0": (lambda L, P, x: P(x, (1, 1), mode="reflect", value=0), [A34]),
    "pad_replicate1": (lambda L, P, x: P(x, (1, 1), mode="replicate"), [A34]),
    "pad_replicate1_big": (lambda L, P, x: P(x, (5, 6), mode="replicate"), [A234]),
    "pad_replicate2": (lambda L, P, x: P(x, (1, 2, 3, 0), mode="replicate"), [A234]),
    "pad_replicate2_neg": (lambda L, P, x: P(x, (-1, 2, 1, -1), mode="replicate"), [A1345]),
    "pad_replicate3": (lambda L, P, x: P(x, (1, 1, 1, 1, 1, 1), mode="replicate"), [A1345]),
    "pad_circular1": (lambda L, P, x: P(x, (1, 1), mode="circular"), [A34]),
    "pad_circular1_b": (lambda L, P, x: P(x, (4, 2), mode="circular"), [A234]),
    "pad_circular1_neg": (lambda L, P, x: P(x, (-1, 1), mode="circular"), [A234]),
    "pad_circular2": (lambda L, P, x: P(x, (1, 2, 2, 1), mode="circular"), [A234]),
    "pad_circular3": (lambda L, P, x: P(x, (1, 1, 1, 1, 1, 0), mode="circular"), [A1345]),
    "narrow_copy": (lambda L, P, x: L.narrow_copy(x, 1, 1, 2), [A34]),
    "narrow_copy_t": (lambda L, P, x: L.narrow_copy(x, 0, L.tensor(1), 2), [A34]),
    "block_diag": (lambda L, P, x, v, s: L.block_diag(x, v, s), [A34, V4, np.array(2.0)]),
    "block_diag_one": (lambda L, P, x: L.block_diag(x), [A34]),
    "block_diag_empty": (lambda L, P, x, v: L.block_diag(x, v), [np.zeros((0, 2)), V4]),
    "cartesian_prod": (lambda L, P, v, w: L.cartesian_prod(v, w), [V4, V4[:2]]),
    "cartesian_prod3": (lambda L, P, v, w: L.cartesian_prod(v, w, v[:1]), [V4, V4[:2]]),
    "meshgrid_ij": (lambda L, P, v, w: L.meshgrid(v, w, indexing="ij"), [V4, V4[:3]]),
    "meshgrid_xy": (lambda L, P, v, w: L.meshgrid(v, w, indexing="xy"), [V4, V4[:3]]),
    "meshgrid_xy3": (lambda L, P, v, w: L.meshgrid([v, w, v[:2]], indexing="xy"), [V4, V4[:3]]),
    "meshgrid_0d": (lambda L, P, v, s: L.meshgrid(v, s, indexing="ij"), [V4, np.array(2.0)]),
    "meshgrid_one": (lambda L, P, v: L.meshgrid(v, indexing="xy"), [V4]),
    "combinations": (lambda L, P, v: L.combinations(v), [V4]),
    "combinations3": (lambda L, P, v: L.combinations(v, 3), [V4]),
    "combinations_repl": (lambda L, P, v: L.combinations(v, 2, with_replacement=True), [V4]),
    "combinations1": (lambda L, P, v: L.combinations(v, 1), [V4]),
    "combinations_big_r": (lambda L, P, v: L.combinations(v, 5), [V4]),
    "kron": (lambda L, P, x, y: L.kron(x, y), [A34, A34[:2, :3]]),
    "kron_mixed": (lambda L, P, x, v: x.kron(v), [A34, V4[:2]]),
    "kron_0d": (lambda L, P, x, s: L.kron(x, s), [V4, np.array(3.0)]),
    "cross": (lambda L, P, x, y: L.cross(x, y, dim=1), [A34[:, :3], A34[:, 1:]]),
    "cross_bcast": (lambda L, P, x, y: L.cross(x, y, dim=1), [A34[:, :3], A34[:1, 1:]]),
    "cross_default_dim": (lambda L, P, x, y: L.cross(x, y), [A34[:, :3], A34[:, 1:]]),
    "cross_neg_dim": (lambda L, P, x, y: x.cross(y, -1), [A234[:, :, :3], A234[:, :, 1:]]),
    "cross_1d": (lambda L, P, x, y: L.cross(x, y), [V4[:3], V4[1:]]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(torch, name):
    fn, data = CASES[name]
    compare(torch, fn, *data)


def test_narrow_copy_negative_start(torch):
    # forward as PyTorch; PyTorch's own backward for a negative start returns zeros, ours is gradchecked
    compare(torch, lambda L, P, x: x.narrow_copy(1, -1, 1), A34, grad=False)
    assert gradcheck(lambda x: x.narrow_copy(1, -2, 2), A34)


def test_results_own_their_memory():
    x = pt.tensor(A34.copy())
    for y in (pt.flip(x, (0,)), pt.flip(x, ()), pt.roll(x, 0), pt.rot90(x, 0), pt.rot90(x, 4), x.repeat(1, 1),
              pt.tile(x, ()), pt.tril(x, 10), pt.narrow_copy(x, 0, 0, 3), pt_pad(x, ()), pt.diag(x),
              pt.trace(x)):
        assert y._base is None
        assert not np.shares_memory(y._data, x._data)


def test_meshgrid_returns_views(torch):
    v = pt.tensor(V4)
    a, b = pt.meshgrid(v, v[:2], indexing="ij")
    assert a.data_ptr() == v.data_ptr() and a._base is v
    assert b.stride() == (0, 1)
    tv = torch.tensor(V4)
    ta, tb = torch.meshgrid(tv, tv[:2], indexing="ij")
    assert a.stride() == ta.stride() and b.stride() == tb.stride()


def test_meshgrid_default_indexing_warns():
    v = pt.tensor(V4)
    with pytest.warns(UserWarning, match="indexing argument"):
        a, b = pt.meshgrid(v, v)
    assert a.shape == (4, 4)
    with pytest.warns(UserWarning, match="without specifying the dim"):
        pt.cross(pt.tensor(A34[:, :3]), pt.tensor(A34[:, 1:]))


def test_cartesian_prod_of_one_tensor_is_that_tensor(torch):
    v = pt.tensor(V4)
    assert pt.cartesian_prod(v) is v
    tv = torch.tensor(V4)
    assert torch.cartesian_prod(tv) is tv


def test_dtypes(torch):
    ai = np.arange(12).reshape(3, 4)
    cases = [
        lambda L, P, x: L.trace(x), lambda L, P, x: L.trace(x.int()), lambda L, P, x: L.trace(x.to(L.uint8)),
        lambda L, P, x: L.tril(x.bool()), lambda L, P, x: L.kron(x.bool(), x.bool()),
        lambda L, P, x: L.kron(x, x.float()), lambda L, P, x: P(x, (1, 2), value=2.5),
        lambda L, P, x: P(x.bool(), (1, 1), value=1), lambda L, P, x: L.block_diag(x, x.float()),
        lambda L, P, x: L.repeat_interleave(L.tensor([1, 0, 2])),
        lambda L, P, x: L.repeat_interleave(L.tensor([1, 2], dtype=L.int32)),
        lambda L, P, x: L.tril_indices(3, 4), lambda L, P, x: L.triu_indices(3, 4, 1),
        lambda L, P, x: L.tril_indices(3, 4, -1, dtype=L.int32), lambda L, P, x: L.tril_indices(3, 4, 10),
        lambda L, P, x: L.triu_indices(3, 3, -10), lambda L, P, x: L.tril_indices(0, 4),
        lambda L, P, x: L.triu_indices(5, 2, 1), lambda L, P, x: L.combinations(x[0], 0),
        lambda L, P, x: L.combinations(x[0][:0]), lambda L, P, x: L.block_diag(),
        lambda L, P, x: L.roll(x, 2), lambda L, P, x: L.flip(x, (1,)), lambda L, P, x: P(x[None], (1, 1), "reflect"),
        lambda L, P, x: L.cross(x[:, :3], x[:, 1:], dim=1), lambda L, P, x: x.repeat(2, 1),
        lambda L, P, x: L.diag(x[0]), lambda L, P, x: L.rot90(x.bool()),
    ]
    for fn in cases:
        compare(torch, fn, ai, grad=False)


ERRORS = [
    lambda L, P, x: L.flip(x, 0),
    lambda L, P, x: L.flip(x, [0, 0]),
    lambda L, P, x: L.flip(x, (5,)),
    lambda L, P, x: L.fliplr(x[0]),
    lambda L, P, x: L.flipud(x[0, 0]),
    lambda L, P, x: L.roll(x, (1, 2), 0),
    lambda L, P, x: L.roll(x, 1, (0, 1)),
    lambda L, P, x: L.roll(x, (1, 2)),
    lambda L, P, x: L.roll(x, 1, 2),
    lambda L, P, x: L.roll(x[0, 0], 1, 0),
    lambda L, P, x: L.rot90(x, 1, [0, 0]),
    lambda L, P, x: L.rot90(x, 1, [0]),
    lambda L, P, x: L.rot90(x[0]),
    lambda L, P, x: L.rot90(x, 1, [0, 5]),
    lambda L, P, x: L.rot90(x, 1, [0, -2]),
    lambda L, P, x: x.repeat(2),
    lambda L, P, x: x.repeat(-1, 1),
    lambda L, P, x: x.repeat(),
    lambda L, P, x: L.repeat_interleave(x, L.tensor([1, 2, 3])),
    lambda L, P, x: L.repeat_interleave(x, L.tensor([1, -2, 3]), 0),
    lambda L, P, x: L.repeat_interleave(x, L.tensor([1, 2]), 0),
    lambda L, P, x: L.repeat_interleave(x, -1, 0),
    lambda L, P, x: L.repeat_interleave(x[0, 0], 2, 0),
    lambda L, P, x: L.repeat_interleave(x, L.tensor([1., 2., 3.]), 0),
    lambda L, P, x: L.repeat_interleave(x, L.tensor([[1, 2, 3]]), 0),
    lambda L, P, x: L.repeat_interleave(x, L.tensor([1, 2, 3]), 0, output_size=5),
    lambda L, P, x: L.repeat_interleave(L.tensor([[1, 2]])),
    lambda L, P, x: L.repeat_interleave(L.tensor([1, -2])),
    lambda L, P, x: L.repeat_interleave(L.tensor([1., 2])),
    lambda L, P, x: L.tril(x[0]),
    lambda L, P, x: L.triu(x[0, 0]),
    lambda L, P, x: L.tril_indices(3, 4, dtype=L.float32),
    lambda L, P, x: L.tril_indices(3, 4, dtype=L.int16),
    lambda L, P, x: L.tril_indices(-1, 4),
    lambda L, P, x: L.triu_indices(1, -4),
    lambda L, P, x: L.diag(x[0, 0]),
    lambda L, P, x: L.diag(x[None]),
    lambda L, P, x: L.diag_embed(x, 0, 0, 0),
    lambda L, P, x: L.diag_embed(x[0, 0]),
    lambda L, P, x: L.diag_embed(x, 0, 0, 3),
    lambda L, P, x: L.trace(x[0]),
    lambda L, P, x: L.trace(x[None]),
    lambda L, P, x: L.trace(x.bool()),
    lambda L, P, x: P(x, (1,)),
    lambda L, P, x: P(x, (1, 1, 1, 1, 1, 1)),
    lambda L, P, x: P(x[0], (1, 2), mode="reflect"),
    lambda L, P, x: P(x, (4, 1), mode="reflect"),
    lambda L, P, x: P(x, (1, 1, 1, 1), mode="reflect"),
    lambda L, P, x: P(x[None], (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda L, P, x: P(x[None, None], (1, 1, 1, 1, 1, 1), mode="reflect"),
    lambda L, P, x: P(x[None], (1, 1, 4, 1), mode="reflect"),
    lambda L, P, x: P(x[0], (1, 1), mode="replicate"),
    lambda L, P, x: P(x[None], (-4, 0), mode="replicate"),
    lambda L, P, x: P(x[None], (-4, 0), mode="reflect"),
    lambda L, P, x: P(x[0], (1, 1), mode="circular"),
    lambda L, P, x: P(x, (1, 1, 1, 1), mode="circular"),
    lambda L, P, x: P(x[None], (5, 1), mode="circular"),
    lambda L, P, x: P(x[None], (1, 1), mode="foo"),
    lambda L, P, x: P(x, (1, 1), mode="reflect", value=2),
    lambda L, P, x: P(x, (-5, 0)),
    lambda L, P, x: L.narrow_copy(x, 1, 3, 2),
    lambda L, P, x: L.block_diag(L.ones(2, 2, 2)),
    lambda L, P, x: L.cartesian_prod(x),
    lambda L, P, x: L.cartesian_prod(x[0], x[0].long()),
    lambda L, P, x: L.meshgrid(x[0], x[0].long(), indexing="ij"),
    lambda L, P, x: L.meshgrid(x[0], indexing="foo"),
    lambda L, P, x: L.meshgrid(indexing="ij"),
    lambda L, P, x: L.combinations(x),
    lambda L, P, x: L.combinations(x[0], -1),
    lambda L, P, x: L.cross(x, x, dim=1),
    lambda L, P, x: L.cross(x[:, :3].long(), x[:, 1:], dim=1),
    lambda L, P, x: L.cross(x[:, :3], x[:, :2], dim=1),
    lambda L, P, x: L.cross(L.ones(3, 4, 3, dtype=L.float64), x[:, 1:], dim=1),
    lambda L, P, x: L.cross(x[:, :3], x[:2, 1:], dim=1),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(torch, i):
    same_error(torch, ERRORS[i], A34)


def test_meshgrid_rejects_2d_tensors(torch):
    for lib in (pt, torch):
        with pytest.raises(RuntimeError, match="Expected 0D or 1D tensor in the tensor list"):
            lib.meshgrid(lib.tensor(V4), lib.tensor(A34), indexing="ij")


GRADCHECKS = {
    "flip": (lambda x: pt.flip(x, (0, 2)), [A234]),
    "roll": (lambda x: pt.roll(x, (1, -1), (0, 2)), [A234]),
    "roll_flat": (lambda x: pt.roll(x, 7), [A34]),
    "rot90": (lambda x: pt.rot90(x, 1, (1, 2)), [A234]),
    "rot90_3": (lambda x: pt.rot90(x, 3), [A34]),
    "repeat": (lambda x: x.repeat(2, 1, 3), [A34]),
    "tile": (lambda x: pt.tile(x, (2,)), [A34]),
    "repeat_interleave": (lambda x: pt.repeat_interleave(x, 2, 1), [A34]),
    "repeat_interleave_t": (lambda x: pt.repeat_interleave(x, pt.tensor([2, 0, 1]), 0), [A34]),
    "tril": (lambda x: pt.tril(x, 1), [A234]),
    "triu": (lambda x: pt.triu(x, -1), [A34]),
    "tril_": (lambda x: (x * 1).tril_(), [A34]),
    "diag1": (lambda x: pt.diag(x, 1), [V4]),
    "diag2": (lambda x: pt.diag(x, -1), [A34]),
    "diag_embed": (lambda x: pt.diag_embed(x, 1, 0, 2), [A34]),
    "diagflat": (lambda x: pt.diagflat(x), [A34[:2]]),
    "trace": (lambda x: pt.trace(x), [A34]),
    "pad_constant": (lambda x: pt_pad(x, (1, -1, 2, 0), value=3.0), [A34]),
    "pad_reflect1": (lambda x: pt_pad(x, (3, 2), mode="reflect"), [A234]),
    "pad_reflect2": (lambda x: pt_pad(x, (1, 2, 2, -1), mode="reflect"), [A234]),
    "pad_reflect3": (lambda x: pt_pad(x, (1, 1, 1, 1, 0, 0), mode="reflect"), [A1345[:, :2, :3, :3]]),
    "pad_replicate": (lambda x: pt_pad(x, (2, 3, 1, 0), mode="replicate"), [A234]),
    "pad_circular": (lambda x: pt_pad(x, (2, 1, 1, 2), mode="circular"), [A234]),
    "narrow_copy": (lambda x: pt.narrow_copy(x, 1, 1, 2), [A34]),
    "block_diag": (lambda x, v: pt.block_diag(x, v), [A34, V4]),
    "cartesian_prod": (lambda v, w: pt.cartesian_prod(v, w), [V4, V4[:3]]),
    "meshgrid": (lambda v, w: pt.meshgrid(v, w, indexing="xy"), [V4, V4[:3]]),
    "combinations": (lambda v: pt.combinations(v, 2, True), [V4]),
    "kron": (lambda x, y: pt.kron(x, y), [A34[:2], A34[:2, :3]]),
    "cross": (lambda x, y: pt.cross(x, y, dim=1), [A34[:, :3], A34[:1, 1:]]),
}


@pytest.mark.parametrize("name", list(GRADCHECKS))
def test_gradcheck(name):
    fn, data = GRADCHECKS[name]
    assert gradcheck(fn, *data)


def test_double_backward():
    for fn in (lambda x: pt_pad(x, (1, 2), mode="reflect"), lambda x: x.repeat(1, 2, 2),
               lambda x: pt_pad(x, (1, 1), mode="replicate"), lambda x: pt.roll(x, 1, 1)):
        x = pt.tensor(A234, requires_grad=True)
        y = (fn(x) ** 2).sum()
        g, = pt.autograd.grad(y, x, create_graph=True)
        h, = pt.autograd.grad(g.sum(), x)
        assert pt.autograd.gradcheck(lambda t: pt.autograd.grad((fn(t) ** 2).sum(), t, create_graph=True)[0],
                                     (pt.tensor(A234[:1], requires_grad=True),))
        assert h.shape == x.shape


def test_tril_inplace_on_a_view_of_a_graph_tensor(torch):
    compare(torch, lambda L, P, x: _tril_view(x), A34)


def _tril_view(x):
    y = x * 1
    y[:, 1:].tril_()
    return y


@pytest.mark.parametrize("shapes", [((2, 3), (4,)), ((2, 3), (4,), (5,)), ((2, 3, 1), (5, 4)), ((-1,),),
                                    ((2,), (3, 1), (1, 1, 1)), (), (3, (3, 1)), ([2, 3], [4]), ((1,), (-1,)),
                                    ((0,), (1,)), ((2, 1), None, (1, 5))])
def test_broadcast_shapes_like_torch(torch, shapes):
    """Result, or error class and text (PyTorch names the dim, the argument index and the shape so far)."""
    def run(lib):
        try:
            return tuple(lib.broadcast_shapes(*shapes))
        except (RuntimeError, ValueError) as e:
            return type(e).__name__, str(e)
    assert run(pt) == run(torch)
