"""torch.func (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call, stack_module_state) against
PyTorch on the same inputs, and against finite differences (independent of torch)."""
import numpy as np
import pytest

import pedatorch as pt
from pedatorch import func as F
from conftest import assert_close

X = np.array([0.5, -1.0, 2.0])


def both(torch, program):
    """``program(lib, func_module, x)`` run on both libraries."""
    import torch.func as tf
    return (program(pt, F, pt.tensor(X)), program(torch, tf, torch.tensor(X)))


PROGRAMS = {
    "grad": lambda lib, f, x: f.grad(lambda t: (t.sin() * t ** 2).sum())(x),
    "grad_of_grad": lambda lib, f, x: f.grad(f.grad(lambda t: (t ** 3).sin()))(x[0]),
    "grad_argnums": lambda lib, f, x: f.grad(lambda a, b: (a * b.exp()).sum(), argnums=(0, 1))(x, x + 1),
    "grad_dict_input": lambda lib, f, x: f.grad(lambda d: (d["a"] * d["b"]).sum())({"a": x, "b": x * 3}),
    "grad_and_value_aux": lambda lib, f, x: f.grad_and_value(lambda t: ((t ** 2).sum(), t.mean()),
                                                             has_aux=True)(x),
    "grad_unused_input": lambda lib, f, x: f.grad(lambda a, b: a.sum(), argnums=1)(x, x),
    "jacrev": lambda lib, f, x: f.jacrev(lambda t: t.sin() * t)(x),
    "jacrev_matrix_out": lambda lib, f, x: f.jacrev(lambda t: lib.outer(t, t))(x),
    "jacfwd": lambda lib, f, x: f.jacfwd(lambda t: t.exp() * t.sum())(x),
    "hessian": lambda lib, f, x: f.hessian(lambda t: (t ** 3).sum() + t.prod())(x),
    "vjp": lambda lib, f, x: (lambda o: (o[0], o[1](lib.ones(3, dtype=lib.float64))))(f.vjp(lambda t: t ** 2, x)),
    "jvp": lambda lib, f, x: f.jvp(lambda t: t.tanh() * t, (x,), (lib.ones(3, dtype=lib.float64),)),
    "vmap_matvec": lambda lib, f, x: f.vmap(lambda a, b: a @ b)(lib.ones(4, 2, 3), lib.arange(12.).reshape(4, 3)),
    "vmap_in_dim_1": lambda lib, f, x: f.vmap(lambda a: a.sum(0), in_dims=1)(lib.arange(6.).reshape(2, 3)),
    "vmap_none": lambda lib, f, x: f.vmap(lambda a, b: a * b, in_dims=(0, None))(lib.arange(6.).reshape(2, 3), x),
    "vmap_out_dims": lambda lib, f, x: f.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(lib.arange(6.).reshape(2, 3)),
    "vmap_grad": lambda lib, f, x: f.vmap(f.grad(lambda t: (t ** 2).sin().sum()))(lib.arange(6., dtype=lib.float64).reshape(2, 3)),
    "vmap_jacrev": lambda lib, f, x: f.vmap(f.jacrev(lambda t: t.sin()))(lib.arange(4., dtype=lib.float64).reshape(2, 2)),
    "vmap_same_randomness": lambda lib, f, x: (lambda r: bool((r[0] == r[1]).all()))(
        f.vmap(lambda t: lib.rand(2) + t, randomness="same")(lib.zeros(2, 2))),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_func_as_pytorch(torch, name):
    ours, theirs = both(torch, PROGRAMS[name])
    _compare(ours, theirs)


def _compare(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _compare(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _compare(a[k], b[k])
    elif isinstance(a, pt.Tensor):
        assert not a.requires_grad and a.requires_grad == b.requires_grad
        assert_close(a, b, rtol=1e-12, atol=1e-12)
    else:
        assert a == b


def test_grad_matches_finite_differences():
    f = lambda t: (t.sin() * t ** 2).sum() + (t[0] * t[2]).exp()  # noqa: E731
    x = np.array([0.3, -0.7, 1.1])
    g = F.grad(f)(pt.tensor(x)).numpy()
    h = F.hessian(f)(pt.tensor(x)).numpy()
    eps = 1e-6
    for i in range(3):
        d = np.zeros(3)
        d[i] = eps
        num = (f(pt.tensor(x + d)).item() - f(pt.tensor(x - d)).item()) / (2 * eps)
        assert abs(num - g[i]) < 1e-6
        gnum = (F.grad(f)(pt.tensor(x + d)).numpy() - F.grad(f)(pt.tensor(x - d)).numpy()) / (2 * eps)
        np.testing.assert_allclose(h[:, i], gnum, rtol=1e-5, atol=1e-6)


def test_outer_autograd_sees_through_grad():
    """A transform inside an ordinary backward: the gradient stays differentiable (gradient penalty)."""
    x = pt.tensor(X, requires_grad=True)
    penalty = (F.grad(lambda t: (t ** 3).sum())(x) ** 2).sum()  # sum (3x^2)^2, d/dx = 36 x^3
    penalty.backward()
    assert_close(x.grad, pt.tensor(36 * X ** 3), rtol=1e-12, atol=0)


def test_functional_call_and_ensembles(torch):
    import torch.func as tf
    pt.manual_seed(0)
    m = pt.nn.Linear(3, 2)
    tm = torch.nn.Linear(3, 2)
    tm.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()})
    ones = {k: v.detach() * 0 + 1 for k, v in m.named_parameters()}
    tones = {k: v.detach() * 0 + 1 for k, v in tm.named_parameters()}
    assert_close(F.functional_call(m, ones, (pt.ones(1, 3),)), tf.functional_call(tm, tones, (torch.ones(1, 3),)))
    assert m.weight.sum().item() != 6  # the module keeps its own parameters
    g = F.grad(lambda p, x: F.functional_call(m, p, (x,)).sum())(ones, pt.ones(2, 3))
    tg = tf.grad(lambda p, x: tf.functional_call(tm, p, (x,)).sum())(tones, torch.ones(2, 3))
    _compare(g, tg)
    models = [pt.nn.Linear(3, 2) for _ in range(4)]
    params, bufs = F.stack_module_state(models)
    assert params["weight"].shape == (4, 2, 3) and params["weight"].is_leaf and params["weight"].requires_grad
    out = F.vmap(lambda p, b, x: F.functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
        params, bufs, pt.ones(5, 3))
    assert out.shape == (4, 5, 2)
    assert_close(out[2], models[2](pt.ones(5, 3)).detach())
    with pytest.raises(RuntimeError, match="Missing key"):
        F.functional_call(m, {"weight": pt.ones(2, 3)}, (pt.ones(1, 3),), strict=True)


BAD = {
    "non_tensor_mapped": lambda lib, f: f.vmap(lambda x, n: x * n)(lib.ones(3), 3),
    "random_in_error_mode": lambda lib, f: f.vmap(lambda x: lib.rand(2))(lib.ones(3)),
    "grad_of_non_scalar": lambda lib, f: f.grad(lambda t: t)(lib.ones(3)),
    "returns_int": lambda lib, f: f.vmap(lambda x: 3)(lib.ones(3)),
    "batch_sizes_differ": lambda lib, f: f.vmap(lambda x, y: x + y)(lib.ones(2, 3), lib.ones(3, 3)),
    "in_dim_out_of_range": lambda lib, f: f.vmap(lambda x: x, in_dims=5)(lib.ones(3)),
    "in_dims_structure": lambda lib, f: f.vmap(lambda x: x, in_dims=(0, 1))(lib.ones(3)),
    "bad_randomness": lambda lib, f: f.vmap(lambda x: x, randomness="sometimes")(lib.ones(3)),
}


@pytest.mark.parametrize("name", BAD)
def test_func_errors_as_pytorch(torch, name):
    import torch.func as tf
    with pytest.raises(Exception) as theirs:
        BAD[name](torch, tf)
    with pytest.raises(type(theirs.value)) as ours:
        BAD[name](pt, F)
    assert str(ours.value).split("(")[0] == str(theirs.value).split("(")[0]


def test_torch_vmap_alias_and_pytree():
    from pedatorch.utils import _pytree
    assert pt.vmap is F.vmap
    leaves, spec = _pytree.tree_flatten(({"a": 1}, [2, (3,)]))
    assert leaves == [1, 2, 3]
    assert _pytree.tree_unflatten([4, 5, 6], spec) == ({"a": 4}, [5, (6,)])
    assert _pytree.tree_map(lambda v: v * 10, {"x": [1, 2]}) == {"x": [10, 20]}
