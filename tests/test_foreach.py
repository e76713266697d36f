"""``torch._foreach_*`` (``pedatorch/ops/foreach.py``): each op over a list of tensors, with one number, a list
of tensors or a list of numbers as the other operand; the in-place forms return the list -- compared with
PyTorch line by line."""
import pytest

import pedatorch as pt


def _show(f):
    try:
        return repr(f()).replace("pedatorch", "torch")
    except Exception as e:
        return (type(e).__name__, str(e)[:150])


def _cases(lib):
    T = lib.tensor
    return [
        lambda: (lambda a: (lib._foreach_mul_(a, 0.9) is a, a))([lib.ones(2)]),
        lambda: lib._foreach_mul([lib.ones(2)], [2., 3.]), lambda: lib._foreach_add([], 1),
        lambda: lib._foreach_add([lib.ones(2)], [lib.ones(3)]), lambda: lib._foreach_lerp([lib.zeros(2)], [lib.ones(2)], [0.3]),
        lambda: lib._foreach_lerp_([lib.zeros(2)], [lib.ones(2)], 0.25),
        lambda: lib._foreach_pow([lib.ones(2) * 3], 2), lambda: lib._foreach_pow(2.0, [lib.ones(2)]),
        lambda: lib._foreach_norm([lib.ones(2)], ord=2, dtype=lib.float64), lambda: lib._foreach_norm([lib.ones(2), lib.ones(3)]),
        lambda: lib._foreach_norm([lib.ones(2)], 1), lambda: lib._foreach_clamp_min([T([-1., 2.])], 0.),
        lambda: lib._foreach_maximum([T([-1., 2.])], [lib.zeros(2)]), lambda: lib._foreach_maximum_([T([-1., 2.])], 0.5),
        lambda: lib._foreach_minimum([T([-1., 2.])], 0.5), lambda: lib._foreach_sub([lib.ones(2)], [lib.ones(2)], alpha=3),
        lambda: lib._foreach_sub_([lib.ones(2)], [lib.ones(2)], alpha=3), lambda: lib._foreach_div([lib.ones(2)], 4),
        lambda: lib._foreach_copy_([lib.zeros(2)], [lib.ones(2)]), lambda: lib._foreach_clone([lib.ones(2)]),
        lambda: lib._foreach_zero_([lib.ones(2)]), lambda: lib._foreach_sqrt([T([4.])]), lambda: lib._foreach_exp_([lib.zeros(2)]),
        lambda: lib._foreach_add([lib.ones(2, dtype=lib.int64)], 1.5), lambda: lib._foreach_mul([lib.ones(2)], T([1., 2.])),
        lambda: lib._foreach_addcmul_([lib.zeros(2)], [lib.ones(2)], [lib.ones(2)], T([2.])),
        lambda: lib._foreach_add([lib.ones(2)], [lib.ones(2)], alpha=2),
        lambda: lib._foreach_addcmul([lib.zeros(2)], [lib.ones(2)], [lib.ones(2)], value=2),
        lambda: lib._foreach_addcdiv([lib.zeros(2)], [lib.ones(2)], [lib.ones(2) * 2], [3.]),
        lambda: lib._foreach_add([lib.ones(2)], T(3.)), lambda: lib._foreach_mul([lib.ones(2), lib.ones(1)], [2., 3.]),
        lambda: lib._foreach_add([lib.ones(2)], [lib.ones(2), lib.ones(2)]), lambda: lib._foreach_max([T([1., 5.])]),
        lambda: lib._foreach_neg([lib.ones(1)]), lambda: lib._foreach_sigmoid([T([0., 1.])]),
    ]


def test_foreach_ops_as_pytorch(torch):
    assert [_show(f) for f in _cases(pt)] == [_show(f) for f in _cases(torch)]


def test_foreach_results_carry_gradients():
    p = [pt.ones(3, requires_grad=True), pt.full((2,), 2.0, requires_grad=True)]
    ys = pt._foreach_mul(p, [3.0, 4.0])
    (ys[0].sum() + ys[1].sum()).backward()
    assert p[0].grad.tolist() == [3.0] * 3 and p[1].grad.tolist() == [4.0] * 2
