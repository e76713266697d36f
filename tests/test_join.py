"""cat / stack and friends: values, dtype promotion, gradients, grad_fn names, errors."""
import numpy as np
import pytest

import pedatorch as pt
from conftest import assert_close

RNG = np.random.default_rng(7)
A, B, C = RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3))


@pytest.mark.parametrize("name,args", [
    ("cat", ([A, C], 0)), ("cat", ([A, B], 1)), ("cat", ([A, B], -1)), ("stack", ([A, B], 0)),
    ("stack", ([A, B], 2)), ("stack", ([A, B], -1)), ("hstack", ([A, B],)), ("vstack", ([A, C],)),
    ("dstack", ([A, B],)), ("column_stack", ([A, B],)), ("concat", ([A, C],)), ("concatenate", ([A, C], 0)),
])
def test_join_matches_torch(torch, name, args):
    arrays, rest = args[0], args[1:]
    ours_in = [pt.tensor(a, requires_grad=True) for a in arrays]
    theirs_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = getattr(pt, name)(ours_in, *rest), getattr(torch, name)(theirs_in, *rest)
    assert_close(y, ty)
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = RNG.standard_normal(tuple(ty.shape))
    y.backward(pt.tensor(g))
    ty.backward(torch.tensor(g))
    for a, b in zip(ours_in, theirs_in):
        assert_close(a.grad, b.grad)
    assert pt.autograd.gradcheck(lambda *ts: getattr(pt, name)(list(ts), *rest),
                                 tuple(pt.tensor(a, requires_grad=True) for a in arrays))


def test_cat_promotes_and_skips_empty(torch):
    for lib in (pt, torch):
        r = lib.cat([lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.float32), lib.tensor([])])
        assert str(r.dtype) == "torch.float32" and r.tolist() == [1., 1., 1., 1.]


@pytest.mark.parametrize("fn", [lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)]),
                                lambda lib: lib.cat([lib.ones(2, 3), lib.ones(3)]),
                                lambda lib: lib.cat([]),
                                lambda lib: lib.stack([lib.ones(2), lib.ones(3)]),
                                lambda lib: lib.cat([lib.tensor(1.), lib.tensor(2.)])])
def test_join_errors(torch, fn):
    errs = []
    for lib in (pt, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errs.append(info.value)
    assert type(errs[0]) is type(errs[1])
    assert str(errs[0]).split("\n")[0] == str(errs[1]).split("\n")[0]
