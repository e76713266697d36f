"""Fixes found with tests/compat/60_contrastive_ssl.py (SimCLR / MoCo / BYOL / triplet mining): the default
distance module of TripletMarginWithDistanceLoss, and the int / int-list arguments of roll, flip, tile,
repeat, rot90, topk and kthvalue parsed as PyTorch's Python binding parses them.  Each compared with PyTorch."""
import numpy as np
import pytest

import pedatorch as torch
from conftest import error_of

pt = pytest.importorskip("torch")

LIBS = [torch, pt]


# ---------------------------------------------------------------- TripletMarginWithDistanceLoss's default

def test_triplet_with_distance_default_is_a_pairwise_distance_module():
    """PyTorch stores PairwiseDistance() when no distance_function is given: a child module in the repr."""
    def probe(lib):
        nn = lib.nn
        m = nn.TripletMarginWithDistanceLoss(margin=0.3)
        custom = nn.TripletMarginWithDistanceLoss(distance_function=lib.nn.functional.pairwise_distance)
        return (repr(m), repr(m.distance_function), [name for name, _ in m.named_modules()],
                list(m.state_dict()), repr(custom), custom.distance_function.__name__)
    assert probe(torch) == probe(pt)


def test_triplet_with_distance_default_module_gives_the_same_loss():
    a, p, n = (np.random.default_rng(i).standard_normal((5, 3)).astype(np.float32) for i in range(3))

    def loss(lib):
        m = lib.nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True)
        return m(*(lib.tensor(v) for v in (a, p, n))).item()
    assert loss(torch) == pytest.approx(loss(pt), rel=1e-6)


# ---------------------------------------------------------------- int lists: roll, flip, tile, repeat, rot90

ROLL_CASES = {
    "0-dim tensor shift": lambda lib, x: lib.roll(x, lib.tensor(1), 1),
    "0-dim tensor shift and dim": lambda lib, x: lib.roll(x, lib.tensor(-1), lib.tensor(0)),
    "one-element tensor shift": lambda lib, x: lib.roll(x, lib.tensor([[2]]), 1),
    "uint8 / bool tensor shift": lambda lib, x: (lib.roll(x, lib.tensor(1, dtype=lib.uint8), 1),
                                                 lib.roll(x, lib.tensor(True), 1)),
    "list with tensors": lambda lib, x: lib.roll(x, [lib.tensor(1), 2], (0, 1)),
    "method with a tensor": lambda lib, x: x.roll(lib.tensor(1), 1),
    "numpy int": lambda lib, x: lib.roll(x, np.int32(1), 1),
    "dims=[] rolls flat": lambda lib, x: lib.roll(x, 2, []),
    "empty shifts": lambda lib, x: lib.roll(x, [], []),
    "two shifts, dims=[]": lambda lib, x: lib.roll(x, (1, 2), []),
    "float shift": lambda lib, x: lib.roll(x, 1.5, 1),
    "float in list": lambda lib, x: lib.roll(x, [1.5], 1),
    "float second in list": lambda lib, x: lib.roll(x, (1, 2.0), (0, 1)),
    "float tensor in list": lambda lib, x: lib.roll(x, [1, lib.tensor(1.5)], (0, 1)),
    "two-element tensor": lambda lib, x: lib.roll(x, lib.tensor([1, 2]), (0, 1)),
    "bool shift": lambda lib, x: lib.roll(x, True, 1),
    "None in list": lambda lib, x: lib.roll(x, [None], 1),
    "range": lambda lib, x: lib.roll(x, range(1, 2), 1),
    "numpy array": lambda lib, x: lib.roll(x, np.array([1]), 1),
    "float dims": lambda lib, x: lib.roll(x, 1, 1.0),
    "method float": lambda lib, x: x.roll(1.5, 1),
}


@pytest.mark.parametrize("case", list(ROLL_CASES))
def test_roll_arguments(case):
    def run(lib):
        x = lib.arange(6).view(2, 3)
        return error_of(lambda: ROLL_CASES[case](lib, x)) or str(ROLL_CASES[case](lib, x))
    assert run(torch) == run(pt)


LIST_CASES = {
    "flip 0-dim tensor method": lambda lib, x: x.flip(lib.tensor(1)),
    "flip list of tensors": lambda lib, x: lib.flip(x, [lib.tensor(1)]),
    "flip tensor dims": lambda lib, x: lib.flip(x, lib.tensor([1])),
    "flip int": lambda lib, x: lib.flip(x, 1),
    "flip numpy int": lambda lib, x: lib.flip(x, np.int32(1)),
    "flip bool": lambda lib, x: lib.flip(x, True),
    "flip float element": lambda lib, x: lib.flip(x, [0.0]),
    "flip method float": lambda lib, x: x.flip(1.5),
    "flip method second float": lambda lib, x: x.flip(0, 1.5),
    "flip method list and int": lambda lib, x: x.flip([0], 1),
    "flip method no dims": lambda lib, x: x.flip(),
    "tile int": lambda lib, x: lib.tile(x, 2),
    "tile tensor": lambda lib, x: lib.tile(x, lib.tensor(2)),
    "tile method int": lambda lib, x: x.tile(2),
    "tile method none": lambda lib, x: x.tile(),
    "tile float element": lambda lib, x: lib.tile(x, [2.0]),
    "repeat tensors": lambda lib, x: x.repeat(lib.tensor(2), 1),
    "repeat float": lambda lib, x: x.repeat(1.5),
    "repeat float element": lambda lib, x: x.repeat([1, 2.0]),
    "repeat none": lambda lib, x: x.repeat(),
    "repeat range": lambda lib, x: x.repeat(range(2)),
    "rot90 tensor k": lambda lib, x: lib.rot90(x, lib.tensor(1)),
    "rot90 float k": lambda lib, x: lib.rot90(x, 1.0),
    "rot90 method float k": lambda lib, x: x.rot90(1.0),
    "rot90 tensor dims": lambda lib, x: lib.rot90(x, 1, lib.tensor([0, 1])),
    "rot90 float dim": lambda lib, x: lib.rot90(x, 1, [0, 1.0]),
}


@pytest.mark.parametrize("case", list(LIST_CASES))
def test_int_list_arguments(case):
    def run(lib):
        x = lib.arange(6).view(2, 3)
        return error_of(lambda: LIST_CASES[case](lib, x)) or str(LIST_CASES[case](lib, x))
    assert run(torch) == run(pt)


def test_roll_by_a_tensor_shift_keeps_its_gradient():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.roll(t, torch.tensor(-1), torch.tensor(1)) * 2, (x,))
    y = torch.roll(x, torch.tensor(1), 0)
    assert y.grad_fn.name() == "RollBackward0"


# ---------------------------------------------------------------- int arguments: topk, kthvalue, sort dims

INT_CASES = {
    "topk 0-dim k": lambda lib, x: x.topk(lib.tensor(2)),
    "topk one-element k": lambda lib, x: lib.topk(x, lib.tensor([2])),
    "topk numpy k": lambda lib, x: x.topk(np.int64(2)),
    "topk float k": lambda lib, x: lib.topk(x, 2.0),
    "topk method float k": lambda lib, x: x.topk(2.0),
    "topk bool k": lambda lib, x: lib.topk(x, True),
    "topk None k": lambda lib, x: x.topk(None),
    "topk float tensor k": lambda lib, x: x.topk(lib.tensor(2.0)),
    "topk 0-dim dim": lambda lib, x: lib.topk(x, 1, lib.tensor(0)),
    "topk one-element dim": lambda lib, x: lib.topk(x, 1, lib.tensor([0])),
    "topk float dim": lambda lib, x: lib.topk(x, 1, 1.0),
    "topk None dim": lambda lib, x: lib.topk(x, 1, None),
    "topk k from a count": lambda lib, x: x.topk((x > 1).sum(dim=1).min(), dim=1, largest=False),
    "kthvalue 0-dim k": lambda lib, x: lib.kthvalue(x, lib.tensor(2)),
    "kthvalue one-element k": lambda lib, x: x.kthvalue(lib.tensor([2])),
    "kthvalue float k": lambda lib, x: lib.kthvalue(x, 2.0),
    "kthvalue method bool k": lambda lib, x: x.kthvalue(True),
    "kthvalue 0-dim dim": lambda lib, x: x.kthvalue(1, lib.tensor(0)),
    "sort 0-dim dim": lambda lib, x: lib.sort(x, lib.tensor(0)),
    "argsort 0-dim dim": lambda lib, x: lib.argsort(x, lib.tensor(1)),
    "mode 0-dim dim": lambda lib, x: lib.mode(x, lib.tensor(1)),
    "cumsum 0-dim dim": lambda lib, x: lib.cumsum(x, lib.tensor(1)),
}


@pytest.mark.parametrize("case", list(INT_CASES))
def test_int_arguments(case):
    def run(lib):
        x = lib.tensor([[3., 1., 2.], [0., 5., 4.]])
        return error_of(lambda: INT_CASES[case](lib, x)) or str(INT_CASES[case](lib, x))
    assert run(torch) == run(pt)


def test_topk_with_a_tensor_k_keeps_its_gradient():
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: t.topk(torch.tensor(2), dim=1).values, (x,))
    assert torch.autograd.gradcheck(lambda t: t.kthvalue(torch.tensor([3]), dim=1).values, (x,))
