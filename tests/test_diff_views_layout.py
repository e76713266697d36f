"""Strides of views and layout-preserving copies, and the argument checks of split / index_select /
gather / index_add, compared with PyTorch (fuzzer signatures: expand*_stride1, clone_stride*, T2d_stride1,
getitem_stride1, split_error_class, index_select_error_class, gather_pt_raises, index_add_pt_raises)."""
import numpy as np
import pytest

import pedatorch
from pedatorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

# (size, stride) over arange(64): odd strides on size-1 dims, transposed, gapped, expanded layouts
LAYOUTS = [
    ((2, 1), (1, 4)), ((1, 3), (1, 1)), ((4, 1), (1, 1)), ((3, 1, 2), (2, 7, 1)), ((1, 1, 3), (5, 9, 1)),
    ((2, 3), (1, 2)), ((3, 2, 1), (1, 3, 1)), ((1,), (3,)), ((2, 2, 2), (4, 1, 2)), ((3, 4), (8, 2)),
    ((2, 3), (0, 1)), ((1, 2, 3), (2, 1, 2)), ((3, 3, 4), (12, 1, 3)), ((2, 1, 1), (1, 1, 1)), ((), ()),
]

VIEW_OPS = {
    "transpose": lambda x: x.transpose(0, -1),
    "t": lambda x: x.t() if x.dim() <= 2 else x,
    "T": lambda x: x.T if x.dim() == 2 else x,
    "mT": lambda x: x.mT if x.dim() >= 2 else x,
    "permute": lambda x: x.permute(*range(x.dim() - 1, -1, -1)),
    "expand_lead1": lambda x: x.expand(1, *x.shape),
    "expand_lead2": lambda x: x.expand(2, 1, *x.shape),
    "expand_all": lambda x: x.expand([3 if n == 1 else n for n in x.shape]),
    "expand_as": lambda x: x.expand_as(x.new_zeros((1, 1) + tuple(x.shape))),
    "broadcast_to": lambda x: torch_of(x).broadcast_to(x, (1,) + tuple(x.shape)),
    "select0": lambda x: x.select(0, 0) if x.dim() else x,
    "select_last": lambda x: x.select(-1, -1) if x.dim() else x,
    "split": lambda x: x.split(1, -1)[-1] if x.dim() else x,
    "chunk": lambda x: x.chunk(2, 0)[0] if x.dim() else x,
    "unbind": lambda x: x.unbind(0)[0] if x.dim() else x,
    "unfold": lambda x: x.unfold(-1, 1, 1),
    "ellipsis": lambda x: x[...],
    "none_front": lambda x: x[None],
    "none_back": lambda x: x[..., None],
    "step": lambda x: x[::2],
    "unsqueeze": lambda x: x.unsqueeze(1 if x.dim() else 0),
    "squeeze": lambda x: x.squeeze(),
    "narrow": lambda x: x.narrow(0, 0, 1) if x.dim() else x,
    "diagonal": lambda x: x.diagonal() if x.dim() >= 2 else x,
    "movedim": lambda x: x.movedim(0, -1) if x.dim() else x,
    "reshape": lambda x: x.reshape(-1),
    "flatten": lambda x: x.flatten(),
    "clone": lambda x: x.clone(),
    "clone_contiguous": lambda x: x.clone(memory_format=torch_of(x).contiguous_format),
    "contiguous": lambda x: x.contiguous(),
    "flip_none": lambda x: x.flip(()),
    "flip0": lambda x: x.flip(0) if x.dim() else x,
    "flip_all": lambda x: x.flip(tuple(range(x.dim()))),
}


def torch_of(x):
    return torch if isinstance(x, torch.Tensor) else pedatorch


def _make(lib, size, stride, dtype="float32"):
    base = lib.arange(64, dtype=getattr(lib, dtype))
    return lib.as_strided(base, size, stride)


@pytest.mark.parametrize("op", sorted(VIEW_OPS))
@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_view_strides_match_torch(op, layout):
    size, stride = layout
    try:
        t = VIEW_OPS[op](_make(torch, size, stride))
    except (RuntimeError, IndexError, TypeError):  # not defined for this input (a 0-dim one): pedatorch raises too
        with pytest.raises((RuntimeError, IndexError, TypeError)):
            VIEW_OPS[op](_make(pedatorch, size, stride))
        return
    p = VIEW_OPS[op](_make(pedatorch, size, stride))
    assert tuple(p.shape) == tuple(t.shape)
    assert p.stride() == t.stride(), (op, layout)
    assert p.storage_offset() - _make(pedatorch, size, stride).storage_offset() == \
        t.storage_offset() - _make(torch, size, stride).storage_offset()
    np.testing.assert_array_equal(p.numpy(), t.numpy())


FUZZ_REPROS = {  # the repro programs of the fuzzer signatures, shortened
    "T2d_stride1": lambda L: L.flip(L.tensor(np.array([[[True, False]], [[False, True]], [[False, True]]]))
                                    .transpose(-2, -1), ()).T,
    "expand_stride1_3d": lambda L: L.tensor([[[False]]]).expand((1, 1, 3, 1)),
    "expand_stride1_2d": lambda L: L.tensor([[False]]).expand((1, 1, 3, 1)),   # 1 * stride 0 of the next dim
    "expand_stride1_lead": lambda L: L.arange(9).reshape(3, 3).expand(1, 3, -1),
    "expand_as_stride1": lambda L: L.tensor([[0], [-2]]).expand_as(L.zeros(1, 2, 3)),
    "clone_stride1": lambda L: L.nn.functional.avg_pool1d(L.tensor([[[-2.0, 2.0, -0.0, 2.0]]]), 2)
                                .square().diagonal().add_(2.0).clone(),
    "clone_stride": lambda L: L.flip(L.arange(36.).reshape(3, 4, 3).transpose(-2, -1), ()).clone(),
    "flip_stride": lambda L: L.flip(L.arange(36.).reshape(3, 4, 3).transpose(-2, -1), (0, 2)),
    "getitem_stride1": lambda L: L.nonzero(L.tensor([-1.5, 0.5]))[...],
}


@pytest.mark.parametrize("name", sorted(FUZZ_REPROS))
def test_fuzz_repros(name):
    p, t = FUZZ_REPROS[name](pedatorch), FUZZ_REPROS[name](torch)
    assert (tuple(p.shape), p.stride()) == (tuple(t.shape), t.stride())
    np.testing.assert_array_equal(p.numpy(), t.numpy())


def test_expand_of_0dim():
    for shape in [(1, 1), (2, 1), (1, 2), (0, 3)]:
        assert pedatorch.tensor(1.).expand(*shape).stride() == torch.tensor(1.).expand(*shape).stride()


def test_expand_and_clone_gradients():
    x = pedatorch.tensor([[0.5], [1.5]], dtype=pedatorch.float64, requires_grad=True)
    assert gradcheck(lambda a: a.t().expand(1, 3, 2) * 2, (x,))
    assert gradgradcheck(lambda a: a.t().expand(1, 3, 2) ** 2, (x,))
    y = pedatorch.arange(6., dtype=pedatorch.float64).reshape(2, 3).requires_grad_()
    assert gradcheck(lambda a: a.t().flip(()).clone() * a.t(), (y,))
    assert gradgradcheck(lambda a: a.t().flip(0).diagonal().clone() ** 2, (y,))


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the class and words are what we compare
        return type(e).__name__, str(e)
    if isinstance(r, tuple):
        return "ok", [tuple(v.shape) for v in r]
    return "ok", tuple(r.shape), r.stride() if r.numel() > 1 else None, r.tolist()


CHECKS = [
    # split / tensor_split / hsplit ... of a 0-dim tensor, and their other checks
    lambda L: L.zeros(()).split(1, dim=0),
    lambda L: L.zeros(()).split([1]),
    lambda L: L.split(L.zeros(()), 3),
    lambda L: L.zeros(()).tensor_split(1),
    lambda L: L.zeros(()).hsplit(1),
    lambda L: L.zeros(3).vsplit(1),
    lambda L: L.zeros(3, 3).dsplit(1),
    lambda L: L.zeros(3, 3).hsplit(2),
    lambda L: L.zeros(3, 3, 3).dsplit(0),
    lambda L: L.zeros(3, 3, 3).dsplit([1]),
    lambda L: L.zeros(3, 3).tensor_split(-1),
    # index_select: PyTorch's CPU kernel words an out-of-range index three ways
    lambda L: L.index_select(L.zeros(0, 1, 1, dtype=L.int32), -3, L.tensor([0, 0])),
    lambda L: L.index_select(L.zeros(0, 2), 1, L.tensor([-1])),
    lambda L: L.index_select(L.zeros(0, 2), 1, L.tensor([1])),
    lambda L: L.index_select(L.zeros(2, 3, 4), 1, L.tensor([1, 5, -1])),
    lambda L: L.index_select(L.zeros(2, 3, 4), 2, L.tensor([1, 5, -1])),
    lambda L: L.index_select(L.zeros(2, 3, 4), 0, L.tensor([1, 5])),
    lambda L: L.index_select(L.zeros(3), 0, L.tensor([3])),
    lambda L: L.index_select(L.zeros(()), 0, L.tensor([0, 0])),
    lambda L: L.index_select(L.zeros(()), 0, L.tensor([], dtype=L.int64)),
    lambda L: L.index_select(L.arange(6.).reshape(2, 3), 1, L.tensor([2, 0])),
    # gather / scatter with an empty index: no dtype or shape checks
    lambda L: L.gather(L.zeros(2, 3, 1, 1), 1, L.tensor([[], []], dtype=L.int64)),
    lambda L: L.gather(L.zeros(2, 3), 1, L.zeros(0, dtype=L.float32)),
    lambda L: L.gather(L.zeros(()), 0, L.zeros((), dtype=L.int64)),
    lambda L: L.gather(L.arange(3.), 0, L.tensor(2)),
    lambda L: L.scatter(L.zeros(2, 3), 1, L.zeros(0, 5), L.zeros(1)),
    lambda L: L.scatter(L.zeros(2, 3), 1, L.zeros(0, 5), L.zeros(1, dtype=L.float64)),
    lambda L: L.scatter_add(L.zeros(2, 3), 1, L.zeros(0), L.zeros(1)),
    # index_add into a tensor with no elements: nothing checked
    lambda L: L.index_add(L.zeros(1, 0, 2, dtype=L.int64), -2, L.tensor([0]), L.ones(1, 1, 2, dtype=L.int64)),
    lambda L: L.index_add(L.zeros(1, 0, 2), 0, L.tensor([5]), L.ones(1, 0, 2)),
    lambda L: L.index_add(L.zeros(0), 0, L.tensor([0]), L.ones(1)),
    lambda L: L.index_add(L.zeros(2, 3), 1, L.tensor([5]), L.ones(2, 1)),
    # nonzero's layout: the transpose of an (ndim, count) array
    lambda L: L.nonzero(L.tensor([0., 1, 2])),
    lambda L: L.nonzero(L.ones(3, 2)),
    lambda L: L.nonzero(L.ones(())),
    lambda L: L.argwhere(L.tensor([[0., 1], [2, 0]]).t()),
]


@pytest.mark.parametrize("i", range(len(CHECKS)))
def test_checks_match_torch(i):
    assert _outcome(lambda: CHECKS[i](pedatorch)) == _outcome(lambda: CHECKS[i](torch))


def test_index_select_gather_gradients():
    x = pedatorch.arange(6., dtype=pedatorch.float64).reshape(2, 3).requires_grad_()
    assert gradcheck(lambda a: a.index_select(1, pedatorch.tensor([2, 0, 2])), (x,))
    assert gradcheck(lambda a: a.gather(1, pedatorch.tensor([[], []], dtype=pedatorch.int64)), (x,))
    s = pedatorch.tensor(1.5, dtype=pedatorch.float64, requires_grad=True)
    assert gradgradcheck(lambda a: a.gather(0, pedatorch.tensor(0)) ** 2, (s,))
